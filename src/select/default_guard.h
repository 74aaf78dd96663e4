#pragma once
// The default guard (kselect predict / eval --default-margin): keep the no-model ("default")
// kernel unless the model predicts its top-ranked candidate to be at least `margin` faster.
//
// A model's worst picks are confident orderings of kernels whose predicted speeds differ by a
// few percent while the measured ones differ by more: the default kernel is a safe choice that
// the model should displace only for a predicted gain it can trust. docs/evaluation.md
// ("Default guard") measures what a margin costs in mean efficiency and what it saves in picks
// slower than the default.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "select/ranker.h"

namespace kselect::select {

class DefaultGuard {
 public:
  DefaultGuard() = default;  // off: the model's top pick always
  // `margin`: the predicted speed-up over the default the top pick needs, as a fraction (0.05:
  // 5% faster); 0 turns the guard off. InputError unless finite and >= 0.
  explicit DefaultGuard(double margin);
  double margin() const { return margin_; }
  bool enabled() const { return margin_ > 0; }
  // Whether the default stays the pick against a top candidate of predicted speed `top_speed`
  // (model::predicted_speed: larger is faster). Never when off or a speed is unknown (NaN):
  // the model's pick stands.
  bool keeps_default(double top_speed, double default_speed) const;
  // Moves `default_kernel` to the front of `ranked` (best first; Scored::speed) when the guard
  // keeps it, the rest in order; returns whether it did. InputError when the guard is on and
  // the ranking has no speeds (ranking and classify models).
  bool apply(std::vector<Scored>& ranked, std::string_view default_kernel) const;
  // The same on any ranking, best first (kselect eval ranks measurements): the default is the
  // element for which `is_default` holds, `speed_of(element)` its predicted speed.
  template <typename T, typename IsDefault, typename SpeedOf>
  bool reorder(std::vector<T>& ranked, IsDefault is_default, SpeedOf speed_of) const {
    if (!enabled() || ranked.empty()) return false;
    auto it = std::find_if(ranked.begin(), ranked.end(), is_default);
    if (it == ranked.begin() || it == ranked.end()) return false;
    if (!keeps_default(speed_of(ranked.front()), speed_of(*it))) return false;
    std::rotate(ranked.begin(), it, it + 1);
    return true;
  }

 private:
  double margin_ = 0;
};

}  // namespace kselect::select
