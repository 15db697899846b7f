use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::compose::compose;
use super::registry::{self, BindingKind, Dim, Entry, Stage};
use super::Gpu;
use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    stage: &'static str,
    entry: &'static str,
    constants: Vec<(&'static str, u64)>,
}

impl Key {
    fn of(stage: &Stage, entry: &'static str, constants: &[(&'static str, f64)]) -> Key {
        Key {
            stage: stage.name,
            entry,
            constants: constants.iter().map(|(k, v)| (*k, v.to_bits())).collect(),
        }
    }
}

pub(crate) struct Built {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
    stage: &'static Stage,
}

/// A pipeline being built or built. Its lock is held while it builds, so threads that
/// ask for the same pipeline at once (the stream's coders, on their first chunks) wait for
/// one compile instead of each running its own: a cold driver compile takes up to a
/// second and tens of megabytes while it runs.
type Slot = Arc<Mutex<Option<Arc<Built>>>>;

/// Pipelines are compiled once per (stage, entry point, override constants).
#[derive(Default)]
pub(crate) struct PipelineCache {
    built: Mutex<HashMap<Key, Slot>>,
    modules: Mutex<HashMap<&'static str, Arc<wgpu::ShaderModule>>>,
    layouts: Mutex<HashMap<&'static str, Arc<wgpu::BindGroupLayout>>>,
    /// Pipelines created so far (each key once).
    created: std::sync::atomic::AtomicU64,
}

