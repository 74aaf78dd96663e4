#pragma once
// What the three CK importers (ck-json, ck-log, ck-conv-csv) share: CK kernel-name parsing
// (reference ck-heuristics.md section 10), CK's mem-pipeline pads fix and the canonical GEMM and
// convolution problem texts. What every importer shares is in common.h. Formats are described
// in docs/formats/ck.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/import/common.h"
#include "data/import/importer.h"

namespace kselect::importers::ck {

// Problem sizes are kept well inside int64 so that every derived size (output extent, flops as
// double) is exact and never overflows.
constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;

// A whole-string integer in [min, kMaxDim]; nullopt otherwise (text, sign, range, "1e400").
std::optional<std::int64_t> parse_dim(std::string_view text, std::int64_t min = 1);
// The same for a JSON value (an integral number, or a float that is exactly integral).
std::optional<std::int64_t> json_dim(const nlohmann::json& value, std::int64_t min = 1);

// A dtype, layout or similar value usable in a problem text (letters, digits, _ - . +),
// lower-cased; nullopt when empty or containing anything else.
std::optional<std::string> word(std::string_view text);

// A number member of a JSON object: NaN when the member is absent or null, nullopt when it is
// something else than a number.
std::optional<double> json_number(const nlohmann::json& object, const std::string& key);

// A CK GEMM kernel name gemm_universal_{dtype}_{layout}_{pipeline}_{epilogue}_{scheduler}_
// {padM}_{padN}_{padK}_{persistent}_{tm}x{tn}x{tk}_{wm}x{wn}x{wk}_{wtm}x{wtn}x{wtk}.
struct GemmKernelName {
  std::string dtype;
  std::string layout;
  nlohmann::json config;  // tile_m.., warp_m.., warp_tile_m.., pipeline, epilogue, scheduler,
                          // pad_m, pad_n, pad_k, persistent (bools as 0/1)
};
std::optional<GemmKernelName> parse_gemm_kernel_name(std::string_view name);

// CK's fix: a kernel with the `mem` pipeline always pads M, N and K, whatever its name says.
void apply_mem_pads(nlohmann::json& config);

// A kernel's parameters as a flat object: scalars kept, booleans and "True"/"False" as 0/1,
// nested values and `name` dropped.
nlohmann::json flat_config(const nlohmann::json& object);

// A grouped-convolution kernel name, long or short benchmark form. dir is F, B or W and dtype
// lower-case when the head of the name ("grouped_conv_<dir>_<dtype>_") is readable, else "";
// config is the full parameter set, or an empty object when the rest of the name is not
// understood (the name is then only an id).
struct ConvKernelName {
  std::string dir;
  std::string dtype;
  nlohmann::json config = nlohmann::json::object();
};
ConvKernelName parse_conv_kernel_name(std::string_view name);

struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0, split_k = 1;
  std::string layout, dtype, device;  // empty ones are left out of the text
};
std::string problem_text(const GemmProblem& p);
double flops(const GemmProblem& p);

// A 2-D convolution as the conv CSV describes it; problem_text writes the 3-D canonical form
// with depth 1 (docs/formats/ck.md).
struct Conv2dProblem {
  std::int64_t n = 0, c = 0, k = 0, g = 1, hi = 0, wi = 0, y = 0, x = 0;
  std::int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  std::string dir, dtype, device;
  std::int64_t ho() const;  // <= 0 when the filter does not fit
  std::int64_t wo() const;
};
std::string problem_text(const Conv2dProblem& p);
double flops(const Conv2dProblem& p);

// The Importer of a CK format: Reader(options, sink).read(in) does the work.
template <typename Reader>
class ReaderImporter : public Importer {
 public:
  ReaderImporter(std::string_view format, std::string_view description)
      : format_(format), description_(description) {}
  std::string_view format() const override { return format_; }
  std::string_view description() const override { return description_; }
  void read(std::istream& in, const ImportOptions& options, RowSink& sink) const override {
    Reader(options, sink).read(in);
  }

 private:
  std::string_view format_, description_;  // string literals
};

}  // namespace kselect::importers::ck
