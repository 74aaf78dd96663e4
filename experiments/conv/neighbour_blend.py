#!/usr/bin/env python3
"""Does blending the model with the measurements of the nearest training problems pick better?

Usage: neighbour_blend.py FEATURES_CSV STUDY_DIR MODEL_DIR K WEIGHTS [all]
  FEATURES_CSV: `kselect features --db STUDY_DIR/sweep.sqlite --op conv --dtype fp32
                 --time-statistic min -o FEATURES_CSV` (the first sweep's rows);
  STUDY_DIR:    holds replicate.sqlite, the second sweep that judges the picks;
  MODEL_DIR:    the study's models (fwd/, bwd_data/, all/ as scripts/conv_study trains them),
                whose oof_tflops.csv give each kernel's out-of-fold prediction and fold;
  K:            neighbours per problem;
  WEIGHTS:      comma-separated weights w of the model (1: the model alone);
  all:          rank every predicted kernel, not only the model's shortlist.
Environment: IMPORTANCE=total_gain (or gain) weighs each column's distance by the model's
feature importance. PER_KERNEL=1 takes each kernel's K nearest problems of the model's that measured it
(as `kselect train --neighbours` does) instead of the K nearest of the slice. GATE=q (0 < q < 1)
ranks by the model alone every problem whose K nearest problems (other folds) lie farther on
average than the q-quantile of that distance over the model's problems (a sparse neighbourhood);
the slice's line counts those problems ("far"). INVERSE=a weighs each neighbour by
1 / (distance^a + 0.1) instead of equally.
Per slice (direction and dimension, scored as scripts/conv_study does: backward weight by the
model of all three directions), every problem is scored out of fold: its K nearest problems of
the slice in the other folds (Euclidean distance over the feature columns that are constant
within each problem, log2 where positive and spanning more than 16x, standardized), and each
candidate kernel's mean log efficiency (log of the problem's best time over the kernel's) over
those neighbours that measured it (log 0.5 where none did). The pick maximizes
w * log(predicted / the problem's best prediction) + (1 - w) * that mean. Prints per slice and
weight the pick's mean efficiency on the first sweep, then mean and nearest-rank P10 on the
second (experiments/conv/README.md, "Nearest problems' measurements blended with the model").
"""
import collections
import csv
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bootstrap_second_sweep import second_sweep as best_times  # {problem: {kernel: min_ms}}

MODEL_OF = {"0": "fwd", "1": "bwd_data", "2": "all"}  # the features' direction codes


def problem_columns(rows):
    """The feature columns constant within every problem and not across problems."""
    names = [c for c in rows[0] if c not in ("problem", "kernel", "latency_ms", "tflops")]
    seen, constant = collections.defaultdict(dict), dict.fromkeys(names, True)
    for r in rows:
        for c in names:
            if constant[c]:
                if c in seen[r["problem"]] and seen[r["problem"]][c] != r[c]:
                    constant[c] = False
                seen[r["problem"]][c] = r[c]
    return [c for c in names if constant[c] and len({v[c] for v in seen.values()}) > 1]


def standardized(rows, columns):
    """{problem: vector}: log2 of wide positive columns, then each column to mean 0, sd 1."""
    logged = set()
    for c in columns:
        v = [float(r[c]) for r in rows]
        if min(v) > 0 and max(v) / min(v) > 16:
            logged.add(c)
    raw = {r["problem"]: [math.log2(float(r[c])) if c in logged else float(r[c])
                          for c in columns] for r in rows}
    n = len(raw)
    mean = [sum(v[i] for v in raw.values()) / n for i in range(len(columns))]
    sd = [max(1e-9, math.sqrt(sum((v[i] - mean[i]) ** 2 for v in raw.values()) / n))
          for i in range(len(columns))]
    return {p: [(x - m) / s for x, m, s in zip(v, mean, sd)] for p, v in raw.items()}


def knn_distance(z, p, others, k):
    """The mean distance from problem p to its k nearest of `others` (p itself left out)."""
    d = sorted(math.dist(z[p], z[q]) for q in others if q != p)[:k]
    return sum(d) / len(d)


def read_oof(path):
    predicted, fold, shortlist = collections.defaultdict(dict), {}, collections.defaultdict(set)
    for r in csv.DictReader(open(path)):
        predicted[r["problem"]][r["kernel"]] = float(r["predicted"])
        fold[r["problem"]] = r["fold"]
        if r.get("shortlisted") == "1":
            shortlist[r["problem"]].add(r["kernel"])
    return predicted, fold, shortlist


