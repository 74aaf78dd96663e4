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
// A direction's name: its letter, or f/fwd/forward, b/bwd/bwd_data/backward_data,
// w/wrw/bwd_weight/backward_weight (lower case); nullopt for anything else.
std::optional<Direction> parse_direction(std::string_view text);

// Output extent of one spatial dimension; 0 when the dilated filter does not fit the padded
// input (or stride or dilation is not positive).
std::int64_t output_extent(std::int64_t in, std::int64_t filter, std::int64_t pad,
                           std::int64_t stride, std::int64_t dilation = 1);

struct Problem {
  std::optional<Direction> dir;       // left out of the text when unknown
  std::string dtype, layout, device;  // empty ones are left out of the text
  std::int64_t n = 0, c = 0, k = 0, g = 1;
  std::int64_t di = 1, hi = 0, wi = 0;                                      // input image
  std::int64_t z = 1, y = 0, x = 0;                                         // filter
  std::int64_t do_ = 1, ho = 0, wo = 0;                                     // output image
  std::array<std::int64_t, 3> pad{0, 0, 0}, stride{1, 1, 1}, dil{1, 1, 1};  // depth, height, width
  std::optional<std::int64_t> bias;  // 0 or 1 where the source says (MIOpen), else left out

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
// pad_d,pad_h,pad_w,stride_d,stride_h,stride_w,dil_d,dil_h,dil_w.
enum class TextOrder { kWordsFirst, kWordsLast };
std::string to_text(const Problem& p, TextOrder order);

// Parses either text form (any key order): every geometry key but the depth ones (default 1,
// pads 0) is required; dir, dtype, layout, device and bias are optional. Throws InputError
// naming the field for unknown keys, malformed values and impossible problems.
Problem parse_problem(std::string_view text, const std::string& source = "");

}  // namespace kselect::conv
