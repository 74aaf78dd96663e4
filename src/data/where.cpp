#include "data/where.h"

#include "core/text.h"

namespace kselect::data {

ProblemWhere::ProblemWhere(const std::string& text, const std::string& source) : text_(text) {
  std::vector<std::string> equal;
  for (std::size_t start = 0; !text.empty() && start <= text.size();) {
    std::size_t end = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, end - start);
    start = end + 1;
    if (auto at = item.find("!="); at != std::string::npos) {
      KeyValues one = KeyValues::parse(item.erase(at, 1), source);
      unwanted_.insert(unwanted_.end(), one.items().begin(), one.items().end());
    } else {
      equal.push_back(item);
    }
  }
  wanted_ = KeyValues::parse(join(equal, ","), source);
}

bool ProblemWhere::matches(std::string_view problem) const {
  if (empty()) return true;
  const KeyValues fields = KeyValues::parse(problem);
  for (const auto& [key, value] : wanted_.items())
    if (fields.get(key).value_or("") != value) return false;
  for (const auto& [key, value] : unwanted_)
    if (fields.get(key).value_or("") == value) return false;
  return true;
}

}  // namespace kselect::data
