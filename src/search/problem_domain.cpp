#include "search/problem_domain.h"

#include <filesystem>
#include <memory>

#include "core/error.h"
#include "core/key_values.h"
#include "core/text.h"
#include "rules/sets.h"

namespace kselect::search {

namespace {

// The rule sets of the space: a user rule file (loaded here, kept in `owned`) or the op's own.
const rules::RuleSets& space_sets(const Operation& op, const std::string& space,
                                  std::unique_ptr<rules::RuleSets>& owned) {
  if (std::filesystem::is_regular_file(space)) {
    owned = std::make_unique<rules::RuleSets>(rules::RuleFile::load(space));
    if (owned->rules().op() != op.name())
      throw InputError(space, 0, "op",
                       "the rule file declares op '" + owned->rules().op() + "', not '" +
                           std::string(op.name()) + "'");
    return *owned;
  }
  const rules::RuleSets* sets = op.rule_sets();
  if (!sets)
    throw InputError("", 0, "space",
                     "the " + std::string(op.name()) +
                         " op has no rule file: give --space a rule file that declares its space");
  return *sets;
}

// The configurations of the space (a set, or a user file's whole valid space) whose axes
// agree with the problem's fields of the same name (a problem's dtype fixes the dtype axis):
// the cheap cut before asking the op which of them support the problem.
std::vector<std::size_t> members_matching(const rules::RuleSets& sets, const std::string& space,
                                          const std::string& problem) {
  const bool whole_file = std::filesystem::is_regular_file(space);
  const rules::RuleFile& rules = sets.rules();
  std::vector<std::pair<int, std::string>> fixed;  // axis, lower-case value
  const KeyValues fields = KeyValues::parse(problem, "problem");
  for (const auto& [field, value] : fields.items())
    if (auto axis = rules.axis_index(field)) fixed.emplace_back(*axis, lower(value));
  std::vector<std::size_t> base;
  if (whole_file)
    for (std::size_t c = 0; c < sets.space().size(); ++c) base.push_back(c);
  const std::vector<std::size_t>& members = whole_file ? base : sets.get(space);
  std::vector<std::size_t> out;
  for (std::size_t c : members) {
    bool match = true;
    for (const auto& [axis, value] : fixed)
      match = match && lower(sets.space().value(c, axis).to_string()) == value;
    if (match) out.push_back(c);
  }
  return out;
}

}  // namespace

ProblemDomain problem_domain(const Operation& op, const std::string& space,
                             const std::string& problem) {
  std::unique_ptr<rules::RuleSets> owned;
  const rules::RuleSets& sets = space_sets(op, space, owned);
  const bool whole_file = std::filesystem::is_regular_file(space);
  std::vector<std::size_t> supported;
  for (std::size_t c : members_matching(sets, space, problem))
    if (op.unsupported_reason(sets.space().name(c), problem).empty()) supported.push_back(c);
  if (supported.empty())
    throw InputError("", 0, "problem",
                     "no configuration of space '" + space + "' supports " + problem);
  return {domain_of_space(sets.space(), supported),
          whole_file ? sets.space().size() : sets.get(space).size()};
}

}  // namespace kselect::search
