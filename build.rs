//! The shader build: finds every `.wgsl` under `shaders/` (none is listed by hand),
//! composes each file with its imports in both flavours, validates every composition with
//! naga (a broken shader fails the build, not a test), and generates `$OUT_DIR/registry.rs`
//! (`src/gpu/registry.rs`): every file's source, and for every stage (a file with
//! `@compute` entry points) its entry points, group-0 bindings and override constants, as
//! naga reads them. Folder rules it enforces: `X_subgroup.wgsl` lies beside an `X.wgsl`;
//! `common/` holds imported files only, each used by the stages of two folders or more; a
//! codec folder's files are imported from that folder only.

#[path = "src/gpu/compose.rs"]
#[allow(dead_code)]
mod compose;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use compose::{compose, imports, Flavour, SUBGROUP_SUFFIX, WHOLE_SUBGROUPS};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};

/// A WGSL file: its path under `shaders/` without `.wgsl`, where it lies, its text.
struct File {
    path: String,
    abs: PathBuf,
    text: String,
}

fn walk(dir: &Path, root: &Path, files: &mut Vec<File>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    paths.sort();
    for abs in paths {
        if abs.is_dir() {
            walk(&abs, root, files)?;
        } else if abs.extension().is_some_and(|e| e == "wgsl") {
            let rel = abs.strip_prefix(root).map_err(|e| e.to_string())?;
            let path = rel.with_extension("").to_string_lossy().replace('\\', "/");
            let text =
                std::fs::read_to_string(&abs).map_err(|e| format!("{}: {e}", abs.display()))?;
            files.push(File { path, abs, text });
        }
    }
    Ok(())
}

/// The directive that keeps naga's runtime checks in a stage's modules (see
/// `Stage::runtime_checks`).
const RUNTIME_CHECKS: &str = "//!runtime_checks";

/// Every `//!` line is `//!import PATH`, `//!runtime_checks` (in a stage's own file) or
/// `//!whole_subgroups`: a misspelt directive would otherwise drop a decoder's checks, or a
/// guard, without a word.
fn check_directives(files: &[File], errors: &mut Vec<String>) {
    for f in files {
        for (i, line) in f.text.lines().enumerate() {
            let line = line.trim();
            if !line.starts_with("//!") || line.starts_with("//!import ") || line == WHOLE_SUBGROUPS
            {
                continue;
            }
            if line != RUNTIME_CHECKS || f.path.starts_with("common/") {
                errors.push(format!(
                    "shaders/{}.wgsl:{}: unknown directive `{line}` (`//!import PATH`, `{WHOLE_SUBGROUPS}`, or `{RUNTIME_CHECKS}` in a stage's own file)",
                    f.path,
                    i + 1
                ));
            }
        }
    }
}

