// libFuzzer target for the csv importer; seeds in fuzz/corpus/csv/. The first byte picks one of
// two fixed mappings (time column, or throughput only with parameters parsed from the name);
// the rest is the file.
#include "importer_fuzz.h"

namespace {
const char* const kMappings[] = {
    "problem=m;n;k,kernel=kernel,time=time,dtype=dtype,valid=valid,params=p;q,tflops=tflops",
    "problem=m;n;k,kernel=kernel,gflops=gflops,parse_name=true,device=device,delimiter=;",
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  kselect::importers::ImportOptions options;
  options.source = "fuzz.csv";
  options.settings = kselect::KeyValues::parse(kMappings[data[0] % 2]);
  std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  kselect::fuzz::CountingSink sink;
  try {
    kselect::importers::find_importer("csv").read(in, options, sink);
  } catch (const kselect::InputError&) {
    // A file that cannot be CSV with this mapping at all: the documented way to refuse it.
  }
  return 0;
}
