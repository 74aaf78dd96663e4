#!/usr/bin/env python3
"""The markdown table of `kselect tune --json` reports: per cache and strategy, the mean
fraction of the optimum after each checkpoint (in brackets the share of seeds at the report's
target, 95% by default, by then) and the share of seeds reaching it within the budget.

    table.py search-study/A100 search-study/MI250X ...   (each <name>.json)
"""
import json
import sys


def main(paths):
    rows, checkpoints, pct = [], None, "95"
    for path in paths:
        report = json.load(open(path + ".json"))
        name = path.rsplit("/", 1)[-1]
        pct = str(round(100 * report["target_fraction"]))
        for problem in report["problems"]:
            for s in problem["strategies"]:
                fractions = s["mean_fraction_of_optimum"]
                checkpoints = checkpoints or sorted(fractions, key=int)
                seeds = s[f"fraction_seeds_ge_{pct}_after"]
                cells = [f"{100 * fractions[n]:.1f}% ({100 * seeds[n]:.0f}%)" for n in checkpoints]
                n95 = s[f"median_measurements_to_{pct}"]
                label = name if len(report["problems"]) == 1 else problem["problem"]
                rows.append([f"{label} ({problem['within_target']} within {pct}%)",
                             s["strategy"], *cells, f"{100 * s[f'fraction_seeds_ge_{pct}']:.0f}%",
                             "-" if n95 is None else str(int(n95))])
    header = ["cache", "strategy", *[f"after {n}" for n in checkpoints],
              f"seeds >= {pct}% in budget", f"median n to {pct}%"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
