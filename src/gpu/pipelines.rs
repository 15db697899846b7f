use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::compose::compose;
use super::Gpu;
use crate::{Error, Result};

/// How a stage sees one binding of bind group 0.
#[derive(Clone, Copy, Debug)]
pub enum Binding {
    Uniform(u32),
    ReadOnly(u32),
    ReadWrite(u32),
}

/// A stage's shader file and its bind group layout, shared by all its entry points.
#[derive(Debug)]
pub struct StageLayout {
    pub stage: &'static str,
    pub bindings: &'static [Binding],
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    stage: &'static str,
    entry: &'static str,
    constants: Vec<(&'static str, u64)>,
}

pub(crate) struct Built {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// Pipelines are compiled once per (stage, entry point, override constants).
#[derive(Default)]
pub(crate) struct PipelineCache {
    built: Mutex<HashMap<Key, Arc<Built>>>,
    modules: Mutex<HashMap<&'static str, Arc<wgpu::ShaderModule>>>,
    layouts: Mutex<HashMap<&'static str, Arc<wgpu::BindGroupLayout>>>,
}

fn poisoned(stage: &'static str) -> Error {
    Error::Gpu {
        stage,
        message: "pipeline cache poisoned".into(),
    }
}

impl Gpu {
    /// The compute pipeline for `entry` of `layout.stage` with these override constants
    /// (values as WGSL would take them: u32 and bool both as f64).
    pub(crate) fn pipeline(
        &self,
        layout: &StageLayout,
        entry: &'static str,
        constants: &[(&'static str, f64)],
    ) -> Result<Arc<Built>> {
        let cache = &self.pipelines;
        let stage = layout.stage;
        let key = Key {
            stage,
            entry,
            constants: constants.iter().map(|(k, v)| (*k, v.to_bits())).collect(),
        };
        if let Some(p) = cache.built.lock().map_err(|_| poisoned(stage))?.get(&key) {
            return Ok(p.clone());
        }
        let module = {
            let mut modules = cache.modules.lock().map_err(|_| poisoned(stage))?;
            match modules.get(stage) {
                Some(m) => m.clone(),
                None => {
                    let text = compose(stage, self.flavour)
                        .map_err(|message| Error::Gpu { stage, message })?;
                    let m = Arc::new(self.device.create_shader_module(
                        wgpu::ShaderModuleDescriptor {
                            label: Some(&format!("parvlc.{stage}")),
                            source: wgpu::ShaderSource::Wgsl(text.into()),
                        },
                    ));
                    modules.insert(stage, m.clone());
                    m
                }
            }
        };
        let bind_layout = {
            let mut layouts = cache.layouts.lock().map_err(|_| poisoned(stage))?;
            layouts
                .entry(stage)
                .or_insert_with(|| Arc::new(self.bind_group_layout(layout)))
                .clone()
        };
        let pipeline_layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&format!("parvlc.{stage}")),
                bind_group_layouts: &[Some(&bind_layout)],
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&format!("parvlc.{stage}.{entry}")),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    // Every workgroup variable is written before it is read.
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            });
        self.check_errors(stage)?;
        let built = Arc::new(Built {
            pipeline,
            layout: (*bind_layout).clone(),
        });
        cache
            .built
            .lock()
            .map_err(|_| poisoned(stage))?
            .insert(key, built.clone());
        Ok(built)
    }

    fn bind_group_layout(&self, layout: &StageLayout) -> wgpu::BindGroupLayout {
        let entries: Vec<wgpu::BindGroupLayoutEntry> = layout
            .bindings
            .iter()
            .map(|b| {
                let (binding, ty) = match *b {
                    Binding::Uniform(i) => (i, wgpu::BufferBindingType::Uniform),
                    Binding::ReadOnly(i) => {
                        (i, wgpu::BufferBindingType::Storage { read_only: true })
                    }
                    Binding::ReadWrite(i) => {
                        (i, wgpu::BufferBindingType::Storage { read_only: false })
                    }
                };
                wgpu::BindGroupLayoutEntry {
                    binding,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                }
            })
            .collect();
        self.device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(&format!("parvlc.{}", layout.stage)),
                entries: &entries,
            })
    }

    /// A bind group for `built` from (binding, buffer slice) pairs.
    pub(crate) fn bind(
        &self,
        built: &Built,
        entries: &[(u32, wgpu::BufferBinding<'_>)],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .map(|(binding, b)| wgpu::BindGroupEntry {
                binding: *binding,
                resource: wgpu::BindingResource::Buffer(b.clone()),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &built.layout,
            entries: &entries,
        })
    }
}
