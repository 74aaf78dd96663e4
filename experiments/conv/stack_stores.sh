#!/usr/bin/env bash
# Counts, per AVX2 sub-tile instantiation of an object file, the ymm stores to the stack and the
# FMAs (experiments/conv/README.md, "The AVX2 accumulators lived on the stack"). A register tile
# whose accumulators stay in registers stores none; one with a store per accumulator per K step
# shows as many stores as FMAs of one step in each unrolled loop body.
# Usage: experiments/conv/stack_stores.sh [OBJECT]
#   (default: the build's micro_avx2.cpp.o; scripts/build first)
set -euo pipefail
cd "$(dirname "$0")/../.."
object=${1:-build/CMakeFiles/kselect_runtime_objects.dir/src/ops/cpu_gemm_core/micro_avx2.cpp.o}
objdump -d --no-show-raw-insn -C "$object" | awk '
  /^[0-9a-f]+ <.*sub_tile</ {
    name = $0; sub(/^.*sub_tile/, "", name); sub(/\(kselect.*$/, "", name); fma = 0; stores = 0
  }
  /vmovaps %ymm[0-9]+,.*\(%rsp\)/ { stores++ }
  /vfmadd/ { fma++ }
  /ret *$/ { if (name != "") printf "%4d stack stores %4d FMAs  sub_tile%s\n", stores, fma, name; name = "" }'
