#include "data/import/ck_common.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <istream>
#include <sstream>

#include "core/error.h"

namespace kselect::importers::ck {

namespace {

std::string join(const std::vector<std::string_view>& parts, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) out.append(i == begin ? "" : "_").append(parts[i]);
  return out;
}

bool is_word(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == '+';
  });
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// "128x128x32" -> {128, 128, 32}.
std::optional<std::array<std::int64_t, 3>> parse_triple(std::string_view text) {
  auto parts = split(text, 'x');
  if (parts.size() != 3) return std::nullopt;
  std::array<std::int64_t, 3> out{};
  for (size_t i = 0; i < 3; ++i) {
    if (!all_digits(parts[i])) return std::nullopt;
    auto value = parse_dim(parts[i]);
    if (!value) return std::nullopt;
    out[i] = *value;
  }
  return out;
}

void put_triple(nlohmann::json& config, const std::string& prefix,
                const std::array<std::int64_t, 3>& values) {
  config[prefix + "m"] = values[0];
  config[prefix + "n"] = values[1];
  config[prefix + "k"] = values[2];
}

std::optional<int> parse_flag(std::string_view text) {
  std::string word = lower(text);
  if (word == "true" || word == "1" || word == "t") return 1;
  if (word == "false" || word == "0" || word == "f") return 0;
  return std::nullopt;
}

// The tokens of a name, consumed front to back.
class Tokens {
 public:
  explicit Tokens(std::string_view name) : parts_(split(name, '_')) {}
  bool done() const { return next_ >= parts_.size(); }
  std::string_view peek(size_t ahead = 0) const {
    return next_ + ahead < parts_.size() ? parts_[next_ + ahead] : std::string_view();
  }
  std::string_view take() { return done() ? std::string_view() : parts_[next_++]; }
  bool take_if(std::string_view word) {
    if (peek() != word) return false;
    ++next_;
    return true;
  }
  size_t position() const { return next_; }
  const std::vector<std::string_view>& parts() const { return parts_; }

 private:
  std::vector<std::string_view> parts_;
  size_t next_ = 0;
};

// "fwd", "forward", "bwd_data", "backward_weight", ... -> F, B, W.
std::string take_conv_dir(Tokens& tokens) {
  std::string_view word = tokens.take();
  if (word == "fwd" || word == "forward") return "F";
  if (word != "bwd" && word != "backward") return "";
  std::string_view what = tokens.take();
  if (what == "data") return "B";
  if (what == "weight") return "W";
  return "";
}

bool is_ndim(std::string_view token) {
  return token.size() == 2 && (token[0] == '1' || token[0] == '2' || token[0] == '3') &&
         token[1] == 'd';
}

// Short benchmark form after the ndim token:
// {tm}x{tn}x{tk}_{pipeline}[_intrawave|_interwave][_dsb][_si].
bool parse_short_conv(Tokens& tokens, nlohmann::json& config) {
  auto tile = parse_triple(tokens.take());
  std::string_view pipeline = tokens.take();
  if (!tile || !is_word(pipeline)) return false;
  put_triple(config, "tile_", *tile);
  config["pipeline"] = std::string(pipeline);
  config["scheduler"] = "default";
  if (tokens.peek() == "intrawave" || tokens.peek() == "interwave")
    config["scheduler"] = std::string(tokens.take());
  config["dsb"] = tokens.take_if("dsb") ? 1 : 0;
  config["si"] = tokens.take_if("si") ? 1 : 0;
  return tokens.done();
}

// The optional suffixes of the long form, each at most once and in this order.
enum Suffix {
  kVec,
  kWg,
  kGm,
  kDsb,
  kTwoStage,
  kSpecialization,
  kExplicitGemm,
  kStreamK,
  kLargeTensor,
  kPad,
  kNoSuffix
};

