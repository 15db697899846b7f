//! CAVLC code tables of Rec. ITU-T H.264 clause 9.2, written as `(length, code)` pairs,
//! code right-aligned and sent MSB first.
//!
//! - coeff_token (Table 9-5): one table per nC range, rows TotalCoeff 0..=16, columns
//!   TrailingOnes 0..=3; the nC >= 8 column of Table 9-5 is a 6-bit fixed-length code
//!   (computed by [`coeff_token`]); nC = -1 (4:2:0 chroma DC) has rows TotalCoeff 0..=4.
//! - total_zeros (Tables 9-7 and 9-8 for 4x4 blocks, tzVlcIndex = TotalCoeff 1..=15;
//!   Table 9-9 (a) for 2x2 chroma DC, TotalCoeff 1..=3), indexed by total_zeros.
//! - run_before (Table 9-10): zerosLeft 1..=6, and > 6, indexed by run_before.
//!
//! Entries that cannot occur (TrailingOnes > TotalCoeff) are `(0, 0)`.

/// One codeword: `len` bits, the value `code` right-aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vlc {
    pub len: u8,
    pub code: u16,
}

const fn v(len: u8, code: u16) -> Vlc {
    Vlc { len, code }
}
const NA: Vlc = v(0, 0);

/// Which coeff_token table of Table 9-5 a block uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoeffTokenTable {
    /// 0 <= nC < 2
    Nc0to1,
    /// 2 <= nC < 4
    Nc2to3,
    /// 4 <= nC < 8
    Nc4to7,
    /// 8 <= nC (6-bit fixed length)
    Nc8Plus,
    /// nC == -1 (4:2:0 chroma DC)
    ChromaDc,
}

impl CoeffTokenTable {
    /// The table for `nc` (clause 9.2.1): -1 is 4:2:0 chroma DC; other negatives
    /// (4:2:2 chroma DC, nC = -2) are not part of 4:2:0 Baseline and give `None`.
    pub fn for_nc(nc: i32) -> Option<CoeffTokenTable> {
        match nc {
            -1 => Some(CoeffTokenTable::ChromaDc),
            0..=1 => Some(CoeffTokenTable::Nc0to1),
            2..=3 => Some(CoeffTokenTable::Nc2to3),
            4..=7 => Some(CoeffTokenTable::Nc4to7),
            8.. => Some(CoeffTokenTable::Nc8Plus),
            _ => None,
        }
    }
    /// Largest TotalCoeff the table codes.
    pub fn max_total_coeff(self) -> u8 {
        match self {
            CoeffTokenTable::ChromaDc => 4,
            _ => 16,
        }
    }
    pub const ALL: [CoeffTokenTable; 5] = [
        CoeffTokenTable::Nc0to1,
        CoeffTokenTable::Nc2to3,
        CoeffTokenTable::Nc4to7,
        CoeffTokenTable::Nc8Plus,
        CoeffTokenTable::ChromaDc,
    ];
}

/// Table 9-5, 0 <= nC < 2: `[TotalCoeff][TrailingOnes]`.
const COEFF_TOKEN_NC0: [[Vlc; 4]; 17] = [
    [v(1, 0b1), NA, NA, NA],
    [v(6, 0b000101), v(2, 0b01), NA, NA],
    [v(8, 0b00000111), v(6, 0b000100), v(3, 0b001), NA],
    [
        v(9, 0b000000111),
        v(8, 0b00000110),
        v(7, 0b0000101),
        v(5, 0b00011),
    ],
    [
        v(10, 0b0000000111),
        v(9, 0b000000110),
        v(8, 0b00000101),
        v(6, 0b000011),
    ],
    [
        v(11, 0b00000000111),
        v(10, 0b0000000110),
        v(9, 0b000000101),
        v(7, 0b0000100),
    ],
    [
        v(13, 0b0000000001111),
        v(11, 0b00000000110),
        v(10, 0b0000000101),
        v(8, 0b00000100),
    ],
    [
        v(13, 0b0000000001011),
        v(13, 0b0000000001110),
        v(11, 0b00000000101),
        v(9, 0b000000100),
    ],
    [
        v(13, 0b0000000001000),
        v(13, 0b0000000001010),
        v(13, 0b0000000001101),
        v(10, 0b0000000100),
    ],
    [
        v(14, 0b00000000001111),
        v(14, 0b00000000001110),
        v(13, 0b0000000001001),
        v(11, 0b00000000100),
    ],
    [
        v(14, 0b00000000001011),
        v(14, 0b00000000001010),
        v(14, 0b00000000001101),
        v(13, 0b0000000001100),
    ],
    [
        v(15, 0b000000000001111),
        v(15, 0b000000000001110),
        v(14, 0b00000000001001),
        v(14, 0b00000000001100),
    ],
    [
        v(15, 0b000000000001011),
        v(15, 0b000000000001010),
        v(15, 0b000000000001101),
        v(14, 0b00000000001000),
    ],
    [
        v(16, 0b0000000000001111),
        v(15, 0b000000000000001),
        v(15, 0b000000000001001),
        v(15, 0b000000000001100),
    ],
    [
        v(16, 0b0000000000001011),
        v(16, 0b0000000000001110),
        v(16, 0b0000000000001101),
        v(15, 0b000000000001000),
    ],
    [
        v(16, 0b0000000000000111),
        v(16, 0b0000000000001010),
        v(16, 0b0000000000001001),
        v(16, 0b0000000000001100),
    ],
    [
        v(16, 0b0000000000000100),
        v(16, 0b0000000000000110),
        v(16, 0b0000000000000101),
        v(16, 0b0000000000001000),
    ],
];

