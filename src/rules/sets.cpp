#include "rules/sets.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/text.h"

namespace kselect::rules {

namespace {

using Indices = std::vector<std::size_t>;

Indices set_union(const Indices& a, const Indices& b) {
  Indices out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}
Indices set_intersection(const Indices& a, const Indices& b) {
  Indices out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// Expands {axis} placeholders of a name pattern over every value of those axes.
std::vector<std::string> expand(const RuleFile& rf, const std::string& pattern) {
  static const std::regex kPlaceholder(R"(\{([A-Za-z_][A-Za-z0-9_]*)\})");
  std::smatch m;
  if (!std::regex_search(pattern, m, kPlaceholder)) return {pattern};
  auto axis = rf.axis_index(m[1].str());
  if (!axis) rf.fail("sets", "unknown axis '" + m[1].str() + "' in name pattern '" + pattern + "'");
  std::vector<std::string> out;
  for (const Value& v : rf.axes()[*axis].values) {
    std::string filled = m.prefix().str() + v.to_string() + m.suffix().str();
    for (auto& name : expand(rf, filled)) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace

RuleSets::RuleSets(RuleFile rules) : rules_(std::make_unique<RuleFile>(std::move(rules))) {
  auto start = std::chrono::steady_clock::now();
  space_ = std::make_unique<Space>(*rules_);
  for (const auto& spec : rules_->sets()) generate(spec);
  seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const std::vector<std::size_t>& RuleSets::get(std::string_view set) const {
  auto it = sets_.find(set);
  if (it == sets_.end())
    throw InputError(
        rules_->source(), 0, "rules",
        "unknown rule set '" + std::string(set) + "' (known: " + rules_->set_names_text() + ")");
  return it->second;
}

std::vector<std::string> RuleSets::names() const {
  std::vector<std::string> out;
  for (const auto& s : rules_->sets()) out.push_back(s.name);
  return out;
}

std::string RuleSets::group_of(std::size_t config) const {
  std::string out;
  for (const auto& g : rules_->group_by())
    out += (out.empty() ? "" : "/") + space_->value(config, *rules_->axis_index(g)).to_string();
  return out.empty() ? "all" : out;
}

Indices RuleSets::matching(std::string_view set, const KeyValues& filter) const {
  auto lower = [](std::string text) {
    for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  std::vector<std::pair<int, std::string>> wanted;
  for (const auto& [key, value] : filter.items()) {
    auto axis = rules_->axis_index(key);
    if (!axis) {
      std::vector<std::string> axes;
      for (const auto& a : rules_->axes()) axes.push_back(a.name);
      throw InputError("", 0, key,
                       "not an axis of " + rules_->source() + " (axes: " + join(axes) + ")");
    }
    wanted.emplace_back(*axis, lower(value));
  }
  Indices out;
  for (std::size_t c : get(set)) {
    bool match = true;
    for (const auto& [axis, value] : wanted)
      match = match && lower(space_->value(c, axis).to_string()) == value;
    if (match) out.push_back(c);
  }
  return out;
}

const Indices& RuleSets::generate(const SetSpec& spec) {
  if (auto it = sets_.find(spec.name); it != sets_.end()) return it->second;
  Indices chosen = select(spec, base(spec));
  return sets_[spec.name] = std::move(chosen);
}

Indices RuleSets::base(const SetSpec& spec) {
  // Definitions were checked for cycles when the file was parsed.
  auto other = [&](const std::string& name) -> const Indices& {
    return generate(*rules_->find_set(name));
  };
  Indices out;
  if (!spec.names.empty()) return from_names(spec);
  if (!spec.union_of.empty()) {
    for (const auto& s : spec.union_of) out = set_union(out, other(s));
    return out;
  }
  if (!spec.intersection_of.empty()) {
    out = other(spec.intersection_of[0]);
    for (const auto& s : spec.intersection_of) out = set_intersection(out, other(s));
    return out;
  }
  if (!spec.from.empty()) return other(spec.from);
  out.resize(space_->size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

Indices RuleSets::from_names(const SetSpec& spec) const {
  Indices out;
  for (const auto& pattern : spec.names)
    for (const auto& name : expand(*rules_, pattern)) {
      auto index = space_->find(name);
      if (!index)
        rules_->fail("sets." + spec.name + ".names",
                     "'" + name + "' is not a valid configuration (see `kselect rules explain`)");
      out.push_back(*index);
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> RuleSets::keys_of(const std::vector<Key>& keys, std::size_t config,
                                           const std::string& field) const {
  thread_local std::vector<Value> slots;
  space_->bind(config, slots);
  std::vector<std::string> out;
  for (const auto& key : keys) {
    std::string text;
    for (const auto& part : key.parts) {
      try {
        text += part.eval(slots.data()).to_string();
      } catch (const ExprError& e) {
        rules_->fail(field, std::string(e.what()) + " in `" + part.text() + "`");
      }
      text += '\x1f';  // unit separator: cannot occur in a value
    }
    out.push_back(std::move(text));
  }
  return out;
}

std::string RuleSets::key_of(const Key& key, std::size_t config, const std::string& field) const {
  return keys_of({key}, config, field)[0];
}

namespace {
// Greedy set cover: repeatedly takes the config that covers the most still-uncovered feature
// values (ties go to the earliest), until every value present is covered.
Indices greedy_cover(const Indices& group, const std::vector<std::vector<int>>& features) {
  std::unordered_set<int> uncovered;
  for (const auto& f : features) uncovered.insert(f.begin(), f.end());
  std::vector<bool> taken(group.size(), false);
  Indices out;
  while (!uncovered.empty()) {
    std::size_t best = 0;
    int best_gain = 0;
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (taken[i]) continue;
      int gain = 0;
      for (int f : features[i]) gain += int(uncovered.count(f));
      if (gain > best_gain) best = i, best_gain = gain;
    }
    taken[best] = true;
    out.push_back(group[best]);
    for (int f : features[best]) uncovered.erase(f);
  }
  return out;
}
}  // namespace

Indices RuleSets::select(const SetSpec& spec, const Indices& base) const {
  std::string field = "sets." + spec.name;
  Indices kept;
  std::vector<Value> slots;
  for (std::size_t c : base) {
    if (spec.filter) {
      space_->bind(c, slots);
      Value v;
      try {
        v = spec.filter->eval(slots.data());
      } catch (const ExprError& e) {
        rules_->fail(field + ".filter",
                     std::string(e.what()) + " in `" + spec.filter->text() + "`");
      }
      if (v.type != Value::Type::kBool)
        rules_->fail(field + ".filter", "must be a boolean expression");
      if (!v.b) continue;
    }
    kept.push_back(c);
  }
  if (!spec.sample_by && spec.cover.empty()) return kept;
  Indices chosen;
  if (spec.sample_by) {
    std::unordered_map<std::string, int> seen;
    for (std::size_t c : kept) {
      int n = seen[key_of(*spec.sample_by, c, field + ".sample")]++;
      if (n % spec.sample_every == spec.sample_offset) chosen.push_back(c);
    }
  }
  if (!spec.cover.empty()) {
    std::map<std::string, Indices> groups;  // ordered by label: deterministic
    for (std::size_t c : kept)
      groups[spec.cover_per ? key_of(*spec.cover_per, c, field + ".cover") : ""].push_back(c);
    for (const auto& [label, group] : groups) {
      std::unordered_map<std::string, int> ids;
      std::vector<std::vector<int>> features(group.size());
      for (std::size_t i = 0; i < group.size(); ++i) {
        auto keys = keys_of(spec.cover, group[i], field + ".cover");
        for (std::size_t k = 0; k < keys.size(); ++k) {
          std::string f = std::to_string(k) + ":" + keys[k];
          features[i].push_back(ids.emplace(f, int(ids.size())).first->second);
        }
      }
      Indices covered = greedy_cover(group, features);
      std::sort(covered.begin(), covered.end());
      chosen = set_union(chosen, covered);
    }
  }
  for (const auto& key : spec.ensure) {
    std::unordered_set<std::string> present;
    for (std::size_t c : chosen) present.insert(key_of(key, c, field + ".ensure"));
    Indices added;
    for (std::size_t c : kept)
      if (present.insert(key_of(key, c, field + ".ensure")).second) added.push_back(c);
    chosen = set_union(chosen, added);
  }
  return chosen;
}

}  // namespace kselect::rules
