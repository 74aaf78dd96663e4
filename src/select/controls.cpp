#include "select/controls.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/key_values.h"

namespace kselect::select {

namespace {

// The 1-based line of byte `offset` of `text`.
long line_of(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + long(std::count(text.begin(), text.begin() + long(offset), '\n'));
}

std::uint32_t kernel_index(const nlohmann::json& value, const std::string& field,
                           const std::string& source, const KernelCatalogue& catalogue) {
  if (!value.is_string()) throw InputError(source, 0, field, "must be a kernel name (a string)");
  const std::string name = value.get<std::string>();
  const std::size_t i = catalogue.find(name);
  if (i == KernelCatalogue::npos)
    throw InputError(source, 0, field,
                     "unknown kernel '" + name + "' (not among the " +
                         std::to_string(catalogue.size()) + " kernels of the catalogue)");
  return std::uint32_t(i);
}

std::vector<char> kernel_flags(const nlohmann::json& list, const std::string& field,
                               const std::string& source, const KernelCatalogue& catalogue) {
  if (!list.is_array()) throw InputError(source, 0, field, "must be an array of kernel names");
  std::vector<char> flags(catalogue.size(), 0);
  for (std::size_t i = 0; i < list.size(); ++i)
    flags[kernel_index(list[i], field + "[" + std::to_string(i) + "]", source, catalogue)] = 1;
  return flags;
}

bool value_matches(const std::string& pattern, const std::string& value) {
  if (auto dots = pattern.find(".."); dots != std::string::npos) {
    auto lo = parse_int(pattern.substr(0, dots)), hi = parse_int(pattern.substr(dots + 2));
    auto v = parse_int(value);
    return lo && hi && v && *lo <= *v && *v <= *hi;
  }
  return fnmatch(pattern.c_str(), value.c_str(), 0) == 0;
}

}  // namespace

Controls::Controls(Controls&& o) noexcept
    : pins_(std::move(o.pins_)),
      allow_(std::move(o.allow_)),
      deny_(std::move(o.deny_)),
      workspace_(o.workspace_) {}

Controls& Controls::operator=(Controls&& o) noexcept {
  pins_ = std::move(o.pins_);
  allow_ = std::move(o.allow_);
  deny_ = std::move(o.deny_);
  workspace_ = o.workspace_;
  return *this;
}

Controls Controls::load(const std::filesystem::path& path, const Operation& op,
                        const KernelCatalogue& catalogue) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StorageError("cannot read controls file " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path.string(), op, catalogue);
}

Controls Controls::parse(const std::string& json_text, const std::string& source,
                         const Operation& op, const KernelCatalogue& catalogue) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source, line_of(json_text, e.byte == 0 ? 0 : e.byte - 1), "",
                     "not valid JSON: " + std::string(e.what()));
  }
  if (!j.is_object()) throw InputError(source, 1, "", "must be a JSON object");
  for (const auto& [key, value] : j.items())
    if (key != "pins" && key != "allow" && key != "deny" && key != "workspace_bytes")
      throw InputError(source, 0, key, "unknown field (known: pins, allow, deny, workspace_bytes)");
  Controls c;
  const auto columns = op.problem_columns();
  if (j.contains("pins")) {
    if (!j["pins"].is_array()) throw InputError(source, 0, "pins", "must be an array");
    for (std::size_t i = 0; i < j["pins"].size(); ++i) {
      const auto& p = j["pins"][i];
      const std::string field = "pins[" + std::to_string(i) + "]";
      if (!p.is_object() || !p.contains("problem") || !p.contains("kernel") ||
          !p["problem"].is_string())
        throw InputError(source, 0, field,
                         "must be {\"problem\": \"<key=value pattern>\", \"kernel\": \"<name>\"}");
      Pin pin;
      pin.kernel = kernel_index(p["kernel"], field + ".kernel", source, catalogue);
      const KeyValues pattern =
          KeyValues::parse(p["problem"].get<std::string>(), source + " " + field);
      for (const auto& key : pattern.unknown_keys(columns))
        throw InputError(source, 0, field + ".problem",
                         "'" + key + "' is not a field of " + std::string(op.name()) + " problems");
      for (const auto& [key, value] : pattern.items()) pin.pattern.push_back({key, value});
      c.pins_.push_back(std::move(pin));
    }
  }
  if (j.contains("allow")) c.allow_ = kernel_flags(j["allow"], "allow", source, catalogue);
  if (j.contains("deny")) c.deny_ = kernel_flags(j["deny"], "deny", source, catalogue);
  if (j.contains("workspace_bytes")) {
    const auto& w = j["workspace_bytes"];
    if (!w.is_number() || !std::isfinite(w.get<double>()) || w.get<double>() < 0)
      throw InputError(source, 0, "workspace_bytes", "must be a number of bytes >= 0");
    c.workspace_ = w.get<double>();
  }
  return c;
}

bool Controls::matches(const std::vector<FieldPattern>& pattern, std::string_view problem) {
  const KeyValues fields = KeyValues::parse(problem);
  for (const auto& f : pattern) {
    auto value = fields.get(f.key);
    if (!value || !value_matches(f.value, *value)) return false;
  }
  return true;
}

std::optional<std::uint32_t> Controls::pinned(std::string_view problem) const {
  for (const Pin& pin : pins_)
    if (matches(pin.pattern, problem)) {
      pins_applied_.fetch_add(1, std::memory_order_relaxed);
      return pin.kernel;
    }
  return std::nullopt;
}

std::vector<std::uint32_t> Controls::filter(std::string_view problem,
                                            std::span<const std::uint32_t> candidates,
                                            const KernelCatalogue& catalogue,
                                            std::vector<Rejection>* rejected) const {
  std::vector<std::uint32_t> kept;
  kept.reserve(candidates.size());
  auto reject = [&](std::uint32_t i, const char* filter, std::string reason,
                    std::atomic<std::uint64_t>& count) {
    count.fetch_add(1, std::memory_order_relaxed);
    if (rejected) rejected->push_back({i, filter, std::move(reason)});
  };
  for (std::uint32_t i : candidates) {
    if (!deny_.empty() && deny_[i]) {
      reject(i, "deny", "on the deny list", denied_);
      continue;
    }
    if (allow_ && !(*allow_)[i]) {
      reject(i, "allow", "not on the allow list", not_allowed_);
      continue;
    }
    if (workspace_) {
      const double need = catalogue.workspace_bytes(i, problem);
      if (need > *workspace_) {
        reject(i, "workspace",
               "needs " + std::to_string(std::llround(need)) + " bytes of workspace, budget " +
                   std::to_string(std::llround(*workspace_)),
               over_workspace_);
        continue;
      }
    }
    kept.push_back(i);
  }
  return kept;
}

ControlCounts Controls::counts() const {
  return {pins_applied_.load(), denied_.load(), not_allowed_.load(), over_workspace_.load()};
}

}  // namespace kselect::select
