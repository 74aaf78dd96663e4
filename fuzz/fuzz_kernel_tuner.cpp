// libFuzzer target for the kernel-tuner importer; seeds in fuzz/corpus/kernel-tuner/.
#include "importer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kselect::fuzz::fuzz_importer("kernel-tuner", "convolution_milo_A100.json", data, size);
}