std::optional<std::int64_t> counted(std::string_view token, std::string_view prefix) {
  if (token.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view digits = token.substr(prefix.size());
  return all_digits(digits) ? parse_dim(digits, 0) : std::nullopt;
}

bool is_pad_suffix(std::string_view token) {
  return token.size() == 6 && token.substr(0, 3) == "pad" &&
         std::all_of(token.begin() + 3, token.end(), [](char c) {
           return parse_flag({&c, 1});
         });
}

// Reads the suffix `token` (and the tokens that belong to it) into config; returns its kind, or
// kNoSuffix when the tokens are not a suffix.
Suffix take_suffix(Tokens& tokens, nlohmann::json& config) {
  std::string_view token = tokens.peek();
  if (auto a = counted(token, "vec")) {
    auto b = all_digits(tokens.peek(1)) ? parse_dim(tokens.peek(1), 0) : std::nullopt;
    auto c = all_digits(tokens.peek(2)) ? parse_dim(tokens.peek(2), 0) : std::nullopt;
    if (!b || !c) return kNoSuffix;
    for (int i = 0; i < 3; ++i) tokens.take();
    config["vec_a"] = *a;
    config["vec_b"] = *b;
    config["vec_c"] = *c;
    return kVec;
  }
  for (auto [prefix, kind] : {std::pair{"wg", kWg}, std::pair{"gm", kGm}}) {
    if (auto count = counted(token, prefix)) {
      tokens.take();
      config[prefix] = *count;
      return kind;
    }
  }
  // Flag suffixes: the tokens that spell them and the field they set.
  struct Flag {
    std::string_view first, second;
    const char* field;
    Suffix kind;
  };
  for (const Flag& flag : {Flag{"dsb", "", "dsb", kDsb}, Flag{"2stage", "", "two_stage", kTwoStage},
                           Flag{"explicit", "gemm", "explicit_gemm", kExplicitGemm},
                           Flag{"large", "tensor", "large_tensor", kLargeTensor}}) {
    if (token != flag.first || (!flag.second.empty() && tokens.peek(1) != flag.second)) continue;
    tokens.take();
    if (!flag.second.empty()) tokens.take();
    config[flag.field] = 1;
    return flag.kind;
  }
  if (token == "streamk" && (tokens.peek(1) == "tree" || tokens.peek(1) == "linear")) {
    tokens.take();
    config["streamk"] = std::string(tokens.take());
    config["streamk_persistent"] = tokens.take_if("persistent") ? 1 : 0;
    return kStreamK;
  }
  if (is_pad_suffix(token)) {
    tokens.take();
    config["pad_m"] = *parse_flag(token.substr(3, 1));
    config["pad_n"] = *parse_flag(token.substr(4, 1));
    config["pad_k"] = *parse_flag(token.substr(5, 1));
    return kPad;
  }
  if (!is_word(token)) return kNoSuffix;
  config["specialization"] = std::string(tokens.take());
  return kSpecialization;
}

// Every long-form kernel carries every suffix field, so that two kernels differ in their
// parameters whenever their names differ (reference: aliasing capped CK's conv accuracy).
nlohmann::json long_conv_defaults() {
  return {{"vec_a", 0},
          {"vec_b", 0},
          {"vec_c", 0},
          {"wg", 0},
          {"gm", 0},
          {"dsb", 0},
          {"two_stage", 0},
          {"specialization", "default"},
          {"explicit_gemm", 0},
          {"streamk", "none"},
          {"streamk_persistent", 0},
          {"large_tensor", 0},
          {"pad_m", 0},
          {"pad_n", 0},
          {"pad_k", 0}};
}

// Long form after the dtype: {layout}_{ndim}d_{pipeline}_{epilogue}_{scheduler}_{tile}_
// {waves}_{warp tile} then the suffixes.
bool parse_long_conv(Tokens& tokens, nlohmann::json& config) {
  size_t layout_begin = tokens.position();
  while (!tokens.done() && !is_ndim(tokens.peek())) tokens.take();
  if (tokens.done() || tokens.position() == layout_begin) return false;
  std::string layout = join(tokens.parts(), layout_begin, tokens.position());
  if (!is_word(layout)) return false;
  config["layout"] = lower(layout);
  config["ndim"] = tokens.take()[0] - '0';
  for (const char* key : {"pipeline", "epilogue", "scheduler"}) {
    std::string_view word = tokens.take();
    if (!is_word(word)) return false;
    config[key] = std::string(word);
  }
  auto tile = parse_triple(tokens.take());
  auto waves = parse_triple(tokens.take());
  auto warp_tile = parse_triple(tokens.take());
  if (!tile || !waves || !warp_tile) return false;
  put_triple(config, "tile_", *tile);
  put_triple(config, "warp_", *waves);
  put_triple(config, "warp_tile_", *warp_tile);
  config.update(long_conv_defaults());
  int last = -1;
  while (!tokens.done()) {
    Suffix kind = take_suffix(tokens, config);
    if (kind == kNoSuffix || kind <= last) return false;
    last = kind;
  }
  return true;
}

}  // namespace

