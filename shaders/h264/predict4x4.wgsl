// Intra_4x4 luma prediction (clause 8.3.1.2), the twin of src/h264/predict4x4.rs
// `predict4x4`: the nine modes of a 4x4 block from its edge. `t[x + 1]` is p[x, -1] for
// x = -1..7 (the top-right four already substituted where the standard says so) and
// `l[y + 1]` is p[-1, y] for y = -1..3; t[0] and l[0] are both the corner p[-1, -1].

//!import h264/block

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

// One sample (x, y) of `mode`'s prediction (modes other than DC).
fn i4_sample(mode: u32, t: ptr<function, array<i32, 9>>, l: ptr<function, array<i32, 5>>, x: i32, y: i32) -> i32 {
    switch mode {
        case 0u: { return (*t)[x + 1]; }
        case 1u: { return (*l)[y + 1]; }
        case 3u: {
            if x == 3 && y == 3 {
                return ((*t)[7] + 3 * (*t)[8] + 2) >> 2u;
            }
            return ((*t)[x + y + 1] + 2 * (*t)[x + y + 2] + (*t)[x + y + 3] + 2) >> 2u;
        }
        case 7u: {
            let i = x + (y >> 1u);
            if y % 2 == 0 {
                return ((*t)[i + 1] + (*t)[i + 2] + 1) >> 1u;
            }
            return ((*t)[i + 1] + 2 * (*t)[i + 2] + (*t)[i + 3] + 2) >> 2u;
        }
        case 8u: {
            let z = x + 2 * y;
            let i = y + (x >> 1u);
            if z == 0 || z == 2 || z == 4 {
                return ((*l)[i + 1] + (*l)[i + 2] + 1) >> 1u;
            }
            if z == 1 || z == 3 {
                return ((*l)[i + 1] + 2 * (*l)[i + 2] + (*l)[i + 3] + 2) >> 2u;
            }
            if z == 5 {
                return ((*l)[3] + 3 * (*l)[4] + 2) >> 2u;
            }
            return (*l)[4];
        }
        default: {}
    }
    // Diagonal down right (4), vertical right (5), horizontal down (6): pt(x) = p[x, -1]
    // is t[x + 1], pl(y) = p[-1, y] is l[y + 1].
    let corner = ((*l)[1] + 2 * (*t)[0] + (*t)[1] + 2) >> 2u;
    if mode == 4u {
        if x > y {
            return ((*t)[x - y - 1] + 2 * (*t)[x - y] + (*t)[x - y + 1] + 2) >> 2u;
        }
        if x < y {
            return ((*l)[y - x - 1] + 2 * (*l)[y - x] + (*l)[y - x + 1] + 2) >> 2u;
        }
        return corner;
    }
    if mode == 5u {
        let z = 2 * x - y;
        let i = x - (y >> 1u);
        if z >= 0 && z % 2 == 0 {
            return ((*t)[i] + (*t)[i + 1] + 1) >> 1u;
        }
        if z >= 0 {
            return ((*t)[i - 1] + 2 * (*t)[i] + (*t)[i + 1] + 2) >> 2u;
        }
        if z == -1 {
            return corner;
        }
        return ((*l)[y] + 2 * (*l)[y - 1] + (*l)[y - 2] + 2) >> 2u;
    }
    let z = 2 * y - x;
    let i = y - (x >> 1u);
    if z >= 0 && z % 2 == 0 {
        return ((*l)[i] + (*l)[i + 1] + 1) >> 1u;
    }
    if z >= 0 {
        return ((*l)[i - 1] + 2 * (*l)[i] + (*l)[i + 1] + 2) >> 2u;
    }
    if z == -1 {
        return corner;
    }
    return ((*t)[x] + 2 * (*t)[x - 1] + (*t)[x - 2] + 2) >> 2u;
}

// The prediction of `mode` (available, as `i4_mode_available` says) from the edge;
// `has_top` and `has_left` choose DC's sums.
fn predict4x4(mode: u32, t_in: array<i32, 9>, l_in: array<i32, 5>, has_top: bool, has_left: bool) -> Block {
    var t = t_in;
    var l = l_in;
    if mode == 2u {
        return splat_block(dc_from_edges(t[1] + t[2] + t[3] + t[4], l[1] + l[2] + l[3] + l[4], has_top, has_left, 2u));
    }
    var rows: array<vec4<i32>, 4>;
    for (var y = 0; y < 4; y++) {
        rows[y] = vec4<i32>(
            i4_sample(mode, &t, &l, 0, y),
            i4_sample(mode, &t, &l, 1, y),
            i4_sample(mode, &t, &l, 2, y),
            i4_sample(mode, &t, &l, 3, y),
        );
    }
    return Block(rows[0], rows[1], rows[2], rows[3]);
}
