//! The HT cleanup pass on the GPU (shaders/j2k/ht_cleanup.wgsl, stage `ht_cleanup`):
//! a workgroup per code-block, byte for byte the CPU twin [`super::cleanup::encode`].
//! A quad's coding decisions depend only on the samples, so the workgroup codes its
//! block's quad pairs side by side and places their VLC and MagSgn bits by a scan; two
//! invocations then stuff the three streams, and the workgroup merges them.
//!
//! From the host ([`HtGpu::encode`]) it checks every block as the CPU does
//! (`super::cleanup::check`), leaves the all-zero ones out, and gives each coded block
//! an output region and scratch (MEL, VLC, raw MagSgn) sized from upper bounds on its
//! streams, so nothing outgrows its room (the shader still flags a write past one, which
//! is then an error, never a wrong byte). Behind the GPU front end
//! ([`HtGpu::encode_resident`]) the coefficients stay on the GPU: the shader finds each
//! block's bit-planes, and the rooms are sized for the most an encodable image has. The
//! CxtVLC look-ups are the CPU's ([`super::vlc::Lookup::packed`]), uploaded once.

use std::sync::Arc;

use super::cleanup;
use super::streams::MAX_SCUP;
use super::vlc::{FIRST, OTHERS};
use crate::gpu::registry::j2k::HT_CLEANUP;
use crate::gpu::{
    BuildingAhead, Gpu, GpuStage, PipelineKey, PooledBuffer, Profiler, RecordedReads,
};
use crate::j2k::dwt_gpu::DwtGpu;
use crate::j2k::tier1::{CodeBlockCoded, PassInfo, Tier1Options};
use crate::j2k::{BlockBytes, CodeBlockBatch, Tier1Engine, Tier1Future};
use crate::{Error, Result};

