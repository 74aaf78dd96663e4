#pragma once
// The named sets of a rule file, generated over its valid space. Each set is a list of
// indices into the space, ascending, so every set keeps the space's stable order.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/key_values.h"
#include "rules/space.h"

namespace kselect::rules {

class RuleSets {
 public:
  // Enumerates the space and generates every set; throws InputError for a bad definition
  // (e.g. a listed name that is not a valid configuration).
  explicit RuleSets(RuleFile rules);
  RuleSets(const RuleSets&) = delete;
  RuleSets& operator=(const RuleSets&) = delete;

  const RuleFile& rules() const { return *rules_; }
  const Space& space() const { return *space_; }
  // Throws InputError listing the known sets.
  const std::vector<std::size_t>& get(std::string_view set) const;
  std::vector<std::string> names() const;  // file order
  // The group label of a config: its group_by axis values joined by '/' (e.g. "fp32/rcr").
  std::string group_of(std::size_t config) const;
  double generation_seconds() const { return seconds_; }
  // Members of `set` whose axes match every key=value of `filter` (values compared without
  // case, so pad_m=true matches True). Throws InputError for a key that is not an axis.
  std::vector<std::size_t> matching(std::string_view set, const KeyValues& filter) const;

 private:
  const std::vector<std::size_t>& generate(const SetSpec& spec);
  std::vector<std::size_t> base(const SetSpec& spec);
  std::vector<std::size_t> from_names(const SetSpec& spec) const;
  std::vector<std::size_t> select(const SetSpec& spec, const std::vector<std::size_t>& base) const;
  // The category text of each key for one config (one bind for all keys).
  std::vector<std::string> keys_of(const std::vector<Key>& keys, std::size_t config,
                                   const std::string& field) const;
  std::string key_of(const Key& key, std::size_t config, const std::string& field) const;

  std::unique_ptr<RuleFile> rules_;
  std::unique_ptr<Space> space_;
  std::map<std::string, std::vector<std::size_t>, std::less<>> sets_;
  double seconds_ = 0;
};

}  // namespace kselect::rules
