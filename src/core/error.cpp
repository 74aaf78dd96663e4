#include "core/error.h"

namespace kselect {

namespace {
std::string locate(const std::string& file, long line, const std::string& field,
                   const std::string& what) {
  std::string out = file;
  if (line > 0) out.append(":").append(std::to_string(line));
  if (!out.empty()) out.append(": ");
  if (!field.empty()) out.append("field '").append(field).append("': ");
  return out.append(what);
}
}  // namespace

InputError::InputError(const std::string& file, long line, const std::string& field,
                       const std::string& what)
    : std::runtime_error(locate(file, line, field, what)) {}

}  // namespace kselect
