#!/usr/bin/env python3
"""How far the study's problem sample moves its numbers: the model's out-of-fold picks judged on
the second sweep (as `kselect eval --replicate` reports model_on_replicate), with 90% bootstrap
intervals of the mean and P10 over the slice's problems, and the gap to the ceiling (the first
sweep's best judged on the second) with a paired interval: each resample draws a problem's model
and ceiling efficiencies together, so the interval shows whether the gap exceeds the study's
0.5 / 2 points or is the sample's spread.

Usage: bootstrap_second_sweep.py STUDY_DIR EVAL_DIR [JUDGE_DB]
  STUDY_DIR: scripts/conv_study's directory (sweep.sqlite, replicate.sqlite)
  EVAL_DIR:  the <direction>.<layout>.oof.json reports (STUDY_DIR/eval, or train_variants' out)
  JUDGE_DB:  another sweep of (some of) the study's problems to judge on instead of
             replicate.sqlite, such as a third sweep; slices it has no problem of are skipped
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


def efficiency(times, kernel):
    """A kernel's efficiency on one problem; one the sweep has no valid time for counts as 0."""
    return min(times.values()) / times.get(kernel, float("inf"))


def interval(values):
    values = sorted(values)
    return values[RESAMPLES // 20], values[RESAMPLES - RESAMPLES // 20]


def main(study, reports, judge=None):
    first = second_sweep(study + "/sweep.sqlite")
    times = second_sweep(judge or study + "/replicate.sqlite")
    rng = random.Random(0)
    for direction in ("fwd", "bwd_data", "bwd_weight"):
        for layout, dim in (("nhwgc", "2-D"), ("ndhwgc", "3-D")):
            report = json.load(open(f"{reports}/{direction}.{layout}.oof.json"))
            pairs = []  # (model, ceiling) on the second sweep
            for row in report["per_problem"]:
                measured = times.get(row["problem"])
                if measured:
                    ran = first[row["problem"]]
                    pairs.append((efficiency(measured, row["picked"]),
                                  efficiency(measured, min(ran, key=ran.get))))
            n = len(pairs)
            if n == 0:
                continue
            means, p10s, mean_gaps, p10_gaps = [], [], [], []
            for _ in range(RESAMPLES):
                sample = [rng.choice(pairs) for _ in range(n)]
                model = sorted(m for m, _ in sample)
                ceiling = sorted(c for _, c in sample)
                means.append(sum(model) / n)
                p10s.append(p10(model))
                mean_gaps.append((sum(ceiling) - sum(model)) / n)
                p10_gaps.append(p10(ceiling) - p10(model))
            model = sorted(m for m, _ in pairs)
            ceiling = sorted(c for _, c in pairs)
            (m_lo, m_hi), (p_lo, p_hi) = interval(means), interval(p10s)
            (g_lo, g_hi), (q_lo, q_hi) = interval(mean_gaps), interval(p10_gaps)
            print(f"{direction} {dim} ({n} problems): mean {100 * sum(model) / n:.2f} "
                  f"[{100 * m_lo:.2f}, {100 * m_hi:.2f}], P10 {100 * p10(model):.2f} "
                  f"[{100 * p_lo:.2f}, {100 * p_hi:.2f}]; below the ceiling by "
                  f"{100 * (sum(ceiling) - sum(model)) / n:.2f} [{100 * g_lo:.2f}, {100 * g_hi:.2f}]"
                  f" / {100 * (p10(ceiling) - p10(model)):.2f} [{100 * q_lo:.2f}, {100 * q_hi:.2f}]")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
