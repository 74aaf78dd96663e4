"""Compares two sets of held-out reports (`kselect eval --heldout --json`) of the same splits and
seeds, such as the five-split runs of docs/benchmarks.md:

    python3 scripts/heldout_compare.py BEFORE_DIR AFTER_DIR [--splits 5] [--seeds 3] [--top 10]

Each directory holds model{split}_s{seed}.held.json. Prints, per directory, the mean efficiency
over all held-out problems (each split weighted by its size), the runs' average P10 and minimum
and the picks slower than the default, then the problems whose efficiency (averaged over the
seeds) changed most in either direction."""
import argparse
import collections
import json


def reports(directory, splits, seeds):
    return {(p, s): json.load(open(f'{directory}/model{p}_s{s}.held.json'))
            for p in range(splits) for s in range(seeds)}


def summary(runs, seeds):
    problems = sum(r['problems'] for r in runs)
    mean = sum(r['efficiency']['mean'] * r['problems'] for r in runs) / problems
    average = lambda key: sum(r['efficiency'][key] for r in runs) / len(runs)
    slower = sum(r['worse_than_default'] for r in runs)
    return (f'mean {100 * mean:.3f}% over {problems // seeds} held-out problems x {seeds} seeds, P10 {100 * average("p10"):.2f}%, '
            f'min {100 * average("min"):.2f}% (runs\' average), picks slower than the default {slower}')


def per_problem(runs, seeds):
    out = collections.defaultdict(float)
    for r in runs:
        for q in r['per_problem']:
            out[q['problem']] += q['efficiency'] / seeds
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('before')
    ap.add_argument('after')
    ap.add_argument('--splits', type=int, default=5)
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--top', type=int, default=10)
    a = ap.parse_args()
    before = reports(a.before, a.splits, a.seeds)
    after = reports(a.after, a.splits, a.seeds)
    for name, runs in ((a.before, before), (a.after, after)):
        print(f'{name}: {summary(list(runs.values()), a.seeds)}')
    b, c = per_problem(before.values(), a.seeds), per_problem(after.values(), a.seeds)
    common = sorted(set(b) & set(c), key=lambda p: c[p] - b[p])
    print(f'change of the mean: {100 * sum(c[p] - b[p] for p in common) / len(common):+.3f} points '
          f'over {len(common)} problems; largest changes (seeds\' average):')
    for p in (common[:a.top] + common[-a.top:]) if a.top > 0 else []:
        print(f'  {p:44s} {100 * b[p]:6.2f}% -> {100 * c[p]:6.2f}%  {100 * (c[p] - b[p]):+6.2f}')


if __name__ == '__main__':
    main()
