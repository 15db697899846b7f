//! A framed encode on CUDA: a code table per frame, each block's table and gap in a block
//! map (the wgpu kernel's, `framed::framed_words`), coded by the kernel's `FLAG_FRAMED`.

use cudarc::driver::CudaSlice;

use super::{CudaInput, CudaPending, CudaVleEncoder};
use crate::cuda::driver_error;
use crate::huffman::cuvle::Plan;
use crate::huffman::frame_tables::TABLE_WORDS;
use crate::huffman::framed::{
    frame_keys, framed_words, plan_frames, slotted_words, CodedFraming, Framing,
};
use crate::huffman::CodeTable;
use crate::{Error, Result};

/// The tables of a framed encode on the device, and each block's table and gap
/// ([`CudaVleEncoder::upload_frames`]).
pub struct CudaFramedTables {
    tables: CudaSlice<u32>,
    block_frames: CudaSlice<u32>,
    /// The frames they were uploaded for: (first block, table, gap bits).
    frames: Vec<(u64, u32, u32)>,
}

impl CudaVleEncoder<'_> {
    /// Plan a framed encode of `input` from its per-chunk histograms (the wgpu path's
    /// plan): every frame must start on a chunk boundary ([`Self::with_chunk_bytes`]) and
    /// every table must code its frames' bytes.
    pub fn plan_framed(
        &self,
        input: &CudaInput,
        chunk_histograms: &[[u64; 256]],
        framing: &Framing<'_>,
    ) -> Result<Plan> {
        self.plan_coded(input, chunk_histograms, &framing.into())
    }

    /// [`Self::plan_framed`] with tables on the host or on the device.
    pub(crate) fn plan_coded(
        &self,
        input: &CudaInput,
        chunk_histograms: &[[u64; 256]],
        framing: &CodedFraming<'_>,
    ) -> Result<Plan> {
        plan_frames(
            &input.window_spans(),
            input.chunk_bytes,
            chunk_histograms,
            framing,
            &self.config,
            self.limits(),
        )
    }

    /// Upload `tables` (those the plan was made with) and the block map of `plan`, through
    /// pinned pieces (a stream coder's chunk has hundreds of tables).
    pub fn upload_frames(&self, tables: &[CodeTable], plan: &Plan) -> Result<CudaFramedTables> {
        let (words, map) = framed_words(tables, plan)?;
        let stream = &self.stream;
        let map: Vec<u32> = map.into_iter().flatten().collect();
        Ok(CudaFramedTables {
            tables: self.cuda.clone_staged(stream, &words)?,
            block_frames: self.cuda.clone_staged(stream, &map)?,
            frames: frame_keys(plan),
        })
    }

    /// The tables a frame plan built on the device (`tables`, [`TABLE_WORDS`] words a
    /// slot) beside the block map of `plan` (made with them), uploaded, with `host_tables`
    /// (a slot and its table, for frames whose code the host built) copied into their
    /// slots.
    pub(crate) fn upload_slotted_frames(
        &self,
        mut tables: CudaSlice<u32>,
        host_tables: &[(u32, &CodeTable)],
        plan: &Plan,
    ) -> Result<CudaFramedTables> {
        let n_slots = tables.len() / TABLE_WORDS;
        let (map, writes) = slotted_words(plan, n_slots, host_tables)?;
        let stream = &self.stream;
        for (at, words) in &writes {
            let at = at / 4;
            let mut slot = tables.slice_mut(at..at + TABLE_WORDS);
            stream
                .memcpy_htod(&words[..], &mut slot)
                .map_err(driver_error("copying a host-built table"))?;
        }
        let map: Vec<u32> = map.into_iter().flatten().collect();
        Ok(CudaFramedTables {
            tables,
            block_frames: self.cuda.clone_staged(stream, &map)?,
            frames: frame_keys(plan),
        })
    }

    /// Launch a framed encode (nothing waits); read it back with [`Self::finish`].
    pub fn encode_framed(
        &self,
        input: &CudaInput,
        tables: &CudaFramedTables,
        plan: &Plan,
        profile: bool,
    ) -> Result<CudaPending> {
        if !plan.is_framed() || tables.frames != frame_keys(plan) {
            return Err(Error::InvalidArgument(
                "the framed tables were uploaded for another plan".into(),
            ));
        }
        self.launch(
            input,
            &tables.tables,
            Some(&tables.block_frames),
            plan,
            profile,
        )
    }
}
