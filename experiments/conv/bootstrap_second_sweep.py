#!/usr/bin/env python3
"""How far the study's problem sample moves its numbers: the model's out-of-fold picks judged on
the second sweep (as `kselect eval --replicate` reports model_on_replicate), with 90% bootstrap
intervals of the mean and P10 over the slice's problems.

Usage: bootstrap_second_sweep.py STUDY_DIR EVAL_DIR
  STUDY_DIR: scripts/conv_study's directory (replicate.sqlite)
  EVAL_DIR:  the <direction>.<layout>.oof.json reports (STUDY_DIR/eval, or train_variants' out)
"""
import collections
import json
import random
import sqlite3
import sys

RESAMPLES = 2000


def second_sweep(db):
    times = collections.defaultdict(dict)
    query = ("select p.canonical, k.name, m.min_ms from measurements m "
             "join problems p on p.id = m.problem_id join kernels k on k.id = m.kernel_id "
             "where m.valid = 1")
    for problem, kernel, ms in sqlite3.connect(db).execute(query):
        times[problem][kernel] = ms
    return times


def p10(sorted_values):
    return sorted_values[len(sorted_values) // 10]


def main(study, reports):
    times = second_sweep(study + "/replicate.sqlite")
    rng = random.Random(0)
    for direction in ("fwd", "bwd_data", "bwd_weight"):
        for layout, dim in (("nhwgc", "2-D"), ("ndhwgc", "3-D")):
            report = json.load(open(f"{reports}/{direction}.{layout}.oof.json"))
            eff = []
            for row in report["per_problem"]:
                measured = times.get(row["problem"])
                if measured:  # a pick the second sweep has no valid time for counts as 0
                    eff.append(min(measured.values()) / measured.get(row["picked"], float("inf")))
            n = len(eff)
            means, p10s = [], []
            for _ in range(RESAMPLES):
                sample = sorted(rng.choice(eff) for _ in range(n))
                means.append(sum(sample) / n)
                p10s.append(p10(sample))
            means.sort()
            p10s.sort()
            lo, hi = RESAMPLES // 20, RESAMPLES - RESAMPLES // 20
            print(f"{direction} {dim} ({n} problems): mean {100 * sum(eff) / n:.2f} "
                  f"[{100 * means[lo]:.2f}, {100 * means[hi]:.2f}], P10 {100 * p10(sorted(eff)):.2f} "
                  f"[{100 * p10s[lo]:.2f}, {100 * p10s[hi]:.2f}]")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
