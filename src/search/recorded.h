#pragma once
// Recorded measurements as a tuning loop's measurement source: a kselect store, or any file
// `kselect import` reads (a Kernel Tuner cache by default), imported into a temporary store
// through the import driver so that the same rows come out either way. Each problem becomes a
// tuning target: the configurations measured for it (failed ones included: measuring them
// costs a measurement and yields nothing) with their recorded speeds.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"
#include "search/domain.h"

namespace kselect::search {

struct RecordedData {
  std::vector<data::Measurement> rows;
  std::map<std::string, nlohmann::json> configs;  // kernel -> its parameters
};

// `format`: the import format of a file that is not a store. InputError for an unreadable
// file or one of another format, StorageError for a corrupt store.
RecordedData load_recorded(const std::string& path, const std::string& format = "kernel-tuner");

// Each problem's configurations with their speeds, 1 / time (ms), 0 for a failed one.
using SpeedsByProblem = std::map<std::string, std::map<std::string, double>>;
SpeedsByProblem speeds_by_problem(const std::vector<data::Measurement>& rows);

struct TuningTarget {
  std::string problem;
  Domain domain;  // the configurations measured for the problem
  // Per configuration: 1 / time (ms), 0 when it failed; empty for a target measured live
  // (search/live.h), whose speeds nobody knows beforehand.
  std::vector<double> speed;
  double optimum = 0;  // the largest speed
  std::size_t configurations() const { return domain.size(); }
  // Configurations whose speed is at least `fraction` of the optimum.
  std::size_t within(double fraction) const;
};

// One target per problem of `data` that has a configuration of finite time > 0. InputError
// when none has, or when a measured kernel has no parameters.
std::vector<TuningTarget> tuning_targets(const RecordedData& data);

}  // namespace kselect::search
