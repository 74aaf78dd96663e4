#include "rules/rule_file.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "core/error.h"
#include "core/text.h"
#include "rules/embedded.h"

namespace kselect::rules {

using ojson = nlohmann::ordered_json;

namespace {

// An override keeps the type of the constant it replaces.
Value parse_override(const Constant& c, const std::string& text) {
  auto fail = [&]() -> Value {
    throw InputError("", 0, c.name,
                     "value '" + text + "' is not a " + std::string(type_name(c.value.type)));
  };
  switch (c.value.type) {
    case Value::Type::kInt: {
      auto v = parse_int(text);
      return v ? Value::of_int(*v) : fail();
    }
    case Value::Type::kDouble: {
      auto v = parse_double(text);
      return v ? Value::of_double(*v) : fail();
    }
    case Value::Type::kBool:
      if (text == "true" || text == "True") return Value::of_bool(true);
      if (text == "false" || text == "False") return Value::of_bool(false);
      return fail();
    case Value::Type::kString:
      return Value::of_string(text);
  }
  return fail();
}

std::vector<std::string> string_list(const ojson& j, const std::string& field, const RuleFile& rf) {
  if (!j.is_array()) rf.fail(field, "expected a list of strings");
  std::vector<std::string> out;
  for (const auto& item : j) {
    if (!item.is_string()) rf.fail(field, "expected a list of strings, found " + item.dump());
    out.push_back(item.get<std::string>());
  }
  return out;
}

const ojson& require(const ojson& j, const char* key, const std::string& field,
                     const RuleFile& rf) {
  if (!j.contains(key)) rf.fail(field, std::string("missing '") + key + "'");
  return j.at(key);
}

std::string text_of(const ojson& j, const std::string& field, const RuleFile& rf) {
  if (!j.is_string()) rf.fail(field, "expected a string, found " + j.dump());
  return j.get<std::string>();
}

}  // namespace

void RuleFile::fail(const std::string& field, const std::string& what) const {
  throw InputError(source_, 0, field, what);
}

RuleFile RuleFile::parse(std::string_view json_text, const std::string& source,
                         const KeyValues& overrides) {
  RuleFile rf;
  rf.source_ = source;
  ojson doc;
  try {
    doc = ojson::parse(json_text);
  } catch (const ojson::parse_error& e) {
    rf.fail("", std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) rf.fail("", "a rule file is a JSON object");
  static const std::vector<std::string> kKnown = {
      "version",   "op",   "target",  "description", "name", "group_by",
      "constants", "axes", "derived", "constraints", "sets"};
  for (const auto& [key, value] : doc.items())
    if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end())
      rf.fail(key, "unknown top-level key (known: " + join(kKnown) + ")");
  if (doc.value("version", 0) != 1) rf.fail("version", "only version 1 is supported");
  rf.op_ = text_of(require(doc, "op", "op", rf), "op", rf);
  rf.target_ =
      doc.contains("target") ? text_of(doc["target"], "target", rf) : std::string(kNativeTarget);
  if (rf.target_.empty()) rf.fail("target", "must not be empty");
  rf.description_ = doc.value("description", "");
  rf.parse_constants(doc, overrides);
  rf.parse_axes(doc);
  rf.parse_derived(doc);
  rf.parse_constraints(doc);
  rf.name_template_ = text_of(require(doc, "name", "name", rf), "name", rf);
  static const std::regex kPlaceholder(R"(\{([A-Za-z_][A-Za-z0-9_]*)\})");
  for (std::sregex_iterator it(rf.name_template_.begin(), rf.name_template_.end(), kPlaceholder),
       end;
       it != end; ++it)
    if (!rf.axis_index((*it)[1].str())) rf.fail("name", "unknown axis '" + (*it)[1].str() + "'");
  if (doc.contains("group_by")) rf.group_by_ = string_list(doc["group_by"], "group_by", rf);
  for (const auto& g : rf.group_by_)
    if (!rf.axis_index(g)) rf.fail("group_by", "unknown axis '" + g + "'");
  rf.parse_sets(doc);
  return rf;
}

RuleFile RuleFile::embedded(std::string_view stem, const KeyValues& overrides) {
  const auto& files = embedded_rule_files();
  auto it = files.find(std::string(stem));
  if (it == files.end())
    throw InputError("", 0, "rules",
                     "no built-in rule file '" + std::string(stem) +
                         "' (built in: " + join(embedded_names()) + ")");
  return parse(it->second, "rules/" + it->first + ".json", overrides);
}

RuleFile RuleFile::load(const std::string& path, const KeyValues& overrides) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open rule file");
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, overrides);
}

