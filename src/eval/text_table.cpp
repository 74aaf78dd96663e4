#include "eval/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kselect::eval {

std::string TextTable::str() const {
  std::vector<std::size_t> width;
  for (const auto& row : rows_)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    std::string line;
    for (std::size_t c = 0; c < rows_[r].size(); ++c) {
      line += rows_[r][c];
      if (c + 1 < rows_[r].size()) line += std::string(width[c] - rows_[r][c].size() + 2, ' ');
    }
    out += line + "\n";
    if (r == 0) {
      std::size_t total = 0;
      for (std::size_t w : width) total += w + 2;
      out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
    }
  }
  return out;
}

std::string percent(double fraction, int decimals) {
  if (std::isnan(fraction)) return "-";
  return fixed(100.0 * fraction, decimals) + "%";
}

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

}  // namespace kselect::eval
