#!/usr/bin/env python3
"""Sums an `ncu --csv --metrics gpu__time_duration.sum` report per kernel (demangled, shortened):
launches, total and median microseconds, largest first."""
import csv, statistics, subprocess, sys
from collections import defaultdict

rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if len(r) > 10]
head, rows = rows[0], rows[1:]
name_at, unit_at, value_at = head.index("Kernel Name"), head.index("Metric Unit"), head.index("Metric Value")
times = defaultdict(list)
for r in rows:
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}.get(r[unit_at], 1.0)
    times[r[name_at]].append(float(r[value_at].replace(",", "")) * scale)
names = list(times)
demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
total = sum(sum(v) for v in times.values())
print(f"total {total:.1f} us over {sum(len(v) for v in times.values())} launches")
for name, short in sorted(zip(names, demangled), key=lambda p: -sum(times[p[0]])):
    v = times[name]
    print(f"{sum(v):10.1f} us {len(v):6d}x median {statistics.median(v):8.1f}  {short[:260]}")
