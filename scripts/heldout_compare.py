"""Compares two sets of held-out reports (`kselect eval --heldout --json`) of the same splits and
seeds, such as the five-split runs of docs/benchmarks.md:

    python3 scripts/heldout_compare.py BEFORE_DIR AFTER_DIR [--splits 5] [--seeds 3] [--top 10]
                                       [--replicated SECOND_SWEEP.sqlite]

Each directory holds model{split}_s{seed}.held.json. Prints, per directory, the mean efficiency
over all held-out problems (each split weighted by its size), the runs' average P10 and minimum
and the picks slower than the default, then the problems whose efficiency (averaged over the
seeds) changed most in either direction. Under each directory's line, the noise baselines its
reports carry, aggregated the same way: `split_half_oracle` and the hybrid selector judged alike
(`hybrid_top<k>_split_half`: the model's top k measured, the fastest kept), and with `kselect eval --replicate`
`model_on_replicate` (the picks judged on a second sweep) and `replicate_oracle` (the first
sweep's best kernels judged on it: the ceiling of a selector that knew the first sweep)."""
import argparse
import collections
import json
import sqlite3


def percentile(values, p):
    """The p-th percentile as kselect computes it: linear between the sorted values (also used
    by experiments/training/eval_subset.py)."""
    values = sorted(values)
    h = (len(values) - 1) * p / 100
    lo = int(h)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (h - lo) * (values[hi] - values[lo])


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


def baseline_summary(runs, seeds, key):
    """A baseline of the reports (`split_half_oracle`, `hybrid_top<k>_split_half`; with `kselect eval --replicate`
    `replicate_oracle` and `model_on_replicate`) aggregated as `summary` aggregates the picks;
    None when a report lacks it."""
    parts = [r.get('baselines', {}).get(key) for r in runs]
    if any(b is None or not b['efficiency'].get('count') for b in parts):
        return None
    problems = sum(b['efficiency']['count'] for b in parts)
    mean = sum(b['efficiency']['mean'] * b['efficiency']['count'] for b in parts) / problems
    average = lambda stat: sum(b['efficiency'][stat] for b in parts) / len(parts)
    return (f'mean {100 * mean:.3f}% over {problems // seeds} problems x {seeds} seeds, '
            f'P10 {100 * average("p10"):.2f}%, min {100 * average("min"):.2f}% (runs\' average)')


def subset_summary(runs, seeds, problems):
    """The picks' efficiency on the reports' own sweep over `problems` only, aggregated as
    `summary`: the same problems as a replicate's baselines, for a like-for-like comparison."""
    per_run = [[q['efficiency'] for q in r['per_problem'] if q['problem'] in problems] for r in runs]
    count = sum(len(v) for v in per_run)
    mean = sum(sum(v) for v in per_run) / count
    p10 = sum(percentile(v, 10) for v in per_run) / len(per_run)
    low = sum(min(v) for v in per_run) / len(per_run)
    return (f'mean {100 * mean:.3f}% over {count // seeds} problems x {seeds} seeds, '
            f'P10 {100 * p10:.2f}%, min {100 * low:.2f}% (runs\' average)')


def replicated_problems(path):
    """The canonical problems a second sweep (a kselect database) measured."""
    with sqlite3.connect(f'file:{path}?mode=ro', uri=True) as db:
        return {row[0] for row in db.execute('select canonical from problems')}


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
    ap.add_argument('--replicated', help='a second sweep (the REPLICATE of scripts/heldout_study): '
                    'also print the picks on their own sweep over the problems it measured')
    a = ap.parse_args()
    subset = replicated_problems(a.replicated) if a.replicated else None
    before = reports(a.before, a.splits, a.seeds)
    after = reports(a.after, a.splits, a.seeds)
    for name, runs in ((a.before, before), (a.after, after)):
        print(f'{name}: {summary(list(runs.values()), a.seeds)}')
        if subset:
            print(f'  picks on the replicated problems: {subset_summary(list(runs.values()), a.seeds, subset)}')
        hybrid = sorted({k for r in runs.values() for k in r.get('baselines', {})
                         if k.startswith('hybrid_top')}, key=lambda k: int(k[10:].split('_')[0]))
        for key in ('model_on_replicate', 'replicate_oracle', 'split_half_oracle', *hybrid):
            line = baseline_summary(list(runs.values()), a.seeds, key)
            if line:
                print(f'  {key}: {line}')
    b, c = per_problem(before.values(), a.seeds), per_problem(after.values(), a.seeds)
    common = sorted(set(b) & set(c), key=lambda p: c[p] - b[p])
    print(f'change of the mean: {100 * sum(c[p] - b[p] for p in common) / len(common):+.3f} points '
          f'over {len(common)} problems; largest changes (seeds\' average):')
    for p in (common[:a.top] + common[-a.top:]) if a.top > 0 else []:
        print(f'  {p:44s} {100 * b[p]:6.2f}% -> {100 * c[p]:6.2f}%  {100 * (c[p] - b[p]):+6.2f}')


if __name__ == '__main__':
    main()
