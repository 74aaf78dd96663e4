#include "ops/conv/problem.h"

#include <utility>
#include <vector>

#include "core/error.h"
#include "core/text.h"

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

std::string right_pad_key(int axis) {
  return std::string("pad_right_") + kAxes[axis];
}

void put_geometry(const Problem& p, KeyValues& out) {
  for (const auto& [key, field] : scalar_keys()) out.set(key, std::to_string(p.*field));
  for (const TripleKey& t : kTriples)
    for (int i = 0; i < 3; ++i)
      out.set(std::string(t.prefix) + kAxes[i], std::to_string((p.*t.field)[i]));
  for (int i = 0; i < 3; ++i)
    if (p.pad_right[i] >= 0 && p.pad_right[i] != p.pad[i])
      out.set(right_pad_key(i), std::to_string(p.pad_right[i]));
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

std::string_view ck_direction(Direction d) {
  switch (d) {
    case Direction::kForward:
      return "fwd";
    case Direction::kBackwardData:
      return "bwd_data";
    case Direction::kBackwardWeight:
      return "bwd_weight";
  }
  return "?";
}

std::optional<Direction> parse_direction(std::string_view text) {
  for (const Spelling& s : kSpellings)
    if (s.text == text) return s.dir;
  return std::nullopt;
}

std::int64_t output_extent(std::int64_t in, std::int64_t filter, std::int64_t pad,
                           std::int64_t stride, std::int64_t dilation, std::int64_t pad_right) {
  if (stride <= 0 || dilation <= 0) return 0;
  std::int64_t span = in + pad + (pad_right < 0 ? pad : pad_right) - dilation * (filter - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

void Problem::compute_output() {
  do_ = output_extent(di, z, pad[0], stride[0], dil[0], right_pad(0));
  ho = output_extent(hi, y, pad[1], stride[1], dil[1], right_pad(1));
  wo = output_extent(wi, x, pad[2], stride[2], dil[2], right_pad(2));
}

namespace {

struct Invalid {
  std::string field, why;  // field empty: the problem is possible
};

// The first impossible field of `p` and why, the output sizes last (they follow from the rest).
Invalid first_invalid(const Problem& p) {
  auto is_output = [](std::string_view key) { return key == "do" || key == "ho" || key == "wo"; };
  for (const auto& [key, field] : scalar_keys())
    if (!is_output(key) && p.*field < 1) return {key, std::string(key) + " must be at least 1"};
  for (const TripleKey& t : kTriples)
    for (int i = 0; i < 3; ++i)
      if ((p.*t.field)[i] < (t.field == &Problem::pad ? 0 : 1)) {
        std::string key = std::string(t.prefix) + kAxes[i];
        return {key, key + " must be at least " + (t.field == &Problem::pad ? "0" : "1")};
      }
  for (int i = 0; i < 3; ++i)
    if (p.pad_right[i] < -1) return {right_pad_key(i), right_pad_key(i) + " must be at least 0"};
  if (p.c % p.g != 0) return {"g", "g must divide c and k"};
  if (p.k % p.g != 0) return {"g", "g must divide c and k"};
  if (p.bias && *p.bias != 0 && *p.bias != 1) return {"bias", "bias must be 0 or 1"};
  for (const auto& [key, field] : scalar_keys())
    if (is_output(key) && p.*field < 1) return {key, std::string(key) + " must be at least 1"};
  return {};
}

}  // namespace

std::string Problem::invalid_reason() const {
  return first_invalid(*this).why;
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

namespace {

// Right paddings equal to the left ones are stored as "the same" (-1), so that texts that spell
// them out and texts that leave them out give one problem.
void read_right_pads(const KeyValues& kv, Problem& p) {
  for (int i = 0; i < 3; ++i) p.pad_right[i] = kv.get_int(right_pad_key(i), -1);
}
void normalise_right_pads(Problem& p) {
  for (int i = 0; i < 3; ++i)
    if (p.pad_right[i] == p.pad[i]) p.pad_right[i] = -1;
}

}  // namespace

Problem parse_problem(std::string_view text, const std::string& source) {
  KeyValues kv = KeyValues::parse(text, source);
  std::vector<std::string> known = {"dir", "dtype", "layout", "device", "bias"};
  for (const auto& [key, field] : scalar_keys()) known.push_back(key);
  for (const TripleKey& t : kTriples)
    for (const char* axis : kAxes) known.push_back(std::string(t.prefix) + axis);
  for (int i = 0; i < 3; ++i) known.push_back(right_pad_key(i));
  auto unknown = kv.unknown_keys(known);
  if (!unknown.empty())
    throw InputError(source, 0, unknown.front(), "unknown convolution problem field");
  Problem p;
  read_right_pads(kv, p);
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
  normalise_right_pads(p);
  if (Invalid bad = first_invalid(p); !bad.field.empty())
    throw InputError(source, 0, bad.field, bad.why);
  return p;
}

int spatial_dims(const Problem& p) {
  return p.layout == kLayout3d ? 3 : 2;
}

namespace {

// The keys a native problem text may hold: the geometry (outputs included, checked), the right
// paddings, dir, dtype and layout.
std::vector<std::string> native_keys() {
  std::vector<std::string> known = {"dir", "dtype", "layout"};
  for (const auto& [key, field] : scalar_keys()) known.push_back(key);
  for (const TripleKey& t : kTriples)
    for (const char* axis : kAxes) known.push_back(std::string(t.prefix) + axis);
  for (int i = 0; i < 3; ++i) known.push_back(right_pad_key(i));
  return known;
}

// A 2-D problem has the trivial depth: one input plane, a one-plane filter, no depth padding.
void check_flat_depth(const Problem& p, const std::string& source) {
  auto flat = [&](const std::string& key, std::int64_t value, std::int64_t want) {
    if (value != want)
      throw InputError(source, 0, key,
                       "must be " + std::to_string(want) + " for a 2-D (" + std::string(kLayout2d) +
                           ") problem; use layout=" + std::string(kLayout3d) + " for 3-D");
  };
  flat("di", p.di, 1), flat("z", p.z, 1), flat("pad_d", p.pad[0], 0);
  flat(right_pad_key(0), p.right_pad(0), 0);
  flat("stride_d", p.stride[0], 1), flat("dil_d", p.dil[0], 1);
}

}  // namespace

Problem parse_native_problem(std::string_view text, const std::string& source) {
  KeyValues kv = KeyValues::parse(text, source);
  auto unknown = kv.unknown_keys(native_keys());
  if (!unknown.empty())
    throw InputError(source, 0, unknown.front(), "unknown convolution problem field");
  Problem p;
  for (const char* key : {"n", "c", "k", "hi", "wi", "y", "x"}) kv.require_int(key);
  for (const auto& [key, field] : scalar_keys())
    if (std::string_view(key) != "do" && std::string_view(key) != "ho" &&
        std::string_view(key) != "wo")
      p.*field = kv.get_int(key, p.*field);
  for (const TripleKey& t : kTriples)
    for (int i = 0; i < 3; ++i)
      (p.*t.field)[i] = kv.get_int(std::string(t.prefix) + kAxes[i], (p.*t.field)[i]);
  read_right_pads(kv, p);
  normalise_right_pads(p);
  std::string dir = kv.require("dir");
  p.dir = parse_direction(dir);
  if (!p.dir) throw InputError(source, 0, "dir", "unknown direction '" + dir + "'");
  p.dtype = kv.require("dtype");
  if (p.dtype != "fp32" && p.dtype != "bf16")
    throw InputError(source, 0, "dtype", "'" + p.dtype + "' is not fp32 or bf16");
  p.layout = lower(kv.get("layout").value_or(p.di > 1 || p.z > 1 ? std::string(kLayout3d)
                                                                 : std::string(kLayout2d)));
  if (p.layout != kLayout2d && p.layout != kLayout3d)
    throw InputError(
        source, 0, "layout",
        "'" + p.layout + "' is not " + std::string(kLayout2d) + " or " + std::string(kLayout3d));
  if (p.layout == kLayout2d) check_flat_depth(p, source);
  p.compute_output();
  if (Invalid bad = first_invalid(p); !bad.field.empty()) {
    if (bad.field == "do" || bad.field == "ho" || bad.field == "wo")
      bad.why = "the dilated filter does not fit the padded input: output size " + bad.field +
                " would be 0";
    throw InputError(source, 0, bad.field, bad.why);
  }
  for (const auto& [key, field] : scalar_keys())
    if (kv.has(key) && kv.require_int(key) != p.*field)
      throw InputError(source, 0, key,
                       "is " + std::to_string(kv.require_int(key)) + " but the geometry gives " +
                           std::to_string(p.*field));
  return p;
}

std::string native_text(const Problem& p) {
  Problem words = p;
  words.device.clear();
  words.bias.reset();
  // The direction as CK's kernel names spell it (and the conv kernels' "dir" field), so that a
  // sweep matches a problem's kernels by their common fields.
  KeyValues kv = KeyValues::parse(to_text(words, TextOrder::kWordsLast));
  if (p.dir) kv.set("dir", std::string(ck_direction(*p.dir)));
  return kv.to_string();
}

bool is_imported_text(const KeyValues& kv) {
  return kv.has("device");
}

Problem parse_stored_problem(std::string_view text, const std::string& source) {
  KeyValues kv = KeyValues::parse(text, source);
  return is_imported_text(kv) ? parse_problem(text, source) : parse_native_problem(text, source);
}

std::string canonical_text(std::string_view text, const std::string& source) {
  KeyValues kv = KeyValues::parse(text, source);
  if (!is_imported_text(kv)) return native_text(parse_native_problem(text, source));
  const Problem p = parse_problem(text, source);
  return to_text(p, p.bias ? TextOrder::kWordsFirst : TextOrder::kWordsLast);
}

}  // namespace kselect::conv
