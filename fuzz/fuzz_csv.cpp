// libFuzzer target for the csv importer; seeds in fuzz/corpus/csv/. The first byte picks one of
// two fixed mappings (time column, or throughput only with parameters parsed from the name);
// the rest is the file.
#include "importer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kselect::fuzz::fuzz_importer(
      "csv", "fuzz.csv", data, size,
      {"problem=m;n;k,kernel=kernel,time=time,dtype=dtype,valid=valid,params=p;q,tflops=tflops",
       "problem=m;n;k,kernel=kernel,gflops=gflops,parse_name=true,device=device,delimiter=;"});
}