std::optional<std::string> RuleFile::embedded_stem(std::string_view op, std::string_view target) {
  std::optional<std::string> found;
  for (const auto& stem : embedded_names()) {
    RuleFile file = embedded(stem);
    if (file.op() != op || file.target() != target) continue;
    if (found)
      throw InputError("", 0, "rules",
                       "built-in rule files " + *found + " and " + stem + " both declare op '" +
                           std::string(op) + "' for target '" + std::string(target) + "'");
    found = stem;
  }
  return found;
}

std::vector<std::string> RuleFile::embedded_targets(std::string_view op) {
  std::vector<std::string> out;
  for (const auto& stem : embedded_names())
    if (RuleFile file = embedded(stem); file.op() == op) out.push_back(file.target());
  return out;
}

std::vector<std::string> RuleFile::embedded_names() {
  std::vector<std::string> out;
  for (const auto& [stem, text] : embedded_rule_files()) out.push_back(stem);
  return out;
}

void RuleFile::parse_constants(const ojson& doc, const KeyValues& overrides) {
  if (doc.contains("constants") && !doc["constants"].is_object())
    fail("constants", "expected an object of name: value");
  const ojson constants = doc.value("constants", ojson::object());
  for (const auto& [name, j] : constants.items()) {
    std::string field = "constants." + name;
    Constant c;
    c.name = name;
    const ojson& v = j.is_object() ? require(j, "value", field, *this) : j;
    if (j.is_object()) c.doc = j.value("doc", "");
    try {
      c.value = Value::from_json(v);
    } catch (const std::invalid_argument& e) {
      fail(field, e.what());
    }
    constants_.push_back(c);
  }
  for (const auto& [key, text] : overrides.items()) {
    const auto& name = key;  // clang before 16 cannot capture a structured binding
    auto it = std::find_if(constants_.begin(), constants_.end(),
                           [&](const Constant& c) { return c.name == name; });
    if (it == constants_.end()) fail("constants", "no constant '" + key + "' to override");
    it->value = parse_override(*it, text);
  }
  for (const auto& c : constants_) {
    scope_.add(c.name, c.value);
    slot_level_.push_back(-1);
  }
}

void RuleFile::parse_axes(const ojson& doc) {
  const ojson& axes = require(doc, "axes", "axes", *this);
  if (!axes.is_object() || axes.empty())
    fail("axes", "expected a non-empty object of name: [values]");
  axis_slot0_ = scope_.size();
  for (const auto& [name, values] : axes.items()) {
    std::string field = "axes." + name;
    if (scope_.find(name)) fail(field, "name already used by a constant");
    if (!values.is_array() || values.empty() || values.size() > 65535)
      fail(field, "expected a non-empty list of values");
    Axis axis{name, {}};
    for (const auto& v : values) {
      try {
        axis.values.push_back(Value::from_json(v));
      } catch (const std::invalid_argument& e) {
        fail(field, e.what());
      }
      if (std::count(axis.values.begin(), axis.values.end(), axis.values.back()) > 1)
        fail(field, "value " + v.dump() + " is listed twice");
    }
    slot_level_.push_back(int(axes_.size()));
    scope_.add(name);
    axes_.push_back(std::move(axis));
  }
}

int RuleFile::level_of(const Expr& e) const {
  int level = -1;
  for (int slot : e.slots()) level = std::max(level, slot_level_[slot]);
  return level;
}

Expr RuleFile::compile(const std::string& text, const std::string& field) const {
  try {
    return Expr::compile(text, scope_);
  } catch (const ExprError& e) {
    fail(field, std::string(e.what()) + " in `" + text + "`");
  }
}

Value RuleFile::eval_constant(const Expr& e, const std::string& field) const {
  try {
    return e.eval(nullptr);
  } catch (const ExprError& err) {
    fail(field, std::string(err.what()) + " in `" + e.text() + "`");
  }
}