mod resident;

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/j2k/ht_cleanup.wgsl `HtParams`
struct HtParams {
    n_blocks: u32,
    pad: [u32; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
/// keep in sync with shaders/j2k/ht_cleanup.wgsl `HtBlock`
struct HtBlock {
    coeff_offset: u32,
    width: u32,
    height: u32,
    out_word: u32,
    out_cap: u32,
    scratch_word: u32,
    mel_cap: u32,
    vlc_cap: u32,
    raw_word: u32,
    raw_cap: u32,
}

/// Result words per block (keep in sync with shaders/j2k/ht_cleanup.wgsl): segment
/// bytes, Scup, flags, bit-planes.
const RESULT_WORDS: usize = 4;
const FLAG_NO_CODEWORD: u32 = 1;
const FLAG_OVERFLOW: u32 = 2;
const FLAG_CUT: u32 = 4;
const FLAG_TOO_DEEP: u32 = 8;
const FLAG_DONE: u32 = 16;
/// Invocations per workgroup, a workgroup per code-block: a quad pair per invocation in
/// each round (a 64x64 block has 512 pairs).
const WG_SIZE: u32 = 64;
/// keep in sync with shaders/j2k/ht_cleanup.wgsl: the largest workgroup its staging
/// holds, and the most quad pairs a block has (5x819; `max_pairs_is_the_shaders`).
const MAX_WG: u32 = 64;
const MAX_PAIRS: usize = 820;
const _: () = assert!(WG_SIZE <= MAX_WG && WG_SIZE >= 2);
/// A MEL or VLC stream longer than this cannot be signalled (Scup is at most
/// [`MAX_SCUP`]): its room is capped here, and a longer one is the CPU's Scup error.
const STREAM_CAP: usize = MAX_SCUP + 17;

/// One block's rooms: bytes of MagSgn (in the output region), MEL and VLC, and words of
/// raw MagSgn, from upper bounds: MagSgn sends at most `planes` + 1 bits per sample, MEL
/// at most 6 bits per event (one per quad and one per quad pair), VLC at most 15 bits per
/// quad (a 7-bit codeword, an 8-bit u code) and one per pair; stuffing adds a bit in 8.
struct Rooms {
    ms: usize,
    mel: usize,
    vlc: usize,
    raw_words: usize,
}

fn rooms(width: usize, height: usize, planes: u32) -> Rooms {
    let quads = width.div_ceil(2) * height.div_ceil(2);
    let pairs = quad_pairs(width, height);
    debug_assert!(
        pairs <= MAX_PAIRS,
        "{width}x{height}: more pairs than the shader holds"
    );
    let stuffed = |bits: usize| bits / 7 + 2;
    // A sample's exponent (the bits of 2 mu - 1) may exceed the bit-planes by one.
    let ms_bits = width * height * (planes as usize + 1);
    let mel = stuffed(6 * (quads + pairs) + 1) + 1;
    let vlc = stuffed(4 + 15 * quads + pairs) + 2;
    Rooms {
        ms: stuffed(ms_bits),
        mel: mel.min(STREAM_CAP),
        vlc: vlc.min(STREAM_CAP),
        raw_words: ms_bits.div_ceil(32) + 1,
    }
}

impl Rooms {
    fn out_cap(&self) -> usize {
        (self.ms + self.mel + self.vlc).next_multiple_of(4)
    }

    /// Scratch words of the MEL and VLC streams, before the raw MagSgn.
    fn stream_words(&self) -> usize {
        self.mel.div_ceil(4) + self.vlc.div_ceil(4)
    }

    fn scratch_words(&self) -> usize {
        self.stream_words() + self.raw_words
    }

    /// The block's descriptor, its regions from `out_word` and `scratch_word`.
    fn block(
        &self,
        coeff_offset: usize,
        w: usize,
        h: usize,
        out_word: u64,
        scratch_word: u64,
    ) -> HtBlock {
        HtBlock {
            coeff_offset: coeff_offset as u32,
            width: w as u32,
            height: h as u32,
            out_word: out_word as u32,
            out_cap: self.out_cap() as u32,
            scratch_word: scratch_word as u32,
            mel_cap: self.mel as u32,
            vlc_cap: self.vlc as u32,
            raw_word: (scratch_word as usize + self.stream_words()) as u32,
            raw_cap: self.raw_words as u32,
        }
    }
}

/// Quad pairs of a block: the work items of a workgroup's rounds.
fn quad_pairs(width: usize, height: usize) -> usize {
    width.div_ceil(2).div_ceil(2) * height.div_ceil(2)
}

/// The GPU HT block coder: a `Tier1Engine` equal to `super::HtCpu`.
pub struct HtGpu {
    gpu: Arc<Gpu>,
    /// The CxtVLC look-ups, first quad row then the others, a word per entry.
    tables: PooledBuffer,
    /// The most workgroups a dispatch starts (each then codes every so many blocks): the
    /// device's limit, lower only where a test forces the blocks to share workgroups.
    max_workgroups: u32,
}

/// One dispatch's buffers, alive until its results are read.
pub(crate) struct Dispatch {
    params: PooledBuffer,
    descs: PooledBuffer,
    coeffs: PooledBuffer,
    output: PooledBuffer,
    scratch: PooledBuffer,
    results: PooledBuffer,
    /// The batch's index of each block.
    jobs: Vec<usize>,
    blocks: Vec<HtBlock>,
}

/// A batch's checked results ([`HtGpu::results`]).
struct HtResults<'b> {
    /// Every job's coded block, its bytes not yet read.
    coded: Vec<CodeBlockCoded>,
    /// The output ranges of the blocks with bytes (lengths rounded up to words)...
    ranges: Vec<(&'b wgpu::Buffer, u64, u64)>,
    /// ...and each one's job and length in bytes.
    blocks: Vec<(usize, usize)>,
}

fn corrupt(reason: String) -> Error {
    Error::corrupt("HT cleanup pass", reason)
}

impl HtGpu {
    /// Uploads the look-ups. The pipeline is built where it is first recorded, or ahead
    /// of that beside the front end's (`HtGpu::build_resident_ahead`).
    pub fn new(gpu: Arc<Gpu>) -> Result<HtGpu> {
        let words: Vec<u32> = FIRST
            .packed()
            .iter()
            .chain(OTHERS.packed().iter())
            .map(|&v| v as u32)
            .collect();
        let tables = gpu.pooled_buffer(
            (words.len() * 4) as u64,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        gpu.queue
            .write_buffer(&tables, 0, bytemuck::cast_slice(&words));
        let max_workgroups = gpu.limits.max_compute_workgroups_per_dimension.max(1);
        Ok(HtGpu {
            gpu,
            tables,
            max_workgroups,
        })
    }

    /// Every pipeline the whole GPU path runs (front end, this stage, the gather of the
    /// coded bytes), built side by side: on a first run, driver compiles that the path
    /// would otherwise meet one after the other.
    pub(crate) fn build_resident_ahead(&self) -> BuildingAhead {
        self.gpu.build_ahead(self.resident_pipelines())
    }

    /// The pipelines of [`HtGpu::build_resident_ahead`].
    pub(crate) fn resident_pipelines(&self) -> Vec<PipelineKey> {
        DwtGpu::whole_path_pipelines(vec![(&HT_CLEANUP, "main", constants().to_vec())])
    }

    /// At most `n` workgroups a dispatch, so that each codes several blocks: for tests
    /// of the path a batch of more blocks than the device's grid dimension takes.
    #[doc(hidden)]
    pub fn with_max_workgroups(mut self, n: u32) -> HtGpu {
        self.max_workgroups = n.clamp(1, self.max_workgroups);
        self
    }

    /// Code every block of `batch`: one [`CodeBlockCoded`] per job, in order, each what
    /// [`super::encode_code_block`] returns for it (the same errors too).
    pub async fn encode(&self, batch: &CodeBlockBatch) -> Result<Vec<CodeBlockCoded>> {
        GpuStage::encode(self, batch).await
    }

    /// Check every block as the CPU does and upload those with data.
    pub(crate) fn prepare(&self, batch: &CodeBlockBatch) -> Result<HtBatch> {
        let mut planes = Vec::with_capacity(batch.jobs.len());
        for (i, j) in batch.jobs.iter().enumerate() {
            let c = job_coeffs(batch, i)?;
            planes.push(cleanup::check(c, j.width, j.height)?);
        }
        let todo: Vec<usize> = (0..batch.jobs.len()).filter(|&i| planes[i] > 0).collect();
        let dispatches = self.upload(batch, &todo, &planes)?;
        Ok(HtBatch {
            jobs: batch.jobs.len(),
            planes: Some(planes),
            dispatches,
        })
    }

    /// Read the coded blocks of a recorded and submitted batch (its results' copy recorded
    /// with it, if it was).
    pub(crate) async fn read(
        &self,
        batch: &HtBatch,
        results: Option<RecordedReads>,
    ) -> Result<Vec<CodeBlockCoded>> {
        let HtResults {
            mut coded,
            ranges,
            blocks,
        } = self.results(batch, results).await?;
        let results_read = crate::gpu::clock();
        let parts = self.gpu.read_gathered(&ranges).await?;
        if let Some(t) = results_read {
            log::debug!(
                "HT cleanup pass: {} blocks' bytes gathered and read back in {:.1} ms",
                ranges.len(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        for (&(job, len), mut data) in blocks.iter().zip(parts) {
            data.truncate(len);
            coded[job].data = data;
        }
        Ok(coded)
    }

    /// A batch's coded blocks (its checked `results`), handed on without a copy of their
    /// own: `headers` gets the blocks (their passes and bit-planes, no bytes) and each
    /// one's length while the bytes come back, then `write` gets what `headers` made and
    /// the bytes where the readback has them mapped (a codestream's writer copies them
    /// once, into the codestream).
    async fn hand_on<P, R>(
        &self,
        results: HtResults<'_>,
        ahead: u64,
        headers: impl FnOnce(&[CodeBlockCoded], &[usize]) -> Result<P>,
        write: impl FnOnce(P, BlockBytes<'_>) -> Result<R>,
    ) -> Result<R> {
        let HtResults {
            coded,
            ranges,
            blocks,
        } = results;
        let t = crate::gpu::clock();
        let reads = self.gpu.submit_gathered(&ranges)?;
        if let Some(t) = t {
            log::debug!(
                "HT cleanup pass: gather of {} blocks submitted in {:.2} ms",
                ranges.len(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        if ahead > 0 {
            // The next image's staging, made behind this one's work.
            self.gpu.stage_ahead(ahead);
        }
        let mut lens = vec![0; coded.len()];
        let mut at = vec![None; coded.len()];
        for (k, &(job, len)) in blocks.iter().enumerate() {
            lens[job] = len;
            at[job] = Some((k, len));
        }
        // Tier-2's headers while the bytes are gathered and copied back.
        let made = headers(&coded, &lens)?;
        self.gpu
            .read_recorded_with(reads, |parts| {
                write(made, BlockBytes::Mapped { parts, at: &at })
            })
            .await?
    }

    /// The results of a recorded and submitted batch, checked: every job's coded block
    /// without its bytes, and the ranges that hold the bytes of the blocks with any (a
    /// range a block, `blocks` its job and length).
    async fn results<'b>(
        &self,
        batch: &'b HtBatch,
        recorded: Option<RecordedReads>,
    ) -> Result<HtResults<'b>> {
        let gpu = &*self.gpu;
        let mut coded = vec![CodeBlockCoded::default(); batch.jobs];
        let dispatches = &batch.dispatches;
        let (mut ranges, mut blocks) = (Vec::new(), Vec::new());
        if dispatches.is_empty() {
            return Ok(HtResults {
                coded,
                ranges,
                blocks,
            });
        }
        let t = crate::gpu::clock();
        let raw = match recorded {
            Some(reads) => gpu.read_recorded(reads).await?,
            None => gpu.read_buffers(&batch.result_ranges()).await?,
        };
        let results: Vec<Vec<u32>> = raw
            .iter()
            .map(|r| bytemuck::pod_collect_to_vec::<u8, u32>(r))
            .collect();
        let read = crate::gpu::clock();
        if let Some(t) = t {
            log::debug!(
                "HT cleanup pass: results read after {:.2} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        // What the host knows of the bit-planes (not the batch: its buffers stay on this
        // thread, which the web requires).
        let planes = batch.planes.as_deref();
        for (d, r) in dispatches.iter().zip(&results) {
            // Each block's result checked on all cores (a 4K picture has 6,708 blocks, and
            // each coded one allocates its pass), then taken in order.
            use rayon::prelude::*;
            let jobs = &d.jobs;
            let checked = d
                .blocks
                .par_iter()
                .enumerate()
                .with_min_len(256)
                .map(|(k, b)| {
                    let rec = r
                        .get(k * RESULT_WORDS..(k + 1) * RESULT_WORDS)
                        .ok_or_else(|| {
                            corrupt("a block's result lies outside the results".into())
                        })?;
                    check_block(planes, jobs[k], b, rec)
                })
                .collect::<Vec<_>>();
            // The first error in the blocks' order, as a serial check would give.
            for (b, block) in d.blocks.iter().zip(checked) {
                let Some((job, len, block)) = block? else {
                    continue;
                };
                ranges.push((
                    &*d.output,
                    b.out_word as u64 * 4,
                    (len as u64).next_multiple_of(4),
                ));
                blocks.push((job, len));
                coded[job] = block;
            }
        }
        if let Some(t) = read {
            log::debug!(
                "HT cleanup pass: results of {} blocks checked in {:.2} ms",
                coded.len(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(HtResults {
            coded,
            ranges,
            blocks,
        })
    }

    /// The blocks `todo` of `batch` in dispatches whose buffers each fit one storage
    /// binding.
    fn upload(
        &self,
        batch: &CodeBlockBatch,
        todo: &[usize],
        planes: &[u32],
    ) -> Result<Vec<Dispatch>> {
        let gpu = &*self.gpu;
        let max_binding = gpu.max_binding().min(u32::MAX as u64 / 2);
        let mut dispatches = Vec::new();
        let mut start = 0;
        while start < todo.len() {
            let mut blocks = Vec::new();
            let mut coeffs: Vec<i32> = Vec::new();
            let (mut out_words, mut scratch_words) = (0u64, 0u64);
            let mut end = start;
            while end < todo.len() {
                let i = todo[end];
                let j = &batch.jobs[i];
                let c = job_coeffs(batch, i)?;
                let room = rooms(j.width, j.height, planes[i]);
                let fits = |now: u64, more: u64| (now + more) * 4 <= max_binding;
                if end > start
                    && !(fits(coeffs.len() as u64, c.len() as u64)
                        && fits(out_words, room.out_cap() as u64 / 4)
                        && fits(scratch_words, room.scratch_words() as u64)
                        && fits(((end - start + 1) * RESULT_WORDS) as u64, 0))
                {
                    break;
                }
                blocks.push(room.block(coeffs.len(), j.width, j.height, out_words, scratch_words));
                coeffs.extend_from_slice(c);
                out_words += room.out_cap() as u64 / 4;
                scratch_words += room.scratch_words() as u64;
                end += 1;
            }
            if out_words * 4 > max_binding
                || scratch_words * 4 > max_binding
                || coeffs.len() as u64 * 4 > max_binding
            {
                return Err(Error::TooLarge(format!(
                    "HT cleanup pass: code-block {} needs more than one storage binding \
                     ({max_binding} bytes)",
                    todo[start]
                )));
            }
            let coeff_buf = gpu.pooled_buffer(
                (coeffs.len() as u64 * 4).max(16),
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            gpu.queue
                .write_buffer(&coeff_buf, 0, bytemuck::cast_slice(&coeffs));
            dispatches.push(self.make_dispatch(
                blocks,
                coeff_buf,
                out_words,
                scratch_words,
                todo[start..end].to_vec(),
            ));
            start = end;
        }
        Ok(dispatches)
    }

    /// The GPU this stage runs on.
    pub(crate) fn gpu_arc(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    fn make_dispatch(
        &self,
        blocks: Vec<HtBlock>,
        coeff_buf: PooledBuffer,
        out_words: u64,
        scratch_words: u64,
        jobs: Vec<usize>,
    ) -> Dispatch {
        let gpu = &*self.gpu;
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let params = gpu.pooled_buffer(
            16,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        gpu.queue.write_buffer(
            &params,
            0,
            bytemuck::bytes_of(&HtParams {
                n_blocks: blocks.len() as u32,
                pad: [0; 3],
            }),
        );
        let descs = gpu.pooled_buffer(std::mem::size_of_val(&blocks[..]) as u64, storage);
        gpu.queue
            .write_buffer(&descs, 0, bytemuck::cast_slice(&blocks));
        let output = gpu.pooled_buffer(
            (out_words * 4).max(16),
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let scratch = gpu.pooled_buffer((scratch_words * 4).max(16), storage);
        let results = gpu.pooled_buffer(
            (blocks.len() * RESULT_WORDS * 4) as u64,
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        Dispatch {
            params,
            descs,
            coeffs: coeff_buf,
            output,
            scratch,
            results,
            jobs,
            blocks,
        }
    }

    /// Record a prepared batch into `encoder`, timed as the pass `ht_cleanup` where a
    /// profiler is given (the bench); [`Self::read`] it once submitted.
    pub(crate) fn record(
        &self,
        dispatches: &[Dispatch],
        encoder: &mut wgpu::CommandEncoder,
        mut profiler: Option<&mut Profiler>,
    ) -> Result<()> {
        let gpu = &*self.gpu;
        let built = gpu.pipeline(&HT_CLEANUP, "main", &constants())?;
        for d in dispatches {
            let bind = gpu.bind(
                &built,
                &[
                    (0, d.params.as_entire_buffer_binding()),
                    (1, d.descs.as_entire_buffer_binding()),
                    (2, d.coeffs.as_entire_buffer_binding()),
                    (3, self.tables.as_entire_buffer_binding()),
                    (4, d.output.as_entire_buffer_binding()),
                    (5, d.scratch.as_entire_buffer_binding()),
                    (6, d.results.as_entire_buffer_binding()),
                ],
            );
            // A block the kernel never reaches must read as unfinished (FLAG_DONE unset).
            encoder.clear_buffer(&d.results, 0, None);
            let timestamp_writes = profiler.as_deref_mut().and_then(|p| p.pass("ht_cleanup"));
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(HT_CLEANUP.label),
                timestamp_writes,
            });
            pass.set_pipeline(&built.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            // A workgroup a block, as many as one dimension takes; each walks the blocks
            // a grid apart.
            pass.dispatch_workgroups((d.blocks.len() as u32).min(self.max_workgroups), 1, 1);
        }
        gpu.check_errors(HT_CLEANUP.name)
    }
}

fn constants() -> [(&'static str, f64); 1] {
    [("WG_SIZE", WG_SIZE as f64)]
}

/// Job `i`'s coefficients, or an error where the job lies outside the batch.
fn job_coeffs(batch: &CodeBlockBatch, i: usize) -> Result<&[i32]> {
    let j = &batch.jobs[i];
    j.width
        .checked_mul(j.height)
        .and_then(|n| batch.coeffs.get(j.offset..)?.get(..n))
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "HT cleanup pass: code-block {i} of {}x{} at {} lies outside the batch's {} coefficients",
                j.width,
                j.height,
                j.offset,
                batch.coeffs.len()
            ))
        })
}

/// Job `job`'s result `rec` (its block `b`) checked, against the bit-planes the host
/// found where it did: `None` for a block with no bit-plane, else its job, its length
/// and its coded block without the bytes.
fn check_block(
    host_planes: Option<&[u32]>,
    job: usize,
    b: &HtBlock,
    rec: &[u32],
) -> Result<Option<(usize, usize, CodeBlockCoded)>> {
    let planes = rec[3];
    // Where the host knows the bit-planes the shader must agree.
    if let Some(p) = host_planes.and_then(|p| p.get(job)) {
        if *p != planes {
            return Err(corrupt(format!(
                "code-block {job}: {planes} bit-planes on the GPU, {p} on the host"
            )));
        }
    }
    if rec[2] & FLAG_DONE == 0 || rec[2] & FLAG_CUT != 0 {
        // Never silently short: lavapipe ends every loop of an invocation after 65535
        // iterations in all.
        return Err(corrupt(format!(
            "code-block {job}: the device stopped the coding loops early"
        )));
    }
    if rec[2] & FLAG_TOO_DEEP != 0 {
        return Err(Error::InvalidArgument(format!(
            "code-block {job} needs {planes} bit-planes; HT code-blocks hold at most {}",
            cleanup::MAX_BITPLANES
        )));
    }
    if planes == 0 {
        return Ok(None);
    }
    let len = check_result(job, b, rec)?;
    let coded = CodeBlockCoded {
        passes: vec![PassInfo {
            end: len as u32,
            terminated: true,
        }],
        data: Vec::new(),
        num_bitplanes: planes,
    };
    Ok(Some((job, len, coded)))
}

/// A block's segment length from its result words, or the error it reports.
fn check_result(job: usize, b: &HtBlock, rec: &[u32]) -> Result<usize> {
    let (len, scup, flags) = (rec[0], rec[1], rec[2]);
    if scup as usize > MAX_SCUP {
        // The CPU twin's words for the same failure.
        return Err(corrupt(format!(
            "MEL and VLC need {scup} bytes, more than the {MAX_SCUP} Scup can say"
        )));
    }
    if flags & FLAG_NO_CODEWORD != 0 {
        return Err(corrupt(format!(
            "code-block {job}: a quad without a CxtVLC codeword"
        )));
    }
    if flags & FLAG_OVERFLOW != 0 || len > b.out_cap || len < 2 {
        return Err(corrupt(format!(
            "code-block {job}: {len} bytes in a region of {} (flags {flags:#x})",
            b.out_cap
        )));
    }
    Ok(len as usize)
}

/// A batch uploaded: its jobs in dispatches (from the host: each job's bit-planes, and
/// only the blocks with data dispatched; resident: every job, bit-planes found on the
/// GPU).
pub struct HtBatch {
    jobs: usize,
    /// Known where the host held the coefficients (not for a resident batch).
    planes: Option<Vec<u32>>,
    dispatches: Vec<Dispatch>,
}

impl HtBatch {
    /// Where each dispatch's results lie.
    fn result_ranges(&self) -> Vec<(&wgpu::Buffer, u64, u64)> {
        self.dispatches
            .iter()
            .map(|d| (&*d.results, 0, (d.blocks.len() * RESULT_WORDS * 4) as u64))
            .collect()
    }

    /// Record it into `encoder` with `ht` (see [`HtGpu::record`]).
    pub(crate) fn record(
        &self,
        ht: &HtGpu,
        encoder: &mut wgpu::CommandEncoder,
        profiler: Option<&mut Profiler>,
    ) -> Result<()> {
        ht.record(&self.dispatches, encoder, profiler)
    }
}

impl GpuStage for HtGpu {
    type Input<'a> = CodeBlockBatch;
    type Uploaded = HtBatch;
    type Pending = ();
    type Report = Vec<CodeBlockCoded>;
    type Output = Vec<CodeBlockCoded>;

    fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    fn label(&self) -> &'static str {
        HT_CLEANUP.label
    }

    async fn upload(&self, batch: &Self::Input<'_>) -> Result<HtBatch> {
        self.prepare(batch)
    }

    fn encode_into(&self, encoder: &mut wgpu::CommandEncoder, batch: &HtBatch) -> Result<()> {
        self.record(&batch.dispatches, encoder, None)
    }

    async fn finish(
        &self,
        _input: &Self::Input<'_>,
        batch: &HtBatch,
        _pending: (),
    ) -> Result<Vec<CodeBlockCoded>> {
        self.read(batch, None).await
    }

    fn output(report: Vec<CodeBlockCoded>) -> Vec<CodeBlockCoded> {
        report
    }

    /// The CPU twin: [`super::encode_code_block`] for each job, in order.
    fn cpu(&self, batch: &Self::Input<'_>) -> Result<Vec<CodeBlockCoded>> {
        (0..batch.jobs.len())
            .map(|i| {
                let j = &batch.jobs[i];
                super::encode_code_block(job_coeffs(batch, i)?, j.width, j.height)
            })
            .collect()
    }
}

impl Tier1Engine for HtGpu {
    fn encode_batch<'a>(
        &'a self,
        batch: &'a CodeBlockBatch,
        _opts: &'a Tier1Options,
    ) -> Tier1Future<'a> {
        Box::pin(self.encode(batch))
    }

    fn is_ht(&self) -> bool {
        true
    }

    fn ht_gpu(&self) -> Option<&HtGpu> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::j2k::tier1::cpu::{MAX_AREA, MAX_SIDE};

    #[test]
    fn max_pairs_is_the_shaders() {
        // The shader sizes its per-pair workgroup memory for MAX_PAIRS: the most pairs
        // of any block the checks let through.
        let most = (1..=MAX_SIDE)
            .flat_map(|w| (1..=(MAX_AREA / w).min(MAX_SIDE)).map(move |h| quad_pairs(w, h)))
            .max();
        assert_eq!(most, Some(MAX_PAIRS));
    }

    #[test]
    fn rooms_hold_the_streams_bounds() {
        // A 64x64 block of 30 bit-planes: 31 raw bits a sample at most.
        let r = rooms(64, 64, 30);
        assert_eq!(r.raw_words, 64 * 64 * 31 / 32 + 1);
        assert!(r.ms >= 64 * 64 * 31 / 8 + 64 * 64 * 31 / 56);
        let b = r.block(7, 64, 64, 100, 200);
        assert_eq!(
            b.raw_word as usize,
            200 + r.mel.div_ceil(4) + r.vlc.div_ceil(4)
        );
        assert_eq!(r.scratch_words(), (b.raw_word - 200) as usize + r.raw_words);
        assert_eq!(b.out_cap as usize % 4, 0);
    }
}