/// What the registry records of a stage, as read from one flavour's module.
#[derive(Debug, PartialEq)]
struct Shape {
    /// (name, workgroup size as Rust, used binding indices)
    entries: Vec<(String, String, Vec<u32>)>,
    /// index -> (kind, variable names)
    bindings: BTreeMap<u32, (&'static str, Vec<String>)>,
    /// (name, type)
    overrides: Vec<(String, &'static str)>,
    /// The stage's own file says `//!runtime_checks`: it reads untrusted bytes, so its
    /// modules keep naga's runtime checks.
    runtime_checks: bool,
    /// Per entry point: in the subgroup flavour it uses workgroup memory of a file that
    /// says `//!whole_subgroups`.
    whole_subgroups: Vec<bool>,
}

/// The file (`PATH.wgsl`) that line `line` (1-based) of a composed module comes from, and
/// the line of its `// ---- PATH.wgsl` marker, which composition writes before each file.
fn origin_marker(text: &str, line: u32) -> Option<(&str, usize)> {
    let mut found = None;
    for (i, l) in text.lines().enumerate().take(line as usize) {
        if let Some(name) = l.strip_prefix("// ---- ") {
            found = Some((name, i + 1));
        }
    }
    found
}

/// Where line `line` of a composed module comes from: `shaders/PATH.wgsl:N`.
fn origin(text: &str, line: u32) -> Option<String> {
    origin_marker(text, line).map(|(name, at)| format!("shaders/{name}:{}", line as usize - at))
}

/// The file (path under `shaders/`, no extension) that line `line` of a composed module
/// comes from.
fn origin_file(text: &str, line: u32) -> Option<&str> {
    origin_marker(text, line).and_then(|(name, _)| name.strip_suffix(".wgsl"))
}

/// Per entry point of a subgroup-flavour module: whether it uses workgroup memory declared
/// in a file that says `//!whole_subgroups` (a workgroup scan that needs whole subgroups).
fn whole_subgroup_entries<'s>(
    module: &naga::Module,
    info: &ModuleInfo,
    text: &str,
    lookup: &impl Fn(&str) -> Option<&'s str>,
) -> Vec<bool> {
    let marked = |h: naga::Handle<naga::GlobalVariable>| {
        let line = module
            .global_variables
            .get_span(h)
            .location(text)
            .line_number;
        origin_file(text, line)
            .and_then(lookup)
            .is_some_and(|t| t.lines().any(|l| l.trim() == WHOLE_SUBGROUPS))
    };
    (0..module.entry_points.len())
        .map(|i| {
            let uses = info.get_entry_point(i);
            module.global_variables.iter().any(|(h, var)| {
                var.space == naga::AddressSpace::WorkGroup && !uses[h].is_empty() && marked(h)
            })
        })
        .collect()
}

fn parse_and_validate(name: &str, text: &str) -> Result<(naga::Module, ModuleInfo), String> {
    let at = |location: Option<naga::SourceLocation>| {
        location
            .and_then(|l| origin(text, l.line_number))
            .map(|o| format!(" at {o}"))
            .unwrap_or_default()
    };
    let module = naga::front::wgsl::parse_str(text)
        .map_err(|e| format!("{name}{}: {}", at(e.location(text)), e.emit_to_string(text)))?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| format!("{name}{}: {}", at(e.location(text)), e.emit_to_string(text)))?;
    Ok((module, info))
}

fn override_name(module: &naga::Module, h: naga::Handle<naga::Override>) -> String {
    module.overrides[h].name.clone().unwrap_or_default()
}

fn dim(module: &naga::Module, ep: &naga::EntryPoint, i: usize) -> String {
    match ep.workgroup_size_overrides.and_then(|o| o[i]) {
        None => format!("Dim::Fixed({})", ep.workgroup_size[i]),
        Some(expr) => match module.global_expressions[expr] {
            naga::Expression::Override(h) => {
                format!("Dim::Override({:?})", override_name(module, h))
            }
            _ => "Dim::Expression".to_string(),
        },
    }
}

