#include "rules/space.h"

#include "core/error.h"

namespace kselect::rules {

std::vector<NamePart> name_parts(const RuleFile& rules) {
  const std::string& t = rules.name_template();
  std::vector<NamePart> parts;
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::size_t close = t[i] == '{' ? t.find('}', i) : std::string::npos;
    auto axis = close == std::string::npos
                    ? std::nullopt
                    : rules.axis_index(std::string_view(t).substr(i + 1, close - i - 1));
    if (axis) {
      parts.push_back({"", *axis});
      i = close;
    } else if (parts.empty() || parts.back().axis >= 0) {
      parts.push_back({std::string(1, t[i]), -1});
    } else {
      parts.back().literal += t[i];
    }
  }
  return parts;
}

std::string format_name(const std::vector<NamePart>& parts, const std::vector<Value>& axis_values) {
  std::string out;
  for (const auto& p : parts) out += p.axis < 0 ? p.literal : axis_values[p.axis].to_string();
  return out;
}

Space::Space(const RuleFile& rules) : rules_(&rules), name_parts_(name_parts(rules)) {
  std::size_t n = rules.axes().size();
  derived_at_.resize(n);
  constraints_at_.resize(n);
  // Constant derived values are folded by the compiler; everything else depends on an axis.
  for (std::size_t i = 0; i < rules.derived().size(); ++i)
    if (rules.derived()[i].level >= 0) derived_at_[rules.derived()[i].level].push_back(int(i));
  for (std::size_t i = 0; i < rules.constraints().size(); ++i)
    if (rules.constraints()[i].level >= 0)
      constraints_at_[rules.constraints()[i].level].push_back(int(i));
  rejections_.assign(rules.constraints().size(), 0);
  std::vector<Value> slots(rules.scope().size());
  for (int s = 0; s < rules.scope().size(); ++s)
    if (rules.scope().constant(s)) slots[s] = *rules.scope().constant(s);
  std::vector<std::uint16_t> index(n);
  enumerate(0, slots, index);
  by_name_.reserve(names_.size());
  for (std::size_t c = 0; c < names_.size(); ++c)
    if (!by_name_.emplace(names_[c], c).second)
      rules.fail("name", "two valid configurations share the name '" + names_[c] +
                             "': the name template must include every axis that varies");
}

bool Space::settle(int depth, std::vector<Value>& slots) {
  const RuleFile& rf = *rules_;
  for (int d : derived_at_[depth]) {
    const Derived& dv = rf.derived()[d];
    try {
      slots[dv.slot] = dv.expr.eval(slots.data());
    } catch (const ExprError& e) {
      rf.fail("derived." + dv.name, std::string(e.what()) + " in `" + dv.expr.text() + "`");
    }
  }
  for (int c : constraints_at_[depth]) {
    const Constraint& con = rf.constraints()[c];
    Value v;
    try {
      v = con.expr.eval(slots.data());
    } catch (const ExprError& e) {
      rf.fail("constraints." + con.name, std::string(e.what()) + " in `" + con.expr.text() + "`");
    }
    if (v.type != Value::Type::kBool)
      rf.fail("constraints." + con.name, "evaluates to " + std::string(type_name(v.type)) +
                                             ", not a boolean, in `" + con.expr.text() + "`");
    if (!v.b) {
      ++rejections_[c];
      return false;
    }
  }
  return true;
}

void Space::enumerate(std::size_t depth, std::vector<Value>& slots,
                      std::vector<std::uint16_t>& index) {
  const RuleFile& rf = *rules_;
  if (depth == rf.axes().size()) {
    value_index_.insert(value_index_.end(), index.begin(), index.end());
    std::vector<Value> values(depth);
    for (std::size_t a = 0; a < depth; ++a) values[a] = slots[rf.axis_slot(int(a))];
    names_.push_back(format_name(name_parts_, values));
    return;
  }
  const Axis& axis = rf.axes()[depth];
  for (std::size_t v = 0; v < axis.values.size(); ++v) {
    slots[rf.axis_slot(int(depth))] = axis.values[v];
    index[depth] = std::uint16_t(v);
    if (settle(int(depth), slots)) enumerate(depth + 1, slots, index);
  }
}

Value Space::value(std::size_t config, int axis) const {
  std::size_t n = rules_->axes().size();
  return rules_->axes()[axis].values[value_index_[config * n + axis]];
}

void Space::bind(std::size_t config, std::vector<Value>& slots) const {
  const RuleFile& rf = *rules_;
  slots.resize(rf.scope().size());
  for (int s = 0; s < rf.scope().size(); ++s)
    if (rf.scope().constant(s)) slots[s] = *rf.scope().constant(s);
  for (std::size_t a = 0; a < rf.axes().size(); ++a)
    slots[rf.axis_slot(int(a))] = value(config, int(a));
  // Derived values in file order: each reads only earlier names.
  for (const auto& d : rf.derived())
    if (d.level >= 0) slots[d.slot] = d.expr.eval(slots.data());
}

std::optional<std::size_t> Space::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

nlohmann::json Space::fields(std::size_t config) const {
  nlohmann::json j = {{"name", names_[config]}};
  for (std::size_t a = 0; a < rules_->axes().size(); ++a)
    j[rules_->axes()[a].name] = value(config, int(a)).to_json();
  return j;
}

}  // namespace kselect::rules
