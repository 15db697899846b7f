#!/usr/bin/env python3
"""Render `parvlc bench --json` output (plus nvcomp_bench.py lines) as the README's tables.
usage: results_table.py BENCH.jsonl [NVCOMP.jsonl]"""
import json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
nv = [json.loads(l) for l in open(sys.argv[2]) if l.strip()] if len(sys.argv) > 2 else []

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

sizes = sorted({r["bytes"] for r in rows})
entropies = sorted({r["entropy_bits"] for r in rows})
variants = list(dict.fromkeys(r["variant"] for r in rows))

for e in entropies:
    print(f"\n**{e} bits/byte** (payload ratio {next(r['ratio'] for r in rows if r['entropy_bits'] == e):.3f}); GB/s of input, kernel (GPU timestamps) / wall\n")
    print("| variant | scope | " + " | ".join(human(s) for s in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for v in variants:
        for scope in ["encode", "kernel", "compress", "end-to-end"]:
            cells = []
            for s in sizes:
                r = next((r for r in rows if r["variant"] == v and r["scope"] == scope and r["bytes"] == s and r["entropy_bits"] == e), None)
                if r is None:
                    cells.append("")
                    continue
                g = gbps(r, "seconds_gpu")
                w = gbps(r, "seconds_wall")
                cells.append(f"{fmt(g)} / {fmt(w)}" if g else fmt(w))
            if any(cells):
                print(f"| {v} | {scope} | " + " | ".join(cells) + " |")
    for n in nv:
        if f"-{e}b-" in n["file"] or f"-{e:g}b-" in n["file"]:
            print(f"| {n['codec']} | compress | " + " | ".join(f"{n['gb_per_s']:.0f} (ratio {n['ratio']:.3f})" if s == n["bytes"] else "" for s in sizes) + " |")
