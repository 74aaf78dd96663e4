"""Scores `kselect eval --json` reports over the problems of a reference report, so that models
trained on different problem sets (a study with extra shapes) compare on the same problems.

    python3 experiments/training/eval_subset.py REFERENCE.eval.json MODEL.eval.json [MODEL...]

Prints, per report, the mean / P10 / min efficiency over the reference's problems (P10 as
kselect computes it: linear between order statistics) and the mean over those with K <= 10,
then the average of the reports. Exits 1 when a report lacks one of the reference's problems."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
from heldout_compare import percentile  # noqa: E402  (kselect's P10, from scripts/)


def k_of(problem):
    return int(dict(kv.split('=') for kv in problem.split(','))['k'])


def main(reference, reports):
    problems = {q['problem'] for q in json.load(open(reference))['per_problem']}
    rows = []
    for path in reports:
        eff = {q['problem']: q['efficiency'] for q in json.load(open(path))['per_problem']}
        missing = problems - eff.keys()
        if missing:
            print(f'{path}: lacks {len(missing)} of the reference problems, e.g. {min(missing)}')
            return 1
        values = [eff[p] for p in problems]
        small = [eff[p] for p in problems if k_of(p) <= 10]
        row = (100 * sum(values) / len(values), 100 * percentile(values, 10), 100 * min(values),
               100 * sum(small) / max(len(small), 1))
        rows.append(row)
        print(f'{path}: {len(values)} problems, mean {row[0]:.2f}%, P10 {row[1]:.2f}%, '
              f'min {row[2]:.2f}%, K <= 10 ({len(small)}) mean {row[3]:.2f}%')
    if len(rows) > 1:
        avg = [sum(r[i] for r in rows) / len(rows) for i in range(4)]
        print(f'average of {len(rows)}: mean {avg[0]:.2f}%, P10 {avg[1]:.2f}%, min {avg[2]:.2f}%, '
              f'K <= 10 mean {avg[3]:.2f}%')
    return 0


if __name__ == '__main__':
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
