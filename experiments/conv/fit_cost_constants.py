#!/usr/bin/env python3
"""Fits the conv cycle estimate's per-run gather cost and per-row phased write cost to a sweep.

Usage: fit_cost_constants.py FEATURES_CSV
  FEATURES_CSV: `kselect features --db STUDY/sweep.sqlite --op conv --dtype fp32
                 --time-statistic min -o FEATURES_CSV` (the binary whose constants are below)

For the gathered rows of forward and backward data, the estimate's copy cycles are
elements x (per-element cost + PER_RUN / run); the script recovers the elements from the
estimate's copy share and fits, by least squares on relative error, the measured time as
a x (the rest of the estimate) + elements x per-element + (elements / run) x per-run
+ compv4's packed elements x per-element. For strided backward data (rows by stride phase,
not by columns) it fits the measured time as a x (the estimate without the row writes)
+ written rows x per-row. Times become cycles at CLOCK_GHZ; the fitted constants are what
src/ops/conv/features.cpp uses (experiments/conv/README.md, "The gathers' cost").
Last, the estimate alone as a selector: per direction, the mean fraction of each problem's
best time that the kernel with the fewest estimated cycles reaches.
"""
import csv
import math
import sys
from collections import defaultdict

CLOCK_GHZ = 3.0
# The constants of the binary that wrote the CSV (src/ops/conv/features.cpp).
PER_RUN = {"fwd": 13.0, "bwd_data": 30.0, "bwd_weight": 4.0}
PER_PHASED_ROW = 80.0


def solve(rows, targets):
    """Least squares on relative error: each row divided by its target."""
    n = len(rows[0])
    normal = [[0.0] * n for _ in range(n)]
    rhs = [0.0] * n
    for row, y in zip(rows, targets):
        w = 1.0 / (y * y)
        for i in range(n):
            rhs[i] += w * row[i] * y
            for j in range(n):
                normal[i][j] += w * row[i] * row[j]
    for i in range(n):
        pivot = max(range(i, n), key=lambda r: abs(normal[r][i]))
        normal[i], normal[pivot] = normal[pivot], normal[i]
        rhs[i], rhs[pivot] = rhs[pivot], rhs[i]
        for r in range(n):
            if r != i:
                f = normal[r][i] / normal[i][i]
                normal[r] = [a - f * b for a, b in zip(normal[r], normal[i])]
                rhs[r] -= f * rhs[i]
    return [rhs[i] / normal[i][i] for i in range(n)]


def spread(targets, predictions):
    """Median absolute deviation of log2(measured / predicted)."""
    e = sorted(math.log2(y / max(p, 1.0)) for y, p in zip(targets, predictions))
    mid = e[len(e) // 2]
    return sorted(abs(v - mid) for v in e)[len(e) // 2]


def field(problem, key):
    return problem.split(key + "=")[1].split(",")[0]


def main(path):
    gathers = defaultdict(lambda: ([], []))
    phased = ([], [])
    problems = defaultdict(list)
    with open(path) as f:
        for x in csv.DictReader(f):
            direction = field(x["problem"], "dir")
            cycles = float(x["latency_ms"]) * 1e6 * CLOCK_GHZ
            est = 2.0 ** float(x["log2_est_cycles"])
            problems[direction, x["problem"]].append((est, cycles))
            in_place = any(float(x[k]) for k in ("col2im", "direct_a", "direct_b", "dense_b"))
            strided = int(x["stride_h"]) > 1 or int(x["stride_w"]) > 1 or int(x["stride_d"]) > 1
            if direction == "bwd_data" and strided and not float(x["col2im"]):
                sub_n = float(x["tile_n"]) / float(x["warp_n"])
                rows = float(x["G"]) * float(x["gemm_m"]) * math.ceil(float(x["gemm_n"]) / sub_n)
                phased[0].append([est - PER_PHASED_ROW * rows, rows])
                phased[1].append(cycles)
            if direction == "bwd_weight" or in_place or x["specialization"] == "2":
                continue  # backward weight gathers B; filter1x1stride1pad0 gathers nothing
            share = float(x["est_copy_share"])
            ks = float(x["tile_k"]) / float(x["warp_k"])
            run = max(min(float(x["gathered_run"]), ks), 1.0)
            element = 1.0 if x["vec_a"] == "1" else 0.25  # fp32: 4 bytes at 16 or 4 a cycle
            packed = 0.25 if x["pipeline"] == "1" else 0.0  # compv4 packs the gathered block
            elements = share * est / (element + PER_RUN[direction] / run + packed)
            rows, targets = gathers[direction]
            rows.append([(1 - share) * est, elements * element, elements / run, elements * packed])
            targets.append(cycles)
    for direction, (rows, targets) in sorted(gathers.items()):
        a, per_element, per_run, pack = solve(rows, targets)
        fitted = [sum(c * v for c, v in zip((a, per_element, per_run, pack), r)) for r in rows]
        now = [sum(r) - r[2] + PER_RUN[direction] * r[2] for r in rows]
        print(f"{direction} gathers ({len(rows)} rows): cycles per run {per_run:.1f} "
              f"(now {PER_RUN[direction]:.0f}), rest x{a:.2f}, element x{per_element:.2f}, "
              f"pack x{pack:.2f}; log2 spread now {spread(targets, now):.2f}, "
              f"fitted {spread(targets, fitted):.2f}")
    a, per_row = solve(*phased)
    without = [r[0] for r in phased[0]]
    now = [r[0] + PER_PHASED_ROW * r[1] for r in phased[0]]
    print(f"bwd_data phased ({len(phased[1])} rows): cycles per written row {per_row:.1f} "
          f"(now {PER_PHASED_ROW:.0f}), rest x{a:.2f}; log2 spread without rows "
          f"{spread(phased[1], without):.2f}, now {spread(phased[1], now):.2f}")
    picks = defaultdict(list)
    for (direction, _), kernels in problems.items():
        picks[direction].append(min(c for _, c in kernels) / min(kernels)[1])
    for direction, e in sorted(picks.items()):
        print(f"{direction}: the estimate's pick reaches {100 * sum(e) / len(e):.1f}% of the best "
              f"({len(e)} problems)")


if __name__ == "__main__":
    main(sys.argv[1])