/// Table 9-5, 2 <= nC < 4.
const COEFF_TOKEN_NC2: [[Vlc; 4]; 17] = [
    [v(2, 0b11), NA, NA, NA],
    [v(6, 0b001011), v(2, 0b10), NA, NA],
    [v(6, 0b000111), v(5, 0b00111), v(3, 0b011), NA],
    [
        v(7, 0b0000111),
        v(6, 0b001010),
        v(6, 0b001001),
        v(4, 0b0101),
    ],
    [
        v(8, 0b00000111),
        v(6, 0b000110),
        v(6, 0b000101),
        v(4, 0b0100),
    ],
    [
        v(8, 0b00000100),
        v(7, 0b0000110),
        v(7, 0b0000101),
        v(5, 0b00110),
    ],
    [
        v(9, 0b000000111),
        v(8, 0b00000110),
        v(8, 0b00000101),
        v(6, 0b001000),
    ],
    [
        v(11, 0b00000001111),
        v(9, 0b000000110),
        v(9, 0b000000101),
        v(6, 0b000100),
    ],
    [
        v(11, 0b00000001011),
        v(11, 0b00000001110),
        v(11, 0b00000001101),
        v(7, 0b0000100),
    ],
    [
        v(12, 0b000000001111),
        v(11, 0b00000001010),
        v(11, 0b00000001001),
        v(9, 0b000000100),
    ],
    [
        v(12, 0b000000001011),
        v(12, 0b000000001110),
        v(12, 0b000000001101),
        v(11, 0b00000001100),
    ],
    [
        v(12, 0b000000001000),
        v(12, 0b000000001010),
        v(12, 0b000000001001),
        v(11, 0b00000001000),
    ],
    [
        v(13, 0b0000000001111),
        v(13, 0b0000000001110),
        v(13, 0b0000000001101),
        v(12, 0b000000001100),
    ],
    [
        v(13, 0b0000000001011),
        v(13, 0b0000000001010),
        v(13, 0b0000000001001),
        v(13, 0b0000000001100),
    ],
    [
        v(13, 0b0000000000111),
        v(14, 0b00000000001011),
        v(13, 0b0000000000110),
        v(13, 0b0000000001000),
    ],
    [
        v(14, 0b00000000001001),
        v(14, 0b00000000001000),
        v(14, 0b00000000001010),
        v(13, 0b0000000000001),
    ],
    [
        v(14, 0b00000000000111),
        v(14, 0b00000000000110),
        v(14, 0b00000000000101),
        v(14, 0b00000000000100),
    ],
];

