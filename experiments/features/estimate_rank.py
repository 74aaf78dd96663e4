"""How well the GEMM cycle estimate alone orders each problem's kernels, from a feature table
(`kselect features --db SWEEP --dtype D --time-statistic min -o rows.csv`):

    python3 experiments/features/estimate_rank.py rows.csv

Per K regime (K <= 10, K > 10): the mean efficiency of the kernel with the lowest
log2_est_cycles (its measured time against the problem's best) and the mean Spearman rank
correlation between the estimate and the measured times."""
import collections
import csv
import math
import sys


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0] * len(values)
    for position, i in enumerate(order):
        out[i] = position
    return out


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    sd = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return cov / sd if sd else 0.0


def main(path):
    by_problem = collections.defaultdict(list)
    with open(path, newline='') as f:
        reader = csv.reader(f)
        header = next(reader)
        est, time = header.index('log2_est_cycles'), header.index('latency_ms')
        k = header.index('K')
        for row in reader:
            by_problem[row[0]].append((float(row[est]), float(row[time]), float(row[k])))
    totals = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for rows in by_problem.values():
        regime = 'K <= 10' if rows[0][2] <= 10 else 'K > 10'
        best = min(t for _, t, _ in rows)
        picked = min(rows)[1]
        t = totals[regime]
        t[0] += 1
        t[1] += best / picked
        t[2] += spearman([e for e, _, _ in rows], [t for _, t, _ in rows])
    for regime, (n, efficiency, rho) in sorted(totals.items()):
        print(f'{regime}: {n} problems, estimate pick efficiency {100 * efficiency / n:.2f}%, '
              f'mean Spearman {rho / n:.3f}')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1])
