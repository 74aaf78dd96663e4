#pragma once
// A convolution problem (forward, backward data or backward weight; 2-D as 3-D with depth 1),
// as the importers read it from MIOpen's find-db and CK's benchmarks and as a native conv op
// will run it. Roles are always the forward ones: c input channels and (di, hi, wi) the input
// image, k output channels and (do_, ho, wo) the output image, in every direction.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/key_values.h"

namespace kselect::conv {

enum class Direction { kForward, kBackwardData, kBackwardWeight };

// "F", "B" or "W": how problem texts (and MIOpen's keys) name a direction.
std::string_view letter(Direction d);
// CK's spelling of a direction in long kernel names (and native problem texts): fwd, bwd_data,
// bwd_weight.
std::string_view ck_direction(Direction d);
// A direction's name: its letter, or f/fwd/forward, b/bwd/bwd_data/backward_data,
// w/wrw/bwd_weight/backward_weight (lower case); nullopt for anything else.
std::optional<Direction> parse_direction(std::string_view text);

// Output extent of one spatial dimension; 0 when the dilated filter does not fit the padded
// input (or stride or dilation is not positive). `pad_right` < 0: the same as `pad` (symmetric).
std::int64_t output_extent(std::int64_t in, std::int64_t filter, std::int64_t pad,
                           std::int64_t stride, std::int64_t dilation = 1,
                           std::int64_t pad_right = -1);

struct Problem {
  std::optional<Direction> dir;       // left out of the text when unknown
  std::string dtype, layout, device;  // empty ones are left out of the text
  std::int64_t n = 0, c = 0, k = 0, g = 1;
  std::int64_t di = 1, hi = 0, wi = 0;                                      // input image
  std::int64_t z = 1, y = 0, x = 0;                                         // filter
  std::int64_t do_ = 1, ho = 0, wo = 0;                                     // output image
  std::array<std::int64_t, 3> pad{0, 0, 0}, stride{1, 1, 1}, dil{1, 1, 1};  // depth, height, width
  // Right (far-side) paddings; -1: the same as the left one in `pad`, which is what every
  // imported source means, so their texts carry no right paddings.
  std::array<std::int64_t, 3> pad_right{-1, -1, -1};
  std::optional<std::int64_t> bias;  // 0 or 1 where the source says (MIOpen), else left out

  // The right padding of spatial dimension `axis` (0 depth, 1 height, 2 width).
  std::int64_t right_pad(int axis) const {
    return pad_right[axis] < 0 ? pad[axis] : pad_right[axis];
  }
  // do_, ho and wo from the input, filter, pads, strides and dilations.
  void compute_output();
  // Empty when the problem is possible, else why not (positive sizes, groups dividing both
  // channel counts, an output of at least one element).
  std::string invalid_reason() const;
  double flops() const;  // 2 * N * K * C/G * output elements * filter elements

  friend bool operator==(const Problem&, const Problem&) = default;
};

// Where the problem's words go in its text. Stored problems are identities (of measurements,
// models, evaluations), and the two sources wrote them in different orders, so each keeps its
// own: kWordsFirst "device,dir,dtype,layout,<geometry>,bias" (MIOpen), kWordsLast
// "<geometry>,dir,dtype,layout,bias,device" (CK). <geometry> is n,c,k,g,di,hi,wi,z,y,x,do,ho,wo,
// pad_d,pad_h,pad_w,stride_d,stride_h,stride_w,dil_d,dil_h,dil_w, then pad_right_d, pad_right_h,
// pad_right_w for the dimensions whose right padding differs from the left one.
enum class TextOrder { kWordsFirst, kWordsLast };
std::string to_text(const Problem& p, TextOrder order);

// Parses either text form (any key order): every geometry key but the depth ones (default 1,
// pads 0) is required; dir, dtype, layout, device and bias are optional. Throws InputError
// naming the field for unknown keys, malformed values and impossible problems.
Problem parse_problem(std::string_view text, const std::string& source = "");

// The native conv operation's problems (CK's grouped convolution as kselect's CPU kernels run
// it): dir fwd/bwd_data/bwd_weight, dtype fp32 or bf16, and CK's layouts, named by the input's:
// "nhwgc" (2-D: input NHWGC, weights GKYXC, output NHWGK) or "ndhwgc" (3-D: NDHWGC, GKZYXC,
// NDHWGK).
inline constexpr std::string_view kLayout2d = "nhwgc", kLayout3d = "ndhwgc";
// 2 or 3 from the layout.
int spatial_dims(const Problem& p);
// Parses a native problem: n, c, k, hi, wi, y, x, dir and dtype are required; g, the depth
// fields, pads, strides and dilations default (1, 0, 1, 1); the layout defaults to the 2-D one
// unless a depth field is set. The output sizes are computed; given ones must agree. Throws
// InputError naming the field for anything impossible (a 2-D problem with depth, an output
// of size 0, g not dividing c, ...).
Problem parse_native_problem(std::string_view text, const std::string& source = "");
// The canonical text of a native problem: to_text, words last, without device and bias, the
// direction spelt fwd, bwd_data or bwd_weight.
std::string native_text(const Problem& p);

// The problems the conv op stores are native ones and imported ones (MIOpen's find-db, CK's
// benchmark CSV): convolutions measured elsewhere, whose texts name the device that measured
// them (the importers always write one, "unknown" when the source does not say). The device is
// what tells them apart: a native problem runs on this machine and names none.
bool is_imported_text(const KeyValues& kv);
// Parses either kind: an imported text with parse_problem (every field as the source gave it:
// any dtype and layout, bias), a native one with parse_native_problem.
Problem parse_stored_problem(std::string_view text, const std::string& source = "");
// The canonical text of either kind: native_text for a native problem; for an imported one
// to_text in its source's order, told by its fields whatever order the text gives them in:
// words first with a bias (MIOpen's keys give one), else words last (CK's), so the importers'
// texts are their own canonical forms.
std::string canonical_text(std::string_view text, const std::string& source = "");

}  // namespace kselect::conv