fn shape(name: &str, module: &naga::Module, info: &ModuleInfo) -> Result<Shape, String> {
    let mut bindings: BTreeMap<u32, (&'static str, Vec<String>)> = BTreeMap::new();
    let mut entries = Vec::new();
    for (i, ep) in module.entry_points.iter().enumerate() {
        if ep.stage != naga::ShaderStage::Compute {
            return Err(format!("{name}: entry point `{}` is not @compute", ep.name));
        }
        let uses = info.get_entry_point(i);
        let mut used = BTreeSet::new();
        for (h, var) in module.global_variables.iter() {
            let Some(rb) = &var.binding else { continue };
            if uses[h].is_empty() {
                continue;
            }
            let var_name = var.name.clone().unwrap_or_default();
            if rb.group != 0 {
                return Err(format!(
                    "{name}: `{var_name}` is in group {}; stages use group 0 only",
                    rb.group
                ));
            }
            let kind = match var.space {
                naga::AddressSpace::Uniform => "Uniform",
                naga::AddressSpace::Storage { access }
                    if access.contains(naga::StorageAccess::STORE) =>
                {
                    "ReadWrite"
                }
                naga::AddressSpace::Storage { .. } => "ReadOnly",
                _ => {
                    return Err(format!(
                        "{name}: `{var_name}` is not a buffer; stages bind buffers only"
                    ))
                }
            };
            let slot = bindings.entry(rb.binding).or_insert((kind, Vec::new()));
            // Variables aliasing one binding: the layout takes the widest access.
            match (slot.0, kind) {
                (a, b) if a == b => {}
                ("ReadOnly", "ReadWrite") => slot.0 = "ReadWrite",
                ("ReadWrite", "ReadOnly") => {}
                (a, b) => {
                    return Err(format!(
                        "{name}: binding {} is both {a} and {b}",
                        rb.binding
                    ))
                }
            }
            if !slot.1.contains(&var_name) {
                slot.1.push(var_name);
            }
            used.insert(rb.binding);
        }
        let size = format!(
            "[{}, {}, {}]",
            dim(module, ep, 0),
            dim(module, ep, 1),
            dim(module, ep, 2)
        );
        entries.push((ep.name.clone(), size, used.into_iter().collect()));
    }
    let mut overrides = Vec::new();
    for (_, o) in module.overrides.iter() {
        let o_name = o.name.clone().unwrap_or_default();
        let ty = match module.types[o.ty].inner {
            naga::TypeInner::Scalar(naga::Scalar { kind, width }) => match (kind, width) {
                (naga::ScalarKind::Bool, _) => "Bool",
                (naga::ScalarKind::Sint, 4) => "I32",
                (naga::ScalarKind::Uint, 4) => "U32",
                (naga::ScalarKind::Float, 4) => "F32",
                (naga::ScalarKind::Float, 2) => "F16",
                _ => {
                    return Err(format!(
                        "{name}: override `{o_name}` has an unsupported type"
                    ))
                }
            },
            _ => return Err(format!("{name}: override `{o_name}` is not a scalar")),
        };
        overrides.push((o_name, ty));
    }
    Ok(Shape {
        entries,
        bindings,
        overrides,
        runtime_checks: false,
        whole_subgroups: Vec::new(),
    })
}

/// Rust identifier of a folder (module) or a stage (constant), or why it cannot be one.
fn ident(segment: &str, upper: bool) -> Result<String, String> {
    let ok = segment
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase())
        && segment
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ok {
        return Err(format!(
            "`{segment}`: shader folders and files are named in lower_snake_case"
        ));
    }
    Ok(if upper {
        segment.to_ascii_uppercase()
    } else {
        segment.to_string()
    })
}

/// The folder rules (module doc); imports of unknown files are reported by composition.
fn check_folders(files: &[File], errors: &mut Vec<String>) {
    let known: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for f in files {
        if let Some(base) = f.path.strip_suffix(SUBGROUP_SUFFIX) {
            if !known.contains(base) {
                errors.push(format!(
                    "shaders/{}.wgsl: no shaders/{base}.wgsl beside it",
                    f.path
                ));
            }
        }
        let folder = f.path.rsplit_once('/').map_or("", |(d, _)| d);
        for dep in imports(&f.text) {
            let dep_folder = dep.rsplit_once('/').map_or("", |(d, _)| d);
            if dep_folder != "common" && dep_folder != folder {
                errors.push(format!(
                    "shaders/{}.wgsl imports {dep}: a file of {dep_folder}/ is imported from {dep_folder}/ only; move what two folders share to common/",
                    f.path
                ));
            }
        }
    }
}

