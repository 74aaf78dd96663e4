#pragma once
// Consistency checks over a rule file's generated sets (`kselect rules check`) and the
// explanation of why a configuration name is or is not valid (`kselect rules explain`).
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/sets.h"

namespace kselect::rules {

struct SetSummary {
  std::string name, doc;
  std::size_t total = 0;
  std::map<std::string, std::size_t> per_group;  // by RuleSets::group_of
};

struct CheckReport {
  std::string source, op, target;
  std::size_t valid = 0;  // size of the valid space
  double seconds = 0;     // enumeration and generation time
  std::vector<SetSummary> sets;
  std::vector<std::string> problems;  // empty when every check passed

  bool ok() const { return problems.empty(); }
  nlohmann::json to_json() const;
  std::string to_text() const;
};

// Checks: every set is non-empty, within its `expect` bounds (per group and in total) and a
// subset of each set in its `subset_of`; every name parses back (through the name template)
// to the configuration it was made from.
CheckReport check(const RuleSets& sets);

// Compares, set by set, the kernel names an operation reports (`names_of(set)`, e.g. through
// Operation::kernel_names) with the names the engine generated; returns the differences.
std::vector<std::string> check_against(
    const RuleSets& sets,
    const std::function<std::vector<std::string>(const std::string&)>& names_of);

struct Explanation {
  std::string name;
  nlohmann::json fields;              // axis -> value, as parsed from the name
  std::vector<std::string> problems;  // empty when the configuration is valid
  std::vector<std::string> sets;      // the sets that contain it
};

// Parses `name` with the rule file's name template and evaluates every constraint.
Explanation explain(const RuleSets& sets, std::string_view name);

// Reads names made by a rule file's name template back into axis values.
class NameParser {
 public:
  explicit NameParser(const RuleFile& rules);
  // nullopt when `name` does not match the template. Values that no axis lists are kept as
  // the text's best-typed reading (int, double, bool, string) so explain can name them.
  std::optional<std::vector<Value>> parse(std::string_view name) const;

 private:
  const RuleFile* rules_;
  std::regex pattern_;
  std::vector<int> groups_;  // the axis of each capture group
};

}  // namespace kselect::rules
