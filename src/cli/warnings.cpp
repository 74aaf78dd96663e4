#include "cli/warnings.h"

#include <iostream>

#include "core/text.h"

namespace kselect::cli {

void warn_stale_features(const std::filesystem::path& model_dir,
                         const std::vector<std::string>& stale) {
  if (stale.empty()) return;
  std::cerr << "kselect: warning: " << model_dir.string() << " was trained on older formulas of "
            << join(stale)
            << "; this kselect computes them differently, so retrain the model on its data "
               "(docs/model-format.md, feature_revisions)\n";
}

}  // namespace kselect::cli
