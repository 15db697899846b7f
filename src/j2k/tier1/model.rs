//! Coefficient bit modelling tables shared by the tier-1 encoder and decoder
//! (ISO/IEC 15444-1 Annex D): the 19 contexts, their initial states, the zero coding
//! contexts per band orientation (Table D.1), sign coding (Tables D.2, D.3) and
//! magnitude refinement (Table D.4).

use super::BandOrientation;
use crate::j2k::mq::Context;

/// Number of contexts: 9 zero coding, 5 sign coding, 3 magnitude refinement, run-length
/// and uniform.
pub const NUM_CONTEXTS: usize = 19;
/// First sign coding context (9..=13).
pub const CTX_SC: u8 = 9;
/// First magnitude refinement context (14..=16).
pub const CTX_MR: u8 = 14;
/// Run-length (aggregation) context of the cleanup pass.
pub const CTX_RL: u8 = 17;
/// Uniform context: the run-length interruption position.
pub const CTX_UNI: u8 = 18;

/// Table D.7: every context starts at state 0 with MPS 0, except UNIFORM (46),
/// run-length (3) and zero coding context 0 (4).
pub fn initial_contexts() -> [Context; NUM_CONTEXTS] {
    let mut cx = [Context::new(0); NUM_CONTEXTS];
    cx[0] = Context::new(4);
    cx[CTX_RL as usize] = Context::new(3);
    cx[CTX_UNI as usize] = Context::new(46);
    cx
}

/// Table D.1: zero coding context from the number of significant horizontal (0..=2),
/// vertical (0..=2) and diagonal (0..=4) neighbours.
pub const fn zc_context(band: BandOrientation, h: u32, v: u32, d: u32) -> u8 {
    match band {
        BandOrientation::HH => {
            let hv = h + v;
            match d {
                0 => match hv {
                    0 => 0,
                    1 => 1,
                    _ => 2,
                },
                1 => match hv {
                    0 => 3,
                    1 => 4,
                    _ => 5,
                },
                2 => {
                    if hv == 0 {
                        6
                    } else {
                        7
                    }
                }
                _ => 8,
            }
        }
        // HL is horizontally high-pass: its table is LL/LH's with h and v swapped.
        BandOrientation::HL => zc_context_ll_lh(v, h, d),
        BandOrientation::LL | BandOrientation::LH => zc_context_ll_lh(h, v, d),
    }
}

const fn zc_context_ll_lh(h: u32, v: u32, d: u32) -> u8 {
    match h {
        0 => match v {
            0 => match d {
                0 => 0,
                1 => 1,
                _ => 2,
            },
            1 => 3,
            _ => 4,
        },
        1 => {
            if v > 0 {
                7
            } else if d > 0 {
                6
            } else {
                5
            }
        }
        _ => 8,
    }
}

/// Zero coding contexts of one orientation, indexed by `h * 15 + v * 5 + d`.
pub type ZcTable = [u8; 45];

pub const fn zc_table(band: BandOrientation) -> ZcTable {
    let mut t = [0u8; 45];
    let mut h = 0;
    while h < 3 {
        let mut v = 0;
        while v < 3 {
            let mut d = 0;
            while d < 5 {
                t[(h * 15 + v * 5 + d) as usize] = zc_context(band, h, v, d);
                d += 1;
            }
            v += 1;
        }
        h += 1;
    }
    t
}

/// Tables D.2 and D.3: sign coding context and the XOR bit (sign prediction) from the
/// horizontal and vertical contributions, each clamped to -1..=1 (a significant
/// neighbour counts +1 if positive, -1 if negative).
pub const fn sc_context(h: i32, v: i32) -> (u8, u32) {
    let (offset, xor) = match (h, v) {
        (1, 1) => (4, 0),
        (1, 0) => (3, 0),
        (1, _) => (2, 0),
        (0, 1) => (1, 0),
        (0, 0) => (0, 0),
        (0, _) => (1, 1),
        (_, 1) => (2, 1),
        (_, 0) => (3, 1),
        _ => (4, 1),
    };
    (CTX_SC + offset, xor)
}

/// Table D.4: magnitude refinement context: 16 after the first refinement, else 15 if
/// any of the eight neighbours is significant, else 14.
pub const fn mr_context(refined: bool, any_neighbour: bool) -> u8 {
    if refined {
        CTX_MR + 2
    } else if any_neighbour {
        CTX_MR + 1
    } else {
        CTX_MR
    }
}

