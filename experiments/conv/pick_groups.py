#!/usr/bin/env python3
"""Where a slice's picks lose, by group (experiments/conv/README.md, "What is left of the AVX2 gap").

Usage: pick_groups.py EVAL_JSON STUDY_DIR [MORE_SWEEP_DB ...]
  EVAL_JSON: `kselect eval ... --json` of one slice (its out-of-fold per_problem picks);
  STUDY_DIR: holds sweep.sqlite (the first sweep) and replicate.sqlite (the second);
  MORE_SWEEP_DB: further sweeps of (some of) the problems, such as a third.
Prints the picks' mean efficiency on every sweep grouped by the pick's warp tile, by the
problem's fastest time on the first sweep, and the problems where the first two sweeps agree
the pick is below 92% while the first sweep's best is above 95% on the second (with their share
of the gap to the ceiling on the second sweep).
"""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bootstrap_second_sweep import efficiency, second_sweep as best_times


def main(argv):
    report = json.load(open(argv[1]))
    sweeps = [best_times(f"{argv[2]}/sweep.sqlite"), best_times(f"{argv[2]}/replicate.sqlite")]
    sweeps += [best_times(db) for db in argv[3:]]
    rows = []
    for x in report["per_problem"]:
        p, k = x["problem"], x["picked"]
        if not all(p in s for s in sweeps):
            continue
        first = sweeps[0][p]
        rows.append(dict(problem=p, pick=k, effs=[efficiency(s[p], k) for s in sweeps],
                         ceiling=efficiency(sweeps[1][p], min(first, key=first.get)),
                         fastest_ms=min(first.values())))
    n = len(rows)
    print(f"{n} problems on all {len(sweeps)} sweeps")

    def show(title, key):
        groups = collections.defaultdict(list)
        for r in rows:
            groups[key(r)].append(r)
        print(title)
        for name, g in sorted(groups.items()):
            means = " / ".join(f"{100 * sum(r['effs'][i] for r in g) / len(g):.1f}"
                               for i in range(len(sweeps)))
            print(f"  {name}: {len(g)} picks, mean on each sweep {means}")

    show("by the pick's warp tile:", lambda r: re.search(r"_(\d+x\d+)x\d+_vec", r["pick"]).group(1))
    show("by the problem's fastest time (first sweep):",
         lambda r: next(f"< {b} ms" for b in (0.01, 0.1, 1, float("inf")) if r["fastest_ms"] < b))
    agreed = [r for r in rows if r["effs"][0] < 0.92 and r["effs"][1] < 0.92 and r["ceiling"] > 0.95]
    gap = sum(r["ceiling"] - r["effs"][1] for r in rows)
    lost = sum(r["ceiling"] - r["effs"][1] for r in agreed)
    print(f"{len(agreed)} problems both sweeps agree on carry {100 * lost / n:.2f} of the "
          f"{100 * gap / n:.2f} points below the ceiling on the second sweep")
    for r in agreed:
        print(f"  {r['effs'][0]:.2f} {r['effs'][1]:.2f} ceiling {r['ceiling']:.2f} {r['problem']}")


if __name__ == "__main__":
    main(sys.argv)
