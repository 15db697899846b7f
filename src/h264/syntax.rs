//! Parameter sets and slice headers (clause 7.3.2.1, 7.3.2.2, 7.3.3) of our one kind of
//! stream: Baseline, 4:2:0 8-bit, frames only, every picture an IDR of I slices, CAVLC,
//! no deblocking.

use super::nal::trailing_bits;
use super::Geometry;
use crate::bits::MsbWriter;
use crate::cavlc::frame::{put_se, put_ue};

/// log2_max_frame_num_minus4 = 0: frame_num takes 4 bits (always 0 here).
const FRAME_NUM_BITS: u32 = 4;

/// Table A-1: (level_idc, MaxMBPS, MaxFS) in increasing order (level 1b left out).
const LEVELS: [(u8, u64, u64); 19] = [
    (10, 1_485, 99),
    (11, 3_000, 396),
    (12, 6_000, 396),
    (13, 11_880, 396),
    (20, 11_880, 396),
    (21, 19_800, 792),
    (22, 20_250, 1_620),
    (30, 40_500, 1_620),
    (31, 108_000, 3_600),
    (32, 216_000, 5_120),
    (40, 245_760, 8_192),
    (41, 245_760, 8_192),
    (42, 522_240, 8_704),
    (50, 589_824, 22_080),
    (51, 983_040, 36_864),
    (52, 2_073_600, 36_864),
    (60, 4_177_920, 139_264),
    (61, 8_355_840, 139_264),
    (62, 16_711_680, 139_264),
];

/// The lowest level whose frame size, frame dimensions (at most sqrt(8 * MaxFS)
/// macroblocks each way) and macroblock rate at `fps` admit the picture; 6.2 when none
/// does. Bit rate limits are not considered: an intra-only stream at a low QP exceeds
/// every level's, and decoders do not enforce them.
pub fn level_idc(width_mbs: u32, height_mbs: u32, fps: f64) -> u8 {
    let fs = width_mbs as u64 * height_mbs as u64;
    for &(idc, max_mbps, max_fs) in &LEVELS {
        let side = ((8 * max_fs) as f64).sqrt();
        if fs <= max_fs
            && width_mbs as f64 <= side
            && height_mbs as f64 <= side
            && fs as f64 * fps <= max_mbps as f64
        {
            return idc;
        }
    }
    62
}

/// seq_parameter_set_rbsp().
pub fn sps(g: &Geometry, level_idc: u8) -> Vec<u8> {
    let mut w = MsbWriter::new();
    w.put(66, 8); // profile_idc: Baseline
    w.put(0b1100_0000, 8); // constraint_set0_flag, constraint_set1_flag (Constrained Baseline)
    w.put(level_idc as u32, 8);
    put_ue(&mut w, 0); // seq_parameter_set_id
    put_ue(&mut w, FRAME_NUM_BITS - 4); // log2_max_frame_num_minus4
    put_ue(&mut w, 2); // pic_order_cnt_type: output order = decoding order
    put_ue(&mut w, 1); // max_num_ref_frames
    w.put(0, 1); // gaps_in_frame_num_value_allowed_flag
    put_ue(&mut w, g.width_mbs - 1);
    put_ue(&mut w, g.height_mbs - 1);
    w.put(1, 1); // frame_mbs_only_flag
    w.put(1, 1); // direct_8x8_inference_flag
    let (right, bottom) = (
        g.width_mbs * 16 - g.display_width,
        g.height_mbs * 16 - g.display_height,
    );
    if right == 0 && bottom == 0 {
        w.put(0, 1); // frame_cropping_flag
    } else {
        // 4:2:0 frames crop in units of 2 samples each way.
        w.put(1, 1);
        put_ue(&mut w, 0);
        put_ue(&mut w, right / 2);
        put_ue(&mut w, 0);
        put_ue(&mut w, bottom / 2);
    }
    w.put(0, 1); // vui_parameters_present_flag
    trailing_bits(&mut w);
    w.into_bitbuf().bytes
}

/// pic_parameter_set_rbsp(): CAVLC, one slice group, deblocking control present,
/// pic_init_qp = `qp`.
pub fn pps(qp: u8) -> Vec<u8> {
    let mut w = MsbWriter::new();
    put_ue(&mut w, 0); // pic_parameter_set_id
    put_ue(&mut w, 0); // seq_parameter_set_id
    w.put(0, 1); // entropy_coding_mode_flag: CAVLC
    w.put(0, 1); // bottom_field_pic_order_in_frame_present_flag
    put_ue(&mut w, 0); // num_slice_groups_minus1
    put_ue(&mut w, 0); // num_ref_idx_l0_default_active_minus1
    put_ue(&mut w, 0); // num_ref_idx_l1_default_active_minus1
    w.put(0, 1); // weighted_pred_flag
    w.put(0, 2); // weighted_bipred_idc
    put_se(&mut w, qp as i32 - 26); // pic_init_qp_minus26
    put_se(&mut w, 0); // pic_init_qs_minus26
    put_se(&mut w, 0); // chroma_qp_index_offset
    w.put(1, 1); // deblocking_filter_control_present_flag
    w.put(0, 1); // constrained_intra_pred_flag
    w.put(0, 1); // redundant_pic_cnt_present_flag
    trailing_bits(&mut w);
    w.into_bitbuf().bytes
}

/// slice_header() of an I slice of an IDR picture at the PPS's QP, deblocking disabled
/// (so the decoded picture is exactly our reconstruction).
pub fn slice_header(first_mb: u32, idr_pic_id: u32) -> MsbWriter {
    let mut w = MsbWriter::new();
    put_ue(&mut w, first_mb); // first_mb_in_slice
    put_ue(&mut w, 7); // slice_type: I, and every slice of the picture is I
    put_ue(&mut w, 0); // pic_parameter_set_id
    w.put(0, FRAME_NUM_BITS); // frame_num: 0 in an IDR picture
    put_ue(&mut w, idr_pic_id);
    w.put(0, 1); // dec_ref_pic_marking: no_output_of_prior_pics_flag
    w.put(0, 1); // long_term_reference_flag
    put_se(&mut w, 0); // slice_qp_delta
    put_ue(&mut w, 1); // disable_deblocking_filter_idc
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_by_size_and_rate() {
        assert_eq!(level_idc(11, 9, 15.0), 10); // QCIF at 15 fps
        assert_eq!(level_idc(11, 9, 25.0), 11); // 2475 MB/s
        assert_eq!(level_idc(22, 18, 25.0), 13); // CIF: 9900 MB/s
        assert_eq!(level_idc(80, 45, 25.0), 31); // 720p
        assert_eq!(level_idc(120, 68, 25.0), 40); // 1080p: 204000 MB/s, 8160 MBs
        assert_eq!(level_idc(240, 135, 25.0), 51); // 2160p
        assert_eq!(level_idc(2000, 2000, 1.0), 62);
        // Too wide for level 1's sqrt(8 * 99) = 28 macroblocks.
        assert_eq!(level_idc(40, 1, 1.0), 11);
    }
}
