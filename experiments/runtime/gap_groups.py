"""Where the hybrid selector's gap to the split-half ceiling comes from (experiments/runtime/README.md,
"Analysis"): the problems of an out-of-fold report in three groups (no kernel of the oracle's
tie band in the model's top 3; the pick under 98% of the best; the pick within 2%), each group
evaluated alone on a copy of the sweep holding only its rows, with its share of the whole gap.

    python3 experiments/runtime/gap_groups.py REPORT.json MODEL SWEEP.sqlite [--kselect build/kselect]

REPORT.json: `kselect eval --model MODEL --db SWEEP.sqlite --json` (out of fold, as
experiments/runtime/hybrid_study writes it)."""
import argparse
import json
import os
import sqlite3
import subprocess
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('report')
    ap.add_argument('model')
    ap.add_argument('sweep')
    ap.add_argument('--kselect', default='build/kselect')
    a = ap.parse_args()
    problems = json.load(open(a.report))['per_problem']
    groups = {
        'outside the top-3 tie band (hit rank > 3)': [q for q in problems if q['hit_rank'] > 3],
        'hit rank <= 3, pick under 98% of the best':
            [q for q in problems if q['hit_rank'] <= 3 and q['efficiency'] < 0.98],
        'hit rank <= 3, pick within 2% of the best':
            [q for q in problems if q['hit_rank'] <= 3 and q['efficiency'] >= 0.98],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, members in groups.items():
            if not members:
                continue
            db = os.path.join(tmp, 'group.sqlite')
            if os.path.exists(db):
                os.remove(db)
            with sqlite3.connect(f'file:{a.sweep}?mode=ro', uri=True) as src, sqlite3.connect(db) as dst:
                src.backup(dst)
                names = [q['problem'] for q in members]
                dst.execute('delete from measurements where problem_id not in (select id from problems '
                            f'where canonical in ({",".join("?" * len(names))}))', names)
            out = subprocess.run([a.kselect, 'eval', '--model', a.model, '--db', db, '--oof',
                                  '--hybrid-top', '1,2,3,5,10', '--json'],
                                 capture_output=True, text=True, check=True).stdout
            r = json.loads(out)
            b = r['baselines']
            ceiling = b['split_half_oracle']['efficiency']['mean']
            n = r['problems']
            cells = []
            for k in (1, 2, 3, 5, 10):
                mean = b[f'hybrid_top{k}_split_half']['efficiency']['mean']
                cells.append(f'k={k} {100 * mean:.2f}% ({100 * n * (ceiling - mean) / len(problems):+.2f})')
            print(f'{name}: {n} problems; {", ".join(cells)}; ceiling {100 * ceiling:.2f}%; '
                  f'model {100 * r["efficiency"]["mean"]:.2f}%')


if __name__ == '__main__':
    main()
