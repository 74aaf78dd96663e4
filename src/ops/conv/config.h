#pragma once
// A CPU grouped-convolution kernel configuration with CK's grouped-conv fields;
// docs/conv-kernels.md gives each field its CPU meaning. Names are CK's long grouped-conv form
// (ops/conv/ck_names.h):
//   grouped_conv_{dir}_{dtype}_{layout}_{ndim}d_{pipeline}_{epilogue}_{scheduler}_{tm}x{tn}x{tk}_
//   {wm}x{wn}x{wk}_{wtm}x{wtn}x{wtk}_vec{a}_{b}_{c}[_dsb][_2stage][_{specialization}]
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "ops/conv/problem.h"

namespace kselect::conv {

enum class Pipeline { kCompV3, kCompV4 };
enum class Scheduler { kIntrawave, kInterwave };
enum class Epilogue { kDefault, kCShuffle };
// Faster paths valid only for matching problems (ConvConfig::specialization_reason).
enum class Specialization { kDefault, kFilter1x1Pad0, kFilter1x1Stride1Pad0, kFilter3x3 };

std::string_view to_string(Pipeline p);
std::string_view to_string(Scheduler s);
std::string_view to_string(Epilogue e);
std::string_view to_string(Specialization s);

struct ConvConfig {
  Direction dir = Direction::kForward;
  std::string dtype = "fp32";  // fp32 or bf16
  int ndim = 2;                // 2 (nhwgc) or 3 (ndhwgc)
  Pipeline pipeline = Pipeline::kCompV3;
  Epilogue epilogue = Epilogue::kDefault;
  Scheduler scheduler = Scheduler::kIntrawave;
  int tile_m = 48, tile_n = 64, tile_k = 64;  // cache block per task
  int warp_m = 1, warp_n = 1, warp_k = 1;     // tasks splitting one block (k: partial sums)
  int warp_tile_m = 6, warp_tile_n = 16, warp_tile_k = 2;  // register tile MR x NR, K unroll
  int vec_a = 1, vec_b = 1, vec_c = 1;  // copy widths of the gathered operand, B rows, output
  bool dsb = false;        // double-buffered gathers (the next K step's block is gathered early)
  bool two_stage = false;  // bwd_weight: one partial weight gradient per thread, then a sum
  Specialization specialization = Specialization::kDefault;

  std::string layout() const { return std::string(ndim == 3 ? kLayout3d : kLayout2d); }
  std::string name() const;
  // Parses a name produced by name(); nullopt (with *why set) when it is not one.
  static std::optional<ConvConfig> from_name(std::string_view name, std::string* why = nullptr);
  // Like from_name but throws InputError naming the text.
  static ConvConfig parse_name(std::string_view name);

  // "" when the specialisation can run `p`, else why not.
  std::string specialization_reason(const Problem& p) const;

  friend bool operator==(const ConvConfig&, const ConvConfig&) = default;
};

// Every field by its CK name (the fields format_ck_kernel_name reads), plus "dir" and "dtype".
void to_json(nlohmann::json& j, const ConvConfig& c);

}  // namespace kselect::conv
