#include "rules/check.h"

#include <algorithm>
#include <regex>

#include "core/key_values.h"
#include "core/text.h"

namespace kselect::rules {

namespace {

std::string regex_escape(std::string_view text) {
  static const std::string kSpecial = R"(\^$.|?*+()[]{})";
  std::string out;
  for (char c : text) {
    if (kSpecial.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// Reads text as the value of `axis`: one of its listed values when the text matches one,
// otherwise the most specific type the text parses as.
Value read_value(const Axis& axis, const std::string& text) {
  for (const Value& v : axis.values)
    if (v.to_string() == text) return v;
  if (auto i = parse_int(text)) return Value::of_int(*i);
  if (auto d = parse_double(text)) return Value::of_double(*d);
  if (text == "True" || text == "False") return Value::of_bool(text == "True");
  return Value::of_string(text);
}

std::string bounds_text(const SizeBounds& b) {
  return "[" + (b.min ? std::to_string(*b.min) : std::string("-")) + ", " +
         (b.max ? std::to_string(*b.max) : std::string("-")) + "]";
}

bool within(const SizeBounds& b, std::size_t n) {
  return (!b.min || n >= *b.min) && (!b.max || n <= *b.max);
}

// The regex group of an axis in a name. A string axis matches exactly one of its values, longest
// first, so values holding the template's separators ("bwd_data") and optional parts ("", for
// a suffix CK leaves out at its default) read back unambiguously; other axes match any text.
std::string axis_pattern(const Axis& axis) {
  std::vector<std::string> words;
  for (const Value& v : axis.values) {
    if (v.type != Value::Type::kString) return "(.+?)";
    words.push_back(regex_escape(v.to_string()));
  }
  std::stable_sort(words.begin(), words.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string out = "(";
  for (size_t i = 0; i < words.size(); ++i) out += (i ? "|" : "") + words[i];
  return out + ")";
}

}  // namespace

NameParser::NameParser(const RuleFile& rules) : rules_(&rules) {
  std::string pattern;
  for (const auto& part : name_parts(rules)) {
    if (part.axis < 0) {
      pattern += regex_escape(part.literal);
    } else {
      pattern += axis_pattern(rules.axes()[part.axis]);
      groups_.push_back(part.axis);
    }
  }
  pattern_ = std::regex(pattern);
}

std::optional<std::vector<Value>> NameParser::parse(std::string_view name) const {
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(name.begin(), name.end(), m, pattern_)) return std::nullopt;
  std::vector<Value> values(rules_->axes().size());
  std::vector<bool> seen(values.size(), false);
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    int axis = groups_[g];
    Value v = read_value(rules_->axes()[axis], m[g + 1].str());
    if (seen[axis] && !(values[axis] == v)) return std::nullopt;
    values[axis] = v;
    seen[axis] = true;
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) return std::nullopt;
  return values;
}

CheckReport check(const RuleSets& sets) {
  const RuleFile& rf = sets.rules();
  const Space& space = sets.space();
  CheckReport r;
  r.source = rf.source();
  r.op = rf.op();
  r.target = rf.target();
  r.valid = space.size();
  r.seconds = sets.generation_seconds();
  std::map<std::string, std::size_t> empty_groups;
  for (std::size_t c = 0; c < space.size(); ++c) empty_groups[sets.group_of(c)] = 0;
  for (const auto& spec : rf.sets()) {
    const auto& members = sets.get(spec.name);
    SetSummary s{spec.name, spec.doc, members.size(), empty_groups};
    for (std::size_t c : members) ++s.per_group[sets.group_of(c)];
    if (members.empty()) r.problems.push_back("set '" + spec.name + "' is empty");
    if (!within(spec.total, s.total))
      r.problems.push_back("set '" + spec.name + "' has " + std::to_string(s.total) +
                           " configurations, expected " + bounds_text(spec.total));
    for (const auto& [group, n] : s.per_group)
      if (!within(spec.per_group, n))
        r.problems.push_back("set '" + spec.name + "' has " + std::to_string(n) + " in group " +
                             group + ", expected " + bounds_text(spec.per_group));
    for (const auto& super : spec.subset_of) {
      const auto& of = sets.get(super);
      for (std::size_t c : members)
        if (!std::binary_search(of.begin(), of.end(), c)) {
          r.problems.push_back("set '" + spec.name + "' is not a subset of '" + super +
                               "': " + space.name(c) + " is missing from '" + super + "'");
          break;
        }
    }
    r.sets.push_back(std::move(s));
  }
  NameParser parser(rf);
  for (std::size_t c = 0; c < space.size(); ++c) {
    auto values = parser.parse(space.name(c));
    bool same = values.has_value();
    for (std::size_t a = 0; same && a < values->size(); ++a)
      same = (*values)[a] == space.value(c, int(a));
    if (!same) {
      r.problems.push_back("name '" + space.name(c) + "' does not parse back to its configuration");
      break;
    }
  }
  return r;
}

nlohmann::json CheckReport::to_json() const {
  nlohmann::json j = {{"source", source},     {"op", op},
                      {"target", target},     {"valid", valid},
                      {"seconds", seconds},   {"ok", ok()},
                      {"problems", problems}, {"sets", nlohmann::json::array()}};
  for (const auto& s : sets)
    j["sets"].push_back(
        {{"name", s.name}, {"doc", s.doc}, {"total", s.total}, {"per_group", s.per_group}});
  return j;
}

std::string CheckReport::to_text() const {
  std::string out = source + (target == kNativeTarget ? "" : " (target " + target + ")") + ": " +
                    std::to_string(valid) + " valid configurations, sets generated in " +
                    std::to_string(int(seconds * 1000)) + " ms\n";
  for (const auto& s : sets) {
    out += "  " + s.name + ": " + std::to_string(s.total);
    out +=
        " (" +
        join(s.per_group,
             [](const auto& group) { return group.first + " " + std::to_string(group.second); }) +
        ")\n";
  }
  for (const auto& p : problems) out += "  PROBLEM: " + p + "\n";
  out += ok() ? "  ok\n" : "  " + std::to_string(problems.size()) + " problem(s)\n";
  return out;
}

std::vector<std::string> check_against(
    const RuleSets& sets,
    const std::function<std::vector<std::string>(const std::string&)>& names_of) {
  std::vector<std::string> problems;
  for (const auto& set : sets.names()) {
    std::vector<std::string> expected;
    for (std::size_t c : sets.get(set)) expected.push_back(sets.space().name(c));
    std::vector<std::string> got = names_of(set);
    if (got == expected) continue;
    std::string detail =
        std::to_string(got.size()) + " names instead of " + std::to_string(expected.size());
    for (std::size_t i = 0; i < std::min(got.size(), expected.size()); ++i)
      if (got[i] != expected[i]) {
        detail = "position " + std::to_string(i) + " is '" + got[i] + "', expected '" +
                 expected[i] + "'";
        break;
      }
    problems.push_back("operation '" + sets.rules().op() + "' disagrees with " +
                       sets.rules().source() + " on set '" + set + "': " + detail);
  }
  return problems;
}

Explanation explain(const RuleSets& sets, std::string_view name) {
  const RuleFile& rf = sets.rules();
  Explanation e;
  e.name = std::string(name);
  auto values = NameParser(rf).parse(name);
  if (!values) {
    e.problems.push_back("does not match the name template " + rf.name_template());
    return e;
  }
  std::vector<Value> slots(rf.scope().size());
  for (int s = 0; s < rf.scope().size(); ++s)
    if (rf.scope().constant(s)) slots[s] = *rf.scope().constant(s);
  for (std::size_t a = 0; a < values->size(); ++a) {
    const Axis& axis = rf.axes()[a];
    const Value& v = (*values)[a];
    e.fields[axis.name] = v.to_json();
    slots[rf.axis_slot(int(a))] = v;
    if (std::find(axis.values.begin(), axis.values.end(), v) == axis.values.end())
      e.problems.push_back("axis " + axis.name + ": " + v.to_string() + " is not an allowed value");
  }
  try {
    for (const auto& d : rf.derived())
      if (d.level >= 0) slots[d.slot] = d.expr.eval(slots.data());
    for (const auto& c : rf.constraints()) {
      Value ok = c.expr.eval(slots.data());
      if (ok.type == Value::Type::kBool && !ok.b)
        e.problems.push_back("constraint " + c.name + " (`" + c.expr.text() + "`): " + c.why);
    }
  } catch (const ExprError& err) {
    e.problems.push_back(std::string("cannot evaluate the constraints: ") + err.what());
  }
  if (auto index = sets.space().find(name))
    for (const auto& s : sets.names()) {
      const auto& members = sets.get(s);
      if (std::binary_search(members.begin(), members.end(), *index)) e.sets.push_back(s);
    }
  return e;
}

}  // namespace kselect::rules
