//! Validates every shader with naga, so a broken shader fails the build, not a test:
//! each file on its own where it stands alone, and every stage composed in both flavours.

#[path = "src/gpu/compose.rs"]
#[allow(dead_code)]
mod compose;

use compose::{compose, Flavour, SOURCES, STAGES};

fn validate(name: &str, text: &str) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(text)
        .map_err(|e| format!("{name}: {}", e.emit_to_string(text)))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| format!("{name}: {}", e.emit_to_string(text)))?;
    Ok(())
}

fn main() {
    println!("cargo:rerun-if-changed=shaders");
    println!("cargo:rerun-if-changed=src/gpu/compose.rs");
    let mut errors = Vec::new();
    for (name, _) in SOURCES {
        // Every file, composed with what it imports, is a valid module.
        for flavour in [Flavour::Workgroup, Flavour::Subgroup] {
            match compose(name, flavour) {
                Ok(text) => {
                    if let Err(e) = validate(&format!("{name} ({flavour:?})"), &text) {
                        errors.push(e);
                    }
                }
                Err(e) => errors.push(e),
            }
        }
    }
    for stage in STAGES {
        if !SOURCES.iter().any(|(n, _)| n == stage) {
            errors.push(format!("stage {stage} has no source"));
        }
    }
    if !errors.is_empty() {
        for e in &errors {
            println!("cargo:warning={}", e.lines().next().unwrap_or(""));
        }
        panic!("shader validation failed:\n{}", errors.join("\n"));
    }
}
