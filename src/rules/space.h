#pragma once
// The valid configurations of a rule file: every combination of axis values that satisfies
// all constraints, in a stable order (axes vary in file order, the last axis fastest).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/rule_file.h"

namespace kselect::rules {

// A name template ("x_{axis}_y") split into literal text and axis placeholders.
struct NamePart {
  std::string literal;  // when axis < 0
  int axis = -1;
};
std::vector<NamePart> name_parts(const RuleFile& rules);
// Formats the name of one assignment of axis values.
std::string format_name(const std::vector<NamePart>& parts, const std::vector<Value>& axis_values);

class Space {
 public:
  // Enumerates depth-first over the axes, evaluating each derived value and constraint as
  // soon as the axes it reads are set, so a failed constraint prunes the whole subtree.
  explicit Space(const RuleFile& rules);

  const RuleFile& rules() const { return *rules_; }
  std::size_t size() const { return names_.size(); }
  Value value(std::size_t config, int axis) const;
  // Fills `slots` (sized to the rule file's scope) with the config's axes and derived values.
  void bind(std::size_t config, std::vector<Value>& slots) const;
  const std::string& name(std::size_t config) const { return names_[config]; }
  std::optional<std::size_t> find(std::string_view name) const;
  // {"name": ..., axis: value, ...}
  nlohmann::json fields(std::size_t config) const;
  // How many candidate assignments each constraint rejected during enumeration (a rejection
  // at depth d stands for the whole subtree below it).
  const std::vector<std::size_t>& rejections() const { return rejections_; }

 private:
  void enumerate(std::size_t depth, std::vector<Value>& slots, std::vector<std::uint16_t>& index);
  // Evaluates what becomes known at `depth`; false if a constraint fails.
  bool settle(int depth, std::vector<Value>& slots);

  const RuleFile* rules_;
  std::vector<NamePart> name_parts_;
  std::vector<std::vector<int>> derived_at_, constraints_at_;  // by depth
  std::vector<std::uint16_t> value_index_;                     // size() x axes, row-major
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::vector<std::size_t> rejections_;
};

}  // namespace kselect::rules
