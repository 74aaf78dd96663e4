// MIOpen find-db text (`<arch>.HIP.fdb.txt`, usually .bz2): one convolution problem per line,
// followed by the fastest few solvers with their measured times. The mapping to kselect
// problems, kernels and rows is documented in docs/formats/miopen-fdb.md.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/key_values.h"
#include "data/import/common.h"
#include "data/import/formats.h"
#include "data/import/importer.h"
#include "ops/conv/problem.h"

namespace kselect::importers {
namespace {

// A key or entry that cannot be used: `field` names the part, `what` says why.
struct BadField {
  std::string field;
  std::string what;
  std::string reason() const { return field_reason(field, what); }
};

std::int64_t to_int(std::string_view text, const char* field, std::int64_t min) {
  // parse_int trims blanks; a key never holds any, so a blank makes the field malformed.
  auto value = text.find(' ') == std::string_view::npos ? parse_int(text) : std::nullopt;
  if (!value) throw BadField{field, "not an integer '" + std::string(text) + "'"};
  if (*value < min)
    throw BadField{field, "must be at least " + std::to_string(min) + ", got " + std::string(text)};
  return *value;
}

// "3x3" (2-D) or "1x3x3" (3-D) into depth, height, width; a 2-D value gets `depth_2d` as depth.
std::array<std::int64_t, 3> to_triple(std::string_view text, size_t dims, const char* field,
                                      std::int64_t min, std::int64_t depth_2d) {
  auto parts = split(text, 'x');
  if (parts.size() != dims)
    throw BadField{field, "expected " + std::to_string(dims) + " values joined by 'x', got '" +
                              std::string(text) + "'"};
  std::array<std::int64_t, 3> out{depth_2d, 0, 0};
  for (size_t i = 0; i < dims; ++i) out[3 - dims + i] = to_int(parts[i], field, min);
  return out;
}

// The convolution of one key is a conv::Problem, always in forward terms (ops/conv/problem.h).
using Conv = conv::Problem;

std::string parse_dtype(std::string_view text) {
  bool ok = !text.empty() && std::isalpha(static_cast<unsigned char>(text[0]));
  std::string out;
  for (char ch : text) {
    ok = ok && std::isalnum(static_cast<unsigned char>(ch));
    out += char(std::tolower(static_cast<unsigned char>(ch)));
  }
  if (!ok) throw BadField{"dtype", "expected a name such as FP32, got '" + std::string(text) + "'"};
  return out;
}

// One layout ("NCHW") or the three (input, weights, output) that MIOpen writes for non-default
// layouts, one name when all three agree. A 3-D key keeps its depth letter ("NCDHW"), even with
// depth 1: MIOpen searches a 5-D descriptor with its 3-D solvers, so the 3-D form of a 2-D
// problem lists other solvers at other times (docs/formats/miopen-fdb.md) and is another
// problem. `backward`: the key lists dy's layout first, so input and output trade places.
std::string parse_layout(std::vector<std::string_view> tokens, bool backward) {
  if (std::all_of(tokens.begin(), tokens.end(), [&](auto t) { return t == tokens[0]; }))
    tokens.resize(1);
  if (backward) std::swap(tokens.front(), tokens.back());
  std::string out;
  for (std::string_view token : tokens) {
    if (!out.empty()) out += '.';
    out += token;
  }
  return out;
}

bool is_layout(std::string_view token) {
  if (token.empty()) return false;
  for (char ch : token)
    if (!std::isupper(static_cast<unsigned char>(ch))) return false;
  return true;
}

// Key fields after the groups suffix is removed:
//   2-D: C-Hi-Wi-YxX-K-Ho-Wo-N-PhxPw-ShxSw-DhxDw-Bias-Layout(s)-DType-Dir
//   3-D: C-Di-Hi-Wi-ZxYxX-K-Do-Ho-Wo-N-PdxPhxPw-SdxShxSw-DdxDhxDw-Bias-Layout(s)-DType-Dir
void parse_geometry(const std::vector<std::string_view>& t, Conv& conv) {
  size_t dims = t.size() == 11 ? 2 : 3;
  size_t i = 0;
  auto next = [&](const char* field) { return to_int(t[i++], field, 1); };
  conv.c = next("c");
  if (dims == 3) conv.di = next("di");
  conv.hi = next("hi");
  conv.wi = next("wi");
  auto filter = to_triple(t[i++], dims, "filter", 1, 1);
  conv.z = filter[0], conv.y = filter[1], conv.x = filter[2];
  conv.k = next("k");
  if (dims == 3) conv.do_ = next("do");
  conv.ho = next("ho");
  conv.wo = next("wo");
  conv.n = next("n");
  conv.pad = to_triple(t[i++], dims, "pad", 0, 0);
  conv.stride = to_triple(t[i++], dims, "stride", 1, 1);
  conv.dil = to_triple(t[i++], dims, "dilation", 1, 1);
}

Conv parse_key(std::string_view key) {
  Conv conv;
  size_t groups = key.rfind("_g");
  if (groups != std::string_view::npos) {
    conv.g = to_int(key.substr(groups + 2), "g", 1);
    key = key.substr(0, groups);
  }
  auto tokens = split(key, '-');
  if (tokens.size() < 15)
    throw BadField{
        "key", "expected at least 15 fields joined by '-', got " + std::to_string(tokens.size())};
  std::string_view dir = tokens.back();
  conv.dir = conv::parse_direction(dir);
  if (!conv.dir || conv::letter(*conv.dir) != dir)
    throw BadField{"dir", "expected F, B or W, got '" + std::string(dir) + "'"};
  conv.dtype = parse_dtype(tokens[tokens.size() - 2]);
  size_t layouts_end = tokens.size() - 2, layouts_begin = layouts_end;
  while (layouts_begin > 0 && is_layout(tokens[layouts_begin - 1])) --layouts_begin;
  size_t layouts = layouts_end - layouts_begin;
  if (layouts != 1 && layouts != 3)
    throw BadField{"layout", "expected 1 or 3 layouts, got " + std::to_string(layouts)};
  conv.layout = parse_layout({tokens.begin() + layouts_begin, tokens.begin() + layouts_end},
                             *conv.dir != conv::Direction::kForward);
  size_t geometry = layouts_begin - 1;  // the bias field sits before the layouts
  if (geometry != 11 && geometry != 13)
    throw BadField{
        "key", "expected 11 (2-D) or 13 (3-D) geometry fields, got " + std::to_string(geometry)};
  conv.bias = to_int(tokens[geometry], "bias", 0);
  if (*conv.bias > 1) throw BadField{"bias", "expected 0 or 1, got " + std::to_string(*conv.bias)};
  parse_geometry({tokens.begin(), tokens.begin() + geometry}, conv);
  // Backward keys describe the problem from dy's side: the key's input is the forward output.
  if (*conv.dir != conv::Direction::kForward) {
    std::swap(conv.c, conv.k);
    std::swap(conv.di, conv.do_);
    std::swap(conv.hi, conv.ho);
    std::swap(conv.wi, conv.wo);
  }
  if (conv.c % conv.g != 0 || conv.k % conv.g != 0)
    throw BadField{"g", std::to_string(conv.g) + " groups do not divide " + std::to_string(conv.c) +
                            " input and " + std::to_string(conv.k) + " output channels"};
  return conv;
}

// Solver, algorithm and device names are printable ASCII without the separators of problem
// text; anything else (a damaged file) would also be invalid UTF-8 in the stored JSON.
bool plain_name(std::string_view name) {
  return std::all_of(name.begin(), name.end(),
                     [](char ch) { return ch > ' ' && ch < 127 && ch != ',' && ch != '='; });
}

// "miopenConvolutionBwdDataAlgoImplicitGEMM" -> "ImplicitGEMM": the family without the
// direction, which the problem already names, so one solver has one family in every direction.
std::string algorithm_family(std::string_view name) {
  for (std::string_view prefix : {"miopenConvolutionFwdAlgo", "miopenConvolutionBwdDataAlgo",
                                  "miopenConvolutionBwdWeightsAlgo"})
    if (name.substr(0, prefix.size()) == prefix) return std::string(name.substr(prefix.size()));
  return std::string(name);
}

struct Entry {
  std::string_view solver, time, algorithm;
};

// New: `Solver:time,workspace,Algorithm`; old (detected per entry by its field count):
// `Algorithm:Solver,time,workspace,Algorithm,<unused>`.
Entry parse_entry(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) throw BadField{"entry", "no ':' after the solver"};
  auto fields = split(text.substr(colon + 1), ',');
  Entry entry;
  if (fields.size() == 3)
    entry = {text.substr(0, colon), fields[0], fields[2]};
  else if (fields.size() == 5)
    entry = {fields[0], fields[1], fields[3]};
  else
    throw BadField{"entry", "expected 3 (new format) or 5 (old format) values after ':', got " +
                                std::to_string(fields.size())};
  if (entry.solver.empty()) throw BadField{"solver", "empty"};
  if (!plain_name(entry.solver)) throw BadField{"solver", "not a plain ASCII name"};
  if (!plain_name(entry.algorithm)) throw BadField{"algorithm", "not a plain ASCII name"};
  return entry;
}

ImportedRow make_row(const Entry& entry, const std::string& problem, double flops, long line) {
  auto time =
      entry.time.find(' ') == std::string_view::npos ? parse_double(entry.time) : std::nullopt;
  if (!time) throw BadField{"time", "not a number '" + std::string(entry.time) + "'"};
  ImportedRow row;
  row.problem = problem;
  row.kernel = std::string(entry.solver);
  row.kernel_config = {{"algorithm", algorithm_family(entry.algorithm)}};
  row.time_ms = *time;
  row.line = line;
  finish_row(row, flops);  // the rule every importer follows: "time 0 ms" etc.
  if (!std::isfinite(row.tflops)) row.tflops = std::nan("");  // absurd geometries overflow
  return row;
}

void read_fdb_line(std::string_view text, long line, const std::string& device, RowSink& sink) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    sink.skip(line, "field 'key': no '=' between the problem key and the solvers");
    return;
  }
  Conv conv;
  try {
    conv = parse_key(text.substr(0, eq));
  } catch (const BadField& bad) {
    sink.skip(line, "key: " + bad.reason());
    return;
  }
  conv.device = device;
  std::string problem = conv::to_text(conv, conv::TextOrder::kWordsFirst);
  auto entries = split(text.substr(eq + 1), ';');
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].empty() && i + 1 == entries.size() && i > 0) continue;  // trailing ';'
    try {
      sink.add(make_row(parse_entry(entries[i]), problem, conv.flops(), line));
    } catch (const BadField& bad) {
      sink.skip(line, "entry " + std::to_string(i + 1) + ": " + bad.reason());
    }
  }
}

