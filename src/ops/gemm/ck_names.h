#pragma once
// CK Tile's GEMM kernel names as foreign benchmark files carry them (reference ck-heuristics.md
// section 10), any dtype and layout word:
//   gemm_universal_{dtype}_{layout}_{pipeline}_{epilogue}_{scheduler}_{padM}_{padN}_{padK}_
//   {persistent}_{tm}x{tn}x{tk}_{wm}x{wn}x{wk}_{wtm}x{wtn}x{wtk}
// The native op's own kernels (GemmConfig::name, config.h) are the fp32/bf16 subset of these.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kselect::gemm {

struct CkKernelName {
  std::string dtype;      // lower case; may hold '_' ("fp8_fp16")
  std::string layout;     // lower case
  nlohmann::json config;  // tile_m.., warp_m.., warp_tile_m.., pipeline, epilogue, scheduler,
                          // pad_m, pad_n, pad_k, persistent (bools as 0/1)

  friend bool operator==(const CkKernelName&, const CkKernelName&) = default;
};
// nullopt when the name is not of this form.
std::optional<CkKernelName> parse_ck_kernel_name(std::string_view name);
// The name of a parsed kernel (flags written True/False, as CK does):
// parse_ck_kernel_name(format_ck_kernel_name(k)) == k.
std::string format_ck_kernel_name(const CkKernelName& kernel);

// CK's fix: a kernel with the `mem` pipeline always pads M, N and K, whatever its name says.
void apply_mem_pads(nlohmann::json& config);

}  // namespace kselect::gemm
