#!/usr/bin/env python3
"""The study's first-sweep best kernels and its models' out-of-fold picks, judged on other sweeps
of some of its problems (experiments/conv/README.md, "The study on an AVX2 machine").

Usage: judge_on_sweeps.py STUDY_DIR JUDGE_DB [JUDGE_DB ...]
  STUDY_DIR: scripts/conv_study's directory (sweep.sqlite, eval/*.oof.json);
  JUDGE_DB:  a sweep to judge on; the problems judged are those of the first JUDGE_DB.
Prints, per JUDGE_DB, mean / P10 of the first sweep's best and of the model's picks.

The 15-repeat sweeps of that section: every tenth study problem, swept twice with
  python3 -c "import csv,sys; r=list(csv.reader(open('conv-study/shapes.csv')));
    csv.writer(sys.stdout, lineterminator='\\n').writerows([r[0]] + r[1::10])" > subset.csv
  taskset -c 1 build/kselect bench --op conv --rules profiler+default --shapes subset.csv \
    --db rep15-1.sqlite --threads 1 --warmup 1 --repeat 15 --contender-repeat 15 --rewarm-calls 4
(and again into rep15-2.sqlite).
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bootstrap_second_sweep import second_sweep as best_times  # {problem: {kernel: min_ms}}


def judged(select, judge, problems):
    """Mean and P10 of each problem's best time on `judge` over the selected kernel's time there."""
    eff = sorted(min(judge[p].values()) / judge[p][select(p)]
                 for p in problems if select(p) in judge.get(p, {}))
    return f"{100 * sum(eff) / len(eff):.2f} / {100 * eff[len(eff) // 10]:.2f} ({len(eff)} problems)"


def main(argv):
    study, judges = argv[1], argv[2:]
    first_best = {p: min(times, key=times.get)
                  for p, times in best_times(f"{study}/sweep.sqlite").items()}
    picks = {}
    for report in glob.glob(f"{study}/eval/*.oof.json"):
        for row in json.load(open(report))["per_problem"]:
            picks[row["problem"]] = row["picked"]
    problems = list(best_times(judges[0]))
    for db in judges:
        times = best_times(db)
        print(f"{db}: first sweep's best {judged(first_best.get, times, problems)}, "
              f"model {judged(picks.get, times, problems)}")


if __name__ == "__main__":
    main(sys.argv)
