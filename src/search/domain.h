#pragma once
// A finite configuration space as search strategies see it: genes (a rule file's axes, a
// Kernel Tuner cache's tuning parameters), each with its list of values, and the valid
// configurations as one value index per gene. A strategy proposes any combination of gene
// values; the domain says whether it is valid and repairs it to the nearest valid one.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/space.h"

namespace kselect::search {

struct Gene {
  std::string name;
  std::vector<std::string> values;  // as text, in the space's order
  // Numeric genes are ordered: a repair moves along their values, and a distance counts how
  // far it moved. Other genes (strings, booleans) only match or differ.
  bool ordered = false;
};

using Genome = std::vector<std::uint16_t>;  // one value index per gene

class Domain {
 public:
  // `configs`: the valid configurations; `names` their kernel names, in the same order.
  Domain(std::vector<Gene> genes, std::vector<Genome> configs, std::vector<std::string> names);

  std::size_t size() const { return configs_.size(); }
  const std::vector<Gene>& genes() const { return genes_; }
  const Genome& genome(std::size_t config) const { return configs_[config]; }
  const std::string& name(std::size_t config) const { return names_[config]; }
  std::optional<std::size_t> find(const Genome& genome) const;
  // The valid configuration closest to `genome` (itself when valid): the least summed gene
  // distance, ties to the first in domain order, so a repair is deterministic.
  std::size_t nearest(const Genome& genome) const;
  // Per gene: 0 when equal; ordered genes the index difference over the gene's span (so every
  // gene weighs at most 1), other genes 1.
  double distance(const Genome& a, const Genome& b) const;

 private:
  std::vector<Gene> genes_;
  std::vector<Genome> configs_;
  std::vector<std::string> names_;
  std::vector<double> step_;  // per gene: the distance of one index step
  std::unordered_map<std::string, std::size_t> by_genome_;
};

// The configurations `members` (indices into `space`) with the rule file's axes as genes.
Domain domain_of_space(const rules::Space& space, std::span<const std::size_t> members);

// Configurations given by their parameters (a Kernel Tuner cache's, by kernel name): the
// genes are the parameters' union, each with its values sorted (numbers ascending). InputError
// naming the kernel when a configuration's parameters are not a flat object of scalars.
Domain domain_of_configs(const std::map<std::string, nlohmann::json>& configs);

}  // namespace kselect::search
