// libFuzzer target for the ck-log importer; seeds in fuzz/corpus/ck-log/.
#include "importer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kselect::fuzz::fuzz_importer("ck-log", "gemm_bench.log", data, size);
}