/// A file of `common/` that the stages of only one folder use (through any chain of
/// imports, in either flavour) belongs in that folder.
fn check_common(files: &[File], stages: &[(String, Shape)], errors: &mut Vec<String>) {
    let texts: BTreeMap<&str, &str> = files
        .iter()
        .map(|f| (f.path.as_str(), f.text.as_str()))
        .collect();
    let mut users: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (stage, _) in stages {
        let folder = stage.rsplit_once('/').map_or("", |(d, _)| d);
        let mut todo = vec![stage.as_str()];
        let mut seen = BTreeSet::new();
        while let Some(path) = todo.pop() {
            if !seen.insert(path) {
                continue;
            }
            users.entry(path).or_default().insert(folder);
            for p in [path.to_string(), format!("{path}{SUBGROUP_SUFFIX}")] {
                if let Some(text) = texts.get(p.as_str()) {
                    todo.extend(imports(text));
                }
            }
        }
    }
    for (path, folders) in users {
        if let (Some(file), [folder]) = (
            path.strip_prefix("common/"),
            &folders.into_iter().collect::<Vec<_>>()[..],
        ) {
            errors.push(format!(
                "shaders/{path}.wgsl: only {folder}/ uses it; it belongs in shaders/{folder}/{file}.wgsl"
            ));
        }
    }
}

/// One stage's constant.
fn stage_item(path: &str, shape: &Shape) -> Result<String, String> {
    let file = path.rsplit_once('/').map_or(path, |(_, f)| f);
    let mut s = String::new();
    let label = format!("parvlc.{}", path.replace('/', "."));
    writeln!(s, "/// `shaders/{path}.wgsl`, pipelines `{label}`.").ok();
    writeln!(s, "pub static {}: Stage = Stage {{", ident(file, true)?).ok();
    writeln!(
        s,
        "    name: {path:?},\n    label: {label:?},\n    entries: &["
    )
    .ok();
    for (i, (name, size, used)) in shape.entries.iter().enumerate() {
        let whole = shape.whole_subgroups.get(i).copied().unwrap_or(false);
        writeln!(
            s,
            "        Entry {{ name: {name:?}, workgroup_size: {size}, bindings: &{used:?}, whole_subgroups: {whole} }},"
        )
        .ok();
    }
    writeln!(s, "    ],\n    bindings: &[").ok();
    for (index, (kind, names)) in &shape.bindings {
        let names = names.join("|");
        writeln!(
            s,
            "        Binding {{ index: {index}, kind: BindingKind::{kind}, name: {names:?} }},"
        )
        .ok();
    }
    writeln!(s, "    ],\n    overrides: &[").ok();
    for (name, ty) in &shape.overrides {
        writeln!(
            s,
            "        Override {{ name: {name:?}, ty: OverrideType::{ty} }},"
        )
        .ok();
    }
    writeln!(
        s,
        "    ],\n    runtime_checks: {},\n}};",
        shape.runtime_checks
    )
    .ok();
    Ok(s)
}

/// Stages grouped into nested modules by folder.
#[derive(Default)]
struct Tree {
    items: Vec<String>,
    children: BTreeMap<String, Tree>,
}

impl Tree {
    fn emit(&self, out: &mut String) {
        for item in &self.items {
            out.push_str(item);
        }
        for (name, child) in &self.children {
            writeln!(
                out,
                "pub mod {name} {{\n#[allow(unused_imports)]\nuse super::*;"
            )
            .ok();
            child.emit(out);
            out.push_str("}\n");
        }
    }
}

fn generate(files: &[File], stages: &[(String, Shape)]) -> Result<String, String> {
    let mut out = String::from("// Generated by build.rs from shaders/: do not edit.\n\n");
    out.push_str("/// Every WGSL file under `shaders/`.\npub static SOURCES: &[Source] = &[\n");
    for f in files {
        let abs = f
            .abs
            .to_str()
            .ok_or_else(|| format!("{}: path is not UTF-8", f.abs.display()))?;
        writeln!(
            out,
            "    Source {{ path: {:?}, text: include_str!({abs:?}) }},",
            f.path
        )
        .ok();
    }
    out.push_str("];\n\n/// Every stage.\npub static STAGES: &[&Stage] = &[\n");
    for (path, _) in stages {
        let rust = path
            .split('/')
            .enumerate()
            .map(|(i, seg)| ident(seg, i + 1 == path.split('/').count()))
            .collect::<Result<Vec<_>, _>>()?
            .join("::");
        writeln!(out, "    &{rust},").ok();
    }
    out.push_str("];\n\n");
    let mut tree = Tree::default();
    for (path, shape) in stages {
        let mut node = &mut tree;
        let segments: Vec<&str> = path.split('/').collect();
        for seg in &segments[..segments.len() - 1] {
            node = node.children.entry(ident(seg, false)?).or_default();
        }
        node.items.push(stage_item(path, shape)?);
    }
    tree.emit(&mut out);
    Ok(out)
}

