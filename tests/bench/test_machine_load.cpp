#include "bench/machine_load.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace kselect::bench {
namespace {

// Laps far shorter than a clock tick read whole ticks of other processes' time over a few
// microseconds: without a bound such a lap reports thousands of busy CPUs.
TEST(MachineLoad, OtherCpusStayWithinTheMachine) {
  const double cpus = double(sysconf(_SC_NPROCESSORS_ONLN));
  OtherCpuMeter meter;
  for (int lap = 0; lap < 3000; ++lap) {
    if (lap % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const double others = meter.lap();
    ASSERT_GE(others, 0.0);
    ASSERT_LE(others, cpus) << "lap " << lap;
  }
  EXPECT_GE(load_average_1min(), 0.0);
}

}  // namespace
}  // namespace kselect::bench
