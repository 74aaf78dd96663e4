#pragma once
// A parsed and compiled rule file (format: docs/rules.md). It declares, as data, a
// configuration space: constants describing the target, axes with their allowed values,
// derived quantities, constraints every valid configuration satisfies, a name template, and
// named sets defined over the valid space.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/key_values.h"
#include "rules/expr.h"

namespace kselect::rules {

struct Axis {
  std::string name;
  std::vector<Value> values;
};

struct Constant {
  std::string name, doc;
  Value value;
};

// Derived and constraint expressions carry the depth of the enumeration at which all their
// inputs are known (the index of the last axis they depend on), so the enumeration evaluates
// them as early as possible and prunes whole subtrees.
struct Derived {
  std::string name, doc;
  Expr expr;
  int slot = -1;
  int level = -1;
};

struct Constraint {
  std::string name, why;
  Expr expr;
  int level = -1;
};

// A tuple of expressions; configurations with equal tuples fall in the same category.
struct Key {
  std::string text;  // for messages, e.g. "[pipeline, scheduler]"
  std::vector<Expr> parts;
};

struct SizeBounds {
  std::optional<std::size_t> min, max;
};

struct SetSpec {
  std::string name, doc;
  // The base: exactly one of names, union_of, intersection_of or from; none means the whole
  // valid space.
  std::vector<std::string> names;  // may hold {axis} placeholders, expanded over the axis
  std::vector<std::string> union_of, intersection_of;
  std::string from;
  std::optional<Expr> filter;
  // Selection from the filtered base; with neither, everything is kept.
  std::optional<Key> sample_by;  // keep every `sample_every`-th config of each category
  int sample_every = 1, sample_offset = 0;
  std::optional<Key> cover_per;  // greedy cover of every value of each cover key, per group
  std::vector<Key> cover;
  // Added afterwards: for each key, the first base config of every value not yet present.
  std::vector<Key> ensure;
  std::vector<std::string> subset_of;  // relations `rules check` verifies
  SizeBounds per_group, total;         // sizes `rules check` verifies
};

// The target of a rule file without a "target" field: the machine kselect runs on, whose
// kernels the operations build and measure. Other targets (a GPU such as "gfx950") describe
// kernels kselect lists and checks but cannot run.
inline constexpr std::string_view kNativeTarget = "cpu";

class RuleFile {
 public:
  // Parses and compiles; `source` names the file in errors. `overrides` replaces constants
  // ("l1_kib=32"). Throws InputError naming the source, the field and, for expressions, the
  // column.
  static RuleFile parse(std::string_view json_text, const std::string& source,
                        const KeyValues& overrides = {});
  // A rule file compiled into the binary, by stem (e.g. "gemm_cpu").
  static RuleFile embedded(std::string_view stem, const KeyValues& overrides = {});
  static RuleFile load(const std::string& path, const KeyValues& overrides = {});
  static std::vector<std::string> embedded_names();
  // The stem of the built-in rule file that declares `op` for `target`, if any; InputError when
  // two do (a target's kernels come from one file).
  static std::optional<std::string> embedded_stem(std::string_view op, std::string_view target);
  // The targets of the built-in rule files that declare `op`, in stem order.
  static std::vector<std::string> embedded_targets(std::string_view op);

  const std::string& source() const { return source_; }
  const std::string& op() const { return op_; }
  // What the kernels run on: kNativeTarget, or another target's name ("gfx942").
  const std::string& target() const { return target_; }
  bool native() const { return target_ == kNativeTarget; }
  const std::string& description() const { return description_; }
  const std::string& name_template() const { return name_template_; }
  const std::vector<Constant>& constants() const { return constants_; }
  const std::vector<Axis>& axes() const { return axes_; }
  const std::vector<Derived>& derived() const { return derived_; }
  const std::vector<Constraint>& constraints() const { return constraints_; }
  const std::vector<SetSpec>& sets() const { return sets_; }
  const std::vector<std::string>& group_by() const { return group_by_; }
  const Scope& scope() const { return scope_; }
  int axis_slot(int axis) const { return axis_slot0_ + axis; }
  std::optional<int> axis_index(std::string_view name) const;
  const SetSpec* find_set(std::string_view name) const;
  std::string set_names_text() const;  // "full, profiler, ..." for messages

  // Throws InputError with this file's name and `field`.
  [[noreturn]] void fail(const std::string& field, const std::string& what) const;

 private:
  void parse_constants(const nlohmann::ordered_json& doc, const KeyValues& overrides);
  void parse_axes(const nlohmann::ordered_json& doc);
  void parse_derived(const nlohmann::ordered_json& doc);
  void parse_constraints(const nlohmann::ordered_json& doc);
  void parse_sets(const nlohmann::ordered_json& doc);
  SetSpec parse_set(const std::string& name, const nlohmann::ordered_json& j) const;
  void check_set_references() const;
  Expr compile(const std::string& text, const std::string& field) const;
  Value eval_constant(const Expr& e, const std::string& field) const;
  Key compile_key(const nlohmann::ordered_json& j, const std::string& field) const;
  int level_of(const Expr& e) const;

  std::string source_, op_, target_, description_, name_template_;
  std::vector<Constant> constants_;
  std::vector<Axis> axes_;
  std::vector<Derived> derived_;
  std::vector<Constraint> constraints_;
  std::vector<SetSpec> sets_;
  std::vector<std::string> group_by_;
  Scope scope_;
  int axis_slot0_ = 0;
  std::vector<int> slot_level_;  // per slot: the enumeration depth at which it is known
};

}  // namespace kselect::rules
