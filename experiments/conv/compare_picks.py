#!/usr/bin/env python3
"""Two models' out-of-fold picks on the same slice, problem by problem.

Usage: compare_picks.py EVAL_A EVAL_B [COUNT]
  EVAL_A, EVAL_B: `kselect eval ... --json` reports of one slice by two models (their per_problem
                  picks and efficiencies on the evaluated sweep), such as the study's
                  `eval/bwd_data.ndhwgc.oof.json` and a train_variants output's;
  COUNT: how many problems to list at each end (default 5).
Prints the mean difference (A minus B, points of efficiency) and the problems where A loses and
gains most, each with both efficiencies and both picks (experiments/conv/README.md, "The AVX-512
study with neighbours").
"""
import json
import sys


def main(argv):
    a = {p["problem"]: p for p in json.load(open(argv[1]))["per_problem"]}
    b = {p["problem"]: p for p in json.load(open(argv[2]))["per_problem"]}
    count = int(argv[3]) if len(argv) > 3 else 5
    common = sorted(set(a) & set(b))
    diffs = sorted((a[p]["efficiency"] - b[p]["efficiency"], p) for p in common)
    mean = 100 * sum(d for d, _ in diffs) / len(diffs)
    print(f"{len(common)} problems, A - B: {mean:+.2f} points of mean")
    shown = diffs[:count] + [d for d in diffs[-count:] if d not in diffs[:count]]
    for d, p in shown:
        print(f"{100 * d:+6.1f}  A {100 * a[p]['efficiency']:5.1f}  B {100 * b[p]['efficiency']:5.1f}  "
              f"{p.split(',pad')[0]}\n        A: {a[p]['picked']}\n        B: {b[p]['picked']}")


if __name__ == "__main__":
    main(sys.argv)
