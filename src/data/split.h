#pragma once
// Splitting a measurement database by problem into a training and a held-out database, for
// held-out evaluation of models trained on the rest (`kselect db split`, docs/database.md).
#include <string>

namespace kselect::data {

struct SplitSide {
  std::string path;
  long problems = 0, measurements = 0;
};

struct SplitResult {
  SplitSide train, held;
};

// Writes <out_dir>/train<part>.sqlite and <out_dir>/held<part>.sqlite, each a copy of the store
// at `db` (meta, runs and kernels unchanged, ids kept) without some problems: the problems whose
// id is congruent to `part` modulo `parts`, and their measurements, go only to the held-out
// copy, all the others only to the training copy. Existing files of those names are replaced,
// each only once its copy is complete (a failed split leaves them as they were); `out_dir` is
// created if missing. Throws InputError unless 0 <= part < parts, or when an output would
// replace the input; StorageError when the input is not a readable kselect store or an output
// cannot be written.
SplitResult split_store(const std::string& db, const std::string& out_dir, int part, int parts);

}  // namespace kselect::data
