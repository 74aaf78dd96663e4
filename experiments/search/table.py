#!/usr/bin/env python3
"""The markdown table of `kselect tune --json` reports: per cache and strategy, the mean
fraction of the optimum after each checkpoint (in brackets the share of seeds at 95% of it by
then) and the share of seeds reaching 95% within the budget.

    table.py search-study/A100 search-study/MI250X ...   (each <name>.json)
"""
import json
import sys


def main(paths):
    rows, checkpoints = [], None
    for path in paths:
        report = json.load(open(path + ".json"))
        name = path.rsplit("/", 1)[-1]
        for problem in report["problems"]:
            for s in problem["strategies"]:
                fractions = s["mean_fraction_of_optimum"]
                checkpoints = checkpoints or sorted(fractions, key=int)
                seeds = s["fraction_seeds_ge_95_after"]
                cells = [f"{100 * fractions[n]:.1f}% ({100 * seeds[n]:.0f}%)" for n in checkpoints]
                n95 = s["median_measurements_to_95"]
                rows.append([f"{name} ({problem['within_target']} within 95%)", s["strategy"], *cells,
                             f"{100 * s['fraction_seeds_ge_95']:.0f}%",
                             "-" if n95 is None else str(int(n95))])
    header = ["cache", "strategy", *[f"after {n}" for n in checkpoints],
              "seeds >= 95% in budget", "median n to 95%"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
