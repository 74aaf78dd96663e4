#!/usr/bin/env python3
"""How much faster each problem's best kernel is in sweep NEW than in sweep OLD (the same
problems and kernels, e.g. before and after a kernel change), per direction and dimension:
median, P10 and P90 of old best time / new best time, and the median over problems of each
problem's median per-kernel ratio (experiments/conv/README.md, "The AVX2 accumulators lived on
the stack"). Machine drift between the two sweeps moves both; see that section.
Usage: best_time_change.py OLD.sqlite NEW.sqlite"""
import sqlite3
import statistics
import sys


def times(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "select p.canonical, k.name, m.min_ms from measurements m "
        "join problems p on p.id = m.problem_id join kernels k on k.id = m.kernel_id "
        "where m.min_ms > 0")
    by_problem = {}
    for problem, kernel, ms in rows:
        by_problem.setdefault(problem, {})[kernel] = ms
    return by_problem


def slice_of(problem):
    fields = dict(f.split("=", 1) for f in problem.split(","))
    return fields["dir"], "2-D" if fields["layout"] == "nhwgc" else "3-D"


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    old, new = times(sys.argv[1]), times(sys.argv[2])
    groups = {}
    for problem, kernels in new.items():
        if problem not in old:
            continue
        best = min(old[problem].values()) / min(kernels.values())
        common = [old[problem][k] / ms for k, ms in kernels.items() if k in old[problem]]
        groups.setdefault(slice_of(problem), []).append((best, statistics.median(common)))
        groups.setdefault(("all", ""), []).append((best, statistics.median(common)))
    print("| slice | problems | best kernel: median / P10 / P90 speed-up | median kernel speed-up |")
    print("|---|---|---|---|")
    for key in sorted(groups, key=lambda k: (k[0] == "all", k)):
        best = [b for b, _ in groups[key]]
        kernel = [k for _, k in groups[key]]
        print(f"| {' '.join(key).strip()} | {len(best)} | {statistics.median(best):.3f} / "
              f"{quantile(best, 0.1):.3f} / {quantile(best, 0.9):.3f} | "
              f"{statistics.median(kernel):.3f} |")


if __name__ == "__main__":
    main()
