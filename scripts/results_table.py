#!/usr/bin/env python3
"""Render `parvlc bench --json` output (plus scripts/nvcomp_bench.py lines) as the README's
tables: every figure and ratio is computed from the rows given, none typed by hand.

usage: results_table.py BENCH.jsonl [NVCOMP.jsonl]
         one table per entropy: every variant and scope at every size
       results_table.py --side-by-side [--strategy decoupled] BENCH.jsonl NVCOMP.jsonl
         the comparison with nvCOMP from one run (scripts/h200-nvcomp.sh): rows joined on
         the input's CRC-32, like for like (scope "compress (nvCOMP scope)", wall clock,
         the same statistic on both sides), then the kernel-only rows beside it"""
import argparse
import json
import sys

SCOPE_NVCOMP = "compress (nvCOMP scope)"
SCOPE_NVCOMP_DECODE = "decompress (nvCOMP scope)"
SCOPES = ["encode", "kernel", "compress", SCOPE_NVCOMP, "end-to-end", "end-to-end (stream)",
          "end-to-end (stream, output reused)"]


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def gbps(r, key):
    s = r.get(key)
    return r["bytes"] / s / 1e9 if s else None


def human(b):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {unit}"
    return f"{b} B"


def fmt(x):
    return "-" if x is None else (f"{x:,.0f}" if x >= 100 else f"{x:.1f}")


def same_input(ours, theirs):
    """Whether an nvCOMP row measured the same bytes as one of ours."""
    if ours.get("input_crc32") is not None and theirs.get("input_crc32") is not None:
        return ours["input_crc32"] == theirs["input_crc32"] and ours["bytes"] == theirs["bytes"]
    e = ours["entropy_bits"]
    return ours["bytes"] == theirs["bytes"] and (f"-{e}b-" in theirs["file"] or f"-{e:g}b-" in theirs["file"])


def per_entropy(rows, nv):
    sizes = sorted({r["bytes"] for r in rows})
    entropies = sorted({r["entropy_bits"] for r in rows})
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    for e in entropies:
        ratio = next(r["ratio"] for r in rows if r["entropy_bits"] == e)
        print(f"\n**{e} bits/byte** (payload ratio {ratio:.3f}); GB/s of input, kernel only "
              "(GPU timestamps, CUDA events) / wall\n")
        print("| variant | scope | " + " | ".join(human(s) for s in sizes) + " |")
        print("|---|---|" + "---|" * len(sizes))
        for v in variants:
            for scope in SCOPES:
                cells = []
                for s in sizes:
                    r = next((r for r in rows if r["variant"] == v and r["scope"] == scope
                              and r["bytes"] == s and r["entropy_bits"] == e), None)
                    if r is None:
                        cells.append("")
                        continue
                    g = gbps(r, "seconds_gpu")
                    w = gbps(r, "seconds_wall")
                    cells.append(f"{fmt(g)} / {fmt(w)}" if g else fmt(w))
                if any(cells):
                    print(f"| {v} | {scope} | " + " | ".join(cells) + " |")
        ours = [r for r in rows if r["entropy_bits"] == e]
        for n in nv:
            if any(same_input(r, n) for r in ours):
                print(f"| {n['codec']} | {n.get('scope', 'compress')} | " + " | ".join(
                    f"{n['gb_per_s']:.0f} (ratio {n['ratio']:.3f})" if s == n["bytes"] else ""
                    for s in sizes) + " |")


