#pragma once
// Shape files: CSV with a header naming problem columns (Operation::problem_columns()) and
// one problem per row. Lines starting with '#' and blank lines are ignored.
#include <string>
#include <vector>

namespace kselect {
class Operation;

// Reads `path` and returns the canonical problems in file order, duplicates dropped. Throws
// InputError naming file:line:field for an unknown, repeated or missing column, a row with
// the wrong number of cells, a malformed number or an impossible problem.
std::vector<std::string> read_shape_csv(const Operation& op, const std::string& path);
// The same for text already in memory; `source` names it in errors.
std::vector<std::string> parse_shape_csv(const Operation& op, const std::string& text,
                                         const std::string& source);

// Writes problems (canonical text) as a shape CSV with the op's columns; a field a problem
// does not mention is left empty (its default). Throws StorageError if the file cannot be
// written.
void write_shape_csv(const Operation& op, const std::vector<std::string>& problems,
                     const std::string& path);
std::string format_shape_csv(const Operation& op, const std::vector<std::string>& problems);

}  // namespace kselect
