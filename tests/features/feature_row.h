#pragma once
// One extracted feature row, read by feature name (the feature-engine tests' helper).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kselect::testing {

struct FeatureRow {
  std::vector<std::string> names;
  std::vector<float> values;
  float operator[](const std::string& name) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return values[i];
    ADD_FAILURE() << "no feature " << name;
    return NAN;
  }
};

}  // namespace kselect::testing
