// libFuzzer target for the miopen-fdb importer; seeds in fuzz/corpus/miopen-fdb/.
#include "importer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kselect::fuzz::fuzz_importer("miopen-fdb", "gfx90a68.HIP.fdb.txt", data, size);
}
