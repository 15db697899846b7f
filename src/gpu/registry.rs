//! The shader registry: what `build.rs` reads from `shaders/` with naga, so that no list of
//! shaders or bindings is kept by hand. Every WGSL file's source ([`SOURCES`]), and for
//! every stage (a file with `@compute` entry points) a [`Stage`] constant in a module named
//! after its folder: `shaders/huffman/cuvle.wgsl` is [`huffman::CUVLE`], its pipelines are
//! labelled `parvlc.huffman.cuvle`. The types are written here; the tables are generated
//! into `$OUT_DIR/registry.rs` and included below.

/// One WGSL file.
#[derive(Debug)]
pub struct Source {
    /// Path under `shaders/` without `.wgsl`, as `//!import` lines name it.
    pub path: &'static str,
    pub text: &'static str,
}

/// A stage: one WGSL file with compute entry points, composed with its imports into one
/// module per [`Flavour`](super::Flavour).
#[derive(Debug)]
pub struct Stage {
    /// Path under `shaders/` without `.wgsl` (`huffman/cuvle`); errors name the stage so.
    pub name: &'static str,
    /// Label of its shader module and pipelines (`parvlc.huffman.cuvle`).
    pub label: &'static str,
    pub entries: &'static [Entry],
    /// Bind group 0 of every entry point: each binding that some entry point uses, in
    /// index order. The entry points of a stage share this one layout (an entry point
    /// that uses fewer is still bound the full set), so one bind group serves them all.
    pub bindings: &'static [Binding],
    /// Every `override` constant of the composed module.
    pub overrides: &'static [Override],
    /// Its modules keep naga's runtime checks (index clamps, loop counters) natively: the
    /// stage reads untrusted bytes (a decoder's file), its file says `//!runtime_checks`.
    /// Every other stage is built without them ([`crate::gpu::GpuOptions::runtime_checks`]).
    pub runtime_checks: bool,
}

/// A compute entry point.
#[derive(Debug)]
pub struct Entry {
    pub name: &'static str,
    pub workgroup_size: [Dim; 3],
    /// The bindings of group 0 this entry point itself uses (a subset of the stage's).
    pub bindings: &'static [u32],
    /// In the subgroup flavour it runs a workgroup scan that takes each subgroup's last
    /// lane (its workgroup memory is declared in a file saying `//!whole_subgroups`): its
    /// workgroups must be whole subgroups.
    pub whole_subgroups: bool,
}

/// One dimension of a workgroup size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    Fixed(u32),
    /// Set by this override constant.
    Override(&'static str),
    /// An expression of override constants.
    Expression,
}

/// A buffer binding of group 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub index: u32,
    pub kind: BindingKind,
    /// The WGSL variable (names joined by `|` where several alias one binding).
    pub name: &'static str,
}

/// How a stage sees a buffer: from the variable's address space and access mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// `var<uniform>`
    Uniform,
    /// `var<storage, read>`
    ReadOnly,
    /// `var<storage, read_write>`
    ReadWrite,
}

/// A pipeline-overridable constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Override {
    pub name: &'static str,
    pub ty: OverrideType,
}

/// The scalar type of an override constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverrideType {
    Bool,
    I32,
    U32,
    F32,
    F16,
}

impl OverrideType {
    /// Whether `value` (as wgpu takes every constant, an f64) is one of this type's.
    pub fn holds(self, value: f64) -> bool {
        let integral = value.fract() == 0.0;
        match self {
            OverrideType::Bool => value == 0.0 || value == 1.0,
            OverrideType::I32 => integral && (i32::MIN as f64..=i32::MAX as f64).contains(&value),
            OverrideType::U32 => integral && (0.0..=u32::MAX as f64).contains(&value),
            OverrideType::F32 | OverrideType::F16 => value.is_finite(),
        }
    }
}

impl Stage {
    pub fn entry(&self, name: &str) -> Option<&'static Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    pub fn override_type(&self, name: &str) -> Option<OverrideType> {
        self.overrides.iter().find(|o| o.name == name).map(|o| o.ty)
    }
}

/// The text of the file at `path` (under `shaders/`, without `.wgsl`).
pub fn source(path: &str) -> Option<&'static str> {
    SOURCES.iter().find(|s| s.path == path).map(|s| s.text)
}

include!(concat!(env!("OUT_DIR"), "/registry.rs"));

#[cfg(test)]
mod tests {
    use super::super::compose::{compose, SUBGROUP_SUFFIX};
    use super::super::Flavour;
    use super::*;

    #[test]
    fn every_stage_composes_from_the_registry_in_both_flavours() {
        assert!(!STAGES.is_empty());
        for stage in STAGES {
            for flavour in [Flavour::Workgroup, Flavour::Subgroup] {
                let text = compose(stage.name, flavour, source)
                    .unwrap_or_else(|e| panic!("{} ({flavour:?}): {e}", stage.name));
                for entry in stage.entries {
                    assert!(
                        text.contains(&format!("fn {}(", entry.name)),
                        "{}",
                        stage.name
                    );
                }
            }
        }
    }

    #[test]
    fn stages_follow_the_naming_rule() {
        for stage in STAGES {
            assert_eq!(
                stage.label,
                format!("parvlc.{}", stage.name.replace('/', "."))
            );
            assert!(source(stage.name).is_some(), "{}", stage.name);
            assert!(!stage.name.starts_with("common/") && !stage.name.ends_with(SUBGROUP_SUFFIX));
            for entry in stage.entries {
                for i in entry.bindings {
                    assert!(
                        stage.bindings.iter().any(|b| b.index == *i),
                        "{}",
                        stage.name
                    );
                }
            }
            // Every binding of the shared layout is some entry point's.
            for b in stage.bindings {
                assert!(stage.entries.iter().any(|e| e.bindings.contains(&b.index)));
            }
        }
    }

    #[test]
    fn the_histogram_as_its_wgsl_declares_it() {
        let h = &huffman::HISTOGRAM;
        assert_eq!(h.name, "huffman/histogram");
        let kinds: Vec<(u32, BindingKind)> = h.bindings.iter().map(|b| (b.index, b.kind)).collect();
        assert_eq!(
            kinds,
            [
                (0, BindingKind::Uniform),
                (1, BindingKind::ReadOnly),
                (2, BindingKind::ReadWrite)
            ]
        );
        let main = h.entry("main").unwrap();
        assert_eq!(main.workgroup_size[0], Dim::Override("WG_SIZE"));
        assert_eq!(h.override_type("WG_SIZE"), Some(OverrideType::U32));
        assert_eq!(h.override_type("NET"), None);
    }

    #[test]
    fn override_values_fit_their_type() {
        assert!(OverrideType::Bool.holds(1.0) && !OverrideType::Bool.holds(2.0));
        assert!(OverrideType::U32.holds(4294967295.0) && !OverrideType::U32.holds(-1.0));
        assert!(!OverrideType::U32.holds(0.5) && OverrideType::I32.holds(-1.0));
        assert!(OverrideType::F32.holds(0.5) && !OverrideType::F32.holds(f64::NAN));
    }
}
