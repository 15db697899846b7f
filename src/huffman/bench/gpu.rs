//! The GPU rows of the Huffman benchmark: cuvle on wgpu and on CUDA in every scope, and the
//! papers' baselines (pavle, bytestream). Each configuration's output is read back from
//! its first run, off the clock, and checked before it is timed (module docs of
//! [`super`]).

use std::time::Instant;

use pollster::block_on;

use super::{reported, Case, Push, SCOPE_NVCOMP};
use crate::bench::{best_checked, check_same, positive, time_gpu, Run, WarmUp, WARM_UP};
use crate::gpu::{Gpu, Profiler};
use crate::huffman::bytestream::{BytestreamConfig, BytestreamEncoder};
use crate::huffman::compress::{compress_gpu, Format, NATIVE_MAX_CODE_LEN};
use crate::huffman::cuvle::{CuvleConfig, Pending, VleEncoder};
use crate::huffman::histogram::total_histogram;
use crate::huffman::pavle::{PavleConfig, PavleEncoder};
use crate::huffman::{BitOrder, Codebook};
use crate::{Error, Result};

/// cuvle on wgpu: encode, compress (kernel only), compress (nvCOMP scope), end to end.
pub(super) fn bench_cuvle(gpu: &Gpu, case: &Case, config: &CuvleConfig, push: Push) -> Result<()> {
    let variant = format!("cuvle-{}", config.scan.strategy.name());
    let enc = VleEncoder::new(gpu, *config)?;
    let input = enc.upload(case.data)?;
    gpu.wait_idle()?;
    let chunks = block_on(enc.histograms(&input, None))?;
    let plan = enc.plan(&input, &chunks, &case.table, BitOrder::MsbFirst, 0)?;
    let table_buf = enc.upload_table(&case.table);
    let check = |scope: &str| {
        let what = format!("{variant} {scope}");
        let enc = &enc;
        move |p: Pending| case.check_stream(&what, &block_on(enc.finish(p))?.stream)
    };
    // The encoder alone, input, table and plan resident.
    let b = best_checked(
        case.runs,
        WARM_UP,
        || {
            let (wall, p) = time_gpu(gpu, |ce| {
                enc.encode_into(ce, &input, &table_buf, &plan, true)
            })?;
            let t = block_on(p.timings(gpu))?;
            Ok(Run {
                wall,
                gpu: positive(t.span),
                output: p,
            })
        },
        check("encode"),
    )?;
    push(variant.clone(), "encode", b);
    // Compress with the input resident: histogram, its readback, the codebook on the
    // CPU, plan, table upload, encode, submitted; the stream stays on the GPU.
    let compress = |profiler: Option<&mut Profiler>| -> Result<Pending> {
        let profile = profiler.is_some();
        let chunks = block_on(enc.histograms(&input, profiler))?;
        let table =
            Codebook::from_frequencies(&total_histogram(&chunks), NATIVE_MAX_CODE_LEN)?.table()?;
        let plan = enc.plan(&input, &chunks, &table, BitOrder::MsbFirst, 0)?;
        let table_buf = enc.upload_table(&table);
        let mut ce = gpu.device.create_command_encoder(&Default::default());
        let pending = enc.encode_into(&mut ce, &input, &table_buf, &plan, profile)?;
        gpu.queue.submit([ce.finish()]);
        Ok(pending)
    };
    let b = best_checked(
        case.runs,
        WARM_UP,
        || {
            let t = Instant::now();
            let mut prof = Profiler::new(gpu, 16);
            let p = compress(Some(&mut prof))?;
            gpu.wait_idle()?;
            let wall = t.elapsed().as_secs_f64();
            let h = block_on(prof.timings(gpu))?;
            let e = block_on(p.timings(gpu))?;
            Ok(Run {
                wall,
                gpu: positive(e.span).map(|s| s + h.span),
                output: p,
            })
        },
        check("compress"),
    )?;
    push(variant.clone(), "compress", b);
    let b = best_checked(
        case.runs,
        WarmUp::Once,
        || {
            let t = Instant::now();
            let p = compress(None)?;
            gpu.wait_idle()?;
            Ok(Run {
                wall: t.elapsed().as_secs_f64(),
                gpu: None,
                output: p,
            })
        },
        check(SCOPE_NVCOMP),
    )?;
    push(variant.clone(), SCOPE_NVCOMP, b);
    // End to end, host to host, native container included.
    let b = best_checked(
        case.runs.min(2),
        WARM_UP,
        || {
            let t = Instant::now();
            let c = block_on(compress_gpu(
                gpu,
                case.data,
                Format::Native,
                config,
                &mut |_| {},
            ))?;
            Ok(Run {
                wall: t.elapsed().as_secs_f64(),
                gpu: None,
                output: c.bytes,
            })
        },
        |bytes| case.check_container(&format!("{variant} end-to-end"), &bytes),
    )?;
    push(variant, "end-to-end", b);
    Ok(())
}

