#pragma once
// A GEMM kernel configuration with CK Tile's fields; docs/gemm-kernels.md gives each field its
// CPU meaning. The name codec follows CK's format (ck-heuristics.md section 10):
//   gemm_universal_{dtype}_{layout}_{pipeline}_{epilogue}_{scheduler}_{padM}_{padN}_{padK}_
//   {persistent}_{tm}x{tn}x{tk}_{wm}x{wn}x{wk}_{wtm}x{wtn}x{wtk}
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "ops/gemm/problem.h"

namespace kselect::gemm {

// Numeric values are CK's feature codes (compv3=0, compv4=1, mem=3).
enum class Pipeline { kCompV3 = 0, kCompV4 = 1, kMem = 3 };
enum class Scheduler { kIntrawave = 0, kInterwave = 1 };
enum class Epilogue { kDefault = 0, kCShuffle = 1 };

std::string_view to_string(Pipeline p);
std::string_view to_string(Scheduler s);
std::string_view to_string(Epilogue e);
Pipeline parse_pipeline(std::string_view text);    // throws InputError
Scheduler parse_scheduler(std::string_view text);  // throws InputError
Epilogue parse_epilogue(std::string_view text);    // throws InputError

struct GemmConfig {
  DType dtype = DType::kFp32;
  Layout layout = Layout::kRcr;
  Pipeline pipeline = Pipeline::kCompV4;
  Epilogue epilogue = Epilogue::kDefault;
  Scheduler scheduler = Scheduler::kIntrawave;
  bool pad_m = true, pad_n = true, pad_k = true;
  bool persistent = false;
  int tile_m = 64, tile_n = 64, tile_k = 256;              // cache block per task
  int warp_m = 1, warp_n = 1, warp_k = 1;                  // threads splitting one block
  int warp_tile_m = 8, warp_tile_n = 32, warp_tile_k = 1;  // register micro-tile, k unroll

  std::string name() const;
  // Parses a name produced by name(); nullopt (with *why set) when it is not one.
  static std::optional<GemmConfig> from_name(std::string_view name, std::string* why = nullptr);
  // Like from_name but throws InputError naming the text.
  static GemmConfig parse_name(std::string_view name);

  int num_warps() const { return warp_m * warp_n * warp_k; }

  friend bool operator==(const GemmConfig&, const GemmConfig&) = default;
};

void to_json(nlohmann::json& j, const GemmConfig& c);
void from_json(const nlohmann::json& j, GemmConfig& c);

}  // namespace kselect::gemm
