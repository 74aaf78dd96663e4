#include "select/default_guard.h"

#include <cmath>

#include "core/error.h"

namespace kselect::select {

DefaultGuard::DefaultGuard(double margin) : margin_(margin) {
  if (!std::isfinite(margin) || margin < 0)
    throw InputError("", 0, "default_margin",
                     "must be a finite fraction >= 0 (0.05: the pick must be predicted 5% "
                     "faster than the default), got " +
                         std::to_string(margin));
}

bool DefaultGuard::keeps_default(double top_speed, double default_speed) const {
  if (!enabled() || std::isnan(top_speed) || std::isnan(default_speed)) return false;
  return !(top_speed >= (1.0 + margin_) * default_speed);
}

bool DefaultGuard::apply(std::vector<Scored>& ranked, std::string_view default_kernel) const {
  if (!enabled() || ranked.empty()) return false;
  if (std::isnan(ranked.front().speed))
    throw InputError("", 0, "default_margin",
                     "the model predicts no speeds (a ranking or classify model): the default "
                     "guard needs a regression or efficiency model");
  return reorder(
      ranked, [&](const Scored& s) { return s.kernel == default_kernel; },
      [](const Scored& s) { return s.speed; });
}

}  // namespace kselect::select
