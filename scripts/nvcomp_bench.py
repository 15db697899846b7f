#!/usr/bin/env python3
"""nvCOMP's compress on the files `parvlc bench` measured, timed as its rows with scope
"compress (nvCOMP scope)" are timed, one JSON line per (file, codec) on stdout.

usage: nvcomp_bench.py [--runs N] [--codecs ANS,GDeflate,Deflate] [--decode] FILE [FILE ...]

With --decode, each codec also gets a row with scope "decompress (nvCOMP scope)": one
`codec.decode(comp)` of its compressed array resident on the GPU until the device is idle,
timed the same way, its output compared with the input first.

Scope: one `codec.encode(arr)` call on an array already resident on the GPU (the file is
copied to the GPU before any timing), ending when the compressed buffer is complete in GPU
memory; whatever nvCOMP does inside (chunking, histograms, tables, encode, output
allocation, its headers) is in, the copy to the host is not.

Timing: one warm-up call, whose output is decoded by nvCOMP and compared with the input (a
mismatch is an error, never a row); then N calls (5 by default). For each call:
- seconds_wall: the wall clock (perf_counter) from before the call until the device is
  idle (cudaDeviceSynchronize), the same clock and wait as parvlc's nvCOMP-scope rows;
- seconds_events: CUDA events recorded on the current stream before and after the call
  (the statistic of the first side-by-side runs).
The best (smallest) of the N is kept for each. GDeflate and Deflate run with
algorithm_type 0, their entropy-only mode (rows "-entropy").

The input's CRC-32 (zlib's, the same as parvlc's `input_crc32`) joins these rows with
parvlc's rows on the same bytes (scripts/results_table.py). Exit status 1 when a row is
missing (an error or a mismatch, said on stderr).
"""
import argparse
import json
import os
import sys
import time
import zlib

import cupy as cp
import numpy as np
from nvidia import nvcomp

SCOPE = "compress (nvCOMP scope)"
DECODE_SCOPE = "decompress (nvCOMP scope)"
CODECS = {"ANS": {}, "GDeflate": {"algorithm_type": 0}, "Deflate": {"algorithm_type": 0}}


def timed_encode(codec, arr, dev):
    """One call: (compressed array, wall seconds, event seconds)."""
    return timed(lambda: codec.encode(arr), dev)


def timed(call, dev):
    """One call: (its result, wall seconds, event seconds)."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    dev.synchronize()
    t0 = time.perf_counter()
    start.record()
    comp = call()
    end.record()
    end.synchronize()
    dev.synchronize()
    wall = time.perf_counter() - t0
    return comp, wall, cp.cuda.get_elapsed_time(start, end) / 1e3


def decodes_to(codec, comp, darr):
    """Whether nvCOMP's decode of `comp` gives back the bytes of `darr`."""
    back = cp.asarray(codec.decode(comp)).view(cp.uint8).ravel()
    return back.size == darr.size and bool(cp.array_equal(back, darr))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--codecs", default=",".join(CODECS))
    ap.add_argument("--decode", action="store_true", help="also time decompression")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    runs = max(1, args.runs)
    unknown = [c for c in args.codecs.split(",") if c not in CODECS]
    if unknown:
        ap.error(f"unknown codec(s) {unknown}: use some of {list(CODECS)}")
    dev = cp.cuda.Device()
    device = cp.cuda.runtime.getDeviceProperties(dev.id)["name"]
    device = device.decode() if isinstance(device, bytes) else str(device)
    statistic = f"best of {runs} after 1 warm-up run"
    print(f"nvcomp_bench: nvCOMP {nvcomp.__version__} on {device}; scope: {SCOPE} (encode of a "
          f"GPU-resident array until the device is idle); {statistic}; output decoded and "
          "compared with the input before timing", file=sys.stderr, flush=True)
    missing = 0
    for path in args.files:
        host = np.fromfile(path, dtype=np.uint8)
        crc = zlib.crc32(host) & 0xFFFFFFFF
        darr = cp.asarray(host)
        arr = nvcomp.as_array(darr)
        for name in args.codecs.split(","):
            kw = CODECS[name]
            variant = f"nvcomp-{name}" + ("-entropy" if kw else "")
            try:
                codec = nvcomp.Codec(algorithm=name, **kw)
                comp, _, _ = timed_encode(codec, arr, dev)
                if not decodes_to(codec, comp, darr):
                    print(f"nvcomp_bench: {path}: {variant}: the decoded output differs from "
                          "the input: no row", file=sys.stderr, flush=True)
                    missing += 1
                    continue
                size = int(comp.buffer_size)
                best_wall = best_events = float("inf")
                for _ in range(runs):
                    comp = None  # the previous output is freed off the clock
                    comp, wall, events = timed_encode(codec, arr, dev)
                    best_wall, best_events = min(best_wall, wall), min(best_events, events)
            except Exception as e:  # one codec failing does not stop the others
                print(f"nvcomp_bench: {path}: {variant}: {e!r}", file=sys.stderr, flush=True)
                missing += 1
                continue
            n = int(host.size)
            rows = [(SCOPE, best_wall, best_events)]
            if args.decode:
                best_dwall = best_devents = float("inf")
                for _ in range(runs):
                    _, dwall, devents = timed(lambda: codec.decode(comp), dev)
                    best_dwall, best_devents = min(best_dwall, dwall), min(best_devents, devents)
                rows.append((DECODE_SCOPE, best_dwall, best_devents))
            for scope, best_wall, best_events in rows:
                emit(scope, variant, path, crc, n, size, best_wall, best_events, statistic,
                     device)
        del arr, darr
    sys.exit(1 if missing else 0)


def emit(scope, variant, path, crc, n, size, best_wall, best_events, statistic, device):
    """One JSON row on stdout (GB/s of input bytes, for decoding the bytes it restores)."""
    print(json.dumps({
        "module": "nvcomp", "variant": variant, "codec": variant, "scope": scope,
        "timing": "wall", "statistic": statistic,
        "file": path, "input": os.path.splitext(os.path.basename(path))[0],
        "input_crc32": crc, "bytes": n, "compressed": size, "ratio": n / size,
        "seconds_wall": best_wall, "seconds_events": best_events,
        "seconds": best_wall, "gb_per_s": n / best_wall / 1e9,
        "gb_per_s_events": n / best_events / 1e9,
        "checked": "decoded by nvCOMP and compared with the input",
        "nvcomp_version": str(nvcomp.__version__), "device": device,
    }), flush=True)


if __name__ == "__main__":
    main()