def side_by_side(rows, nv, strategy):
    wgpu, cuda = f"cuvle-{strategy}", f"cuvle-cuda-{strategy}"

    def find(inp, variant, scope):
        return next((r for r in rows if r["input"] == inp and r["variant"] == variant
                     and r["scope"] == scope), None)

    inputs = list(dict.fromkeys(r["input"] for r in rows if r["variant"] in (wgpu, cuda)))
    if not inputs:
        sys.exit(f"results_table: no {wgpu} or {cuda} rows")
    first = lambda r: r[0] if r else None  # noqa: E731
    codecs = list(dict.fromkeys(n["codec"] for n in nv))
    ans = next((c for c in codecs if c.endswith("-ANS")), None)
    stats_ours = {r["statistic"] for r in rows if r["scope"] == SCOPE_NVCOMP}
    stats_nv = {n.get("statistic") for n in nv}
    any_row = rows[0]
    print(f"Adapter: {any_row['adapter']}; nvCOMP {first([n.get('nvcomp_version') for n in nv])} "
          f"on {first([n.get('device') for n in nv])}.")
    print(f"Timing, both sides: wall clock around the whole compress, from the input resident "
          f"on the GPU to the compressed output complete there (device idle); "
          f"parvlc {sorted(stats_ours)}, nvCOMP {sorted(stats_nv)}. Rows joined on the "
          "input's CRC-32; every output checked (ours bit for bit against the CPU encoder, "
          "nvCOMP's decoded).")
    if stats_ours != stats_nv:
        print("\n**Warning: the two sides were not timed with the same statistic.**")
        print("results_table: the statistics differ: " + f"{stats_ours} vs {stats_nv}", file=sys.stderr)
    print()
    print("Like for like, GB/s of input (wall clock, scope: compress as nvCOMP's call):\n")
    head = ["input", "bits/byte", "wgpu", "CUDA"] + codecs
    if ans:
        head += ["wgpu / ANS", "CUDA / ANS", "ratio: ours / ANS"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for inp in inputs:
        w = find(inp, wgpu, SCOPE_NVCOMP)
        c = find(inp, cuda, SCOPE_NVCOMP)
        ref = w or c or next(r for r in rows if r["input"] == inp)
        # nvCOMP's compress rows alone (with --decode it has decompress rows too).
        theirs = {n["codec"]: n for n in nv
                  if same_input(ref, n) and n.get("scope", SCOPE_NVCOMP) == SCOPE_NVCOMP}
        w_g = gbps(w, "seconds_wall") if w else None
        c_g = gbps(c, "seconds_wall") if c else None
        cells = [inp, f"{ref['entropy_bits']:g}", fmt(w_g), fmt(c_g)]
        cells += [fmt(gbps(theirs[k], "seconds_wall")) if k in theirs else "-" for k in codecs]
        if ans:
            a = theirs.get(ans)
            a_g = gbps(a, "seconds_wall") if a else None
            ratio = lambda x: f"{x / a_g:.2f}x" if x and a_g else "-"  # noqa: E731
            cont = ref.get("container_bytes")
            ours_ratio = ref["bytes"] / cont if cont else None
            cells += [ratio(w_g), ratio(c_g),
                      f"{ours_ratio:.3f} / {a['ratio']:.3f}" if ours_ratio and a else "-"]
        print("| " + " | ".join(cells) + " |")
    unmatched = [n for n in nv if not any(same_input(r, n) for r in rows)]
    for n in unmatched:
        print(f"results_table: nvCOMP row on {n['file']} matches none of ours", file=sys.stderr)
    print("\nRatio: input bytes over output bytes, ours the native container (header and block "
          "offsets included), nvCOMP's its compressed buffer.")
    print("\nKernel only (GPU timestamps, CUDA events; host work and waits between kernels not "
          "counted), GB/s of input; not comparable with the table above:\n")
    head = ["input", "wgpu encode", "CUDA encode", "wgpu compress", "CUDA compress"]
    if ans:
        head.append(f"{ans} (CUDA events around its call)")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for inp in inputs:
        cells = [inp]
        for variant, scope in [(wgpu, "encode"), (cuda, "encode"), (wgpu, "compress"), (cuda, "compress")]:
            r = find(inp, variant, scope)
            cells.append(fmt(gbps(r, "seconds_gpu")) if r else "-")
        if ans:
            ref = next(r for r in rows if r["input"] == inp)
            a = next((n for n in nv if n["codec"] == ans and same_input(ref, n)
                      and n.get("scope", SCOPE_NVCOMP) == SCOPE_NVCOMP), None)
            cells.append(fmt(gbps(a, "seconds_events")) if a else "-")
        print("| " + " | ".join(cells) + " |")
    decoding(rows, nv, inputs)


def decoding(rows, nv, inputs):
    """Decoders on the same bytes: ours by kernel time (payload and tables resident, the
    output left on the GPU) and by wall (the same, read back to the host), nvCOMP's
    decompress by wall (compressed data resident, output complete on the GPU)."""
    dec = [n for n in nv if n.get("scope") == SCOPE_NVCOMP_DECODE]
    ours = ["vld", "vld-global", "vld-cuda"]
    if not dec and not any(r["variant"] in ours for r in rows):
        return
    codecs = list(dict.fromkeys(n["codec"] for n in dec))

    def find(inp, variant):
        return next((r for r in rows if r["input"] == inp and r["variant"] == variant
                     and r["scope"] == "decode"), None)

    print("\nDecoding, GB/s of output: ours kernel only (GPU timestamps; CUDA events for "
          "vld-cuda), in brackets wall with the output read back to the host; nvCOMP's "
          "decompress wall clock, its output left on the GPU:\n")
    head = ["input"] + ours + [f"{c} decompress" for c in codecs]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for inp in inputs:
        ref = next(r for r in rows if r["input"] == inp)
        cells = [inp]
        for v in ours:
            r = find(inp, v)
            cells.append(f"{fmt(gbps(r, 'seconds_gpu'))} ({fmt(gbps(r, 'seconds_wall'))})"
                         if r else "-")
        for c in codecs:
            n = next((n for n in dec if n["codec"] == c and same_input(ref, n)), None)
            cells.append(fmt(gbps(n, "seconds_wall")) if n else "-")
        print("| " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--side-by-side", action="store_true")
    ap.add_argument("--strategy", default="decoupled")
    ap.add_argument("bench")
    ap.add_argument("nvcomp", nargs="?")
    args = ap.parse_args()
    rows = load(args.bench)
    nv = load(args.nvcomp) if args.nvcomp else []
    if args.side_by_side:
        if not nv:
            ap.error("--side-by-side needs the nvCOMP rows")
        side_by_side(rows, nv, args.strategy)
    else:
        per_entropy(rows, nv)


if __name__ == "__main__":
    main()
