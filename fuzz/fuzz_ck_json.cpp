// libFuzzer target for the ck-json importer; seeds in fuzz/corpus/ck-json/.
#include "importer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kselect::fuzz::fuzz_importer("ck-json", "gemm_bench.json", data, size);
}