class MiopenFdbImporter : public Importer {
 public:
  std::string_view format() const override { return "miopen-fdb"; }
  std::string_view op() const override { return "conv"; }
  // 2: a 3-D key with depth 1 is its own problem (before, it was merged into the 2-D key's).
  int revision() const override { return 2; }
  std::string_view description() const override {
    return "MIOpen find-db text (<arch>.HIP.fdb.txt[.bz2]), new and old entry formats";
  }
  // "gfx90a68.HIP.fdb.txt.bz2" -> "gfx90a68": MIOpen names the file after arch and CU count.
  std::string device_from_name(const std::string& path) const override {
    std::string name = path.substr(path.find_last_of('/') + 1);
    size_t dot = name.find(".HIP.");
    if (dot == std::string::npos) dot = name.find(".OpenCL.");
    return dot == std::string::npos || dot == 0 ? "" : name.substr(0, dot);
  }

  void read(std::istream& in, const ImportOptions& options, RowSink& sink) const override {
    std::string device = device_without_settings(options, format());
    if (device.empty()) device = device_from_name(options.source);
    // Every imported conv problem names the device that measured it (conv::is_imported_text).
    if (device.empty()) device = "unknown";
    if (!plain_name(device))
      throw InputError(options.source, 0, "device",
                       "'" + device + "' is not a plain ASCII name: give device=<name>");
    std::string text;
    bool too_long = false;
    for (long line = 1; read_line(in, text, too_long); ++line) {
      if (text.find('\0') != std::string::npos)
        throw InputError(options.source, line, "", "binary data (NUL byte): not find-db text");
      if (too_long)
        sink.skip(line, "field 'line': longer than " + std::to_string(kMaxLine) + " bytes");
      else if (!text.empty())
        read_fdb_line(text, line, device, sink);
    }
  }
};

}  // namespace

const Importer& miopen_fdb_importer() {
  static const MiopenFdbImporter importer;
  return importer;
}

}  // namespace kselect::importers