/// Table 9-5, 4 <= nC < 8.
const COEFF_TOKEN_NC4: [[Vlc; 4]; 17] = [
    [v(4, 0b1111), NA, NA, NA],
    [v(6, 0b001111), v(4, 0b1110), NA, NA],
    [v(6, 0b001011), v(5, 0b01111), v(4, 0b1101), NA],
    [v(6, 0b001000), v(5, 0b01100), v(5, 0b01110), v(4, 0b1100)],
    [v(7, 0b0001111), v(5, 0b01010), v(5, 0b01011), v(4, 0b1011)],
    [v(7, 0b0001011), v(5, 0b01000), v(5, 0b01001), v(4, 0b1010)],
    [
        v(7, 0b0001001),
        v(6, 0b001110),
        v(6, 0b001101),
        v(4, 0b1001),
    ],
    [
        v(7, 0b0001000),
        v(6, 0b001010),
        v(6, 0b001001),
        v(4, 0b1000),
    ],
    [
        v(8, 0b00001111),
        v(7, 0b0001110),
        v(7, 0b0001101),
        v(5, 0b01101),
    ],
    [
        v(8, 0b00001011),
        v(8, 0b00001110),
        v(7, 0b0001010),
        v(6, 0b001100),
    ],
    [
        v(9, 0b000001111),
        v(8, 0b00001010),
        v(8, 0b00001101),
        v(7, 0b0001100),
    ],
    [
        v(9, 0b000001011),
        v(9, 0b000001110),
        v(8, 0b00001001),
        v(8, 0b00001100),
    ],
    [
        v(9, 0b000001000),
        v(9, 0b000001010),
        v(9, 0b000001101),
        v(8, 0b00001000),
    ],
    [
        v(10, 0b0000001101),
        v(9, 0b000000111),
        v(9, 0b000001001),
        v(9, 0b000001100),
    ],
    [
        v(10, 0b0000001001),
        v(10, 0b0000001100),
        v(10, 0b0000001011),
        v(10, 0b0000001010),
    ],
    [
        v(10, 0b0000000101),
        v(10, 0b0000001000),
        v(10, 0b0000000111),
        v(10, 0b0000000110),
    ],
    [
        v(10, 0b0000000001),
        v(10, 0b0000000100),
        v(10, 0b0000000011),
        v(10, 0b0000000010),
    ],
];

/// Table 9-5, nC == -1 (4:2:0 chroma DC): `[TotalCoeff 0..=4][TrailingOnes]`.
const COEFF_TOKEN_CHROMA_DC: [[Vlc; 4]; 5] = [
    [v(2, 0b01), NA, NA, NA],
    [v(6, 0b000111), v(1, 0b1), NA, NA],
    [v(6, 0b000100), v(6, 0b000110), v(3, 0b001), NA],
    [
        v(6, 0b000011),
        v(7, 0b0000011),
        v(7, 0b0000010),
        v(6, 0b000101),
    ],
    [
        v(6, 0b000010),
        v(8, 0b00000011),
        v(8, 0b00000010),
        v(7, 0b0000000),
    ],
];

/// coeff_token for (`table`, `trailing_ones`, `total_coeff`); `None` where no such
/// token exists (TrailingOnes > min(TotalCoeff, 3), or TotalCoeff above the table).
pub fn coeff_token(table: CoeffTokenTable, trailing_ones: u8, total_coeff: u8) -> Option<Vlc> {
    if trailing_ones > 3 || trailing_ones > total_coeff || total_coeff > table.max_total_coeff() {
        return None;
    }
    let (t, n) = (trailing_ones as usize, total_coeff as usize);
    Some(match table {
        CoeffTokenTable::Nc0to1 => COEFF_TOKEN_NC0[n][t],
        CoeffTokenTable::Nc2to3 => COEFF_TOKEN_NC2[n][t],
        CoeffTokenTable::Nc4to7 => COEFF_TOKEN_NC4[n][t],
        CoeffTokenTable::ChromaDc => COEFF_TOKEN_CHROMA_DC[n][t],
        // Table 9-5, 8 <= nC: 6 bits, xxxxyy with xxxx = TotalCoeff - 1 and
        // yy = TrailingOnes; TotalCoeff 0 is 000011.
        CoeffTokenTable::Nc8Plus => {
            if total_coeff == 0 {
                v(6, 0b000011)
            } else {
                v(6, (((total_coeff - 1) as u16) << 2) | trailing_ones as u16)
            }
        }
    })
}

