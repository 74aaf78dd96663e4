#pragma once
// A kselect store of the synthetic GEMM sweep (tests/model/synthetic.h), as `kselect bench`
// writes one: each problem's kernels with their configuration fields.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "data/store.h"

namespace kselect::testing {

inline std::string synthetic_gemm_store(const std::string& name) {
  const auto dir = scratch_dir(name);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "gemm.sqlite").string();
  std::map<std::string, std::vector<data::Measurement>> by_problem;
  for (auto& m : synthetic_measurements()) by_problem[m.problem].push_back(m);
  data::Store store(db);
  const long run = store.begin_run("gemm", fixed_hardware(), {}, "k", 0);
  for (auto& [problem, rows] : by_problem)
    store.write_problem(run, "k", "gemm", problem, rows, [](const std::string& k) {
      return nlohmann::json(gemm::GemmConfig::parse_name(k));
    });
  store.finish_run(run, 0, false, "finished");
  return db;
}

}  // namespace kselect::testing
