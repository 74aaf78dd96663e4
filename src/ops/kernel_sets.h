#pragma once
// What every operation whose kernels come from a rule file shares (GEMM, conv): the named
// configuration sets generated once from the embedded rule file, listing a set's kernel names
// under a field filter, the "a+b" union of sets, the no-model order by a cost, the check of a
// caller's operands, a cache of built kernels, and the deterministic operand values of workloads.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/key_values.h"
#include "ops/operation.h"
#include "rules/sets.h"

namespace kselect {

// InputError for a rule set no file defines, listing the known ones.
[[noreturn]] void throw_unknown_set(std::string_view set, const std::vector<std::string>& known);
// InputError naming a filter key that `fields` (a configuration's) lacks.
void check_filter_keys(const nlohmann::json& fields, const KeyValues& filter, std::string_view op);
// Whether every filter key's value equals the field's, compared as lower-case text.
bool fields_match(const nlohmann::json& fields, const KeyValues& filter);

// The named sets of an embedded rule file, each configuration converted by `convert` (which
// throws InputError when one does not round-trip through the op's config type).
template <typename Config>
class NamedConfigSets {
 public:
  using Convert = Config (*)(const rules::Space& space, std::size_t index);
  NamedConfigSets(std::string_view stem, Convert convert) {
    rules::RuleSets generated(rules::RuleFile::embedded(stem));
    const rules::Space& space = generated.space();
    std::vector<Config> all;
    all.reserve(space.size());
    for (std::size_t i = 0; i < space.size(); ++i) all.push_back(convert(space, i));
    names_ = generated.names();
    for (const auto& name : names_) {
      auto& configs = sets_[name];
      for (std::size_t index : generated.get(name)) configs.push_back(all[index]);
    }
  }
  // Throws InputError naming the known sets for an unknown one.
  const std::vector<Config>& get(std::string_view set) const {
    auto it = sets_.find(set);
    if (it == sets_.end()) throw_unknown_set(set, names_);
    return it->second;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::map<std::string, std::vector<Config>, std::less<>> sets_;
};

// "profiler+default": the union of the sets `one_set` lists, in order, without repeats.
std::vector<std::string> union_of_sets(
    std::string_view sets,
    const std::function<std::vector<std::string>(std::string_view)>& one_set);

// The names of the configurations whose fields (their JSON form) match every key of `filter`,
// compared as lower-case text. InputError naming a key no configuration has ("unknown <op>
// kernel field in filter").
template <typename Config>
std::vector<std::string> matching_names(const std::vector<Config>& configs, const KeyValues& filter,
                                        std::string_view op) {
  if (!configs.empty()) check_filter_keys(nlohmann::json(configs.front()), filter, op);
  std::vector<std::string> names;
  for (const Config& config : configs)
    if (fields_match(nlohmann::json(config), filter)) names.push_back(config.name());
  return names;
}

// `kernels` sorted by `cost`, cheapest first; ties keep the given order.
std::vector<std::string> order_by_cost(std::vector<std::string> kernels,
                                       const std::function<double(const std::string&)>& cost);

// InputError unless `operands` holds one non-null pointer per name in `names` (a workload over
// a caller's buffers, Operation::wrap_buffers); the error names the operand.
void check_operands(const std::vector<std::string>& names, std::span<void* const> operands);

// Built kernels, one per name: kernel objects may be costly to build and own workspace.
template <typename Kernel, typename Config>
class KernelCache {
 public:
  const Kernel& get(std::string_view name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = kernels_.find(name);
    if (it == kernels_.end())
      it = kernels_.emplace(std::string(name), std::make_unique<Kernel>(Config::parse_name(name)))
               .first;
    return *it->second;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::unique_ptr<Kernel>, std::less<>> kernels_;
};

// The kernels of a candidate set built once (an op's KernelCache keeps them), answering through
// the op's typed functions: `parse` reads the problem once per question, `reason` is the one
// answer of the op's unsupported_reason (by name it parses and looks up the kernel first),
// `workspace` the kernel's scratch memory for a problem it runs.
template <typename Kernel, typename Problem>
class BuiltKernelCatalogue final : public KernelCatalogue {
 public:
  struct Answers {
    Problem (*parse)(std::string_view problem);
    std::string (*reason)(const Kernel& kernel, const Problem& problem);
    double (*workspace)(const Kernel& kernel, const Problem& problem);
  };
  BuiltKernelCatalogue(std::vector<std::string> names, std::vector<const Kernel*> kernels,
                       Answers answers)
      : KernelCatalogue(std::move(names)), kernels_(std::move(kernels)), answers_(answers) {}

  std::string unsupported_reason(std::size_t index, std::string_view problem) const override {
    return answers_.reason(*kernels_.at(index), answers_.parse(problem));
  }
  std::vector<std::uint32_t> supported(std::string_view problem) const override {
    const Problem p = answers_.parse(problem);
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < kernels_.size(); ++i)
      if (answers_.reason(*kernels_[i], p).empty()) out.push_back(std::uint32_t(i));
    return out;
  }
  // 0 for a kernel that cannot run the problem: it is never bound to it.
  double workspace_bytes(std::size_t index, std::string_view problem) const override {
    const Kernel& kernel = *kernels_.at(index);
    const Problem p = answers_.parse(problem);
    return answers_.reason(kernel, p).empty() ? answers_.workspace(kernel, p) : 0;
  }

 private:
  std::vector<const Kernel*> kernels_;
  Answers answers_;
};

// Element `index` of a workload operand filled from `seed`: an integer in [-2, 2], exact in
// bf16, so every partial sum is exact in fp32 for any reduction a host can hold and a correct
// kernel reproduces the reference exactly.
float operand_value(std::uint64_t seed, std::uint64_t index);
// A well-mixed hash of x (SplitMix64's finaliser), for deterministic samples.
std::uint64_t splitmix(std::uint64_t x);
// `count` elements of a workload operand from `seed` (operand_value): fp32, or bf16 bit
// patterns when `bf16`.
void fill_operand(void* storage, std::size_t count, bool bf16, std::uint64_t seed);

}  // namespace kselect