/// Tables 9-7 and 9-8: total_zeros for 4x4 blocks (and the 15-coefficient AC blocks),
/// `[TotalCoeff - 1][total_zeros]`, total_zeros 0..=16 - TotalCoeff.
const TOTAL_ZEROS_4X4: [&[Vlc]; 15] = [
    &[
        v(1, 0b1),
        v(3, 0b011),
        v(3, 0b010),
        v(4, 0b0011),
        v(4, 0b0010),
        v(5, 0b00011),
        v(5, 0b00010),
        v(6, 0b000011),
        v(6, 0b000010),
        v(7, 0b0000011),
        v(7, 0b0000010),
        v(8, 0b00000011),
        v(8, 0b00000010),
        v(9, 0b000000011),
        v(9, 0b000000010),
        v(9, 0b000000001),
    ],
    &[
        v(3, 0b111),
        v(3, 0b110),
        v(3, 0b101),
        v(3, 0b100),
        v(3, 0b011),
        v(4, 0b0101),
        v(4, 0b0100),
        v(4, 0b0011),
        v(4, 0b0010),
        v(5, 0b00011),
        v(5, 0b00010),
        v(6, 0b000011),
        v(6, 0b000010),
        v(6, 0b000001),
        v(6, 0b000000),
    ],
    &[
        v(4, 0b0101),
        v(3, 0b111),
        v(3, 0b110),
        v(3, 0b101),
        v(4, 0b0100),
        v(4, 0b0011),
        v(3, 0b100),
        v(3, 0b011),
        v(4, 0b0010),
        v(5, 0b00011),
        v(5, 0b00010),
        v(6, 0b000001),
        v(5, 0b00001),
        v(6, 0b000000),
    ],
    &[
        v(5, 0b00011),
        v(3, 0b111),
        v(4, 0b0101),
        v(4, 0b0100),
        v(3, 0b110),
        v(3, 0b101),
        v(3, 0b100),
        v(4, 0b0011),
        v(3, 0b011),
        v(4, 0b0010),
        v(5, 0b00010),
        v(5, 0b00001),
        v(5, 0b00000),
    ],
    &[
        v(4, 0b0101),
        v(4, 0b0100),
        v(4, 0b0011),
        v(3, 0b111),
        v(3, 0b110),
        v(3, 0b101),
        v(3, 0b100),
        v(3, 0b011),
        v(4, 0b0010),
        v(5, 0b00001),
        v(4, 0b0001),
        v(5, 0b00000),
    ],
    &[
        v(6, 0b000001),
        v(5, 0b00001),
        v(3, 0b111),
        v(3, 0b110),
        v(3, 0b101),
        v(3, 0b100),
        v(3, 0b011),
        v(3, 0b010),
        v(4, 0b0001),
        v(3, 0b001),
        v(6, 0b000000),
    ],
    &[
        v(6, 0b000001),
        v(5, 0b00001),
        v(3, 0b101),
        v(3, 0b100),
        v(3, 0b011),
        v(2, 0b11),
        v(3, 0b010),
        v(4, 0b0001),
        v(3, 0b001),
        v(6, 0b000000),
    ],
    &[
        v(6, 0b000001),
        v(4, 0b0001),
        v(5, 0b00001),
        v(3, 0b011),
        v(2, 0b11),
        v(2, 0b10),
        v(3, 0b010),
        v(3, 0b001),
        v(6, 0b000000),
    ],
    &[
        v(6, 0b000001),
        v(6, 0b000000),
        v(4, 0b0001),
        v(2, 0b11),
        v(2, 0b10),
        v(3, 0b001),
        v(2, 0b01),
        v(5, 0b00001),
    ],
    &[
        v(5, 0b00001),
        v(5, 0b00000),
        v(3, 0b001),
        v(2, 0b11),
        v(2, 0b10),
        v(2, 0b01),
        v(4, 0b0001),
    ],
    &[
        v(4, 0b0000),
        v(4, 0b0001),
        v(3, 0b001),
        v(3, 0b010),
        v(1, 0b1),
        v(3, 0b011),
    ],
    &[
        v(4, 0b0000),
        v(4, 0b0001),
        v(2, 0b01),
        v(1, 0b1),
        v(3, 0b001),
    ],
    &[v(3, 0b000), v(3, 0b001), v(1, 0b1), v(2, 0b01)],
    &[v(2, 0b00), v(2, 0b01), v(1, 0b1)],
    &[v(1, 0b0), v(1, 0b1)],
];

/// Table 9-9 (a): total_zeros for 4:2:0 chroma DC, `[TotalCoeff - 1][total_zeros]`.
const TOTAL_ZEROS_CHROMA_DC: [&[Vlc]; 3] = [
    &[v(1, 0b1), v(2, 0b01), v(3, 0b001), v(3, 0b000)],
    &[v(1, 0b1), v(2, 0b01), v(2, 0b00)],
    &[v(1, 0b1), v(1, 0b0)],
];

/// The total_zeros code list for a block: `chroma_dc` selects Table 9-9 (a), otherwise
/// Tables 9-7/9-8. `None` for TotalCoeff outside 1..=15 (1..=3 for chroma DC).
pub fn total_zeros_table(chroma_dc: bool, total_coeff: u8) -> Option<&'static [Vlc]> {
    let i = (total_coeff as usize).checked_sub(1)?;
    if chroma_dc {
        TOTAL_ZEROS_CHROMA_DC.get(i).copied()
    } else {
        TOTAL_ZEROS_4X4.get(i).copied()
    }
}

