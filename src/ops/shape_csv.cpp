#include "ops/shape_csv.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/key_values.h"
#include "core/text.h"
#include "ops/operation.h"

namespace kselect {

namespace {

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

// Only printable ASCII is echoed back in messages, so garbage input gives readable errors.
std::string printable(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 40)) out += (c >= 32 && c < 127) ? c : '?';
  return text.size() > 40 ? out + "..." : out;
}

std::vector<std::string> parse_header(const Operation& op, const std::string& line,
                                      const std::string& where) {
  auto known = op.problem_columns();
  auto columns = split_cells(line);
  std::set<std::string> seen;
  for (const auto& column : columns) {
    if (std::find(known.begin(), known.end(), column) == known.end()) {
      throw InputError(
          where, 0, printable(column),
          "unknown column for op " + std::string(op.name()) + " (expected " + join(known) + ")");
    }
    if (!seen.insert(column).second) throw InputError(where, 0, column, "column given twice");
  }
  return columns;
}

std::string parse_row(const Operation& op, const std::vector<std::string>& columns,
                      const std::string& line, const std::string& where) {
  auto cells = split_cells(line);
  if (cells.size() < columns.size())
    throw InputError(where, 0, columns[cells.size()],
                     "missing: the row has " + std::to_string(cells.size()) +
                         " cells, the header " + std::to_string(columns.size()));
  if (cells.size() > columns.size())
    throw InputError(where, 0, "",
                     "the row has " + std::to_string(cells.size()) + " cells, the header only " +
                         std::to_string(columns.size()));
  KeyValues kv;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (cells[i].empty()) continue;  // the field's default
    if (cells[i].find_first_of("=,") != std::string::npos)
      throw InputError(where, 0, columns[i],
                       "unexpected character in '" + printable(cells[i]) + "'");
    kv.set(columns[i], cells[i]);
  }
  try {
    return op.canonical_problem(kv.to_string(), where);
  } catch (const InputError& e) {
    // Every error of a row names its file and line, whichever part of the op raised it.
    const std::string what = e.what();
    if (what.rfind(where, 0) == 0) throw;
    throw InputError(where + ": " + what);
  }
}

}  // namespace

std::vector<std::string> parse_shape_csv(const Operation& op, const std::string& text,
                                         const std::string& source) {
  std::vector<std::string> problems, columns;
  std::set<std::string> seen;
  // A byte-order mark, as spreadsheet programs write, is not part of the header.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  std::istringstream in(text.rfind(kBom, 0) == 0 ? text.substr(kBom.size()) : text);
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    std::string content = trim(line);
    if (content.empty() || content[0] == '#') continue;
    std::string where = source + ":" + std::to_string(number);
    if (columns.empty()) {
      columns = parse_header(op, content, where);
      continue;
    }
    std::string problem = parse_row(op, columns, content, where);
    if (seen.insert(problem).second) problems.push_back(problem);
  }
  if (columns.empty()) throw InputError(source, 0, "", "no header line (expected problem columns)");
  if (problems.empty()) throw InputError(source, 0, "", "no problem rows after the header");
  return problems;
}

std::vector<std::string> read_shape_csv(const Operation& op, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open shape file");
  std::stringstream text;
  text << in.rdbuf();
  return parse_shape_csv(op, text.str(), path);
}

std::string format_shape_csv(const Operation& op, const std::vector<std::string>& problems) {
  const auto columns = op.problem_columns();
  std::string out = join(columns, ",") + "\n";
  for (const auto& problem : problems) {
    const KeyValues kv = KeyValues::parse(problem);
    out += join(
        columns, [&kv](const std::string& c) { return kv.get(c).value_or(""); }, ",");
    out += "\n";
  }
  return out;
}

void write_shape_csv(const Operation& op, const std::vector<std::string>& problems,
                     const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << format_shape_csv(op, problems);
  if (!out.flush()) throw StorageError(path + ": cannot write shape file");
}

}  // namespace kselect