void RuleFile::parse_derived(const ojson& doc) {
  if (doc.contains("derived") && !doc["derived"].is_object())
    fail("derived", "expected an object of name: expression");
  const ojson derived = doc.value("derived", ojson::object());
  for (const auto& [name, j] : derived.items()) {
    std::string field = "derived." + name;
    if (scope_.find(name)) fail(field, "name already used by a constant or an axis");
    Derived d;
    d.name = name;
    const ojson& text = j.is_object() ? require(j, "expr", field, *this) : j;
    if (j.is_object()) d.doc = j.value("doc", "");
    // Compiled before the name is added: a derived value sees only earlier names.
    d.expr = compile(text_of(text, field, *this), field);
    d.level = level_of(d.expr);
    std::optional<Value> constant;
    if (d.expr.is_constant()) constant = eval_constant(d.expr, field);
    d.slot = scope_.add(name, constant);
    slot_level_.push_back(d.level);
    derived_.push_back(std::move(d));
  }
}

void RuleFile::parse_constraints(const ojson& doc) {
  if (doc.contains("constraints") && !doc["constraints"].is_array())
    fail("constraints", "expected a list of {name, expr, why}");
  const ojson constraints = doc.value("constraints", ojson::array());
  for (const auto& j : constraints) {
    std::string field = "constraints[" + std::to_string(constraints_.size()) + "]";
    if (!j.is_object()) fail(field, "expected {name, expr, why}");
    Constraint c;
    c.name = text_of(require(j, "name", field, *this), field + ".name", *this);
    field = "constraints." + c.name;
    for (const auto& other : constraints_)
      if (other.name == c.name) fail(field, "constraint name used twice");
    c.why = text_of(require(j, "why", field, *this), field + ".why", *this);
    c.expr = compile(text_of(require(j, "expr", field, *this), field, *this), field);
    c.level = level_of(c.expr);
    if (c.expr.is_constant()) {
      Value v = eval_constant(c.expr, field);
      if (v.type != Value::Type::kBool) fail(field, "a constraint must be a boolean expression");
      if (!v.b) fail(field, "constraint is always false: no configuration can be valid");
    }
    constraints_.push_back(std::move(c));
  }
}

std::optional<int> RuleFile::axis_index(std::string_view name) const {
  for (std::size_t i = 0; i < axes_.size(); ++i)
    if (axes_[i].name == name) return int(i);
  return std::nullopt;
}

