#!/usr/bin/env python3
"""What native frames would weigh with their code lengths coded as DEFLATE codes them.

A native v2 frame stores its 256 code lengths as 128 raw bytes. This reads v2 files
(`parvlc compress -f native`) and, frame by frame, codes the same lengths as RFC 1951
3.2.7 does (HCLEN, the code-length code's 3-bit lengths, then the lengths run-length
coded with symbols 16-18 under an optimal code of at most 7 bits, padded to a byte). It
prints what that would save with the same frames and block offsets. It writes nothing.

    python3 scripts/native_v3_estimate.py FILE.pvlc...
"""
import struct
import sys

# Order of the code-length code's lengths (RFC 1951 3.2.7).
CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
# Native v2: the fixed fields and the raw lengths before the block offsets.
FIXED = 24 + 128


def run_length_coded(lengths):
    """(symbol, extra bits) of the code-length alphabet, as DEFLATE encoders write them."""
    out, i = [], 0
    while i < len(lengths):
        v, j = lengths[i], i
        while j < len(lengths) and lengths[j] == v:
            j += 1
        run = j - i
        if v == 0:
            while run >= 11:
                out.append((18, 7))
                run -= min(run, 138)
            if run >= 3:
                out.append((17, 3))
                run = 0
        else:
            out.append((v, 0))
            run -= 1
            while run >= 3:
                out.append((16, 2))
                run -= min(run, 6)
        out += [(v, 0)] * run
        i = j
    return out


def limited_lengths(freqs, max_len):
    """Optimal code lengths of at most max_len bits (package-merge), by symbol."""
    leaves = sorted((f, [s]) for s, f in enumerate(freqs) if f > 0)
    if len(leaves) == 1:
        return {leaves[0][1][0]: 1}
    merged = list(leaves)
    for _ in range(max_len - 1):
        packages = [
            (merged[k][0] + merged[k + 1][0], merged[k][1] + merged[k + 1][1])
            for k in range(0, len(merged) - 1, 2)
        ]
        merged = sorted(leaves + packages, key=lambda x: x[0])
    lengths = {}
    for _, symbols in merged[: 2 * len(leaves) - 2]:
        for s in symbols:
            lengths[s] = lengths.get(s, 0) + 1
    return lengths


def coded_bits(lengths):
    """Bits of `lengths` coded as a DEFLATE dynamic header codes its code lengths."""
    coded = run_length_coded(lengths)
    freqs = [0] * 19
    for s, _ in coded:
        freqs[s] += 1
    cl = limited_lengths(freqs, 7)
    n_cl = max(4, max(i + 1 for i, s in enumerate(CL_ORDER) if cl.get(s, 0) > 0))
    return 4 + 3 * n_cl + sum(cl[s] + extra for s, extra in coded)


def frames(path):
    """Every data frame's code lengths, and the file's size."""
    data = open(path, "rb").read()
    at, found = 0, []
    while at < len(data):
        if data[at : at + 4] != b"PVLC" or data[at + 4] != 2:
            sys.exit(f"{path}: no native v2 record at byte {at}")
        if data[at + 5] == 1:  # the end record
            break
        length, block, payload_bits, _ = struct.unpack_from("<IIII", data, at + 8)
        lengths = []
        for b in data[at + 24 : at + FIXED]:
            lengths += [b & 15, b >> 4]
        blocks = -(-length // block)
        found.append(lengths)
        at += FIXED + 4 * (blocks - 1) + 4 + (payload_bits + 7) // 8
    return found, len(data)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        found, total = frames(name)
        save = sum(128 - (coded_bits(l) + 7) // 8 for l in found)
        print(
            f"{name}: {len(found)} frames, {total} bytes; coded lengths would save "
            f"{save} bytes ({100 * save / total:.3f}%): {total - save} bytes"
        )
