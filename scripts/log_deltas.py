#!/usr/bin/env python3
"""A debug log (env_logger, millisecond timestamps) with each line's time since the
log's first line: where a short run's wall clock goes.

usage: log_deltas.py LOG [REGEX]   (only lines matching REGEX are printed; all are timed)
"""
import re
import sys
from datetime import datetime

STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z (\w+) +([^\]]+)\] (.*)$")


def main() -> None:
    pick = re.compile(sys.argv[2]) if len(sys.argv) > 2 else None
    first = None
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        m = STAMP.match(line.rstrip("\n"))
        if not m:
            continue
        t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")
        first = first or t
        if pick is None or pick.search(m.group(4)):
            ms = (t - first).total_seconds() * 1e3
            print(f"{ms:7.0f} ms  {m.group(3).replace('parvlc::', '')}: {m.group(4)}")


if __name__ == "__main__":
    main()
