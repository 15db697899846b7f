//! Shader composition. A file names the files it needs with `//!import PATH` lines (WGSL
//! comments, so every file stays plain WGSL), PATH being the file's path under `shaders/`
//! without `.wgsl` (`//!import common/lookback`). Composition concatenates each import
//! once, dependencies first, and hoists `enable` directives to the top. Tuning is by
//! `override` constants, never by editing text.
//!
//! Flavours by a naming rule, not a table: where `X_subgroup.wgsl` lies beside `X.wgsl`,
//! the subgroup flavour takes it wherever `X` is named (as an import or as the stage
//! itself). Files always import `X`; naming `X_subgroup` is an error.
//!
//! Shared by `build.rs` (which validates every composition with naga) and the runtime
//! (which composes from the generated registry).

/// Which flavour of the workgroup primitives a stage is composed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavour {
    /// Workgroup memory only: runs everywhere.
    Workgroup,
    /// Subgroup operations, where the adapter has them.
    Subgroup,
}

/// The suffix of a file's subgroup flavour.
pub const SUBGROUP_SUFFIX: &str = "_subgroup";

/// The directive of a file whose workgroup memory only workgroups of whole subgroups use
/// correctly (the subgroup flavour's workgroup scans): the shader build marks the entry
/// points that use it, and building their pipelines checks the workgroup size.
pub const WHOLE_SUBGROUPS: &str = "//!whole_subgroups";

/// The paths a file's `//!import` lines name, in order.
pub fn imports(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("//!import "))
        .map(str::trim)
}

/// The file that stands for `path` in `flavour`.
fn resolve<'s>(
    path: &str,
    flavour: Flavour,
    source: &impl Fn(&str) -> Option<&'s str>,
) -> Result<(String, &'s str), String> {
    if path.ends_with(SUBGROUP_SUFFIX) {
        return Err(format!(
            "`{path}` is a subgroup flavour: name `{}` and the flavour picks the file",
            path.trim_end_matches(SUBGROUP_SUFFIX)
        ));
    }
    if flavour == Flavour::Subgroup {
        let variant = format!("{path}{SUBGROUP_SUFFIX}");
        if let Some(text) = source(&variant) {
            return Ok((variant, text));
        }
    }
    source(path)
        .map(|text| (path.to_string(), text))
        .ok_or_else(|| format!("no shader `{path}` (shaders/{path}.wgsl)"))
}

struct Composer<'s, F> {
    flavour: Flavour,
    source: F,
    seen: Vec<String>,
    enables: Vec<&'s str>,
    body: String,
}

impl<'s, F: Fn(&str) -> Option<&'s str>> Composer<'s, F> {
    fn visit(&mut self, path: &str, from: Option<&str>) -> Result<(), String> {
        let (name, text) = resolve(path, self.flavour, &self.source).map_err(|e| match from {
            Some(from) => format!("shaders/{from}.wgsl: {e}"),
            None => e,
        })?;
        if self.seen.contains(&name) {
            return Ok(());
        }
        self.seen.push(name.clone());
        for dep in imports(text) {
            self.visit(dep, Some(&name))?;
        }
        self.body.push_str(&format!("// ---- {name}.wgsl\n"));
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed.starts_with("enable ") {
                if !self.enables.contains(&trimmed) {
                    self.enables.push(trimmed);
                }
            } else {
                self.body.push_str(line);
                self.body.push('\n');
            }
        }
        Ok(())
    }
}

/// The complete WGSL module for the file at `path` (under `shaders/`, no extension), its
/// files looked up by `source`.
pub fn compose<'s>(
    path: &str,
    flavour: Flavour,
    source: impl Fn(&str) -> Option<&'s str>,
) -> Result<String, String> {
    let mut composer = Composer {
        flavour,
        source,
        seen: Vec::new(),
        enables: Vec::new(),
        body: String::new(),
    };
    composer.visit(path, None)?;
    let mut out = String::new();
    for e in &composer.enables {
        out.push_str(e);
        out.push('\n');
    }
    out.push_str(&composer.body);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILES: &[(&str, &str)] = &[
        ("common/inv", "// inv\nfn inv() {}\n"),
        (
            "common/inv_subgroup",
            "enable subgroups;\n// inv sub\nfn inv() {}\n",
        ),
        ("common/scan", "//!import common/inv\nfn scan() {}\n"),
        (
            "codec/stage",
            "//!import common/scan\n//!import common/inv\nfn main() {}\n",
        ),
        ("codec/bad", "//!import common/inv_subgroup\n"),
        ("codec/lost", "//!import common/nowhere\n"),
    ];

    fn lookup(path: &str) -> Option<&'static str> {
        FILES.iter().find(|(p, _)| *p == path).map(|(_, t)| *t)
    }

    fn order(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.strip_prefix("// ---- "))
            .collect()
    }

    #[test]
    fn imports_once_dependencies_first() {
        let text = compose("codec/stage", Flavour::Workgroup, lookup).unwrap();
        assert_eq!(
            order(&text),
            ["common/inv.wgsl", "common/scan.wgsl", "codec/stage.wgsl"]
        );
        assert!(!text.contains("enable"));
    }

    #[test]
    fn subgroup_flavour_takes_the_file_beside() {
        let text = compose("codec/stage", Flavour::Subgroup, lookup).unwrap();
        assert_eq!(
            order(&text),
            [
                "common/inv_subgroup.wgsl",
                "common/scan.wgsl",
                "codec/stage.wgsl"
            ]
        );
        // The directive is hoisted above every file.
        assert!(text.starts_with("enable subgroups;\n// ---- "));
        let root = compose("common/inv", Flavour::Subgroup, lookup).unwrap();
        assert_eq!(order(&root), ["common/inv_subgroup.wgsl"]);
    }

    #[test]
    fn naming_a_flavour_or_a_missing_file_is_an_error() {
        let e = compose("codec/bad", Flavour::Workgroup, lookup).unwrap_err();
        assert!(
            e.contains("shaders/codec/bad.wgsl") && e.contains("`common/inv`"),
            "{e}"
        );
        let e = compose("codec/lost", Flavour::Subgroup, lookup).unwrap_err();
        assert!(e.contains("shaders/common/nowhere.wgsl"), "{e}");
        assert!(compose("codec/none", Flavour::Workgroup, lookup).is_err());
    }
}
