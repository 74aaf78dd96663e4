#include "eval/oof_file.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/error.h"
#include "core/key_values.h"
#include "model/train.h"
#include "select/ranker.h"

namespace kselect::eval {

namespace {

constexpr double kMeasuredTolerance = 1e-3;  // CSV text may round the stored value

// Splits one CSV record; double quotes enclose cells and "" inside quotes is a quote.
std::vector<std::string> split_record(std::string_view line, const std::string& where) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  if (quoted) throw InputError(where, 0, "", "unterminated quoted cell");
  return cells;
}

struct Columns {
  std::size_t problem, kernel, fold, predicted, measured, count;
  std::optional<std::size_t> shortlisted;  // optional column
};

Columns find_columns(const std::vector<std::string>& header, const std::string& where) {
  auto index = [&](const char* name) {
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw InputError(where, 0, name,
                       "missing column (expected problem,kernel,fold,predicted,measured)");
    return std::size_t(it - header.begin());
  };
  Columns cols{index("problem"),  index("kernel"), index("fold"), index("predicted"),
               index("measured"), header.size(),   std::nullopt};
  if (auto it = std::find(header.begin(), header.end(), "shortlisted"); it != header.end())
    cols.shortlisted = std::size_t(it - header.begin());
  return cols;
}

// An unquoted problem spills over several cells: put them back together.
void merge_problem_cells(std::vector<std::string>& cells, const Columns& cols) {
  std::size_t extra = cells.size() - cols.count;
  for (std::size_t i = 1; i <= extra; ++i) cells[cols.problem] += "," + cells[cols.problem + i];
  cells.erase(cells.begin() + long(cols.problem) + 1,
              cells.begin() + long(cols.problem + extra) + 1);
}

double number(const std::string& cell, const std::string& where, const char* field) {
  auto v = parse_double(cell);
  if (!v || !std::isfinite(*v)) throw InputError(where, 0, field, "not a number: '" + cell + "'");
  return *v;
}

OofRow parse_row(std::vector<std::string> cells, const Columns& cols, const std::string& where,
                 const Canonicalizer& canonical) {
  if (cells.size() < cols.count)
    throw InputError(where, 0, "",
                     "the row has " + std::to_string(cells.size()) + " cells, the header " +
                         std::to_string(cols.count));
  merge_problem_cells(cells, cols);
  OofRow row;
  row.problem = canonical ? canonical(cells[cols.problem], where) : cells[cols.problem];
  row.kernel = cells[cols.kernel];
  if (row.kernel.empty()) throw InputError(where, 0, "kernel", "empty");
  auto fold = parse_int(cells[cols.fold]);
  if (!fold) throw InputError(where, 0, "fold", "not an integer: '" + cells[cols.fold] + "'");
  row.fold = int(*fold);
  row.predicted = number(cells[cols.predicted], where, "predicted");
  row.measured = number(cells[cols.measured], where, "measured");
  if (cols.shortlisted) {
    const std::string& cell = cells[*cols.shortlisted];
    if (cell != "0" && cell != "1")
      throw InputError(where, 0, "shortlisted", "expected 0 or 1, got '" + cell + "'");
    row.shortlisted = cell == "1";
  }
  return row;
}

}  // namespace

std::vector<OofRow> parse_oof_csv(const std::string& text, const std::string& source,
                                  const Canonicalizer& canonical) {
  std::istringstream in(text);
  std::string line;
  std::optional<Columns> cols;
  std::vector<OofRow> rows;
  for (long number = 1; std::getline(in, line); ++number) {
    std::string where = source + ":" + std::to_string(number);
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
    auto cells = split_record(line, where);
    if (!cols)
      cols = find_columns(cells, where);
    else
      rows.push_back(parse_row(std::move(cells), *cols, where, canonical));
  }
  if (!cols)
    throw InputError(source, 0, "",
                     "no header line (expected problem,kernel,fold,predicted,measured)");
  return rows;
}

std::vector<OofRow> read_oof_csv(const std::string& path, const Canonicalizer& canonical) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open out-of-fold prediction file");
  std::stringstream text;
  text << in.rdbuf();
  return parse_oof_csv(text.str(), path, canonical);
}

std::vector<Prediction> to_predictions(const std::vector<OofRow>& rows, const std::string& target,
                                       model::Objective objective) {
  const double sign = model::score_sign(objective, target);
  const bool regression = objective == model::Objective::kRegression;
  std::vector<Prediction> out;
  out.reserve(rows.size());
  for (const auto& r : rows)
    out.push_back({r.problem, r.kernel, sign * r.predicted, regression ? r.predicted : std::nan(""),
                   model::predicted_speed(objective, target, r.predicted), r.shortlisted});
  return out;
}

