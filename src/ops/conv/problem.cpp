#include "ops/conv/problem.h"

#include <utility>
#include <vector>

#include "core/error.h"

namespace kselect::conv {

namespace {

struct Spelling {
  std::string_view text;
  Direction dir;
};
constexpr Spelling kSpellings[] = {
    {"F", Direction::kForward},
    {"f", Direction::kForward},
    {"fwd", Direction::kForward},
    {"forward", Direction::kForward},
    {"B", Direction::kBackwardData},
    {"b", Direction::kBackwardData},
    {"bwd", Direction::kBackwardData},
    {"bwd_data", Direction::kBackwardData},
    {"backward_data", Direction::kBackwardData},
    {"W", Direction::kBackwardWeight},
    {"w", Direction::kBackwardWeight},
    {"wrw", Direction::kBackwardWeight},
    {"bwd_weight", Direction::kBackwardWeight},
    {"backward_weight", Direction::kBackwardWeight},
};

// The geometry of a problem text, in text order, with where each value lives.
std::vector<std::pair<const char*, std::int64_t Problem::*>> scalar_keys() {
  return {{"n", &Problem::n},   {"c", &Problem::c},   {"k", &Problem::k},    {"g", &Problem::g},
          {"di", &Problem::di}, {"hi", &Problem::hi}, {"wi", &Problem::wi},  {"z", &Problem::z},
          {"y", &Problem::y},   {"x", &Problem::x},   {"do", &Problem::do_}, {"ho", &Problem::ho},
          {"wo", &Problem::wo}};
}
struct TripleKey {
  const char* prefix;
  std::array<std::int64_t, 3> Problem::*field;
};
constexpr TripleKey kTriples[] = {
    {"pad_", &Problem::pad}, {"stride_", &Problem::stride}, {"dil_", &Problem::dil}};
constexpr const char* kAxes[] = {"d", "h", "w"};

void put_geometry(const Problem& p, KeyValues& out) {
  for (const auto& [key, field] : scalar_keys()) out.set(key, std::to_string(p.*field));
  for (const TripleKey& t : kTriples)
    for (int i = 0; i < 3; ++i)
      out.set(std::string(t.prefix) + kAxes[i], std::to_string((p.*t.field)[i]));
}

void put_word(KeyValues& out, const char* key, const std::string& value) {
  if (!value.empty()) out.set(key, value);
}

}  // namespace

std::string_view letter(Direction d) {
  switch (d) {
    case Direction::kForward:
      return "F";
    case Direction::kBackwardData:
      return "B";
    case Direction::kBackwardWeight:
      return "W";
  }
  return "?";
}

std::optional<Direction> parse_direction(std::string_view text) {
  for (const Spelling& s : kSpellings)
    if (s.text == text) return s.dir;
  return std::nullopt;
}

std::int64_t output_extent(std::int64_t in, std::int64_t filter, std::int64_t pad,
                           std::int64_t stride, std::int64_t dilation) {
  if (stride <= 0 || dilation <= 0) return 0;
  std::int64_t span = in + 2 * pad - dilation * (filter - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

void Problem::compute_output() {
  do_ = output_extent(di, z, pad[0], stride[0], dil[0]);
  ho = output_extent(hi, y, pad[1], stride[1], dil[1]);
  wo = output_extent(wi, x, pad[2], stride[2], dil[2]);
}

std::string Problem::invalid_reason() const {
  for (const auto& [key, field] : scalar_keys())
    if (this->*field < 1) return std::string(key) + " must be at least 1";
  for (const TripleKey& t : kTriples)
    for (int i = 0; i < 3; ++i)
      if ((this->*t.field)[i] < (t.field == &Problem::pad ? 0 : 1))
        return std::string(t.prefix) + kAxes[i] + " must be at least " +
               (t.field == &Problem::pad ? "0" : "1");
  if (c % g != 0 || k % g != 0) return "g must divide c and k";
  if (bias && *bias != 0 && *bias != 1) return "bias must be 0 or 1";
  return "";
}

double Problem::flops() const {
  return 2.0 * double(n) * double(k) * double(c / g) * double(do_) * double(ho) * double(wo) *
         double(z) * double(y) * double(x);
}

std::string to_text(const Problem& p, TextOrder order) {
  KeyValues out;
  auto words = [&] {
    put_word(out, "dir", p.dir ? std::string(letter(*p.dir)) : "");
    put_word(out, "dtype", p.dtype);
    put_word(out, "layout", p.layout);
  };
  if (order == TextOrder::kWordsFirst) {
    put_word(out, "device", p.device);
    words();
    put_geometry(p, out);
    if (p.bias) out.set("bias", std::to_string(*p.bias));
  } else {
    put_geometry(p, out);
    words();
    if (p.bias) out.set("bias", std::to_string(*p.bias));
    put_word(out, "device", p.device);
  }
  return out.to_string();
}

Problem parse_problem(std::string_view text, const std::string& source) {
  KeyValues kv = KeyValues::parse(text, source);
  std::vector<std::string> known = {"dir", "dtype", "layout", "device", "bias"};
  for (const auto& [key, field] : scalar_keys()) known.push_back(key);
  for (const TripleKey& t : kTriples)
    for (const char* axis : kAxes) known.push_back(std::string(t.prefix) + axis);
  auto unknown = kv.unknown_keys(known);
  if (!unknown.empty())
    throw InputError(source, 0, unknown.front(), "unknown convolution problem field");
  Problem p;
  for (const auto& [key, field] : scalar_keys()) {
    bool depth = std::string_view(key) == "di" || std::string_view(key) == "z" ||
                 std::string_view(key) == "do" || std::string_view(key) == "g";
    p.*field = depth ? kv.get_int(key, p.*field) : kv.require_int(key);
  }
  for (const TripleKey& t : kTriples)
    for (int i = 0; i < 3; ++i) {
      std::string key = std::string(t.prefix) + kAxes[i];
      (p.*t.field)[i] = kv.get_int(key, (p.*t.field)[i]);
    }
  if (auto dir = kv.get("dir")) {
    p.dir = parse_direction(*dir);
    if (!p.dir) throw InputError(source, 0, "dir", "unknown direction '" + *dir + "'");
  }
  p.dtype = kv.get("dtype").value_or("");
  p.layout = kv.get("layout").value_or("");
  p.device = kv.get("device").value_or("");
  if (kv.has("bias")) p.bias = kv.require_int("bias");
  if (std::string why = p.invalid_reason(); !why.empty()) throw InputError(source, 0, "", why);
  return p;
}

}  // namespace kselect::conv
