#pragma once
#include <unistd.h>
// Small, fast training settings and a scratch model directory for the learning tests.
#include <filesystem>
#include <string>

#include "model/train.h"

namespace kselect::testing {

inline HardwareProfile fixed_hardware(int cores = 2) {
  HardwareProfile h;
  h.cpu_model = "test cpu";
  h.logical_cpus = cores;
  h.physical_cores = cores;
  h.max_mhz = 3000;
  h.l1d_kib = 48;
  h.l2_kib = 1024;
  h.l3_kib = 32768;
  h.isa = {"avx2", "avx512f", "fma"};
  return h;
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  // The process id keeps parallel test processes (ctest -j, two checkouts) apart.
  auto dir = std::filesystem::temp_directory_path() /
             ("kselect_test_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

inline model::TrainOptions quick_options(const std::string& name) {
  model::TrainOptions o;
  o.out_dir = scratch_dir(name);
  o.boosting.trees = 50;
  o.early_stopping = 10;
  o.boosting.eta = 0.2;
  o.boosting.max_leaves = 31;
  o.boosting.threads =
      1;  // OpenMP spinning on a shared 2-core machine costs more than it gains here
  o.boosting.min_child_weight = 3;
  o.hardware = fixed_hardware();
  return o;
}

}  // namespace kselect::testing