/// total_zeros codeword; `None` where the value cannot occur.
pub fn total_zeros(chroma_dc: bool, total_coeff: u8, total_zeros: u8) -> Option<Vlc> {
    total_zeros_table(chroma_dc, total_coeff)?
        .get(total_zeros as usize)
        .copied()
}

/// Codeword lengths only, for counting a block's bits without writing them: coeff_token
/// of the 4x4 tables (Nc0to1, Nc2to3, Nc4to7, Nc8Plus) by `[table][TotalCoeff][TrailingOnes]`,
/// total_zeros of 4x4 blocks by `[TotalCoeff - 1][total_zeros]`, run_before by
/// `[min(zerosLeft, 7) - 1][run_before]` (0 where a value cannot occur).
pub struct VlcLengths {
    pub coeff_token: [[[u8; 4]; 17]; 4],
    pub total_zeros: [[u8; 16]; 15],
    pub run_before: [[u8; 15]; 7],
}

pub const VLC_LENGTHS: VlcLengths = {
    let mut l = VlcLengths {
        coeff_token: [[[0; 4]; 17]; 4],
        total_zeros: [[0; 16]; 15],
        run_before: [[0; 15]; 7],
    };
    let mut n = 0;
    while n < 17 {
        let mut t = 0;
        while t < 4 {
            l.coeff_token[0][n][t] = COEFF_TOKEN_NC0[n][t].len;
            l.coeff_token[1][n][t] = COEFF_TOKEN_NC2[n][t].len;
            l.coeff_token[2][n][t] = COEFF_TOKEN_NC4[n][t].len;
            l.coeff_token[3][n][t] = 6;
            t += 1;
        }
        n += 1;
    }
    l.total_zeros = row_lengths(&TOTAL_ZEROS_4X4);
    l.run_before = row_lengths(&RUN_BEFORE);
    // zerosLeft > 6: not in RUN_BEFORE, lengths by rule.
    let mut r = 0;
    while r < 15 {
        l.run_before[6][r] = if r <= 6 { 3 } else { r as u8 - 3 };
        r += 1;
    }
    l
};

/// The codeword lengths of each row of `rows`, 0 past a row's end and in rows past
/// the last.
const fn row_lengths<const R: usize, const N: usize>(rows: &[&[Vlc]]) -> [[u8; N]; R] {
    let mut out = [[0u8; N]; R];
    let mut i = 0;
    while i < rows.len() {
        let mut j = 0;
        while j < rows[i].len() {
            out[i][j] = rows[i][j].len;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Table 9-10, zerosLeft 1..=6: `[zerosLeft - 1][run_before]`.
const RUN_BEFORE: [&[Vlc]; 6] = [
    &[v(1, 0b1), v(1, 0b0)],
    &[v(1, 0b1), v(2, 0b01), v(2, 0b00)],
    &[v(2, 0b11), v(2, 0b10), v(2, 0b01), v(2, 0b00)],
    &[v(2, 0b11), v(2, 0b10), v(2, 0b01), v(3, 0b001), v(3, 0b000)],
    &[
        v(2, 0b11),
        v(2, 0b10),
        v(3, 0b011),
        v(3, 0b010),
        v(3, 0b001),
        v(3, 0b000),
    ],
    &[
        v(2, 0b11),
        v(3, 0b000),
        v(3, 0b001),
        v(3, 0b011),
        v(3, 0b010),
        v(3, 0b101),
        v(3, 0b100),
    ],
];

/// run_before codeword for `zeros_left` (>= 1) and `run` (0..=zeros_left, at most 14);
/// `None` outside that range.
pub fn run_before(zeros_left: u8, run: u8) -> Option<Vlc> {
    if zeros_left == 0 || run > zeros_left || run > 14 {
        return None;
    }
    if zeros_left <= 6 {
        return RUN_BEFORE[zeros_left as usize - 1]
            .get(run as usize)
            .copied();
    }
    // Table 9-10, zerosLeft > 6: 111, 110, ..., 001 for runs 0..=6, then
    // 0001, 00001, ... (run - 3 bits ending in a single 1) for runs 7..=14.
    Some(if run <= 6 {
        v(3, 7 - run as u16)
    } else {
        v(run - 3, 1)
    })
}