/// Whether pass `kind` of magnitude bit-plane `plane` (0 = the most significant coded
/// plane) is raw (bypasses the MQ coder): SPP and MRP from plane `bypass_from - 1` on.
pub fn is_raw(plane: u32, kind: PassKind, bypass_from: Option<u32>) -> bool {
    match bypass_from {
        Some(k) => kind != PassKind::Cleanup && plane + 1 >= k,
        None => false,
    }
}

/// Whether a pass ends a codeword segment (D.4.2 with the bypass style): the last pass;
/// with bypass, the cleanup pass just before the first raw pass, and from the first raw
/// plane on every MRP (ends the raw SPP+MRP segment) and every cleanup pass (its own MQ
/// segment). This is exactly when OpenJPEG's `opj_t1_enc_is_term_pass` says so.
pub fn is_terminated(
    plane: u32,
    kind: PassKind,
    num_bitplanes: u32,
    bypass_from: Option<u32>,
) -> bool {
    if kind == PassKind::Cleanup && plane + 1 == num_bitplanes {
        return true;
    }
    match bypass_from {
        Some(k) => match kind {
            PassKind::Cleanup => plane + 2 >= k,
            PassKind::Refinement => plane + 1 >= k,
            PassKind::Significance => false,
        },
        None => false,
    }
}

/// The three coding passes of a bit-plane, in coding order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassKind {
    Significance,
    Refinement,
    Cleanup,
}

/// The passes of a code-block with `num_bitplanes` coded planes in coding order:
/// (plane, kind), plane 0 the most significant, which has only a cleanup pass.
pub fn pass_sequence(num_bitplanes: u32) -> impl Iterator<Item = (u32, PassKind)> {
    (0..num_bitplanes).flat_map(|plane| {
        let kinds: &'static [PassKind] = if plane == 0 {
            &[PassKind::Cleanup]
        } else {
            &[
                PassKind::Significance,
                PassKind::Refinement,
                PassKind::Cleanup,
            ]
        };
        kinds.iter().map(move |&k| (plane, k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zc_tables_match_table_d1_spot_checks() {
        use BandOrientation::*;
        // LL/LH: two horizontal neighbours -> 8; one horizontal and one vertical -> 7.
        assert_eq!(zc_context(LL, 2, 0, 0), 8);
        assert_eq!(zc_context(LH, 1, 1, 0), 7);
        assert_eq!(zc_context(LL, 1, 0, 3), 6);
        assert_eq!(zc_context(LL, 0, 2, 0), 4);
        assert_eq!(zc_context(LL, 0, 0, 2), 2);
        // HL swaps the roles of h and v.
        assert_eq!(zc_context(HL, 0, 2, 0), 8);
        assert_eq!(zc_context(HL, 2, 0, 0), 4);
        // HH is driven by the diagonals.
        assert_eq!(zc_context(HH, 0, 0, 3), 8);
        assert_eq!(zc_context(HH, 1, 0, 2), 7);
        assert_eq!(zc_context(HH, 0, 0, 2), 6);
        assert_eq!(zc_context(HH, 2, 0, 1), 5);
        assert_eq!(zc_context(HH, 0, 1, 0), 1);
        assert_eq!(zc_context(HH, 0, 0, 0), 0);
    }

    #[test]
    fn sign_contexts_are_symmetric() {
        for h in -1..=1 {
            for v in -1..=1 {
                let (c, x) = sc_context(h, v);
                let (cn, xn) = sc_context(-h, -v);
                assert_eq!(c, cn);
                if (h, v) != (0, 0) {
                    assert_ne!(x, xn);
                }
            }
        }
        assert_eq!(sc_context(0, 0), (9, 0));
        assert_eq!(sc_context(-1, -1), (13, 1));
    }

    #[test]
    fn openjpeg_termination_rule_for_k5() {
        // Pass indices 0 (CUP plane 0), then SPP/MRP/CUP per plane.
        let nbp = 8;
        let terms: Vec<usize> = pass_sequence(nbp)
            .enumerate()
            .filter(|&(_, (p, k))| is_terminated(p, k, nbp, Some(5)))
            .map(|(i, _)| i)
            .collect();
        // CUP of plane 3 (index 9), then MRP and CUP of planes 4.. (11, 12, 14, 15, ...).
        assert_eq!(terms, vec![9, 11, 12, 14, 15, 17, 18, 20, 21]);
        assert!(is_raw(4, PassKind::Significance, Some(5)));
        assert!(!is_raw(3, PassKind::Significance, Some(5)));
        assert!(!is_raw(7, PassKind::Cleanup, Some(5)));
    }
}