const SetSpec* RuleFile::find_set(std::string_view name) const {
  for (const auto& s : sets_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string RuleFile::set_names_text() const {
  std::vector<std::string> names;
  for (const auto& s : sets_) names.push_back(s.name);
  return join(names);
}

Key RuleFile::compile_key(const ojson& j, const std::string& field) const {
  Key key;
  std::vector<std::string> parts =
      j.is_string() ? std::vector<std::string>{j.get<std::string>()} : string_list(j, field, *this);
  if (parts.empty()) fail(field, "a key needs at least one expression");
  for (const auto& p : parts) key.parts.push_back(compile(p, field));
  key.text = "[" + join(parts) + "]";
  return key;
}

}  // namespace kselect::rules

namespace kselect::rules {

namespace {
SizeBounds parse_bounds(const ojson& j, const std::string& field, const RuleFile& rf) {
  if (!j.is_array() || j.size() != 2) rf.fail(field, "expected [min, max] (use null for no bound)");
  SizeBounds b;
  if (!j[0].is_null()) b.min = j[0].get<std::size_t>();
  if (!j[1].is_null()) b.max = j[1].get<std::size_t>();
  return b;
}
}  // namespace

void RuleFile::parse_sets(const ojson& doc) {
  const ojson& sets = require(doc, "sets", "sets", *this);
  if (!sets.is_object() || sets.empty()) fail("sets", "expected a non-empty object of name: set");
  for (const auto& [name, j] : sets.items()) sets_.push_back(parse_set(name, j));
  check_set_references();
}

SetSpec RuleFile::parse_set(const std::string& name, const ojson& j) const {
  std::string field = "sets." + name;
  if (!j.is_object()) fail(field, "expected an object");
  static const std::vector<std::string> kKnown = {"doc",    "names",     "union",  "intersection",
                                                  "from",   "filter",    "sample", "cover",
                                                  "ensure", "subset_of", "expect"};
  for (const auto& [key, value] : j.items())
    if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end())
      fail(field + "." + key, "unknown key (known: " + join(kKnown) + ")");
  int bases = int(j.contains("names")) + int(j.contains("union")) +
              int(j.contains("intersection")) + int(j.contains("from"));
  if (bases > 1) fail(field, "use at most one of names, union, intersection, from");
  SetSpec s;
  s.name = name;
  s.doc = j.value("doc", "");
  if (j.contains("names")) s.names = string_list(j["names"], field + ".names", *this);
  if (j.contains("union")) s.union_of = string_list(j["union"], field + ".union", *this);
  if (j.contains("intersection"))
    s.intersection_of = string_list(j["intersection"], field + ".intersection", *this);
  if (j.contains("from")) s.from = text_of(j["from"], field + ".from", *this);
  if (j.contains("filter"))
    s.filter = compile(text_of(j["filter"], field + ".filter", *this), field + ".filter");
  if (j.contains("sample")) {
    const ojson& sample = j["sample"];
    std::string f = field + ".sample";
    s.sample_by = compile_key(require(sample, "by", f, *this), f + ".by");
    s.sample_every = require(sample, "every", f, *this).get<int>();
    s.sample_offset = sample.value("offset", 0);
    if (s.sample_every < 1 || s.sample_offset < 0 || s.sample_offset >= s.sample_every)
      fail(f, "needs every >= 1 and 0 <= offset < every");
  }
  if (j.contains("cover")) {
    const ojson& cover = j["cover"];
    std::string f = field + ".cover";
    if (cover.contains("per")) s.cover_per = compile_key(cover["per"], f + ".per");
    const ojson& keys = require(cover, "keys", f, *this);
    if (!keys.is_array() || keys.empty()) fail(f + ".keys", "expected a non-empty list of keys");
    for (const auto& k : keys) s.cover.push_back(compile_key(k, f + ".keys"));
  }
  if (j.contains("ensure")) {
    if (!j["ensure"].is_array()) fail(field + ".ensure", "expected a list of keys");
    for (const auto& k : j["ensure"]) s.ensure.push_back(compile_key(k, field + ".ensure"));
  }
  if (j.contains("subset_of"))
    s.subset_of = string_list(j["subset_of"], field + ".subset_of", *this);
  if (j.contains("expect")) {
    const ojson& e = j["expect"];
    if (e.contains("per_group"))
      s.per_group = parse_bounds(e["per_group"], field + ".expect.per_group", *this);
    if (e.contains("total")) s.total = parse_bounds(e["total"], field + ".expect.total", *this);
  }
  return s;
}

// Every set a set refers to must exist, and definitions must not be circular.
void RuleFile::check_set_references() const {
  auto refs = [](const SetSpec& s) {
    std::vector<std::string> out = s.union_of;
    out.insert(out.end(), s.intersection_of.begin(), s.intersection_of.end());
    if (!s.from.empty()) out.push_back(s.from);
    return out;
  };
  for (const auto& s : sets_) {
    auto all = refs(s);
    all.insert(all.end(), s.subset_of.begin(), s.subset_of.end());
    for (const auto& r : all)
      if (!find_set(r))
        fail("sets." + s.name,
             "refers to unknown set '" + r + "' (sets: " + set_names_text() + ")");
  }
  // Depth-first search for a cycle through the definition references (not subset_of).
  std::vector<int> state(sets_.size(), 0);  // 0 new, 1 on stack, 2 done
  std::function<void(std::size_t, std::string)> visit = [&](std::size_t i, std::string path) {
    if (state[i] == 2) return;
    path += (path.empty() ? "" : " -> ") + sets_[i].name;
    if (state[i] == 1) fail("sets." + sets_[i].name, "circular definition: " + path);
    state[i] = 1;
    for (const auto& r : refs(sets_[i])) visit(find_set(r) - sets_.data(), path);
    state[i] = 2;
  };
  for (std::size_t i = 0; i < sets_.size(); ++i) visit(i, "");
}

}  // namespace kselect::rules
