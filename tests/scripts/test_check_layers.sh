#!/usr/bin/env bash
# scripts/check-layers on small made-up trees: a tree that follows the layer order passes, and
# each kind of violation is caught and named.
set -euo pipefail
check=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make_tree() {
  rm -rf "$tmp/src"
  mkdir -p "$tmp/src"/{core,model,select,search,ops/gemm,ops/generic,eval}
  echo '#pragma once' > "$tmp/src/core/error.h"
  printf '#pragma once\n#include "core/error.h"\n' > "$tmp/src/ops/operation.h"
  printf '#pragma once\n#include "ops/operation.h"\n' > "$tmp/src/ops/gemm/features.h"
  printf '#pragma once\n#include <xgboost/c_api.h>\n' > "$tmp/src/model/xgboost.h"
  printf '#pragma once\n#include "core/error.h"\n' > "$tmp/src/model/forest.h"
  printf '#include "model/forest.h"\n#include "ops/operation.h"\n' > "$tmp/src/select/ranker.cpp"
}
expect() {  # expect <exit code> <text in the output or ''>
  local want=$1 text=$2 got=0 out
  out=$("$check" "$tmp/src" 2>&1) || got=$?
  if [[ $got -ne $want ]] || [[ -n "$text" && "$out" != *"$text"* ]]; then
    echo "FAIL: wanted exit $want and '$text'; got exit $got:"
    echo "$out"
    exit 1
  fi
}

make_tree
expect 0 ''
echo '#include "model/forest.h"' >> "$tmp/src/core/error.h"
expect 1 'core/error.h:2: includes model/forest.h: core may not include model'
make_tree
echo '#include "ops/gemm/features.h"' >> "$tmp/src/eval/report.cpp"
expect 1 'eval/report.cpp:1: includes ops/gemm/features.h: layers above ops see the seam'
make_tree
echo '#include "ops/gemm/features.h"' >> "$tmp/src/ops/generic/features.cpp"
expect 1 "one op may not include another op's code"
make_tree
mkdir -p "$tmp/src/ops/cpu_gemm_core" && echo '#pragma once' > "$tmp/src/ops/cpu_gemm_core/micro.h"
echo '#include "ops/cpu_gemm_core/micro.h"' >> "$tmp/src/ops/generic/features.cpp"
expect 0 ''
echo '#include "ops/gemm/features.h"' >> "$tmp/src/ops/cpu_gemm_core/micro.h"
expect 1 "one op may not include another op's code"
make_tree
echo '#include "model/xgboost.h"' >> "$tmp/src/model/forest.h"
expect 1 'selection reaches XGBoost or SQLite: select/ranker.cpp -> model/forest.h -> model/xgboost.h'
make_tree  # the runtime API may not reach the store either
mkdir -p "$tmp/src/api" "$tmp/src/data"
printf '#pragma once\n#include <sqlite3.h>\n' > "$tmp/src/data/sqlite.h"
printf '#include "select/ranker.h"\n' > "$tmp/src/api/selector.cpp"
expect 0 ''
echo '#include "data/sqlite.h"' >> "$tmp/src/api/selector.cpp"
expect 1 'selection reaches XGBoost or SQLite: api/selector.cpp -> data/sqlite.h'
make_tree  # search sits between select and eval
printf '#include "select/ranker.h"\n' > "$tmp/src/search/surrogate.cpp"
printf '#include "search/surrogate.h"\n' > "$tmp/src/eval/tune.cpp"
expect 0 ''
echo '#include "eval/report.h"' >> "$tmp/src/search/surrogate.cpp"
expect 1 'search/surrogate.cpp:2: includes eval/report.h: search may not include eval'
make_tree
mkdir -p "$tmp/src/widgets" && echo '' > "$tmp/src/widgets/a.cpp"
expect 1 'widgets/a.cpp: in no layer'
status=0
"$check" "$tmp/no-such-dir" > /dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || { echo "FAIL: a missing directory gave exit $status, not 2"; exit 1; }
echo "1 passed, 0 failed"
