#pragma once
// Plain-text tables with aligned columns for the human output of eval and compare.
#include <string>
#include <vector>

namespace kselect::eval {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Columns padded to their widest cell, two spaces apart; a rule under the header.
  std::string str() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// "98.31%" for 0.9831; "-" for NaN.
std::string percent(double fraction, int decimals = 2);
// Fixed notation with `decimals` digits; "-" for NaN.
std::string fixed(double value, int decimals = 4);

}  // namespace kselect::eval
