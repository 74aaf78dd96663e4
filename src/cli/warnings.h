#pragma once
// Warnings the verbs print on stderr (the results on stdout stay clean for scripts).
#include <filesystem>
#include <string>
#include <vector>

namespace kselect::cli {

// Names the model's features whose formula changed since it was trained (no output when none):
// its predictions run on inputs its trees never saw, and retraining brings it up to date.
void warn_stale_features(const std::filesystem::path& model_dir,
                         const std::vector<std::string>& stale);

}  // namespace kselect::cli
