#pragma once
// CK's grouped-convolution kernel names (reference ck-heuristics.md section 10), both forms:
//   long:  grouped_conv_{fwd|bwd_data|bwd_weight}_{dtype}_{layout}_{ndim}d_{pipeline}_
//          {epilogue}_{scheduler}_{tm}x{tn}x{tk}_{wm}x{wn}x{wk}_{wtm}x{wtn}x{wtk}[_suffixes]
//   short: grouped_conv_{forward|backward_data|backward_weight}_{dtype}_{ndim}d_{tm}x{tn}x{tk}_
//          {pipeline}[_intrawave|_interwave][_dsb][_si]
// The long form's suffixes, each at most once and in this order: vec{a}_{b}_{c}, wg{n}, gm{n},
// dsb, si, 2stage, {specialization}, explicit_gemm, streamk_{tree|linear}[_persistent],
// large_tensor, pad{m}{n}{k}. CK's documented long form has no si; its pipeline variants
// (pipeline, wave mode, dsb, si) do, and its short form writes _si after _dsb, so kselect's
// GPU rule files (rules/conv_gfx9*.json) write it there too. The pipeline is one token, or
// basic_v1 (CK's basic pipeline). si is not among
// ck_long_defaults(): a long-form name sets "si" only when it carries the suffix.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ops/conv/problem.h"

namespace kselect::conv {

// dir and dtype (lower case) are set when the head of the name ("grouped_conv_<dir>_<dtype>_")
// is readable; config is the full parameter set, or an empty object when the rest of the name
// is not understood (the name is then only an id).
struct CkKernelName {
  std::optional<Direction> dir;
  std::string dtype;
  nlohmann::json config = nlohmann::json::object();

  friend bool operator==(const CkKernelName&, const CkKernelName&) = default;
};
CkKernelName parse_ck_kernel_name(std::string_view name);

// The suffix fields of the long form at their defaults (no suffix): every long-form kernel
// carries them all, so two kernels differ in their fields whenever their names differ.
nlohmann::json ck_long_defaults();

// The name of a parsed kernel (dir and dtype set, config from parse_ck_kernel_name: with
// "layout" the long form, else the short one): parse_ck_kernel_name(format_ck_kernel_name(k))
// == k. Suffixes at their defaults are left out.
std::string format_ck_kernel_name(const CkKernelName& kernel);

}  // namespace kselect::conv
