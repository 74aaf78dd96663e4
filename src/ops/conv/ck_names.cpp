#include "ops/conv/ck_names.h"

#include <utility>

#include "core/text.h"
#include "ops/ck_name_parts.h"

namespace kselect::conv {

namespace {

using ck::Tokens;

// "fwd", "forward", "bwd_data", "backward_weight", ...: CK spells the direction with these
// (other spellings of parse_direction, such as "F" or "wrw", are not CK's).
std::optional<Direction> take_direction(Tokens& tokens) {
  std::string spelled(tokens.take());
  if (spelled == "bwd" || spelled == "backward")
    spelled.append("_").append(tokens.take());
  else if (spelled != "fwd" && spelled != "forward")
    return std::nullopt;
  return parse_direction(spelled);
}

// CK's spelling of a direction: the long form abbreviates, the short one does not.
std::string spell(Direction dir, bool long_form) {
  if (long_form) return std::string(ck_direction(dir));
  switch (dir) {
    case Direction::kForward:
      return "forward";
    case Direction::kBackwardData:
      return "backward_data";
    case Direction::kBackwardWeight:
      return "backward_weight";
  }
  return "";
}

bool is_ndim(std::string_view token) {
  return token.size() == 2 && (token[0] == '1' || token[0] == '2' || token[0] == '3') &&
         token[1] == 'd';
}

// A pipeline: one token, or CK's basic pipeline spelled with an underscore, basic_v1.
std::string take_pipeline(Tokens& tokens) {
  std::string pipeline(tokens.take());
  if (pipeline == "basic" && tokens.peek() == "v1") pipeline += "_" + std::string(tokens.take());
  return pipeline;
}

// Short benchmark form after the ndim token:
// {tm}x{tn}x{tk}_{pipeline}[_intrawave|_interwave][_dsb][_si].
bool parse_short(Tokens& tokens, nlohmann::json& config) {
  auto tile = ck::parse_triple(tokens.take());
  std::string pipeline = take_pipeline(tokens);
  if (!tile || !ck::is_word(pipeline)) return false;
  ck::put_triple(config, "tile_", *tile);
  config["pipeline"] = pipeline;
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
  kSi,
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
  return ck::all_digits(digits) ? ck::parse_dim(digits, 0) : std::nullopt;
}

bool is_pad_suffix(std::string_view token) {
  return token.size() == 6 && token.substr(0, 3) == "pad" &&
         std::all_of(token.begin() + 3, token.end(), [](char c) {
           return ck::parse_flag({&c, 1});
         });
}

// The flag suffixes: the tokens that spell them and the field they set.
struct Flag {
  std::string_view first, second;
  const char* field;
  Suffix kind;
};
constexpr Flag kFlags[] = {Flag{"dsb", "", "dsb", kDsb}, Flag{"si", "", "si", kSi},
                           Flag{"2stage", "", "two_stage", kTwoStage},
                           Flag{"explicit", "gemm", "explicit_gemm", kExplicitGemm},
                           Flag{"large", "tensor", "large_tensor", kLargeTensor}};

// Reads the suffix `token` (and the tokens that belong to it) into config; returns its kind, or
// kNoSuffix when the tokens are not a suffix.
Suffix take_suffix(Tokens& tokens, nlohmann::json& config) {
  std::string_view token = tokens.peek();
  if (auto a = counted(token, "vec")) {
    auto b = ck::all_digits(tokens.peek(1)) ? ck::parse_dim(tokens.peek(1), 0) : std::nullopt;
    auto c = ck::all_digits(tokens.peek(2)) ? ck::parse_dim(tokens.peek(2), 0) : std::nullopt;
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
  for (const Flag& flag : kFlags) {
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
    config["pad_m"] = *ck::parse_flag(token.substr(3, 1));
    config["pad_n"] = *ck::parse_flag(token.substr(4, 1));
    config["pad_k"] = *ck::parse_flag(token.substr(5, 1));
    return kPad;
  }
  if (!ck::is_word(token)) return kNoSuffix;
  config["specialization"] = std::string(tokens.take());
  return kSpecialization;
}

// Long form after the dtype: {layout}_{ndim}d_{pipeline}_{epilogue}_{scheduler}_{tile}_
// {waves}_{warp tile} then the suffixes.
bool parse_long(Tokens& tokens, nlohmann::json& config) {
  size_t layout_begin = tokens.position();
  while (!tokens.done() && !is_ndim(tokens.peek())) tokens.take();
  if (tokens.done() || tokens.position() == layout_begin) return false;
  std::string layout = ck::join_parts(tokens.parts(), layout_begin, tokens.position());
  if (!ck::is_word(layout)) return false;
  config["layout"] = lower(layout);
  config["ndim"] = tokens.take()[0] - '0';
  for (const char* key : {"pipeline", "epilogue", "scheduler"}) {
    std::string word =
        key == std::string_view("pipeline") ? take_pipeline(tokens) : std::string(tokens.take());
    if (!ck::is_word(word)) return false;
    config[key] = word;
  }
  auto tile = ck::parse_triple(tokens.take());
  auto waves = ck::parse_triple(tokens.take());
  auto warp_tile = ck::parse_triple(tokens.take());
  if (!tile || !waves || !warp_tile) return false;
  ck::put_triple(config, "tile_", *tile);
  ck::put_triple(config, "warp_", *waves);
  ck::put_triple(config, "warp_tile_", *warp_tile);
  config.update(ck_long_defaults());
  int last = -1;
  while (!tokens.done()) {
    Suffix kind = take_suffix(tokens, config);
    if (kind == kNoSuffix || kind <= last) return false;
    last = kind;
  }
  return true;
}

std::string text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// The suffixes of a long-form config that differ from their defaults, in name order.
std::string long_suffixes(const nlohmann::json& c) {
  std::string out;
  auto on = [&c](const char* key) { return c.value(key, 0) != 0; };
  auto flag = [&](const char* key, const char* spelled) {
    if (on(key)) out.append("_").append(spelled);
  };
  if (on("vec_a") || on("vec_b") || on("vec_c"))
    out += "_vec" + text(c["vec_a"]) + "_" + text(c["vec_b"]) + "_" + text(c["vec_c"]);
  for (const char* key : {"wg", "gm"})
    if (on(key)) out += std::string("_") + key + text(c[key]);
  flag("dsb", "dsb");
  flag("si", "si");
  flag("two_stage", "2stage");
  if (c.value("specialization", "default") != "default") out += "_" + text(c["specialization"]);
  flag("explicit_gemm", "explicit_gemm");
  if (c.value("streamk", "none") != "none") {
    out += "_streamk_" + text(c["streamk"]);
    flag("streamk_persistent", "persistent");
  }
  flag("large_tensor", "large_tensor");
  if (on("pad_m") || on("pad_n") || on("pad_k"))
    out += "_pad" + text(c["pad_m"]) + text(c["pad_n"]) + text(c["pad_k"]);
  return out;
}

}  // namespace

nlohmann::json ck_long_defaults() {
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

CkKernelName parse_ck_kernel_name(std::string_view name) {
  CkKernelName out;
  Tokens tokens(name);
  if (!tokens.take_if("grouped") || !tokens.take_if("conv")) return out;
  std::optional<Direction> dir = take_direction(tokens);
  std::string dtype = lower(tokens.take());
  if (!dir || !ck::is_word(dtype) || is_ndim(dtype)) return out;
  out.dir = dir;
  out.dtype = dtype;
  nlohmann::json config = nlohmann::json::object();
  bool parsed = false;
  if (is_ndim(tokens.peek())) {
    config["ndim"] = tokens.take()[0] - '0';
    parsed = parse_short(tokens, config);
  } else {
    parsed = parse_long(tokens, config);
  }
  if (parsed) out.config = std::move(config);
  return out;
}

std::string format_ck_kernel_name(const CkKernelName& kernel) {
  const nlohmann::json& c = kernel.config;
  const bool long_form = c.contains("layout");
  std::string out = "grouped_conv_" + spell(kernel.dir.value_or(Direction::kForward), long_form) +
                    "_" + kernel.dtype;
  if (c.empty()) return out;
  const std::string ndim = "_" + text(c["ndim"]) + "d";
  if (!long_form) {
    out += ndim + "_" + ck::format_triple(c, "tile_") + "_" + text(c["pipeline"]);
    if (c["scheduler"] != "default") out += "_" + text(c["scheduler"]);
    if (c.value("dsb", 0) != 0) out += "_dsb";
    if (c.value("si", 0) != 0) out += "_si";
    return out;
  }
  out += "_" + text(c["layout"]) + ndim;
  for (const char* key : {"pipeline", "epilogue", "scheduler"}) out += "_" + text(c[key]);
  for (const char* prefix : {"tile_", "warp_", "warp_tile_"})
    out += "_" + ck::format_triple(c, prefix);
  return out + long_suffixes(c);
}

}  // namespace kselect::conv
