#include "core/error.h"

namespace kselect {

namespace {
std::string locate(const std::string& file, long line, const std::string& field,
                   const std::string& what) {
  std::string out;
  if (!file.empty()) out += file;
  if (line > 0) out += ":" + std::to_string(line);
  if (!out.empty()) out += ": ";
  if (!field.empty()) out += "field '" + field + "': ";
  return out + what;
}
}  // namespace

InputError::InputError(const std::string& file, long line, const std::string& field,
                       const std::string& what)
    : std::runtime_error(locate(file, line, field, what)) {}

}  // namespace kselect
