#!/usr/bin/env python3
"""One problem's neighbours for one kernel, as the neighbour blend finds them.

Usage: neighbours_of.py FEATURES_CSV MODEL_DIR PROBLEM KERNEL [K]
  FEATURES_CSV: as for neighbour_blend.py (the first sweep's feature rows);
  MODEL_DIR:    one model of the study (such as <study>/models/bwd_data), whose oof_tflops.csv
                gives each problem's fold;
  PROBLEM:      the start of the problem's text (the first that matches);
  KERNEL:       part of the kernel's name (the first of the problem's kernels that matches);
  K:            neighbours (default 12).
Lists the problem's nearest problems of the other folds in order of distance (the prototype's
standardization), whether each measured the kernel and its efficiency there, then the kernel's
K neighbours' mean distance and mean efficiency (exp of the mean log), as the blend would use
them (experiments/conv/README.md, "The AVX-512 study with neighbours").
"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from neighbour_blend import problem_columns, read_oof, standardized


def main(argv):
    rows = list(csv.DictReader(open(argv[1])))
    k_near = int(argv[5]) if len(argv) > 5 else 12
    z = standardized(rows, problem_columns(rows))
    times = {}
    for r in rows:
        times.setdefault(r["problem"], {})[r["kernel"]] = float(r["latency_ms"])
    predicted, fold, _ = read_oof(os.path.join(argv[2], "oof_tflops.csv"))
    problem = next(p for p in predicted if p.startswith(argv[3]))
    kernel = next(k for k in predicted[problem] if argv[4] in k)
    others = sorted((q for q in predicted if fold[q] != fold[problem]),
                    key=lambda q: math.dist(z[problem], z[q]))
    print(f"{problem.split(',pad')[0]}\n{kernel}")
    used = []
    for q in others:
        d = math.dist(z[problem], z[q])
        eff = min(times[q].values()) / times[q][kernel] if kernel in times[q] else None
        if eff is not None:
            used.append((d, eff))
        print(f"  {d:6.2f}  {'-' if eff is None else f'{100 * eff:5.1f}%'}  {q.split(',pad')[0]}")
        if len(used) == k_near:
            break
    mean_log = sum(math.log(e) for _, e in used) / len(used)
    print(f"{len(used)} neighbours measured it: mean distance {sum(d for d, _ in used) / len(used):.2f}, "
          f"mean efficiency {100 * math.exp(mean_log):.1f}%")


if __name__ == "__main__":
    main(sys.argv)
