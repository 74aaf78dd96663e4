"""Compares two sweeps of the same problems (used by replicate_study and order_study, next to it,
and by experiments/blend and experiments/miopen-fdb; also a command: python3
experiments/noise/sweep_compare.py FIRST.sqlite SECOND.sqlite, or --pool with three or more
sweeps), and draws the fixed shape samples those scripts sweep again.

Each problem's oracle is taken among the kernels valid in both sweeps. Reports what a selector
that knew one sweep exactly would score on the other (mean / P10 / min efficiency), and how much
each near-best kernel's time changed between the sweeps once its problem's overall shift is
removed (a problem measured slower as a whole changes no pick)."""
import csv
import itertools
import json
import math
import random
import sqlite3
import statistics
import sys


def sample_shapes(source, dtype, count, seed):
    """The shapes CSV's header and a fixed random sample of its rows of one dtype (the same
    sample on every run, so a rerun resumes the same sweep)."""
    with open(source, newline='') as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    mine = [r for r in body if r[header.index('dtype')] == dtype]
    return header, random.Random(seed).sample(mine, min(count, len(mine)))


def write_shapes(path, header, rows):
    with open(path, 'w', newline='') as f:
        csv.writer(f, lineterminator='\n').writerows([header] + rows)


def round_medians(repeats):
    """{kernel: median time} after dividing each round's times by that round's slowdown: the
    median over the round's kernels of time / the kernel's own median. A sweep's rounds run
    every kernel once, so a slow or quiet spell of the machine (another tenant) that spans a
    round moves all of its kernels alike and drops out."""
    own = {k: statistics.median(v) for k, v in repeats.items()}
    rounds = max(len(v) for v in repeats.values())
    slowdown = [statistics.median([v[r] / own[k] for k, v in repeats.items() if len(v) > r])
                for r in range(rounds)]
    return {k: statistics.median(t / slowdown[r] for r, t in enumerate(v))
            for k, v in repeats.items()}


def times(db, statistic='min', problems=None):
    """{problem: {kernel: time}} of the valid measurements: the fastest repeat, the median, or
    the median of the round-normalised repeats (round_medians)."""
    con = sqlite3.connect(f'file:{db}?mode=ro', uri=True)
    if statistic == 'round-median':
        found = {}
        for problem, kernel, repeats in con.execute(
                'SELECT p.canonical, k.name, m.repeats FROM measurements m '
                'JOIN problems p ON p.id = m.problem_id JOIN kernels k ON k.id = m.kernel_id '
                'WHERE m.valid = 1 AND m.min_ms > 0'):
            if problems is None or problem in problems:
                found.setdefault(problem, {})[kernel] = json.loads(repeats)
        return {p: round_medians(r) for p, r in found.items()}
    column = {'min': 'min_ms', 'median': 'median_ms'}[statistic]
    found = {}
    for problem, kernel, t in con.execute(
            f'SELECT p.canonical, k.name, m.{column} FROM measurements m '
            'JOIN problems p ON p.id = m.problem_id JOIN kernels k ON k.id = m.kernel_id '
            f'WHERE m.valid = 1 AND m.{column} > 0'):
        if problems is None or problem in problems:
            found.setdefault(problem, {})[kernel] = t
    return found


def summary(values):
    v = sorted(values)
    return f'{100 * statistics.mean(v):6.2f}% {100 * v[len(v) // 10]:6.2f}% {100 * v[0]:6.2f}%'


def oracles(first, second, problems):
    """Kernels valid in both sweeps per problem, and each sweep's best among them."""
    common = {p: sorted(set(first[p]) & set(second[p])) for p in problems}
    best1 = {p: min(common[p], key=first[p].get) for p in problems}
    best2 = {p: min(common[p], key=second[p].get) for p in problems}
    return common, best1, best2


def efficiency(t, problem, kernel, best):
    return t[problem][best] / t[problem][kernel] if kernel in t[problem] else None


def spread(first, second, problems, common, best1, best2):
    """Sorted |log time ratio| between the sweeps, less the problem's median ratio, over the
    kernels within 1.5x of either sweep's best: the ones a pick is made among."""
    out = []
    for p in problems:
        b1, b2 = first[p][best1[p]], second[p][best2[p]]
        near = [k for k in common[p] if first[p][k] < 1.5 * b1 or second[p][k] < 1.5 * b2]
        ratios = [math.log(first[p][k] / second[p][k]) for k in near]
        middle = statistics.median(ratios)
        out += [abs(r - middle) for r in ratios]
    return sorted(out)


def spread_line(values):
    quantile = lambda q: 100 * (math.exp(values[min(len(values) - 1, int(q * len(values)))]) - 1)
    return (f'kernel time change between sweeps (near-best kernels, {len(values)}): '
            f'median {quantile(0.5):.1f}%, P90 {quantile(0.9):.1f}%, P99 {quantile(0.99):.1f}%')


def pooled(sweeps, judge, pickers, problems):
    """Mean efficiency on sweep `judge` of each problem's kernel with the least summed log time
    over the sweeps `pickers` (among the kernels valid in all of them and in the judge)."""
    out = []
    for p in problems:
        kernels = set.intersection(*(set(sweeps[n][p]) for n in pickers + [judge]))
        pick = min(kernels, key=lambda k: sum(math.log(sweeps[n][p][k]) for n in pickers))
        out.append(min(sweeps[judge][p][k] for k in kernels) / sweeps[judge][p][pick])
    return statistics.mean(out)


def pool_main(paths):
    """Each sweep judges the winners picked on 1, 2, ... of the others (averaged over the choices
    of those others): how far more sweeps of the same problems raise the ceiling, or whether the
    noise of the judging sweep alone holds it down."""
    sweeps = [times(path) for path in paths]
    problems = sorted(set.intersection(*(set(t) for t in sweeps)))
    print(f'{len(problems)} problems in all {len(paths)} sweeps; mean efficiency on the judge '
          f'of the winners picked on 1..{len(paths) - 1} other sweeps')
    for judge, path in enumerate(paths):
        others = [n for n in range(len(paths)) if n != judge]
        means = [statistics.mean(pooled(sweeps, judge, list(c), problems)
                                 for c in itertools.combinations(others, size))
                 for size in range(1, len(others) + 1)]
        print(f'{path:<40}' + ''.join(f'{100 * m:8.2f}%' for m in means))


def main(argv):
    if len(argv) >= 2 and argv[1] == '--pool':
        if len(argv) < 5:
            sys.exit('usage: sweep_compare.py --pool SWEEP.sqlite SWEEP.sqlite SWEEP.sqlite ...')
        return pool_main(argv[2:])
    if len(argv) not in (3, 4):
        sys.exit('usage: sweep_compare.py FIRST.sqlite SECOND.sqlite [min|median|round-median]')
    statistic = argv[3] if len(argv) == 4 else 'min'
    first, second = times(argv[1], statistic), times(argv[2], statistic)
    problems = sorted(set(first) & set(second))
    if not problems:
        sys.exit('sweep_compare.py: the sweeps share no problem')
    common, best1, best2 = oracles(first, second, problems)
    print(f'{"policy":<40}{"problems":>9}{"mean":>8}{"p10":>8}{"min":>8}')
    for label, values in (
            ('first sweep best, judged on the second', [efficiency(second, p, best1[p], best2[p]) for p in problems]),
            ('second sweep best, judged on the first', [efficiency(first, p, best2[p], best1[p]) for p in problems])):
        print(f'{label:<40}{len(values):>9} {summary(values)}')
    print(spread_line(spread(first, second, problems, common, best1, best2)))


if __name__ == '__main__':
    main(sys.argv)
