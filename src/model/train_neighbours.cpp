#include "model/train_neighbours.h"

#include <filesystem>
#include <map>

#include "model/neighbours.h"
#include "model/train_cv.h"

namespace kselect::model {

void write_neighbours(const Dataset& d, const std::string& target,
                      const std::vector<std::string>& feature_names, const TrainOptions& o,
                      bool cv) {
  const std::filesystem::path file = o.out_dir / NeighbourTable::kFile;
  if (!o.warm_start.empty()) {
    const std::filesystem::path kept = o.warm_start / NeighbourTable::kFile;
    if (std::filesystem::exists(kept) && !std::filesystem::equivalent(o.warm_start, o.out_dir))
      std::filesystem::copy_file(kept, file, std::filesystem::copy_options::overwrite_existing);
    return;
  }
  if (o.neighbours <= 0) {
    std::filesystem::remove(file);
    return;
  }
  const std::vector<std::size_t> rows = target_rows(d.rows, target);
  const std::vector<double> efficiency = within_problem_efficiency(d, rows, target);
  const std::vector<int> fold_of =
      cv ? fold_of_rows(d.groups, rows, o.folds) : std::vector<int>(rows.size(), -1);
  std::map<std::string, std::size_t> index;
  std::vector<std::string> problems;
  std::vector<int> folds;
  std::vector<NeighbourRow> table_rows;
  std::vector<float> features;
  features.reserve(rows.size() * d.cols);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const data::Measurement& m = *d.rows[rows[i]];
    auto [it, fresh] = index.emplace(m.problem, problems.size());
    if (fresh) problems.push_back(m.problem), folds.push_back(fold_of[i]);
    table_rows.push_back({it->second, m.kernel, efficiency[i]});
    const float* x = d.x.data() + rows[i] * d.cols;
    features.insert(features.end(), x, x + d.cols);
  }
  NeighbourTable::build(feature_names, features, table_rows, problems, folds, o.neighbours,
                        o.neighbour_weight, o.neighbour_gate, o.neighbour_power)
      .save(o.out_dir);
}

}  // namespace kselect::model