std::optional<std::string> word(std::string_view text) {
  if (!is_word(text)) return std::nullopt;
  return lower(text);
}

std::optional<std::int64_t> parse_dim(std::string_view text, std::int64_t min) {
  auto value = parse_int(text);
  if (!value || *value < min || *value > kMaxDim) return std::nullopt;
  return value;
}

std::optional<std::int64_t> json_dim(const nlohmann::json& value, std::int64_t min) {
  std::int64_t out = 0;
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(kMaxDim))
      return std::nullopt;
    out = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    double d = value.get<double>();
    if (!(d >= double(min) && d <= double(kMaxDim)) || d != std::floor(d)) return std::nullopt;
    out = static_cast<std::int64_t>(d);
  } else {
    return std::nullopt;
  }
  if (out < min || out > kMaxDim) return std::nullopt;
  return out;
}

std::optional<double> json_number(const nlohmann::json& object, const std::string& key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nan("");
  if (!it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<GemmKernelName> parse_gemm_kernel_name(std::string_view name) {
  auto parts = split(name, '_');
  const size_t n = parts.size();
  if (n < 14 || parts[0] != "gemm" || parts[1] != "universal") return std::nullopt;
  auto tile = parse_triple(parts[n - 3]);
  auto warp = parse_triple(parts[n - 2]);
  auto warp_tile = parse_triple(parts[n - 1]);
  if (!tile || !warp || !warp_tile) return std::nullopt;
  GemmKernelName out;
  out.dtype = lower(join(parts, 2, n - 11));
  out.layout = lower(parts[n - 11]);
  auto& config = out.config;
  config = nlohmann::json::object();
  put_triple(config, "tile_", *tile);
  put_triple(config, "warp_", *warp);
  put_triple(config, "warp_tile_", *warp_tile);
  const char* words[] = {"pipeline", "epilogue", "scheduler"};
  for (size_t i = 0; i < 3; ++i) {
    if (!is_word(parts[n - 10 + i])) return std::nullopt;
    config[words[i]] = std::string(parts[n - 10 + i]);
  }
  const char* flags[] = {"pad_m", "pad_n", "pad_k", "persistent"};
  for (size_t i = 0; i < 4; ++i) {
    auto flag = parse_flag(parts[n - 7 + i]);
    if (!flag) return std::nullopt;
    config[flags[i]] = *flag;
  }
  if (!is_word(out.dtype) || !is_word(out.layout)) return std::nullopt;
  return out;
}

void apply_mem_pads(nlohmann::json& config) {
  auto it = config.find("pipeline");
  if (it == config.end() || !it->is_string() || lower(it->get<std::string>()) != "mem") return;
  config["pad_m"] = 1;
  config["pad_n"] = 1;
  config["pad_k"] = 1;
}

nlohmann::json flat_config(const nlohmann::json& object) {
  nlohmann::json out = nlohmann::json::object();
  if (!object.is_object()) return out;
  for (const auto& [key, value] : object.items()) {
    if (key == "name") continue;
    if (value.is_boolean()) {
      out[key] = value.get<bool>() ? 1 : 0;
    } else if (value.is_string()) {
      std::string text = value.get<std::string>();
      std::string word = lower(text);
      if (word == "true" || word == "false")
        out[key] = word == "true" ? 1 : 0;
      else
        out[key] = text;
    } else if (value.is_number()) {
      out[key] = value;
    }
  }
  return out;
}

ConvKernelName parse_conv_kernel_name(std::string_view name) {
  ConvKernelName out;
  Tokens tokens(name);
  if (!tokens.take_if("grouped") || !tokens.take_if("conv")) return out;
  std::string dir = take_conv_dir(tokens);
  std::string dtype = lower(tokens.take());
  if (dir.empty() || !is_word(dtype) || is_ndim(dtype)) return out;
  out.dir = dir;
  out.dtype = dtype;
  nlohmann::json config = nlohmann::json::object();
  bool parsed = false;
  if (is_ndim(tokens.peek())) {
    config["ndim"] = tokens.take()[0] - '0';
    parsed = parse_short_conv(tokens, config);
  } else {
    parsed = parse_long_conv(tokens, config);
  }
  if (parsed) out.config = std::move(config);
  return out;
}

namespace {
void append(std::string& out, std::string_view key, std::int64_t value) {
  out.append(out.empty() ? "" : ",").append(key).append("=").append(std::to_string(value));
}
void append(std::string& out, std::string_view key, const std::string& value) {
  if (!value.empty()) out.append(out.empty() ? "" : ",").append(key).append("=").append(value);
}
}  // namespace

std::string problem_text(const GemmProblem& p) {
  std::string out;
  append(out, "m", p.m);
  append(out, "n", p.n);
  append(out, "k", p.k);
  append(out, "split_k", p.split_k);
  append(out, "layout", p.layout);
  append(out, "dtype", p.dtype);
  append(out, "device", p.device);
  return out;
}

double flops(const GemmProblem& p) {
  return 2.0 * double(p.m) * double(p.n) * double(p.k);
}

namespace {
// Output extent with dilation 1; 0 when the filter does not fit the padded input.
std::int64_t out_extent(std::int64_t in, std::int64_t filter, std::int64_t pad,
                        std::int64_t stride) {
  std::int64_t span = in + 2 * pad - filter;
  return span < 0 || stride <= 0 ? 0 : span / stride + 1;
}
}  // namespace

std::int64_t Conv2dProblem::ho() const {
  return out_extent(hi, y, pad_h, stride_h);
}
std::int64_t Conv2dProblem::wo() const {
  return out_extent(wi, x, pad_w, stride_w);
}

std::string problem_text(const Conv2dProblem& p) {
  std::string out;
  // clang-format off
  const std::pair<const char*, std::int64_t> fields[] = {
      {"n", p.n}, {"c", p.c}, {"k", p.k}, {"g", p.g}, {"di", 1}, {"hi", p.hi}, {"wi", p.wi},
      {"z", 1}, {"y", p.y}, {"x", p.x}, {"do", 1}, {"ho", p.ho()}, {"wo", p.wo()},
      {"pad_d", 0}, {"pad_h", p.pad_h}, {"pad_w", p.pad_w},
      {"stride_d", 1}, {"stride_h", p.stride_h}, {"stride_w", p.stride_w},
      {"dil_d", 1}, {"dil_h", 1}, {"dil_w", 1}};
  // clang-format on
  for (const auto& [key, value] : fields) append(out, key, value);
  append(out, "dir", p.dir);
  append(out, "dtype", p.dtype);
  append(out, "device", p.device);
  return out;
}

double flops(const Conv2dProblem& p) {
  return 2.0 * double(p.n) * double(p.k) * double(p.c / p.g) * double(p.ho()) * double(p.wo()) *
         double(p.y) * double(p.x);
}

}  // namespace kselect::importers::ck