/// A pipeline asked for before its use: stage, entry point, override constants (as
/// [`Gpu::pipeline`] takes them).
pub(crate) type PipelineKey = (&'static Stage, &'static str, Vec<(&'static str, f64)>);

/// Pipelines being built on threads of their own ([`Gpu::build_ahead`]). Dropping it
/// waits for them, so no build outlives the run that asked for it (and the context,
/// whose drop keeps the compiled pipelines for the next process, is not left to a
/// thread the process may not wait for).
#[must_use = "dropping it waits for the builds"]
pub(crate) struct BuildingAhead(Vec<std::thread::JoinHandle<()>>);

impl Drop for BuildingAhead {
    fn drop(&mut self) {
        for builder in self.0.drain(..) {
            // A build's error is its user's to report: that call builds again.
            let _ = builder.join();
        }
    }
}

fn poisoned(stage: &'static str) -> Error {
    Error::Gpu {
        stage,
        message: "pipeline cache poisoned".into(),
    }
}

/// What the registry says against `entry` and `constants`: a clear error here instead of
/// wgpu's validation error later.
fn check_request(
    stage: &'static Stage,
    entry: &str,
    constants: &[(&'static str, f64)],
) -> Result<()> {
    let wrong = |message: String| {
        Err(Error::Gpu {
            stage: stage.name,
            message,
        })
    };
    if stage.entry(entry).is_none() {
        let names: Vec<&str> = stage.entries.iter().map(|e| e.name).collect();
        return wrong(format!(
            "no entry point `{entry}` (it has {})",
            names.join(", ")
        ));
    }
    for &(name, value) in constants {
        match stage.override_type(name) {
            None => return wrong(format!("no override constant `{name}`")),
            Some(ty) if !ty.holds(value) => {
                return wrong(format!("override `{name}` = {value} is not a {ty:?}"))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Invocations in a workgroup of `entry`, where its size is fixed or set by `constants`.
fn workgroup_invocations(entry: &Entry, constants: &[(&'static str, f64)]) -> Option<u32> {
    entry.workgroup_size.iter().try_fold(1u32, |n, d| {
        let d = match *d {
            Dim::Fixed(v) => v,
            Dim::Override(name) => constants.iter().find(|c| c.0 == name)?.1 as u32,
            Dim::Expression => return None,
        };
        n.checked_mul(d)
    })
}

/// A subgroup-flavour stage whose workgroup scans take each subgroup's last lane needs
/// workgroups of whole subgroups: `size` (where known) a multiple of the adapter's widest
/// subgroup, or a clear error rather than wrong totals (or stores past them).
fn check_whole_subgroups(stage: &Stage, size: Option<u32>, widest: u32) -> Result<()> {
    match size {
        Some(n) if widest > 0 && !n.is_multiple_of(widest) => Err(Error::InvalidArgument(format!(
            "{}: a workgroup of {n} invocations is not a whole number of this adapter's \
             subgroups (up to {widest} wide), which its subgroup flavour needs: use a \
             workgroup size that is a multiple of {widest}, or the workgroup flavour",
            stage.label
        ))),
        _ => Ok(()),
    }
}

impl Gpu {
    /// The compute pipeline for `entry` of `stage` with these override constants (values
    /// as wgpu takes them: u32 and bool both as f64).
    pub(crate) fn pipeline(
        &self,
        stage: &'static Stage,
        entry: &'static str,
        constants: &[(&'static str, f64)],
    ) -> Result<Arc<Built>> {
        let cache = &self.pipelines;
        let name = stage.name;
        let key = Key::of(stage, entry, constants);
        let slot = cache
            .built
            .lock()
            .map_err(|_| poisoned(name))?
            .entry(key)
            .or_default()
            .clone();
        let mut slot = slot.lock().map_err(|_| poisoned(name))?;
        if let Some(p) = &*slot {
            return Ok(p.clone());
        }
        // Checked once per build, not on every lookup (an empty slot for a refused key
        // stays empty).
        check_request(stage, entry, constants)?;
        self.check_subgroups(stage, entry, constants)?;
        let started = super::clock();
        let module = {
            let mut modules = cache.modules.lock().map_err(|_| poisoned(name))?;
            match modules.get(name) {
                Some(m) => m.clone(),
                None => {
                    let text =
                        compose(name, self.flavour, registry::source).map_err(|message| {
                            Error::Gpu {
                                stage: name,
                                message,
                            }
                        })?;
                    let desc = wgpu::ShaderModuleDescriptor {
                        label: Some(stage.label),
                        source: wgpu::ShaderSource::Wgsl(text.into()),
                    };
                    let m = Arc::new(self.shader_module(stage, desc));
                    modules.insert(name, m.clone());
                    m
                }
            }
        };
        let bind_layout = {
            let mut layouts = cache.layouts.lock().map_err(|_| poisoned(name))?;
            layouts
                .entry(name)
                .or_insert_with(|| Arc::new(self.bind_group_layout(stage)))
                .clone()
        };
        let pipeline_layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(stage.label),
                bind_group_layouts: &[Some(&bind_layout)],
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&format!("{}.{entry}", stage.label)),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    // Every workgroup variable is written before it is read.
                    zero_initialize_workgroup_memory: false,
                },
                cache: self.wgpu_pipeline_cache(),
            });
        self.check_errors(name)?;
        if let Some(t) = started {
            log::debug!(
                "pipeline {}.{entry} {constants:?} built in {:.1} ms",
                stage.label,
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        let built = Arc::new(Built {
            pipeline,
            layout: (*bind_layout).clone(),
            stage,
        });
        *slot = Some(built.clone());
        cache
            .created
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(built)
    }

    /// In the subgroup flavour, an entry point whose workgroup scans need whole subgroups
    /// ([`Entry::whole_subgroups`]) against the adapter's widest subgroup.
    fn check_subgroups(
        &self,
        stage: &Stage,
        entry: &str,
        constants: &[(&'static str, f64)],
    ) -> Result<()> {
        if self.flavour != super::Flavour::Subgroup {
            return Ok(());
        }
        match stage.entries.iter().find(|e| e.name == entry) {
            Some(e) if e.whole_subgroups => check_whole_subgroups(
                stage,
                workgroup_invocations(e, constants),
                self.info.subgroup_max_size,
            ),
            _ => Ok(()),
        }
    }

    /// `stage`'s module: natively without naga's loop counters, and on Vulkan without its
    /// index clamps too, unless the stage reads untrusted bytes or the options keep every
    /// check.
    fn shader_module(
        &self,
        stage: &Stage,
        desc: wgpu::ShaderModuleDescriptor<'_>,
    ) -> wgpu::ShaderModule {
        if cfg!(target_arch = "wasm32") || self.runtime_checks || stage.runtime_checks {
            return self.device.create_shader_module(desc);
        }
        // Vulkan bounds storage buffers in the driver (robust buffer access) whatever naga
        // emits, so there only the clamps on workgroup and private arrays go; elsewhere
        // naga's buffer checks stay. Integer division keeps WGSL's defined result for a
        // zero divisor.
        let vulkan = self.info.backend == wgpu::Backend::Vulkan;
        let checks = wgpu::ShaderRuntimeChecks {
            bounds_checks: !vulkan,
            force_loop_bounding: false,
            int_div_checks: true,
            ..wgpu::ShaderRuntimeChecks::checked()
        };
        // SAFETY: wgpu asks that every loop end and, on Vulkan, that no index leave its
        // workgroup or private array. These are this crate's own shaders, validated by
        // naga at build time; those indices come from masks, loop counters and
        // host-checked parameters, not from the bytes a stage codes (any byte is valid
        // input to an encoder), and every loop is counted or waits on a flag that an
        // earlier workgroup is guaranteed to publish (the look-back's, which also gives up
        // after a bounded spin where the stage says so). Every stage is held to its CPU
        // twin bit for bit in the tests, built this way. The GPU decoder, which reads files
        // from anyone, opts out (`//!runtime_checks`).
        unsafe { self.device.create_shader_module_trusted(desc, checks) }
    }

    /// Start building each of `wanted` that is neither built nor being built, each on a
    /// thread of its own, and return at once; [`Gpu::pipeline`] of the same key waits for
    /// its build. A first run on a machine compiles every pipeline in the driver, one
    /// after the other as a run meets them (a 4K JPEG 2000 picture's tier-1: 1.2, 0.2 and
    /// 0.1 s on the H200, `docs/results.md`), while its host work waits; side by side,
    /// and beside that work, they cost about the longest. In the browser, which has no
    /// threads here, each is built where it is met.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn build_ahead(self: &Arc<Self>, wanted: Vec<PipelineKey>) -> BuildingAhead {
        let mut builders = Vec::new();
        for (stage, entry, constants) in wanted {
            if self.built_or_building(stage, entry, &constants) {
                continue;
            }
            let gpu = self.clone();
            let spawned = std::thread::Builder::new()
                .name("parvlc-pipeline".into())
                .spawn(move || {
                    if let Err(e) = gpu.pipeline(stage, entry, &constants) {
                        log::debug!("pipeline {}.{entry} built ahead: {e}", stage.label);
                    }
                });
            // Without a thread, the pipeline is built where it is met.
            if let Ok(builder) = spawned {
                builders.push(builder);
            }
        }
        BuildingAhead(builders)
    }

    /// [`Gpu::build_ahead`] in the browser: nothing ahead (a context there is not shared
    /// between threads), each pipeline built where it is met.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn build_ahead(self: &Arc<Self>, _wanted: Vec<PipelineKey>) -> BuildingAhead {
        BuildingAhead(Vec::new())
    }

    /// Whether the pipeline is built, or a thread is building it now.
    #[cfg(not(target_arch = "wasm32"))]
    fn built_or_building(
        &self,
        stage: &'static Stage,
        entry: &'static str,
        constants: &[(&'static str, f64)],
    ) -> bool {
        let key = Key::of(stage, entry, constants);
        let Ok(built) = self.pipelines.built.lock() else {
            return false;
        };
        built.get(&key).is_some_and(|slot| match slot.try_lock() {
            Ok(p) => p.is_some(),
            Err(_) => true,
        })
    }

    /// Compute pipelines this context has created (each once, however many threads
    /// asked for it at the same time).
    pub fn pipelines_created(&self) -> u64 {
        self.pipelines
            .created
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    fn bind_group_layout(&self, stage: &Stage) -> wgpu::BindGroupLayout {
        let entries: Vec<wgpu::BindGroupLayoutEntry> = stage
            .bindings
            .iter()
            .map(|b| wgpu::BindGroupLayoutEntry {
                binding: b.index,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match b.kind {
                        BindingKind::Uniform => wgpu::BufferBindingType::Uniform,
                        BindingKind::ReadOnly => {
                            wgpu::BufferBindingType::Storage { read_only: true }
                        }
                        BindingKind::ReadWrite => {
                            wgpu::BufferBindingType::Storage { read_only: false }
                        }
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        self.device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(stage.label),
                entries: &entries,
            })
    }

    /// A bind group for `built` from (binding, buffer slice) pairs: exactly the stage's
    /// bindings (the registry's), else an error naming the missing or unknown ones (for
    /// the next `check_errors`) before wgpu's own.
    pub(crate) fn bind(
        &self,
        built: &Built,
        entries: &[(u32, wgpu::BufferBinding<'_>)],
    ) -> wgpu::BindGroup {
        if let Some(message) = binding_mismatch(built.stage, entries.iter().map(|(i, _)| *i)) {
            self.report_error(format!("{}: {message}", built.stage.name));
        }
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .map(|(binding, b)| wgpu::BindGroupEntry {
                binding: *binding,
                resource: wgpu::BindingResource::Buffer(b.clone()),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(built.stage.label),
            layout: &built.layout,
            entries: &entries,
        })
    }
}

/// How the bound indices differ from the stage's bindings, if they do.
fn binding_mismatch(stage: &Stage, bound: impl Iterator<Item = u32>) -> Option<String> {
    let mut bound: Vec<u32> = bound.collect();
    bound.sort_unstable();
    let mut problems = Vec::new();
    for pair in bound.windows(2) {
        if pair[0] == pair[1] {
            problems.push(format!("binding {} bound twice", pair[0]));
        }
    }
    for b in stage.bindings {
        if bound.binary_search(&b.index).is_err() {
            problems.push(format!(
                "binding {} (`{}`, {:?}) not bound",
                b.index, b.name, b.kind
            ));
        }
    }
    for i in bound {
        if !stage.bindings.iter().any(|b| b.index == i) {
            problems.push(format!("binding {i} bound, but no entry point uses one"));
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::registry::huffman::HISTOGRAM;

    #[test]
    fn only_the_stages_that_read_untrusted_bytes_keep_runtime_checks() {
        let checked: Vec<&str> = registry::STAGES
            .iter()
            .filter(|s| s.runtime_checks)
            .map(|s| s.name)
            .collect();
        // The GPU decoder reads files from anyone; every other stage codes bytes any of
        // which is valid input. A new decoder says `//!runtime_checks` in its file.
        assert_eq!(checked, ["huffman/vld"]);
    }

    #[test]
    fn a_subgroup_scan_needs_workgroups_of_whole_subgroups() {
        use crate::gpu::registry::scan::SPINE;
        assert!(check_whole_subgroups(&SPINE, Some(64), 32).is_ok());
        assert!(check_whole_subgroups(&SPINE, None, 64).is_ok());
        let e = check_whole_subgroups(&SPINE, Some(32), 64).unwrap_err();
        assert!(e.to_string().contains("multiple of 64"), "{e}");
        // On the tests' adapter: a spine of half the widest subgroup is refused in the
        // subgroup flavour, one of twice it built; the workgroup flavour takes either.
        let gpu = pollster::block_on(Gpu::new(crate::gpu::GpuOptions {
            pipeline_cache: None,
            ..Default::default()
        }))
        .expect("a wgpu adapter (lavapipe: mesa-vulkan-drivers)");
        let widest = gpu.info.subgroup_max_size;
        let spine = |n: u32| gpu.pipeline(&SPINE, "main", &[("WG_SIZE", n as f64)]);
        if gpu.flavour() == crate::gpu::Flavour::Subgroup && widest >= 2 {
            let e = spine(widest / 2).err().expect("half a subgroup refused");
            assert!(e.to_string().contains("whole number"), "{e}");
            assert!(spine(2 * widest).is_ok());
        } else {
            assert!(spine(2).is_ok());
        }
    }

    #[test]
    fn a_bind_names_what_it_misses() {
        assert_eq!(binding_mismatch(&HISTOGRAM, [2, 0, 1].into_iter()), None);
        let e = binding_mismatch(&HISTOGRAM, [0, 1].into_iter()).unwrap();
        assert!(
            e.contains("binding 2 (`histogram`, ReadWrite) not bound"),
            "{e}"
        );
        let e = binding_mismatch(&HISTOGRAM, [0, 1, 2, 2, 7].into_iter()).unwrap();
        assert!(
            e.contains("binding 2 bound twice") && e.contains("binding 7"),
            "{e}"
        );
    }

    #[test]
    fn threads_asking_at_once_share_one_build() {
        let gpu = pollster::block_on(Gpu::new(crate::gpu::GpuOptions {
            pipeline_cache: None,
            ..Default::default()
        }))
        .expect("a wgpu adapter (lavapipe: mesa-vulkan-drivers)");
        let constants = [("WG_SIZE", 64.0)];
        let built: Vec<Arc<Built>> = std::thread::scope(|s| {
            let asks: Vec<_> = (0..6)
                .map(|_| s.spawn(|| gpu.pipeline(&HISTOGRAM, "main", &constants)))
                .collect();
            asks.into_iter()
                .map(|h| h.join().expect("no panic").expect("built"))
                .collect()
        });
        assert_eq!(gpu.pipelines_created(), 1);
        assert!(built.iter().all(|b| Arc::ptr_eq(b, &built[0])));
        // Another key is another build; the same key again is none.
        gpu.pipeline(&HISTOGRAM, "main", &[("WG_SIZE", 128.0)])
            .unwrap();
        gpu.pipeline(&HISTOGRAM, "main", &constants).unwrap();
        assert_eq!(gpu.pipelines_created(), 2);
    }

    /// Pipelines built ahead are the ones later asked for, each built once; a pipeline
    /// already built starts no thread; a request the registry refuses builds nothing
    /// ahead and is still refused where it is asked for.
    #[test]
    fn pipelines_built_ahead_are_those_asked_for_later() {
        let gpu = Arc::new(
            pollster::block_on(Gpu::new(crate::gpu::GpuOptions {
                pipeline_cache: None,
                ..Default::default()
            }))
            .expect("a wgpu adapter (lavapipe: mesa-vulkan-drivers)"),
        );
        let key = |size: f64| -> PipelineKey { (&HISTOGRAM, "main", vec![("WG_SIZE", size)]) };
        let ahead = gpu.build_ahead(vec![key(64.0), key(128.0), key(64.0)]);
        // Asked for while (or after) the threads build it: the same pipeline, not a
        // second build.
        let asked = gpu
            .pipeline(&HISTOGRAM, "main", &[("WG_SIZE", 64.0)])
            .unwrap();
        drop(ahead);
        assert_eq!(gpu.pipelines_created(), 2);
        assert!(gpu.built_or_building(&HISTOGRAM, "main", &[("WG_SIZE", 128.0)]));
        let again = gpu
            .pipeline(&HISTOGRAM, "main", &[("WG_SIZE", 64.0)])
            .unwrap();
        assert!(Arc::ptr_eq(&asked, &again));
        let nothing_to_do = gpu.build_ahead(vec![key(64.0), key(128.0)]);
        assert!(nothing_to_do.0.is_empty());
        drop(nothing_to_do);
        let refused = gpu.build_ahead(vec![(&HISTOGRAM, "main", vec![("NET", 1.0)])]);
        drop(refused);
        assert_eq!(gpu.pipelines_created(), 2);
        let e = gpu.pipeline(&HISTOGRAM, "main", &[("NET", 1.0)]);
        assert!(e.is_err_and(|e| e.to_string().contains("`NET`")));
    }

    #[test]
    fn a_request_is_checked_against_the_registry() {
        assert!(check_request(&HISTOGRAM, "main", &[("WG_SIZE", 64.0)]).is_ok());
        let e = check_request(&HISTOGRAM, "nope", &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("huffman/histogram") && e.contains("`nope`"),
            "{e}"
        );
        let e = check_request(&HISTOGRAM, "main", &[("NET", 1.0)]).unwrap_err();
        assert!(e.to_string().contains("`NET`"), "{e}");
        let e = check_request(&HISTOGRAM, "main", &[("WG_SIZE", -1.0)]).unwrap_err();
        assert!(e.to_string().contains("U32"), "{e}");
    }
}
