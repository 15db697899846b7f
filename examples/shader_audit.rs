//! Where the shaders index private memory with a value known only at run time: every
//! stage composed as the GPU composes it (both flavours), each index into a function's own
//! variable (`var` arrays, vectors, matrices), into an array value, or into a variable
//! passed by pointer, whose index is not a constant. A GPU driver that cannot turn such an
//! access into registers (by unrolling a loop, or into selects) keeps the variable in local
//! memory, which on NVIDIA GPUs shares the L1 that workgroup memory leaves: the vld kernel
//! with its payload quad picked by `in_quad[next & 3u]` measured a third slower on the H200,
//! where the CUDA twin picks it by selects (docs/results.md, "Thirty-first pass"). A row is
//! a place to look, not a verdict: loops of constant trip count usually unroll.
//!
//!     cargo run --release --example shader_audit [STAGE-PREFIX]

use naga::{Expression, Handle};
use parvlc::gpu::compose::{compose, Flavour};
use parvlc::gpu::registry::{source, STAGES};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let only = std::env::args().nth(1).unwrap_or_default();
    let mut total = 0;
    for stage in STAGES.iter().filter(|s| s.name.starts_with(&only)) {
        for flavour in [Flavour::Workgroup, Flavour::Subgroup] {
            let text = compose(stage.name, flavour, source)?;
            // The workgroup flavour stands for the subgroup one where they are the same.
            if flavour == Flavour::Subgroup
                && text == compose(stage.name, Flavour::Workgroup, source)?
            {
                continue;
            }
            let module = naga::front::wgsl::parse_str(&text)
                .map_err(|e| format!("{}: {}", stage.name, e.emit_to_string(&text)))?;
            let info = naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&module)
            .map_err(|e| format!("{}: {e:?}", stage.name))?;
            let functions = module.functions.iter().map(|(h, f)| (f, &info[h])).chain(
                module
                    .entry_points
                    .iter()
                    .enumerate()
                    .map(|(i, ep)| (&ep.function, info.get_entry_point(i))),
            );
            for (function, function_info) in functions {
                let n = dynamic_private_indices(&module, function, function_info);
                if n > 0 {
                    total += n;
                    println!(
                        "{:<28} {:<9} {:<28} {n}",
                        stage.name,
                        format!("{flavour:?}"),
                        function.name.as_deref().unwrap_or("?")
                    );
                }
            }
        }
    }
    println!("{total} run-time indices into private memory");
    Ok(())
}

/// The `Access` expressions of `function` whose index is not a constant and whose base is
/// private memory: a local variable (or a part of one), a pointer argument, or an array
/// value (which a backend spills into a variable to index).
fn dynamic_private_indices(
    module: &naga::Module,
    function: &naga::Function,
    info: &naga::valid::FunctionInfo,
) -> usize {
    function
        .expressions
        .iter()
        .filter(|(_, e)| match **e {
            Expression::Access { base, index } => {
                !is_constant(function, index) && is_private(module, function, info, base)
            }
            _ => false,
        })
        .count()
}

fn is_constant(function: &naga::Function, expr: Handle<Expression>) -> bool {
    matches!(
        function.expressions[expr],
        Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_)
    )
}

fn is_private(
    module: &naga::Module,
    function: &naga::Function,
    info: &naga::valid::FunctionInfo,
    base: Handle<Expression>,
) -> bool {
    match function.expressions[base] {
        Expression::LocalVariable(_) => true,
        Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
            is_private(module, function, info, base)
        }
        Expression::FunctionArgument(i) => matches!(
            module.types[function.arguments[i as usize].ty].inner,
            naga::TypeInner::Pointer {
                space: naga::AddressSpace::Function,
                ..
            }
        ),
        _ => matches!(
            info[base].ty.inner_with(&module.types),
            naga::TypeInner::Array { .. }
        ),
    }
}