void blend_neighbours(std::vector<Prediction>& predictions, const std::vector<OofRow>& rows,
                      const model::NeighbourTable& table) {
  if (predictions.size() != rows.size())
    throw std::logic_error("blend_neighbours: predictions and rows differ");
  std::map<std::string, std::vector<std::size_t>> by_problem;
  for (std::size_t i = 0; i < rows.size(); ++i) by_problem[rows[i].problem].push_back(i);
  std::vector<std::string> kernels;
  std::vector<double> near;
  for (const auto& [problem, indices] : by_problem) {
    kernels.clear();
    for (std::size_t i : indices) kernels.push_back(rows[i].kernel);
    const std::vector<double>* position = table.position_of(problem);
    const double share =
        position ? table.scores(*position, kernels, near, rows[indices.front()].fold, problem)
                 : 1.0;
    for (std::size_t j = 0; j < indices.size(); ++j) {
      Prediction& p = predictions[indices[j]];
      p.score = position ? model::NeighbourTable::blend_speed(share, p.speed, near[j])
                         : std::log(std::max(p.speed, 1e-300));
      p.speed = std::exp(p.score);  // what selection's default guard compares (ForestScorer)
    }
  }
}

std::vector<Prediction> blend_predictions(const std::vector<std::vector<Prediction>>& members,
                                          const std::vector<double>& weights,
                                          std::size_t survivors) {
  using Pair = std::pair<std::string, std::string>;
  struct Row {
    std::vector<double> logs;  // per member: log predicted speed
    bool listed = false;
    const Prediction* first = nullptr;
  };
  std::map<Pair, Row> rows;
  for (std::size_t i = 0; i < members.size(); ++i)
    for (const auto& p : members[i]) {
      Row& r = rows[{p.problem, p.kernel}];
      if (r.logs.size() != i) continue;  // a pair an earlier member did not predict, or a repeat
      r.logs.push_back(std::log(std::max(p.speed, 1e-300)));
      r.listed = r.listed || p.shortlisted;
      if (i == 0) r.first = &p;
    }
  // Selection ranks a problem's shortlisted kernels and the rest apart (eval's held_out()):
  // each group is one Ranker::blend_scores() call.
  std::map<std::pair<std::string, bool>, std::vector<std::pair<const Pair*, const Row*>>> groups;
  for (const auto& [pair, r] : rows)
    if (r.logs.size() == members.size()) groups[{pair.first, r.listed}].push_back({&pair, &r});
  std::vector<Prediction> out;
  for (auto& [key, group] : groups) {
    auto first_log = [](const auto& g) { return g.second->logs[0]; };
    std::stable_sort(group.begin(), group.end(),
                     [&](const auto& a, const auto& b) { return first_log(a) > first_log(b); });
    const std::size_t kept = survivors > 0 && survivors < group.size() ? survivors : group.size();
    std::vector<double> top(members.size(), -std::numeric_limits<double>::infinity());
    top[0] = first_log(group.front());
    for (std::size_t j = 0; j < kept; ++j)
      for (std::size_t i = 1; i < members.size(); ++i)
        top[i] = std::max(top[i], group[j].second->logs[i]);
    for (std::size_t j = 0; j < group.size(); ++j) {
      const Row& r = *group[j].second;
      double score = weights[0] * (r.logs[0] - top[0]);
      for (std::size_t i = 1; i < members.size(); ++i)
        score += j < kept ? weights[i] * (r.logs[i] - top[i]) : 0.0;
      if (j >= kept) score -= select::Cascade::kCutPenalty;
      out.push_back({group[j].first->first, group[j].first->second, score, r.first->predicted,
                     j < kept ? std::exp(score) : std::nan(""), r.listed});
    }
  }
  return out;
}

OofMatch match_database(const std::vector<OofRow>& rows,
                        const std::vector<data::Measurement>& measurements,
                        const std::string& target) {
  // Every valid value of a pair: training used each run's row, not only the latest.
  std::map<std::pair<std::string, std::string>, std::vector<double>> valid;
  for (const auto& m : measurements)
    if (m.valid) valid[{m.problem, m.kernel}].push_back(model::target_value(m, target));
  OofMatch match{long(rows.size()), 0, 0};
  for (const auto& r : rows) {
    auto it = valid.find({r.problem, r.kernel});
    if (it == valid.end()) continue;
    ++match.joined;
    bool same = std::any_of(it->second.begin(), it->second.end(), [&r](double stored) {
      return std::abs(r.measured - stored) <= kMeasuredTolerance * std::abs(stored);
    });
    match.mismatched += !same;
  }
  return match;
}

}  // namespace kselect::eval
