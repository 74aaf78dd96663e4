// libFuzzer target for the ck-conv-csv importer; seeds in fuzz/corpus/ck-conv-csv/.
#include "importer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kselect::fuzz::fuzz_importer("ck-conv-csv", "conv_bench.csv", data, size);
}
