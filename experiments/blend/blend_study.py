"""Would blending the rankings of several models pick better kernels than one model?

Judges, on held-out sweeps, the picks of each model alone and of blends of their rankings.
Each model's ranking of a problem's candidates comes from `kselect predict --problems
<held-out shapes> --top 0 --all-candidates --json`; a model's relative score of a kernel is
log(predicted efficiency) for an efficiency model and log(predicted TFLOPS / the problem's
highest) for a regression, so models of either objective add up. A blend picks the kernel with
the highest weighted sum of its members' relative scores.

    python3 experiments/blend/blend_study.py --held 'split5-fp32/held{split}.sqlite' \\
        --member 'blend/reg_fp32_{split}_{seed}.json' --member 'blend/eff_fp32_{split}_{seed}.json'

{split} and {seed} are replaced (--splits 5, --seeds 3); {seed1} by the next seed, (seed + 1)
modulo --seeds, to blend two seeds of one objective. Prints the mean efficiency (fastest repeat
of the held-out sweep: best time / the pick's time) over every split, seed and problem, and the
(split, seed) runs' average P10 and minimum, for each
member alone, for the equal-weight blend of all members, and for two members the blend at
weights 0.25, 0.5 and 0.75 of the second. Candidates are the kernels valid in the sweep that
every member ranked (all of them, no shortlist), so a member alone can differ slightly from its
`kselect eval`."""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'noise'))
from sweep_compare import times as measured  # noqa: E402  {problem: {kernel: fastest repeat in ms}}


def relative_scores(path):
    """{problem: {kernel: relative log score}} of one predict --problems JSON file."""
    out = {}
    for entry in json.load(open(path)):
        ranked = entry['ranked']
        if ranked and ranked[0]['efficiency'] is not None:
            out[entry['problem']] = {r['kernel']: math.log(max(r['efficiency'], 1e-9)) for r in ranked}
            continue
        logs = {r['kernel']: math.log(max(r['tflops'] or 0.0, 1e-12)) for r in ranked}
        top = max(logs.values(), default=0.0)
        out[entry['problem']] = {k: v - top for k, v in logs.items()}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--held', required=True)
    ap.add_argument('--member', action='append', required=True)
    ap.add_argument('--splits', type=int, default=5)
    ap.add_argument('--seeds', type=int, default=3)
    a = ap.parse_args()
    blends = [(f'member {i + 1} alone', [1.0 if j == i else 0.0 for j in range(len(a.member))])
              for i in range(len(a.member))]
    if len(a.member) > 1:
        blends.append(('all members, equal weights', [1.0] * len(a.member)))
    if len(a.member) == 2:
        blends += [(f'second member at weight {w}', [1 - w, w]) for w in (0.25, 0.5, 0.75)]
    efficiencies = {name: [] for name, _ in blends}
    runs = {name: [] for name, _ in blends}  # per (split, seed): that run's efficiencies
    for split in range(a.splits):
        times = measured(a.held.format(split=split))
        for seed in range(a.seeds):
            names = {'split': split, 'seed': seed, 'seed1': (seed + 1) % a.seeds}
            members = [relative_scores(m.format(**names)) for m in a.member]
            for name, _ in blends:
                runs[name].append([])
            for problem, t in times.items():
                kernels = [k for k in t if all(k in m.get(problem, {}) for m in members)]
                if not kernels:
                    continue
                best = min(t.values())
                for name, weights in blends:
                    pick = max(kernels, key=lambda k: sum(
                        w * m[problem][k] for w, m in zip(weights, members) if w))
                    efficiencies[name].append(best / t[pick])
                    runs[name][-1].append(best / t[pick])
    def p10(v):
        v = sorted(v)
        return v[int(0.1 * (len(v) - 1))]

    for name, _ in blends:
        v, r = efficiencies[name], [x for x in runs[name] if x]
        print(f'{name:32s} mean {100 * sum(v) / len(v):.3f}%, P10 {100 * sum(map(p10, r)) / len(r):.2f}%, '
              f'min {100 * sum(map(min, r)) / len(r):.2f}% (runs\' average) over {len(v)} picks')


if __name__ == '__main__':
    main()
