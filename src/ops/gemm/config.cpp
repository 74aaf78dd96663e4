#include "ops/gemm/config.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "core/error.h"
#include "core/key_values.h"
#include "core/text.h"

namespace kselect::gemm {

std::string_view to_string(Pipeline p) {
  switch (p) {
    case Pipeline::kCompV3:
      return "compv3";
    case Pipeline::kCompV4:
      return "compv4";
    case Pipeline::kMem:
      return "mem";
  }
  return "?";
}
std::string_view to_string(Scheduler s) {
  return s == Scheduler::kIntrawave ? "intrawave" : "interwave";
}
std::string_view to_string(Epilogue e) {
  return e == Epilogue::kDefault ? "default" : "cshuffle";
}

Pipeline parse_pipeline(std::string_view text) {
  for (Pipeline p : {Pipeline::kCompV3, Pipeline::kCompV4, Pipeline::kMem})
    if (to_string(p) == text) return p;
  throw InputError("", 0, "pipeline",
                   "unknown pipeline '" + std::string(text) + "' (expected compv3, compv4, mem)");
}
Scheduler parse_scheduler(std::string_view text) {
  for (Scheduler s : {Scheduler::kIntrawave, Scheduler::kInterwave})
    if (to_string(s) == text) return s;
  throw InputError("", 0, "scheduler",
                   "unknown scheduler '" + std::string(text) + "' (expected intrawave, interwave)");
}
Epilogue parse_epilogue(std::string_view text) {
  for (Epilogue e : {Epilogue::kDefault, Epilogue::kCShuffle})
    if (to_string(e) == text) return e;
  throw InputError("", 0, "epilogue",
                   "unknown epilogue '" + std::string(text) + "' (expected default, cshuffle)");
}

namespace {

std::string triple(int a, int b, int c) {
  return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c);
}
std::string_view boolean(bool b) {
  return b ? "True" : "False";
}

bool parse_triple(std::string_view text, int& a, int& b, int& c) {
  auto parts = split(text, 'x');
  if (parts.size() != 3) return false;
  int* out[3] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i) {
    auto v = parse_int(parts[i]);
    if (!v || *v < 1 || *v > 65536) return false;
    *out[i] = int(*v);
  }
  return true;
}

bool parse_bool(std::string_view text, bool& out) {
  if (text == "True") return out = true, true;
  if (text == "False") return out = false, true;
  return false;
}

}  // namespace

std::string GemmConfig::name() const {
  std::string s = "gemm_universal_";
  s += to_string(dtype);
  s += '_';
  s += to_string(layout);
  s += '_';
  s += to_string(pipeline);
  s += '_';
  s += to_string(epilogue);
  s += '_';
  s += to_string(scheduler);
  for (bool b : {pad_m, pad_n, pad_k, persistent}) {
    s += '_';
    s += boolean(b);
  }
  for (const std::string& t : {triple(tile_m, tile_n, tile_k), triple(warp_m, warp_n, warp_k),
                               triple(warp_tile_m, warp_tile_n, warp_tile_k)}) {
    s += '_';
    s += t;
  }
  return s;
}

std::optional<GemmConfig> GemmConfig::from_name(std::string_view name, std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<GemmConfig> {
    if (why) *why = reason;
    return std::nullopt;
  };
  constexpr std::string_view kPrefix = "gemm_universal_";
  if (name.substr(0, kPrefix.size()) != kPrefix) return fail("does not start with gemm_universal_");
  auto parts = split(name.substr(kPrefix.size()), '_');
  // dtype layout pipeline epilogue scheduler padM padN padK persistent tile warps warp_tile
  if (parts.size() != 12) return fail("expected 12 '_'-separated fields after gemm_universal_");
  GemmConfig c;
  try {
    c.dtype = parse_dtype(parts[0]);
    c.layout = parse_layout(parts[1]);
    c.pipeline = parse_pipeline(parts[2]);
    c.epilogue = parse_epilogue(parts[3]);
    c.scheduler = parse_scheduler(parts[4]);
  } catch (const InputError& e) {
    return fail(e.what());
  }
  bool* flags[4] = {&c.pad_m, &c.pad_n, &c.pad_k, &c.persistent};
  for (int i = 0; i < 4; ++i)
    if (!parse_bool(parts[5 + i], *flags[i]))
      return fail("pad/persistent flags must be True or False");
  if (!parse_triple(parts[9], c.tile_m, c.tile_n, c.tile_k)) return fail("bad tile MxNxK");
  if (!parse_triple(parts[10], c.warp_m, c.warp_n, c.warp_k)) return fail("bad warps MxNxK");
  if (!parse_triple(parts[11], c.warp_tile_m, c.warp_tile_n, c.warp_tile_k))
    return fail("bad warp tile MxNxK");
  return c;
}

GemmConfig GemmConfig::parse_name(std::string_view name) {
  std::string why;
  auto c = from_name(name, &why);
  if (!c)
    throw InputError("", 0, "kernel",
                     "'" + std::string(name) + "' is not a GEMM kernel name: " + why);
  return *c;
}

void to_json(nlohmann::json& j, const GemmConfig& c) {
  j = nlohmann::json{{"name", c.name()},
                     {"dtype", to_string(c.dtype)},
                     {"layout", to_string(c.layout)},
                     {"pipeline", to_string(c.pipeline)},
                     {"epilogue", to_string(c.epilogue)},
                     {"scheduler", to_string(c.scheduler)},
                     {"pad_m", c.pad_m},
                     {"pad_n", c.pad_n},
                     {"pad_k", c.pad_k},
                     {"persistent", c.persistent},
                     {"tile_m", c.tile_m},
                     {"tile_n", c.tile_n},
                     {"tile_k", c.tile_k},
                     {"warp_m", c.warp_m},
                     {"warp_n", c.warp_n},
                     {"warp_k", c.warp_k},
                     {"warp_tile_m", c.warp_tile_m},
                     {"warp_tile_n", c.warp_tile_n},
                     {"warp_tile_k", c.warp_tile_k}};
}

void from_json(const nlohmann::json& j, GemmConfig& c) {
  c.dtype = parse_dtype(j.at("dtype").get<std::string>());
  c.layout = parse_layout(j.at("layout").get<std::string>());
  c.pipeline = parse_pipeline(j.at("pipeline").get<std::string>());
  c.epilogue = parse_epilogue(j.at("epilogue").get<std::string>());
  c.scheduler = parse_scheduler(j.at("scheduler").get<std::string>());
  j.at("pad_m").get_to(c.pad_m);
  j.at("pad_n").get_to(c.pad_n);
  j.at("pad_k").get_to(c.pad_k);
  j.at("persistent").get_to(c.persistent);
  j.at("tile_m").get_to(c.tile_m);
  j.at("tile_n").get_to(c.tile_n);
  j.at("tile_k").get_to(c.tile_k);
  j.at("warp_m").get_to(c.warp_m);
  j.at("warp_n").get_to(c.warp_n);
  j.at("warp_k").get_to(c.warp_k);
  j.at("warp_tile_m").get_to(c.warp_tile_m);
  j.at("warp_tile_n").get_to(c.warp_tile_n);
  j.at("warp_tile_k").get_to(c.warp_tile_k);
}

}  // namespace kselect::gemm
