#!/usr/bin/env python3
"""Would a cycle estimate calibrated on this machine pick better kernels? Reweights its parts.

Usage: fit_estimate_parts.py FEATURES_CSV
  FEATURES_CSV: `kselect features --db STUDY/sweep.sqlite --op conv --dtype fp32
                 --time-statistic min -o FEATURES_CSV`

The estimate (src/ops/conv/features.cpp, src/ops/cpu_gemm_cost/cycle_estimate.cpp) is a sum of
three parts, recovered from each row's log2_est_cycles, est_copy_share and est_overhead_share:
the micro-kernel's inner loop, the copies (packing, gathers) and the overhead (C updates, calls,
tasks, reductions). Measuring copy, gather and micro-kernel rates on the machine would rescale
these parts. Per direction, the script fits the weights by least squares on relative error of
the measured time, in two forms:
  parts:       inner, copies, overhead (3 weights);
  micro-tiles: the inner loop per register tile shape (warp_tile_m x warp_tile_n, whose AVX2
               sub-tile walk and FMA latency differ), copies, overhead.
and prints the estimate alone as a selector (the kernel with the fewest weighted cycles), mean /
P10 of each problem's best time over the pick's: with the unit weights of the binary, with the
weights fitted on all problems (in sample), and with weights fitted on four fifths of the
problems and applied to the other fifth (five folds, grouped by problem).
"""
import csv
import os
import random
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_cost_constants import solve  # least squares on relative error


def parts(row):
    """(inner, copies, overhead) cycles of one feature row."""
    total = 2 ** float(row["log2_est_cycles"])
    copy, overhead = float(row["est_copy_share"]), float(row["est_overhead_share"])
    return total * (1 - copy - overhead), total * copy, total * overhead


def micro_tile(row):
    return f'{row["warp_tile_m"]}x{row["warp_tile_n"]}'


def selection(items, weights):
    """Mean and P10 (percent) of the best time over the time of the fewest weighted cycles."""
    per_problem = defaultdict(list)
    for problem, x, ms in items:
        per_problem[problem].append((sum(w * v for w, v in zip(weights(problem), x)), ms))
    eff = sorted(min(ms for _, ms in rows) / min(rows)[1] for rows in per_problem.values())
    return f"{100 * sum(eff) / len(eff):.2f} / {100 * eff[len(eff) // 10]:.2f}"


def report(name, items):
    problems = sorted({p for p, _, _ in items})
    random.Random(0).shuffle(problems)
    folds = [set(problems[i::5]) for i in range(5)]
    fitted = solve([x for _, x, _ in items], [ms for _, _, ms in items])
    per_fold = []
    for fold in folds:
        train = [(x, ms) for p, x, ms in items if p not in fold]
        per_fold.append((fold, solve([x for x, _ in train], [ms for _, ms in train])))

    def out_of_fold(problem):
        return next(w for fold, w in per_fold if problem in fold)

    ratios = ", ".join(f"{w / fitted[0]:.2f}" for w in fitted)
    print(f"  {name}: unit {selection(items, lambda p: [1.0] * len(fitted))}, "
          f"in sample {selection(items, lambda p: fitted)}, "
          f"out of fold {selection(items, out_of_fold)} (weights / the first: {ratios})")


def main(argv):
    rows = list(csv.DictReader(open(argv[1])))
    tiles = sorted({micro_tile(r) for r in rows})
    by_direction = defaultdict(lambda: ([], []))
    for r in rows:
        inner, copy, overhead = parts(r)
        ms = float(r["latency_ms"])
        three, per_tile = by_direction[int(float(r["direction"]))]
        three.append((r["problem"], (inner, copy, overhead), ms))
        per_tile.append((r["problem"],
                         tuple(inner if micro_tile(r) == t else 0.0 for t in tiles) +
                         (copy, overhead), ms))
    names = {0: "fwd", 1: "bwd_data", 2: "bwd_weight"}
    for direction, (three, per_tile) in sorted(by_direction.items()):
        print(f"{names.get(direction, direction)} ({len({p for p, _, _ in three})} problems)")
        report("parts (inner, copies, overhead)", three)
        report(f"micro-tiles ({', '.join(tiles)}, copies, overhead)", per_tile)


if __name__ == "__main__":
    main(sys.argv)