/// The streaming pipeline on the same input, memory to memory (the library's
/// host-to-host compress): row `stream`, scope `end-to-end (stream)` into a fresh vector
/// each run, as a one-shot caller writes, and `end-to-end (stream, output reused)` into
/// one whose pages an earlier run touched, as a caller that keeps its buffer writes. A
/// fresh vector's first-touch page faults cost the most (at 1 GiB on the H200, 2.3-2.5
/// against 8.2-9.0 GB/s while one core copied into it; 6.3 against 9.4 since the copy
/// runs on all cores, `compress_to_vec`).
pub(super) fn bench_stream(
    gpu: &std::sync::Arc<Gpu>,
    case: &Case,
    config: &CuvleConfig,
    push: Push,
) -> Result<()> {
    use crate::huffman::pipeline::{compress_to_vec, StreamConfig};
    let engine = crate::Engine::Wgpu(gpu.clone());
    let stream = StreamConfig {
        cuvle: *config,
        ..StreamConfig::default()
    };
    let room = case.data.len() + (1 << 20);
    for (scope, reuse) in [
        ("end-to-end (stream)", false),
        ("end-to-end (stream, output reused)", true),
    ] {
        // The reused vector: its pages touched once, here, before any run.
        let mut kept = if reuse { vec![0u8; room] } else { Vec::new() };
        let b = best_checked(
            case.runs.min(3),
            WARM_UP,
            || {
                let mut out = if reuse {
                    std::mem::take(&mut kept)
                } else {
                    Vec::with_capacity(room)
                };
                out.clear();
                let t = Instant::now();
                compress_to_vec(
                    &engine,
                    Format::Native,
                    &stream,
                    case.data,
                    &mut out,
                    &mut |_| {},
                )?;
                let wall = t.elapsed().as_secs_f64();
                // The next run writes into these pages; the check reads a copy.
                let output = if reuse {
                    let copy = out.clone();
                    kept = out;
                    copy
                } else {
                    out
                };
                Ok(Run {
                    wall,
                    gpu: None,
                    output,
                })
            },
            |bytes| case.check_container(&format!("stream {scope}"), &bytes),
        )?;
        push("stream".into(), scope, b);
    }
    Ok(())
}

/// The input coded as native v2 frames by the CPU's stream coder, in blocks of the bench's
/// block-input size (workgroup size x NET words): the decoders run one invocation per block.
fn native_file(case: &Case, cuvle: &CuvleConfig) -> Result<Vec<u8>> {
    use crate::huffman::pipeline::{compress_stream, StreamConfig, StreamInput};
    let mut file = Vec::with_capacity(case.data.len() + (1 << 20));
    compress_stream(
        &crate::Engine::Cpu,
        Format::Native,
        &StreamConfig {
            cuvle: *cuvle,
            ..StreamConfig::default()
        },
        StreamInput::Bytes(case.data),
        &mut file,
        &mut |_| {},
    )?;
    Ok(file)
}