def main(argv):
    features, study, model_dir, k_near = argv[1], argv[2], argv[3], int(argv[4])
    weights = [float(w) for w in argv[5].split(",")]
    every_kernel = len(argv) > 6 and argv[6] == "all"
    rows = list(csv.DictReader(open(features)))
    times, slice_of = collections.defaultdict(dict), {}
    for r in rows:
        times[r["problem"]][r["kernel"]] = float(r["latency_ms"])
        slice_of[r["problem"]] = (r["direction"], r["ndim"])
    columns = problem_columns(rows)
    z = standardized(rows, columns)
    # IMPORTANCE=total_gain (or gain): each column's squared distance weighed by that importance
    # in the model's feature_importances_tflops.json, normalized over the problem columns.
    kind = os.environ.get("IMPORTANCE")
    column_weights = {}
    for m in set(MODEL_OF.values()):
        weights_of = [1.0] * len(columns)
        if kind:
            importance = json.load(open(f"{model_dir}/{m}/feature_importances_tflops.json"))
            weights_of = [importance.get(c, {}).get(kind, 0.0) for c in columns]
            weights_of = [w / sum(weights_of) * len(weights_of) for w in weights_of]
        column_weights[m] = weights_of
    second = best_times(f"{study}/replicate.sqlite")
    oof = {m: read_oof(f"{model_dir}/{m}/oof_tflops.csv") for m in set(MODEL_OF.values())}
    gate = float(os.environ.get("GATE", "0"))
    thresholds = {}
    if gate:
        for m in set(MODEL_OF.values()):
            own = [q for q in times if q in oof[m][0]]
            spread = sorted(knn_distance(z, q, own, k_near) for q in own)
            thresholds[m] = spread[min(len(spread) - 1, int(gate * len(spread)))]
    for direction, ndim in sorted(set(slice_of.values())):
        predicted, fold, shortlist = oof[MODEL_OF[direction]]
        weigh = column_weights[MODEL_OF[direction]]
        problems = [p for p in times if slice_of[p] == (direction, ndim) and p in predicted]
        picks = {w: [] for w in weights}
        gated = 0
        for p in problems:
            pool = problems if not os.environ.get("PER_KERNEL") else [q for q in times if q in predicted]
            others = [q for q in pool if fold[q] != fold[p]]
            near = sorted(others, key=lambda q: sum(w * (a - b) ** 2 for a, b, w in zip(z[p], z[q], weigh)))
            if not os.environ.get("PER_KERNEL"):
                near = near[:k_near]
            candidates = [k for k in predicted[p] if k in times[p]
                          and (every_kernel or k in shortlist[p])]
            top = max(max(predicted[p][k] for k in candidates), 1e-30)
            measured = {}
            power = float(os.environ.get("INVERSE", "0"))
            for k in candidates:
                used = [q for q in near if k in times[q]][:k_near]
                logs = [math.log(min(times[q].values()) / times[q][k]) for q in used]
                # INVERSE=a: each neighbour weighs 1 / (distance^a + 0.1) instead of equally.
                weigh_q = [1.0 / (math.dist(z[p], z[q]) ** power + 0.1) if power else 1.0
                           for q in used]
                measured[k] = (sum(w * l for w, l in zip(weigh_q, logs)) / sum(weigh_q)
                               if logs else math.log(0.5))
            judge = second.get(p, {})
            spread = knn_distance(z, p, others, k_near) if gate else 0.0
            far = gate and spread > thresholds[MODEL_OF[direction]]
            gated += bool(far)
            for weight in weights:
                w = 1.0 if far else weight
                if os.environ.get("SHRINK") and gate:
                    w = 1 - (1 - weight) * min(1.0, thresholds[MODEL_OF[direction]] / spread)
                pick = max(candidates, key=lambda k: w * math.log(max(predicted[p][k], 1e-30) / top)
                           + (1 - w) * measured[k])
                if pick in judge:
                    picks[weight].append((min(times[p].values()) / times[p][pick],
                                     min(judge.values()) / judge[pick]))
        line = f"{['fwd', 'bwd_data', 'bwd_weight'][int(direction)]} {ndim}-D ({len(problems)}, {gated} far):"
        for w in weights:
            first = [a for a, _ in picks[w]]
            on_second = sorted(b for _, b in picks[w])
            line += (f"  w={w:g} {100 * sum(first) / len(first):.2f} /"
                     f" {100 * sum(on_second) / len(on_second):.2f}"
                     f" / {100 * on_second[len(on_second) // 10]:.1f}")
        print(line)


if __name__ == "__main__":
    main(sys.argv)