fn run() -> Result<(), Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| vec![e.to_string()])?);
    let mut files = Vec::new();
    walk(&root, &root, &mut files).map_err(|e| vec![e])?;
    let mut errors = Vec::new();
    check_folders(&files, &mut errors);
    check_directives(&files, &mut errors);
    let texts: BTreeMap<&str, &str> = files
        .iter()
        .map(|f| (f.path.as_str(), f.text.as_str()))
        .collect();
    let lookup = |p: &str| texts.get(p).copied();
    let mut stages = Vec::new();
    for f in &files {
        // A subgroup flavour is composed in its base file's subgroup composition.
        if f.path.ends_with(SUBGROUP_SUFFIX) {
            continue;
        }
        let mut shapes = Vec::new();
        let mut whole = Vec::new();
        for flavour in [Flavour::Workgroup, Flavour::Subgroup] {
            let name = format!("shaders/{}.wgsl ({flavour:?} flavour)", f.path);
            let checked = compose(&f.path, flavour, lookup).and_then(|text| {
                parse_and_validate(&name, &text)
                    .and_then(|(module, info)| {
                        if flavour == Flavour::Subgroup {
                            whole = whole_subgroup_entries(&module, &info, &text, &lookup);
                        }
                        shape(&name, &module, &info)
                    })
                    .map_err(|e| {
                        // naga's line numbers are those of the composed module: keep it.
                        let dump = out_dir
                            .join("composed")
                            .join(format!("{}.{flavour:?}.wgsl", f.path));
                        let kept = dump
                            .parent()
                            .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
                            && std::fs::write(&dump, &text).is_ok();
                        if kept {
                            format!("{e}\n(composed module: {})", dump.display())
                        } else {
                            e
                        }
                    })
            });
            match checked {
                Ok(s) => shapes.push(s),
                Err(e) => errors.push(e),
            }
        }
        let [workgroup, subgroup] = &shapes[..] else {
            continue;
        };
        if workgroup != subgroup {
            errors.push(format!(
                "shaders/{}.wgsl: its flavours differ in entry points, bindings or overrides:\n  workgroup: {workgroup:?}\n  subgroup:  {subgroup:?}",
                f.path
            ));
        } else if !workgroup.entries.is_empty() {
            if f.path.starts_with("common/") {
                errors.push(format!(
                    "shaders/{}.wgsl: common/ holds imported files, not stages",
                    f.path
                ));
            }
            let mut shape = shapes.swap_remove(0);
            shape.runtime_checks = f.text.lines().any(|l| l.trim() == RUNTIME_CHECKS);
            shape.whole_subgroups = whole;
            stages.push((f.path.clone(), shape));
        }
    }
    if errors.is_empty() {
        // Only on a complete set of stages: a failed one would hide its imports.
        check_common(&files, &stages, &mut errors);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let registry = generate(&files, &stages).map_err(|e| vec![e])?;
    std::fs::write(out_dir.join("registry.rs"), registry).map_err(|e| vec![e.to_string()])
}

fn main() {
    println!("cargo:rerun-if-changed=shaders");
    println!("cargo:rerun-if-changed=src/gpu/compose.rs");
    if let Err(errors) = run() {
        for e in &errors {
            println!("cargo:warning={}", e.lines().next().unwrap_or(""));
        }
        panic!("shader build failed:\n{}", errors.join("\n"));
    }
}
