#include "search/domain.h"

#include <algorithm>
#include <limits>
#include <set>

#include "core/error.h"

namespace kselect::search {

namespace {

std::string key_of(const Genome& genome) {
  return std::string(reinterpret_cast<const char*>(genome.data()),
                     genome.size() * sizeof(std::uint16_t));
}

}  // namespace

Domain::Domain(std::vector<Gene> genes, std::vector<Genome> configs, std::vector<std::string> names)
    : genes_(std::move(genes)), configs_(std::move(configs)), names_(std::move(names)) {
  if (names_.size() != configs_.size())
    throw std::logic_error("Domain: a name is needed for every configuration");
  for (const Gene& gene : genes_)
    step_.push_back(gene.ordered && gene.values.size() > 1 ? 1.0 / double(gene.values.size() - 1)
                                                           : 0.0);
  for (std::size_t c = 0; c < configs_.size(); ++c) by_genome_.emplace(key_of(configs_[c]), c);
}

std::optional<std::size_t> Domain::find(const Genome& genome) const {
  auto it = by_genome_.find(key_of(genome));
  if (it == by_genome_.end()) return std::nullopt;
  return it->second;
}

double Domain::distance(const Genome& a, const Genome& b) const {
  double total = 0;
  for (std::size_t g = 0; g < genes_.size(); ++g) {
    if (a[g] == b[g]) continue;
    total += genes_[g].ordered ? step_[g] * std::abs(int(a[g]) - int(b[g])) : 1.0;
  }
  return total;
}

std::size_t Domain::nearest(const Genome& genome) const {
  if (auto found = find(genome)) return *found;
  std::size_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < configs_.size(); ++c) {
    const double d = distance(genome, configs_[c]);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

Domain domain_of_space(const rules::Space& space, std::span<const std::size_t> members) {
  const auto& axes = space.rules().axes();
  std::vector<Gene> genes;
  for (const auto& axis : axes) {
    Gene gene{axis.name, {}, true};
    for (const auto& value : axis.values) {
      gene.values.push_back(value.to_string());
      gene.ordered = gene.ordered && value.is_number();
    }
    genes.push_back(std::move(gene));
  }
  std::vector<Genome> configs;
  std::vector<std::string> names;
  for (std::size_t config : members) {
    Genome genome(axes.size());
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const rules::Value value = space.value(config, int(a));
      const auto& values = axes[a].values;
      genome[a] = std::uint16_t(std::find(values.begin(), values.end(), value) - values.begin());
    }
    configs.push_back(std::move(genome));
    names.push_back(space.name(config));
  }
  return Domain(std::move(genes), std::move(configs), std::move(names));
}

namespace {

// Numbers before text, numbers ascending, text by its characters.
struct ValueOrder {
  bool operator()(const nlohmann::json& a, const nlohmann::json& b) const {
    if (a.is_number() != b.is_number()) return a.is_number();
    if (a.is_number()) return a.get<double>() < b.get<double>();
    return a.dump() < b.dump();
  }
};

std::string text_of(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

Domain domain_of_configs(const std::map<std::string, nlohmann::json>& configs) {
  std::map<std::string, std::set<nlohmann::json, ValueOrder>> values;
  for (const auto& [kernel, params] : configs) {
    if (!params.is_object() || params.empty())
      throw InputError("", 0, kernel, "a configuration's parameters must be a non-empty object");
    for (const auto& [name, value] : params.items()) {
      if (value.is_structured() || value.is_null())
        throw InputError("", 0, kernel, "parameter '" + name + "' is not a scalar");
      values[name].insert(value);
    }
  }
  std::vector<Gene> genes;
  std::vector<std::vector<nlohmann::json>> gene_values;
  for (const auto& [name, set] : values) {
    if (set.size() > std::numeric_limits<std::uint16_t>::max())
      throw InputError("", 0, name, "a parameter with more than 65535 values");
    Gene gene{name, {}, true};
    for (const auto& v : set) {
      gene.values.push_back(text_of(v));
      gene.ordered = gene.ordered && v.is_number();
    }
    genes.push_back(std::move(gene));
    gene_values.emplace_back(set.begin(), set.end());
  }
  std::vector<Genome> genomes;
  std::vector<std::string> names;
  for (const auto& [kernel, params] : configs) {
    Genome genome(genes.size());
    for (std::size_t g = 0; g < genes.size(); ++g) {
      if (!params.contains(genes[g].name))
        throw InputError("", 0, kernel, "has no parameter '" + genes[g].name + "'");
      const auto& options = gene_values[g];
      auto at =
          std::lower_bound(options.begin(), options.end(), params[genes[g].name], ValueOrder{});
      genome[g] = std::uint16_t(at - options.begin());
    }
    genomes.push_back(std::move(genome));
    names.push_back(kernel);
  }
  return Domain(std::move(genes), std::move(genomes), std::move(names));
}

}  // namespace kselect::search
