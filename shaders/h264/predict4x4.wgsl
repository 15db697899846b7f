// Intra_4x4 luma prediction (clause 8.3.1.2), the twin of src/h264/predict4x4.rs
// `predict4x4`: every directional mode reads the block's edge as one line
// (`Edge::line`: p[-1, 3] at 0 and 1, p[-1, y] at 4 - y, the corner at 5, p[x, -1] at
// 6 + x, p[7, -1] again at 14 and 15) through a tap per sample (`line_tap`, uploaded in
// the rate tables): the entry, the mean of two, or the (1, 2, 1) filter of three. So the
// invocations of a block, each predicting another mode, run the same instructions where
// a formula per mode would have them take turns.

//!import h264/block
//!import h264/rate

// Each of a step's two blocks' edge line (index: the block's half of the workgroup).
var<workgroup> i4_line: array<array<i32, 16>, 2>;

// Which edges a mode needs: vertical, diagonal down left and vertical left the top;
// horizontal and horizontal up the left; the other three all of them, corner included;
// DC none.
fn i4_mode_available(mode: u32, has_top: bool, has_left: bool, has_corner: bool) -> bool {
    switch mode {
        case 0u, 3u, 7u: { return has_top; }
        case 1u, 8u: { return has_left; }
        case 2u: { return true; }
        default: { return has_top && has_left && has_corner; }
    }
}

// The line of `half`'s block from its edge (keep in sync with src/h264/predict4x4.rs
// `Edge::line`): `t[x + 1]` is p[x, -1] for x = -1..7 and `l[y + 1]` is p[-1, y] for
// y = -1..3 (`t[0]` and `l[0]` the corner).
fn i4_store_line(half: u32, t: array<i32, 9>, l: array<i32, 5>) {
    i4_line[half][0] = l[4];
    i4_line[half][1] = l[4];
    i4_line[half][2] = l[3];
    i4_line[half][3] = l[2];
    i4_line[half][4] = l[1];
    i4_line[half][5] = t[0];
    i4_line[half][6] = t[1];
    i4_line[half][7] = t[2];
    i4_line[half][8] = t[3];
    i4_line[half][9] = t[4];
    i4_line[half][10] = t[5];
    i4_line[half][11] = t[6];
    i4_line[half][12] = t[7];
    i4_line[half][13] = t[8];
    i4_line[half][14] = t[8];
    i4_line[half][15] = t[8];
}

// A sample of a directional mode from `half`'s line by its tap.
fn i4_line_sample(half: u32, tap: u32) -> i32 {
    let i = min(tap & 15u, 13u);
    let a = i4_line[half][i];
    let b = i4_line[half][i + 1u];
    let c = i4_line[half][i + 2u];
    let kind = (tap >> 4u) & 3u;
    return select(select(a, (a + b + 1) >> 1u, kind == 1u), (a + 2 * b + c + 2) >> 2u, kind == 2u);
}

// Row `y` of directional `mode` from `half`'s line: the row's four taps in one word (keep
// in sync with src/h264/predict4x4.rs `line_taps`).
fn i4_line_row(mode: u32, half: u32, y: u32) -> vec4<i32> {
    let taps = rate_tables[RT_I4_TAPS + mode * 4u + y];
    return vec4<i32>(
        i4_line_sample(half, taps & 0xffu),
        i4_line_sample(half, (taps >> 8u) & 0xffu),
        i4_line_sample(half, (taps >> 16u) & 0xffu),
        i4_line_sample(half, taps >> 24u),
    );
}

// The prediction of `mode` (available, as `i4_mode_available` says) from `half`'s line;
// DC is `dc`.
fn predict4x4(mode: u32, half: u32, dc: i32) -> Block {
    if mode == 2u {
        return splat_block(dc);
    }
    return Block(i4_line_row(mode, half, 0u), i4_line_row(mode, half, 1u), i4_line_row(mode, half, 2u), i4_line_row(mode, half, 3u));
}
