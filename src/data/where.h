#pragma once
// Problems picked by their field values, the one filter behind every verb's --where (train,
// features, eval in every protocol): "dir=fwd,layout=nhwgc" keeps the problems whose text has
// those values; "key!=value" drops those that have it (several per key allowed:
// "layout!=NCDHW,layout!=NDHWC"). Fields are the key=value pairs of the canonical problem text,
// whatever the op, so it filters any op's problems without knowing one.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/key_values.h"

namespace kselect::data {

class ProblemWhere {
 public:
  ProblemWhere() = default;
  // Throws InputError naming `source` for an item that is not key=value or key!=value.
  explicit ProblemWhere(const std::string& text, const std::string& source = "--where");

  bool empty() const { return wanted_.items().empty() && unwanted_.empty(); }
  // Whether `problem` (key=value text) has every wanted value and none of the unwanted ones; a
  // field the problem lacks matches no wanted value.
  bool matches(std::string_view problem) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  KeyValues wanted_;
  std::vector<std::pair<std::string, std::string>> unwanted_;
};

}  // namespace kselect::data
