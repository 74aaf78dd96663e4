#pragma once
// Shared by the catalogue tests of the ops: a catalogue answers as its op does by name, and a
// call with a bad operand list is refused naming what is wrong.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/operation.h"

namespace kselect::testing {

// The op's catalogue of `kernels` gives the op's own reasons for every kernel on every one of
// `problems` and lists the supported ones in order; some kernels run some problem and some
// do not.
inline void expect_catalogue_answers_as_names(const Operation& op,
                                              const std::vector<std::string>& kernels,
                                              const std::vector<std::string>& problems) {
  auto catalogue = op.catalogue(kernels);
  ASSERT_EQ(catalogue->names(), kernels);
  std::size_t supported_total = 0, unsupported_total = 0;
  for (const std::string& problem : problems) {
    std::vector<std::uint32_t> expected;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const std::string why = op.unsupported_reason(kernels[i], problem);
      EXPECT_EQ(catalogue->unsupported_reason(i, problem), why) << kernels[i] << " on " << problem;
      if (why.empty()) expected.push_back(std::uint32_t(i));
    }
    EXPECT_EQ(catalogue->supported(problem), expected) << problem;
    supported_total += expected.size();
    unsupported_total += kernels.size() - expected.size();
  }
  EXPECT_GT(supported_total, 0u);
  EXPECT_GT(unsupported_total, 0u);
}

// What wrap_buffers says of `buffers` for `problem`: its InputError's text, or "no error".
inline std::string wrap_error(const Operation& op, const std::string& problem,
                              std::vector<void*> buffers) {
  try {
    op.wrap_buffers(problem, buffers);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace kselect::testing
