#include "ops/gemm/ck_names.h"

#include "core/text.h"
#include "ops/ck_name_parts.h"

namespace kselect::gemm {

namespace {
constexpr const char* kWords[] = {"pipeline", "epilogue", "scheduler"};
constexpr const char* kFlags[] = {"pad_m", "pad_n", "pad_k", "persistent"};
constexpr const char* kTriples[] = {"tile_", "warp_", "warp_tile_"};
}  // namespace

std::optional<CkKernelName> parse_ck_kernel_name(std::string_view name) {
  auto parts = split(name, '_');
  const size_t n = parts.size();
  if (n < 14 || parts[0] != "gemm" || parts[1] != "universal") return std::nullopt;
  auto tile = ck::parse_triple(parts[n - 3]);
  auto warp = ck::parse_triple(parts[n - 2]);
  auto warp_tile = ck::parse_triple(parts[n - 1]);
  if (!tile || !warp || !warp_tile) return std::nullopt;
  CkKernelName out;
  out.dtype = lower(ck::join_parts(parts, 2, n - 11));
  out.layout = lower(parts[n - 11]);
  auto& config = out.config;
  config = nlohmann::json::object();
  ck::put_triple(config, kTriples[0], *tile);
  ck::put_triple(config, kTriples[1], *warp);
  ck::put_triple(config, kTriples[2], *warp_tile);
  for (size_t i = 0; i < 3; ++i) {
    if (!ck::is_word(parts[n - 10 + i])) return std::nullopt;
    config[kWords[i]] = std::string(parts[n - 10 + i]);
  }
  for (size_t i = 0; i < 4; ++i) {
    auto flag = ck::parse_flag(parts[n - 7 + i]);
    if (!flag) return std::nullopt;
    config[kFlags[i]] = *flag;
  }
  if (!ck::is_word(out.dtype) || !ck::is_word(out.layout)) return std::nullopt;
  return out;
}

std::string format_ck_kernel_name(const CkKernelName& kernel) {
  const nlohmann::json& c = kernel.config;
  std::string out = "gemm_universal_" + kernel.dtype + "_" + kernel.layout;
  for (const char* key : kWords) out += "_" + c.at(key).get<std::string>();
  for (const char* key : kFlags) out += c.at(key) != 0 ? "_True" : "_False";
  for (const char* prefix : kTriples) out += "_" + ck::format_triple(c, prefix);
  return out;
}

void apply_mem_pads(nlohmann::json& config) {
  auto it = config.find("pipeline");
  if (it == config.end() || !it->is_string() || lower(it->get<std::string>()) != "mem") return;
  config["pad_m"] = 1;
  config["pad_n"] = 1;
  config["pad_k"] = 1;
}

}  // namespace kselect::gemm
