#include "ops/conv/config.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "ops/conv/ck_names.h"

namespace kselect::conv {

namespace {

template <typename E>
struct Spelled {
  E value;
  std::string_view text;
};
constexpr Spelled<Pipeline> kPipelines[] = {{Pipeline::kCompV3, "compv3"},
                                            {Pipeline::kCompV4, "compv4"}};
constexpr Spelled<Scheduler> kSchedulers[] = {{Scheduler::kIntrawave, "intrawave"},
                                              {Scheduler::kInterwave, "interwave"}};
constexpr Spelled<Epilogue> kEpilogues[] = {{Epilogue::kDefault, "default"},
                                            {Epilogue::kCShuffle, "cshuffle"}};
constexpr Spelled<Specialization> kSpecializations[] = {
    {Specialization::kDefault, "default"},
    {Specialization::kFilter1x1Pad0, "filter1x1pad0"},
    {Specialization::kFilter1x1Stride1Pad0, "filter1x1stride1pad0"},
    {Specialization::kFilter3x3, "filter3x3"}};

template <typename E, std::size_t N>
std::string_view spell(const Spelled<E> (&table)[N], E value) {
  for (const auto& s : table)
    if (s.value == value) return s.text;
  return "?";
}
template <typename E, std::size_t N>
std::optional<E> read(const Spelled<E> (&table)[N], std::string_view text) {
  for (const auto& s : table)
    if (s.text == text) return s.value;
  return std::nullopt;
}

// The CK name fields kselect's CPU kernels have no code for: a name that sets one is CK's, not
// one of ours.
constexpr const char* kForeignFields[] = {"wg",      "gm",           "explicit_gemm",
                                          "streamk", "large_tensor", "pad_m",
                                          "pad_n",   "pad_k",        "streamk_persistent"};

bool foreign_field_set(const nlohmann::json& c, std::string* field) {
  for (const char* key : kForeignFields) {
    const nlohmann::json& v = c.at(key);
    if ((v.is_string() && v != "none") || (v.is_number() && v != 0)) {
      *field = key;
      return true;
    }
  }
  return false;
}

int as_int(const nlohmann::json& c, const char* key) {
  return c.at(key).get<int>();
}

std::optional<ConvConfig> from_fields(const CkKernelName& parsed, std::string* why) {
  const nlohmann::json& c = parsed.config;
  auto fail = [why](std::string text) -> std::optional<ConvConfig> {
    if (why) *why = std::move(text);
    return std::nullopt;
  };
  if (!parsed.dir || c.empty() || !c.contains("layout"))
    return fail("not a long-form CK grouped-conv kernel name");
  ConvConfig out;
  out.dir = *parsed.dir;
  out.dtype = parsed.dtype;
  if (out.dtype != "fp32" && out.dtype != "bf16")
    return fail("dtype '" + out.dtype + "' has no CPU kernel");
  out.ndim = as_int(c, "ndim");
  if (out.ndim != 2 && out.ndim != 3) return fail("ndim must be 2 or 3");
  if (c["layout"] != out.layout())
    return fail("layout '" + c["layout"].get<std::string>() + "' is not " + out.layout());
  auto pipeline = read(kPipelines, c["pipeline"].get<std::string>());
  auto epilogue = read(kEpilogues, c["epilogue"].get<std::string>());
  auto scheduler = read(kSchedulers, c["scheduler"].get<std::string>());
  auto specialization = read(kSpecializations, c["specialization"].get<std::string>());
  if (!pipeline) return fail("pipeline has no CPU kernel (compv3, compv4)");
  if (!epilogue) return fail("epilogue has no CPU kernel (default, cshuffle)");
  if (!scheduler) return fail("scheduler has no CPU kernel (intrawave, interwave)");
  if (!specialization) return fail("unknown specialization");
  if (std::string field; foreign_field_set(c, &field))
    return fail("field '" + field + "' has no CPU kernel");
  out.pipeline = *pipeline, out.epilogue = *epilogue, out.scheduler = *scheduler;
  out.specialization = *specialization;
  out.tile_m = as_int(c, "tile_m"), out.tile_n = as_int(c, "tile_n"),
  out.tile_k = as_int(c, "tile_k");
  out.warp_m = as_int(c, "warp_m"), out.warp_n = as_int(c, "warp_n"),
  out.warp_k = as_int(c, "warp_k");
  out.warp_tile_m = as_int(c, "warp_tile_m"), out.warp_tile_n = as_int(c, "warp_tile_n");
  out.warp_tile_k = as_int(c, "warp_tile_k");
  out.vec_a = as_int(c, "vec_a"), out.vec_b = as_int(c, "vec_b"), out.vec_c = as_int(c, "vec_c");
  if (out.vec_a < 1 || out.vec_b < 1 || out.vec_c < 1)
    return fail("vector widths must be at least 1 (the vec suffix is required)");
  out.dsb = as_int(c, "dsb") != 0;
  out.two_stage = as_int(c, "two_stage") != 0;
  return out;
}

}  // namespace

std::string_view to_string(Pipeline p) {
  return spell(kPipelines, p);
}
std::string_view to_string(Scheduler s) {
  return spell(kSchedulers, s);
}
std::string_view to_string(Epilogue e) {
  return spell(kEpilogues, e);
}
std::string_view to_string(Specialization s) {
  return spell(kSpecializations, s);
}

// CK's long-form fields at their defaults, then this configuration's: the fields the GPU-only
// suffixes set (wg, gm, explicit_gemm, streamk, large_tensor, pads) stay at their defaults.
void to_json(nlohmann::json& j, const ConvConfig& c) {
  j = ck_long_defaults();
  j.update({{"dir", std::string(ck_direction(c.dir))},
            {"dtype", c.dtype},
            {"layout", c.layout()},
            {"ndim", c.ndim},
            {"pipeline", std::string(to_string(c.pipeline))},
            {"epilogue", std::string(to_string(c.epilogue))},
            {"scheduler", std::string(to_string(c.scheduler))},
            {"tile_m", c.tile_m},
            {"tile_n", c.tile_n},
            {"tile_k", c.tile_k},
            {"warp_m", c.warp_m},
            {"warp_n", c.warp_n},
            {"warp_k", c.warp_k},
            {"warp_tile_m", c.warp_tile_m},
            {"warp_tile_n", c.warp_tile_n},
            {"warp_tile_k", c.warp_tile_k},
            {"vec_a", c.vec_a},
            {"vec_b", c.vec_b},
            {"vec_c", c.vec_c},
            {"dsb", c.dsb ? 1 : 0},
            {"two_stage", c.two_stage ? 1 : 0},
            {"specialization", std::string(to_string(c.specialization))}});
}

std::string ConvConfig::name() const {
  CkKernelName kernel;
  kernel.dir = dir;
  kernel.dtype = dtype;
  kernel.config = *this;
  kernel.config.erase("dir");
  kernel.config.erase("dtype");
  return format_ck_kernel_name(kernel);
}

std::optional<ConvConfig> ConvConfig::from_name(std::string_view name, std::string* why) {
  auto config = from_fields(parse_ck_kernel_name(name), why);
  if (config && config->name() != name) {
    if (why) *why = "not in canonical form (it would be '" + config->name() + "')";
    return std::nullopt;
  }
  return config;
}

ConvConfig ConvConfig::parse_name(std::string_view name) {
  std::string why;
  auto config = from_name(name, &why);
  if (!config)
    throw InputError("", 0, "kernel",
                     "'" + std::string(name) + "' is not a CPU conv kernel: " + why);
  return *config;
}

std::string ConvConfig::specialization_reason(const Problem& p) const {
  const bool one_by_one = p.z == 1 && p.y == 1 && p.x == 1;
  bool no_pad = true;
  for (int i = 0; i < 3; ++i) no_pad = no_pad && p.pad[i] == 0 && p.right_pad(i) == 0;
  const bool unit_stride = p.stride[0] == 1 && p.stride[1] == 1 && p.stride[2] == 1;
  switch (specialization) {
    case Specialization::kDefault:
      return "";
    case Specialization::kFilter1x1Pad0:
      if (!one_by_one) return "filter1x1pad0 needs a 1x1 filter (z=y=x=1)";
      if (!no_pad) return "filter1x1pad0 needs every padding 0";
      return "";
    case Specialization::kFilter1x1Stride1Pad0:
      if (!one_by_one) return "filter1x1stride1pad0 needs a 1x1 filter (z=y=x=1)";
      if (!no_pad) return "filter1x1stride1pad0 needs every padding 0";
      if (!unit_stride) return "filter1x1stride1pad0 needs every stride 1";
      return "";
    case Specialization::kFilter3x3:
      if (p.y != 3 || p.x != 3 || (p.z != 1 && p.z != 3))
        return "filter3x3 needs a 3x3 filter (y=x=3, z=1 or 3)";
      return "";
  }
  return "unknown specialization";
}

}  // namespace kselect::conv
