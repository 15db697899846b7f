//! Shader composition: a stage file names the shared files it needs with `//!import NAME`
//! lines (WGSL comments, so every file stays plain WGSL). Composition concatenates each
//! import once, dependencies first, and hoists `enable` directives to the top.
//! Tuning is by `override` constants, never by editing text.
//! Shared by `build.rs` (validation with naga) and the runtime.

/// Every WGSL file: (import name, source). Stages are the ones with entry points.
pub const SOURCES: &[(&str, &str)] = &[
    (
        "invocation",
        include_str!("../../shaders/lib/invocation.wgsl"),
    ),
    (
        "invocation_subgroup",
        include_str!("../../shaders/lib/invocation_subgroup.wgsl"),
    ),
    ("wg_scan", include_str!("../../shaders/lib/wg_scan.wgsl")),
    (
        "wg_scan_subgroup",
        include_str!("../../shaders/lib/wg_scan_subgroup.wgsl"),
    ),
    ("lookback", include_str!("../../shaders/lib/lookback.wgsl")),
    ("bitpack", include_str!("../../shaders/lib/bitpack.wgsl")),
    (
        "bitwriter",
        include_str!("../../shaders/lib/bitwriter.wgsl"),
    ),
    ("scan_u32", include_str!("../../shaders/scan_u32.wgsl")),
    ("scan_spine", include_str!("../../shaders/scan_spine.wgsl")),
    (
        "vle_histogram",
        include_str!("../../shaders/vle_histogram.wgsl"),
    ),
    ("vle_cuvle", include_str!("../../shaders/vle_cuvle.wgsl")),
    (
        "bitwriter_wg",
        include_str!("../../shaders/lib/bitwriter_wg.wgsl"),
    ),
    ("vle_pavle", include_str!("../../shaders/vle_pavle.wgsl")),
    (
        "vle_pavle_compact",
        include_str!("../../shaders/vle_pavle_compact.wgsl"),
    ),
    (
        "vle_bytestream",
        include_str!("../../shaders/vle_bytestream.wgsl"),
    ),
    (
        "cavlc_frame",
        include_str!("../../shaders/lib/cavlc_frame.wgsl"),
    ),
    (
        "cavlc_block",
        include_str!("../../shaders/lib/cavlc_block.wgsl"),
    ),
    (
        "cavlc_nbr",
        include_str!("../../shaders/lib/cavlc_nbr.wgsl"),
    ),
    (
        "cavlc_nbr_subgroup",
        include_str!("../../shaders/lib/cavlc_nbr_subgroup.wgsl"),
    ),
    (
        "cavlc_cavlcu",
        include_str!("../../shaders/cavlc_cavlcu.wgsl"),
    ),
    ("cavlc_pack", include_str!("../../shaders/cavlc_pack.wgsl")),
    (
        "cavlc_su_forward",
        include_str!("../../shaders/cavlc_su_forward.wgsl"),
    ),
    (
        "cavlc_su_backward",
        include_str!("../../shaders/cavlc_su_backward.wgsl"),
    ),
    (
        "cavlc_su_code",
        include_str!("../../shaders/cavlc_su_code.wgsl"),
    ),
    (
        "bitstuff_batch",
        include_str!("../../shaders/lib/bitstuff_batch.wgsl"),
    ),
    (
        "bitstuff_ops",
        include_str!("../../shaders/lib/bitstuff_ops.wgsl"),
    ),
    (
        "bitstuff_scan",
        include_str!("../../shaders/lib/bitstuff_scan.wgsl"),
    ),
    (
        "bitstuff_scan_subgroup",
        include_str!("../../shaders/lib/bitstuff_scan_subgroup.wgsl"),
    ),
    (
        "bitstuff_wg",
        include_str!("../../shaders/lib/bitstuff_wg.wgsl"),
    ),
    (
        "bitstuff_vote",
        include_str!("../../shaders/bitstuff_vote.wgsl"),
    ),
    (
        "bitstuff_fsm",
        include_str!("../../shaders/bitstuff_fsm.wgsl"),
    ),
    (
        "j2k_t1_io",
        include_str!("../../shaders/lib/j2k_t1_io.wgsl"),
    ),
    (
        "j2k_t1_model",
        include_str!("../../shaders/lib/j2k_t1_model.wgsl"),
    ),
    ("j2k_mq", include_str!("../../shaders/lib/j2k_mq.wgsl")),
    (
        "j2k_t1_raw",
        include_str!("../../shaders/lib/j2k_t1_raw.wgsl"),
    ),
    ("j2k_tier1", include_str!("../../shaders/j2k_tier1.wgsl")),
    (
        "j2k_tier1_split",
        include_str!("../../shaders/j2k_tier1_split.wgsl"),
    ),
    ("j2k_dwt", include_str!("../../shaders/j2k_dwt.wgsl")),
];

/// The stages (files with entry points), as pipelines are labelled `parvlc.NAME`.
pub const STAGES: &[&str] = &[
    "scan_u32",
    "scan_spine",
    "vle_histogram",
    "vle_cuvle",
    "vle_bytestream",
    "vle_pavle",
    "vle_pavle_compact",
    "cavlc_cavlcu",
    "cavlc_pack",
    "cavlc_su_forward",
    "cavlc_su_backward",
    "cavlc_su_code",
    "bitstuff_vote",
    "bitstuff_fsm",
    "j2k_tier1",
    "j2k_tier1_split",
    "j2k_dwt",
];

/// Which flavour of the workgroup primitives a stage is composed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavour {
    /// Workgroup memory only: runs everywhere.
    Workgroup,
    /// Subgroup operations (`enable subgroups;`), where the adapter has them.
    Subgroup,
}

fn source(name: &str) -> Result<&'static str, String> {
    SOURCES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .ok_or_else(|| format!("unknown shader import `{name}`"))
}

fn resolve(name: &str, flavour: Flavour) -> &str {
    match (flavour, name) {
        (Flavour::Subgroup, "invocation") => "invocation_subgroup",
        (Flavour::Subgroup, "wg_scan") => "wg_scan_subgroup",
        (Flavour::Subgroup, "bitstuff_scan") => "bitstuff_scan_subgroup",
        (Flavour::Subgroup, "cavlc_nbr") => "cavlc_nbr_subgroup",
        _ => name,
    }
}

fn visit(
    name: &str,
    flavour: Flavour,
    seen: &mut Vec<String>,
    enables: &mut Vec<String>,
    body: &mut String,
) -> Result<(), String> {
    let name = resolve(name, flavour);
    if seen.iter().any(|s| s == name) {
        return Ok(());
    }
    seen.push(name.to_string());
    let text = source(name)?;
    for line in text.lines() {
        if let Some(dep) = line.trim().strip_prefix("//!import ") {
            visit(dep.trim(), flavour, seen, enables, body)?;
        }
    }
    body.push_str(&format!("// ---- {name}.wgsl\n"));
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("enable ") {
            if !enables.iter().any(|e| e == trimmed) {
                enables.push(trimmed.to_string());
            }
        } else {
            body.push_str(line);
            body.push('\n');
        }
    }
    Ok(())
}

/// The complete WGSL module for `stage`.
pub fn compose(stage: &str, flavour: Flavour) -> Result<String, String> {
    let mut seen = Vec::new();
    let mut enables = Vec::new();
    let mut body = String::new();
    visit(stage, flavour, &mut seen, &mut enables, &mut body)?;
    let mut out = String::new();
    for e in &enables {
        out.push_str(e);
        out.push('\n');
    }
    out.push_str(&body);
    Ok(out)
}