/// A decoded batch against the input: no block fault, every byte equal.
fn check_vld(variant: &str, case: &Case, out: &crate::huffman::vld::VldOutput) -> Result<()> {
    if let Some(e) = out.errors.first() {
        return Err(Error::BenchMismatch(format!(
            "{variant} on {}: frame {} block {} {}",
            case.name, e.frame, e.block, e.fault
        )));
    }
    let back: Vec<u8> = out
        .frames
        .iter()
        .flat_map(|r| out.bytes[r.clone()].iter().copied())
        .collect();
    check_same(
        &format!("{variant} on {}", case.name),
        "byte",
        &back,
        case.data,
    )
}

/// The CUDA twin of the VLD decoder on the same frames: row `vld-cuda`, scope `decode`
/// (the kernel alone, payload, tables and tasks resident: CUDA events; wall: launch,
/// synchronize and read back).
#[cfg(feature = "cuda")]
pub(super) fn bench_vld_cuda(
    cuda: &crate::cuda::CudaGpu,
    case: &Case,
    cuvle: &CuvleConfig,
    push: &mut dyn FnMut(&'static str, crate::bench::Best),
) -> Result<()> {
    use crate::cuda::CudaVldDecoder;
    let file = native_file(case, cuvle)?;
    let frames = crate::huffman::framed_decode::read_all_frames(&file)?;
    let views: Vec<_> = frames.iter().map(|f| f.view()).collect();
    let dec = CudaVldDecoder::new(cuda);
    let input = dec.upload(&views)?;
    let b = best_checked(
        case.runs,
        WARM_UP,
        || {
            let t = Instant::now();
            let (output, seconds) = dec.decode_uploaded(&input)?;
            Ok(Run {
                wall: t.elapsed().as_secs_f64(),
                gpu: positive(seconds),
                output,
            })
        },
        |out| check_vld("vld-cuda", case, &out),
    )?;
    push("decode", b);
    Ok(())
}

/// The VLD decoder on the same input, coded as native v2 frames by the CPU's stream coder
/// (the same bytes as the GPU's): row `vld`, scope
/// `decode` (the kernel alone, payload, tables and block tasks resident: GPU timestamps;
/// wall: record, submit and read back); row `vld`, scope `end-to-end (stream decode)` (the streaming decoder, host memory to host
/// memory: frames read, decoded on the GPU, CRC-32 on the CPU cores, written; wall).
pub(super) fn bench_vld(
    gpu: &std::sync::Arc<Gpu>,
    case: &Case,
    cuvle: &CuvleConfig,
    push: Push,
) -> Result<()> {
    use crate::gpu::GpuStage;
    use crate::huffman::vld::{VldDecoder, VldTables};
    let file = native_file(case, cuvle)?;
    let frames = crate::huffman::framed_decode::read_all_frames(&file)?;
    let views: Vec<_> = frames.iter().map(|f| f.view()).collect();
    if !VldDecoder::new(gpu).fits(
        views.len() as u64,
        views.iter().map(|f| f.offsets.len() as u64).sum(),
        views.iter().map(|f| f.payload_bits.div_ceil(32) * 4).sum(),
        views.iter().map(|f| f.len.next_multiple_of(4)).sum(),
    ) {
        return Err(Error::TooLarge(format!(
            "{} bytes in one VLD dispatch on this GPU",
            case.data.len()
        )));
    }
    for (variant, tables) in [
        ("vld", VldTables::Workgroup),
        ("vld-global", VldTables::Global),
    ] {
        let dec = VldDecoder::new(gpu).with_tables(tables).profiled();
        let uploaded = block_on(dec.upload(&views[..]))?;
        let b = best_checked(
            case.runs,
            WARM_UP,
            || {
                let t = Instant::now();
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                let pending = dec.encode_into(&mut encoder, &uploaded)?;
                gpu.queue.submit([encoder.finish()]);
                let report = block_on(dec.finish(&views[..], &uploaded, pending))?;
                Ok(Run {
                    wall: t.elapsed().as_secs_f64(),
                    gpu: Some(report.timings.get("vld")).filter(|&s| s > 0.0),
                    output: report.output,
                })
            },
            |out| check_vld(variant, case, &out),
        )?;
        push(variant.into(), "decode", b);
    }
    let engine = crate::Engine::Wgpu(gpu.clone());
    let b = best_checked(
        case.runs.min(3),
        WARM_UP,
        || {
            let mut out = Vec::with_capacity(case.data.len());
            let t = Instant::now();
            crate::huffman::stream::decompress_to_on(
                &engine,
                &mut &file[..],
                &mut out,
                crate::huffman::native::DEFAULT_BATCH_BYTES,
            )?;
            Ok(Run {
                wall: t.elapsed().as_secs_f64(),
                gpu: None,
                output: out,
            })
        },
        |out| {
            check_same(
                &format!("vld stream decode on {}", case.name),
                "byte",
                &out,
                case.data,
            )
        },
    )?;
    push("vld".into(), "end-to-end (stream decode)", b);
    Ok(())
}

/// The CUDA path on the same input, in the scopes of [`bench_cuvle`] (a tuning sweep,
/// `encode_only`, measures the encode scope alone); kernel times by CUDA events.
#[cfg(feature = "cuda")]
pub(super) fn bench_cuvle_cuda(
    cuda: &crate::cuda::CudaGpu,
    case: &Case,
    config: &CuvleConfig,
    tuning: &crate::cuda::CudaConfig,
    encode_only: bool,
    push: &mut dyn FnMut(&'static str, crate::bench::Best),
) -> Result<()> {
    use crate::cuda::{compress_cuda, CudaPending, CudaVleEncoder};
    let variant = format!("cuvle-cuda-{}", config.scan.strategy.name());
    let enc = CudaVleEncoder::with_tuning(cuda, *config, *tuning)?;
    let input = enc.upload(case.data)?;
    let (chunks, _) = enc.histograms(&input)?;
    let plan = enc.plan(&input, &chunks, &case.table, BitOrder::MsbFirst, 0)?;
    let table_buf = enc.upload_table(&case.table)?;
    let check = |scope: &str| {
        let what = format!("{variant} {scope}");
        let enc = &enc;
        move |p: CudaPending| case.check_stream(&what, &enc.finish(p)?.stream)
    };
    // The encoder alone, input, table and plan resident.
    let b = best_checked(
        case.runs,
        WARM_UP,
        || {
            let t = Instant::now();
            let p = enc.encode_planned(&input, &table_buf, &plan, true)?;
            cuda.synchronize()?;
            let wall = t.elapsed().as_secs_f64();
            let gpu = p.seconds()?.and_then(positive);
            Ok(Run {
                wall,
                gpu,
                output: p,
            })
        },
        check("encode"),
    )?;
    push("encode", b);
    if encode_only {
        return Ok(());
    }
    // Compress with the input resident: histogram, its readback, the codebook on the
    // CPU, plan, table upload, encode, launched; the stream stays on the GPU. Returns the
    // histogram's kernel seconds too.
    let compress = |profile: bool| -> Result<(CudaPending, f64)> {
        let (chunks, histogram_s) = enc.histograms(&input)?;
        let table =
            Codebook::from_frequencies(&total_histogram(&chunks), NATIVE_MAX_CODE_LEN)?.table()?;
        let plan = enc.plan(&input, &chunks, &table, BitOrder::MsbFirst, 0)?;
        let table_buf = enc.upload_table(&table)?;
        Ok((
            enc.encode_planned(&input, &table_buf, &plan, profile)?,
            histogram_s,
        ))
    };
    let b = best_checked(
        case.runs,
        WARM_UP,
        || {
            let t = Instant::now();
            let (p, histogram_s) = compress(true)?;
            cuda.synchronize()?;
            let wall = t.elapsed().as_secs_f64();
            let gpu = p.seconds()?.and_then(positive).map(|s| s + histogram_s);
            Ok(Run {
                wall,
                gpu,
                output: p,
            })
        },
        check("compress"),
    )?;
    push("compress", b);
    let b = best_checked(
        case.runs,
        WarmUp::Once,
        || {
            let t = Instant::now();
            let (p, _) = compress(false)?;
            cuda.synchronize()?;
            Ok(Run {
                wall: t.elapsed().as_secs_f64(),
                gpu: None,
                output: p,
            })
        },
        check(SCOPE_NVCOMP),
    )?;
    push(SCOPE_NVCOMP, b);
    // End to end, host to host, native container included.
    let b = best_checked(
        case.runs.min(2),
        WARM_UP,
        || {
            let t = Instant::now();
            let c = compress_cuda(cuda, case.data, Format::Native, config, tuning, &mut |_| {})?;
            Ok(Run {
                wall: t.elapsed().as_secs_f64(),
                gpu: None,
                output: c.bytes,
            })
        },
        |bytes| case.check_container(&format!("{variant} end-to-end"), &bytes),
    )?;
    push("end-to-end", b);
    Ok(())
}

/// The papers' GPU baselines on the same input: pavle (kernel alone, and total with its
/// compaction) and the byte-per-bit encoder. A failure other than a wrong output is
/// reported and the run goes on (bytestream needs about 8x the output in memory).
pub(super) fn bench_baselines(gpu: &Gpu, case: &Case, push: Push) -> Result<()> {
    let pavle = (|| -> Result<()> {
        let enc = PavleEncoder::new(gpu, PavleConfig::default())?;
        let input = enc.upload(case.data)?;
        let mut kernel_best: Option<f64> = None;
        let b = best_checked(
            case.runs,
            WARM_UP,
            || {
                let (wall, p) = time_gpu(gpu, |ce| {
                    enc.encode_into(ce, &input, &case.table, BitOrder::MsbFirst, 0, true)
                })?;
                let t = block_on(p.timings(gpu))?;
                let kernel = t.get("pavle");
                kernel_best = Some(kernel_best.map_or(kernel, |k: f64| k.min(kernel)));
                Ok(Run {
                    wall,
                    gpu: positive(t.span),
                    output: p,
                })
            },
            |p| case.check_stream("pavle", &block_on(enc.finish(p))?),
        )?;
        let wall = b.wall;
        let statistic = b.statistic.clone();
        push("pavle".into(), "encode", b);
        push(
            "pavle".into(),
            "kernel",
            crate::bench::Best {
                wall,
                gpu: kernel_best.and_then(positive),
                statistic,
            },
        );
        Ok(())
    })();
    if let Err(e) = pavle {
        reported(&case.name, "pavle", e)?;
    }
    let bytestream = (|| -> Result<()> {
        let enc = BytestreamEncoder::new(gpu, BytestreamConfig::default())?;
        let input = enc.upload(case.data)?;
        let b = best_checked(
            case.runs,
            WARM_UP,
            || {
                let (wall, p) = time_gpu(gpu, |ce| {
                    enc.encode_into(ce, &input, &case.table, BitOrder::MsbFirst, 0, true)
                })?;
                let t = block_on(p.timings(gpu))?;
                Ok(Run {
                    wall,
                    gpu: positive(t.span),
                    output: p,
                })
            },
            |p| case.check_stream("bytestream", &block_on(enc.finish(p))?),
        )?;
        push("bytestream".into(), "encode", b);
        Ok(())
    })();
    if let Err(e) = bytestream {
        reported(&case.name, "bytestream", e)?;
    }
    Ok(())
}
