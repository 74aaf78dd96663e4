#!/usr/bin/env python3
"""The markdown table of `kselect tune --json` reports: per cache and strategy, the mean
fraction of the optimum after each checkpoint (in brackets the share of seeds at the report's
target, 95% by default, by then) and the share of seeds reaching it within the budget.

    table.py search-study/A100 search-study/MI250X ...   (each <name>.json)
    table.py --mean search-study/cpu/tune                 (means over a report's problems)
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


def mean_over_problems(path):
    """One row per strategy: the means over the report's problems, and each problem's median
    measurements to the target."""
    report = json.load(open(path + ".json"))
    pct = str(round(100 * report["target_fraction"]))
    problems = report["problems"]
    checkpoints = sorted(problems[0]["strategies"][0]["mean_fraction_of_optimum"], key=int)
    print("| strategy | " + " | ".join(f"after {n}" for n in checkpoints) +
          f" | seeds >= {pct}% in budget | median n to {pct}% (per problem) |")
    print("|" + "---|" * (len(checkpoints) + 3))
    for i, first in enumerate(problems[0]["strategies"]):
        runs = [p["strategies"][i] for p in problems]
        cells = [f"{100 * sum(r['mean_fraction_of_optimum'][n] for r in runs) / len(runs):.1f}%"
                 for n in checkpoints]
        seeds = sum(r[f"fraction_seeds_ge_{pct}"] for r in runs) / len(runs)
        medians = ", ".join("-" if r[f"median_measurements_to_{pct}"] is None
                            else str(int(r[f"median_measurements_to_{pct}"])) for r in runs)
        print(f"| {first['strategy']} | " + " | ".join(cells) + f" | {100 * seeds:.0f}% | {medians} |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--mean"]:
        mean_over_problems(sys.argv[2])
    else:
        main(sys.argv[1:])
