#pragma once
// What the three CK importers (ck-json, ck-log, ck-conv-csv) share: CK kernel-name parsing
// (reference ck-heuristics.md section 10), the canonical GEMM and convolution problem texts, the
// validity rule for a measured time and a stream wrapper that knows the current line of a JSON
// parse. Formats are described in docs/formats/ck.md.
#include <cstdint>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

// Sets validity from the measured time and the reported TFLOPS (NaN when not reported): a
// non-finite or non-positive time, or a reported TFLOPS that is not positive, makes the row
// invalid (an already invalid row keeps its reason); a valid row without TFLOPS gets
// flops / seconds / 1e12.
void finish_row(ImportedRow& row, double problem_flops);

// Reads the settings the CK importers accept (only `device`, which becomes the problem's device
// context field); throws InputError for any other key.
std::string device_setting(const ImportOptions& options, std::string_view format);

// "field 'x': <what>" for sink.skip reasons.
std::string field_reason(std::string_view field, std::string_view what);

// Reads one line (without its '\n' or a trailing '\r'), keeping at most kMaxLine bytes: the rest
// of a longer line is read and dropped, and too_long says so. Memory stays bounded on binary
// input without newlines. False at the end of the input.
constexpr size_t kMaxLine = size_t{1} << 20;
bool read_line(std::istream& in, std::string& line, bool& too_long);

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

// Passes a stream through a buffer and tells the 1-based line of the next unread character, so
// a JSON parser reading from it can name lines in its messages. Memory is one buffer.
class LineCountingBuf : public std::streambuf {
 public:
  explicit LineCountingBuf(std::istream& source);
  long line();

 protected:
  int_type underflow() override;

 private:
  std::istream& source_;
  std::vector<char> buffer_;
  long newlines_ = 0;              // newlines before counted_
  const char* counted_ = nullptr;  // position in the buffer up to which newlines_ is exact
};

}  // namespace kselect::importers::ck
