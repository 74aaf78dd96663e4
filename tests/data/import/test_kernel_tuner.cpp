// The kernel-tuner importer: small hand-written caches (valid, failed, malformed, truncated) and
// the three shipped convolution caches (counts and best times from datasets.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "import_collector.h"

namespace kselect::importers {
namespace {

using kselect::testing::ImportCollector;
using ::testing::HasSubstr;

ImportCollector import_cache(const std::string& text, const std::string& settings = "",
                             const std::string& source = "/data/conv_A100.json",
                             const std::string& device = "") {
  return kselect::testing::collect_text("kernel-tuner", text, source, settings, device);
}

const std::string kHeader = R"({
"device_name": "NVIDIA A100-PCIE-40GB",
"kernel_name": "convolution_kernel",
"problem_size": [4096, 2048],
"tune_params_keys": ["block_size_x", "tile_size_x", "use_shmem"],
"tune_params": {"block_size_x": [16, 32], "tile_size_x": [1, 2], "use_shmem": [0, 1]},
"objective": "time",
"cache": {
)";

std::string cache(const std::string& entries) {
  return kHeader + entries + "\n}\n}\n";
}

const std::string kValid =
    R"("16,1,0": {"block_size_x": 16, "tile_size_x": 1, "use_shmem": 0, "time": 3.5, )"
    R"("times": [3.4, 3.6], "compile_time": 918.5, "GFLOP/s": 1948.25})";
const std::string kFailed = R"("32,2,1": {"block_size_x": 32, "tile_size_x": 2, "use_shmem": 1, )"
                            R"("time": "RuntimeFailedConfig", "compile_time": 3595.0})";

TEST(KernelTuner, ValidEntry) {
  auto sink = import_cache(cache(kValid));
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_TRUE(sink.skips.empty());
  const ImportedRow& row = sink.rows[0];
  EXPECT_EQ(row.problem,
            "device=NVIDIA_A100-PCIE-40GB,kernel=convolution_kernel,size_x=4096,size_y=2048");
  EXPECT_EQ(row.kernel, "block_size_x=16,tile_size_x=1,use_shmem=0");
  EXPECT_EQ(row.kernel_config,
            nlohmann::json({{"block_size_x", 16}, {"tile_size_x", 1}, {"use_shmem", 0}}));
  EXPECT_TRUE(row.valid);
  EXPECT_DOUBLE_EQ(row.time_ms, 3.5);
  EXPECT_DOUBLE_EQ(row.tflops, 1.94825);
  EXPECT_EQ(row.line, 9);
}

TEST(KernelTuner, FailedConfigurationsAreInvalidRowsWithTheirReason) {
  auto sink = import_cache(cache(kValid + ",\n" + kFailed + ",\n" +
                                 R"("32,1,0": {"block_size_x": 32, "tile_size_x": 1, )"
                                 R"("use_shmem": 0, "time": "CompilationFailedConfig"})"));
  ASSERT_EQ(sink.rows.size(), 3u);
  EXPECT_FALSE(sink.rows[1].valid);
  EXPECT_EQ(sink.rows[1].reason, "RuntimeFailedConfig");
  EXPECT_EQ(sink.rows[1].kernel, "block_size_x=32,tile_size_x=2,use_shmem=1");
  EXPECT_TRUE(std::isnan(sink.rows[1].time_ms));
  EXPECT_EQ(sink.rows[1].line, 10);
  EXPECT_EQ(sink.rows[2].reason, "CompilationFailedConfig");
}

TEST(KernelTuner, ZeroAndNegativeTimesAreInvalid) {
  auto sink = import_cache(
      cache(R"("16,1,0": {"block_size_x": 16, "tile_size_x": 1, "use_shmem": 0, "time": 0},)"
            "\n"
            R"("16,2,0": {"block_size_x": 16, "tile_size_x": 2, "use_shmem": 0, "time": -2.5})"));
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_FALSE(sink.rows[0].valid);
  EXPECT_EQ(sink.rows[0].reason, "time 0 ms");
  EXPECT_EQ(sink.rows[1].reason, "time -2.5 ms");
}

TEST(KernelTuner, BadEntriesAreSkippedNamingTheField) {
  auto sink = import_cache(
      cache(R"("a": {"block_size_x": 16, "tile_size_x": 1, "use_shmem": 0},)"
            "\n"
            R"("b": {"block_size_x": 16, "tile_size_x": [1], "use_shmem": 0, "time": 1},)"
            "\n"
            R"("c": {"block_size_x": 16, "tile_size_x": 1, "use_shmem": 0, "time": null},)"
            "\n"
            R"("d": 5,)"
            "\n"
            R"("e": {"block_size_x": 16, "use_shmem": 0, "time": 1},)"
            "\n"
            R"("f": {"block_size_x": "a b", "tile_size_x": 1, "use_shmem": 0, "time": 1},)"
            "\n" +
            kValid));
  ASSERT_EQ(sink.rows.size(), 1u);
  ASSERT_EQ(sink.skips.size(), 6u);
  EXPECT_EQ(sink.skips[0].reason, "entry 'a': field 'time': missing");
  EXPECT_EQ(sink.skips[0].line, 9);
  EXPECT_EQ(sink.skips[1].reason, "entry 'b': field 'tile_size_x': not a number, string or bool");
  EXPECT_EQ(sink.skips[2].reason, "entry 'c': field 'time': not a number or a failure name");
  EXPECT_EQ(sink.skips[3].reason, "entry 'd': not an object");
  EXPECT_EQ(sink.skips[4].reason, "entry 'e': field 'tile_size_x': missing");
  EXPECT_THAT(sink.skips[5].reason, HasSubstr("entry 'f': field 'block_size_x'"));
  EXPECT_EQ(sink.skips[5].line, 14);
}

TEST(KernelTuner, ParametersFromTheCacheKeyWhenTheEntryLacksThem) {
  auto sink = import_cache(cache(R"("16,2,1": {"time": 2.0})"));
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0].kernel, "block_size_x=16,tile_size_x=2,use_shmem=1");
  EXPECT_EQ(sink.rows[0].kernel_config["tile_size_x"], 2);
}

TEST(KernelTuner, FloatStringAndBoolParameters) {
  auto sink = import_cache(
      cache(R"("x": {"block_size_x": 16.0, "tile_size_x": 0.25, "use_shmem": true, "time": 1})"));
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0].kernel, "block_size_x=16,tile_size_x=0.25,use_shmem=true");
  EXPECT_EQ(sink.rows[0].kernel_config["use_shmem"], true);
  auto strings = import_cache(
      cache(R"("x": {"block_size_x": "float4", "tile_size_x": 1, "use_shmem": 0, "time": 1})"));
  ASSERT_EQ(strings.rows.size(), 1u);
  EXPECT_EQ(strings.rows[0].kernel_config["block_size_x"], "float4");
}

// Kernel Tuner appends while it tunes: an interrupted run leaves a cache cut mid-entry.
TEST(KernelTuner, TruncatedCacheKeepsCompleteEntries) {
  std::string full = cache(kValid + ",\n" + kFailed);
  std::string cut = full.substr(0, full.find("RuntimeFailed"));
  auto sink = import_cache(cut);
  ASSERT_EQ(sink.rows.size(), 1u);
  ASSERT_EQ(sink.skips.size(), 1u);
  EXPECT_EQ(sink.skips[0].line, 10);
  EXPECT_THAT(sink.skips[0].reason, HasSubstr("field 'cache': JSON ends early"));
  // Anything after the document is reported the same way, after the entries.
  auto trailing = import_cache(full + "trailing");
  EXPECT_EQ(trailing.rows.size(), 2u);
  EXPECT_EQ(trailing.skips.size(), 1u);
  // Cut inside the header: not a cache at all.
  EXPECT_THROW(import_cache(kHeader.substr(0, 60)), InputError);
}

TEST(KernelTuner, EmptyGarbageAndWrongStructureAreErrors) {
  EXPECT_THROW(import_cache(""), InputError);
  EXPECT_THROW(import_cache(std::string("\x1f\x8b\x08\0\xff\xfe", 6)), InputError);
  EXPECT_THROW(import_cache("[1, 2, 3]"), InputError);
  EXPECT_THROW(import_cache("42"), InputError);
  EXPECT_THROW(import_cache(R"({"device_name": "x"})"), InputError);  // no cache
  EXPECT_THROW(import_cache(R"({"cache": [1]})"), InputError);
  EXPECT_THROW(import_cache(R"({"tune_params_keys": "a", "cache": {"1": {"time": 1}}})"),
               InputError);
  EXPECT_THROW(import_cache(R"({"tune_params_keys": ["a"], "device_name": 3, "cache": {}})"),
               InputError);
}

TEST(KernelTuner, MembersAfterTheCacheAreStillUsed) {
  auto sink = import_cache(R"({"cache": {"8,1": {"time": 1.5}, "8,2": {"time": 2.5}},
      "tune_params_keys": ["bx", "ty"], "device_name": "MI250X", "problem_size": 1024})");
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_EQ(sink.rows[0].problem, "device=MI250X,size_x=1024");
  EXPECT_EQ(sink.rows[1].kernel, "bx=8,ty=2");
}

TEST(KernelTuner, DeviceFromOptionNameOrFileName) {
  const Importer& importer = find_importer("kernel-tuner");
  EXPECT_EQ(importer.device_from_name("/d/convolution_milo_MI250X.json.gz"), "MI250X");
  EXPECT_EQ(importer.device_from_name("cache.json"), "");
  std::string empty_device = kHeader;
  empty_device.replace(empty_device.find("NVIDIA A100-PCIE-40GB"), 21, "  ");
  auto from_name = import_cache(empty_device + kValid + "}}");
  ASSERT_EQ(from_name.rows.size(), 1u);
  EXPECT_THAT(from_name.rows[0].problem, HasSubstr("device=A100,"));
  auto from_option = import_cache(cache(kValid), "", "/data/conv_A100.json", "MI300X");
  EXPECT_THAT(from_option.rows[0].problem, HasSubstr("device=MI300X,"));
  EXPECT_THROW(import_cache(cache(kValid), "", "/data/conv_A100.json", "my gpu"), InputError);
  EXPECT_THROW(import_cache(cache(kValid), "gpu=x"), InputError);
  try {  // the device is no setting: --device gives it
    import_cache(cache(kValid), "device=MI300X");
    ADD_FAILURE() << "a device setting was accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--device"));
  }
}

TEST(KernelTuner, HugeNumbers) {
  auto sink = import_cache(
      cache(R"("x": {"block_size_x": 18446744073709551615, "tile_size_x": 1e300, "use_shmem": 0, )"
            R"("time": 1e308, "GFLOP/s": 1e308})"));
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0].kernel,
            "block_size_x=18446744073709551615,tile_size_x=1e+300,use_shmem=0");
  EXPECT_TRUE(sink.rows[0].valid);
  // A number beyond double is a JSON error in the cache: what came before is kept.
  auto overflow = import_cache(cache(kValid + ",\n" + R"("x": {"time": 1e999})"));
  EXPECT_EQ(overflow.rows.size(), 1u);
  ASSERT_EQ(overflow.skips.size(), 1u);
  EXPECT_EQ(overflow.skips[0].line, 10);
}

struct Shipped {
  size_t rows = 0, valid = 0, runtime_failed = 0, compile_failed = 0, other_invalid = 0, skips = 0;
  double best_ms = INFINITY;
  std::string problem, device_from_name;
};

std::string shipped_path(const std::string& gpu) {
  return std::string(KSELECT_SHARED_DATA_DIR) + "/kernel-tuner/convolution_milo_" + gpu +
         ".json.gz";
}

// Imports a shipped cache. The tests skip only when the file is absent: a present file that
// yields no rows fails them.
Shipped import_shipped(const std::string& path) {
  auto sink = kselect::testing::collect_file("kernel-tuner", path);
  Shipped out;
  out.rows = sink.rows.size();
  // What the driver records as the run's device is what the problems name.
  out.device_from_name = find_importer("kernel-tuner").device_from_name(path);
  out.skips = sink.skips.size();
  for (const auto& row : sink.rows) {
    out.problem = row.problem;
    if (row.valid) {
      ++out.valid;
      out.best_ms = std::min(out.best_ms, row.time_ms);
    } else if (row.reason == "RuntimeFailedConfig") {
      ++out.runtime_failed;
    } else if (row.reason == "CompilationFailedConfig") {
      ++out.compile_failed;
    } else {
      ++out.other_invalid;
    }
  }
  std::printf(
      "%s: %s: %zu valid, %zu runtime failures, %zu compile failures, %zu other invalid, "
      "%zu skips, best %.4f ms\n",
      path.c_str(), out.problem.c_str(), out.valid, out.runtime_failed, out.compile_failed,
      out.other_invalid, out.skips, out.best_ms);
  return out;
}

TEST(KernelTunerShipped, A100) {
  const std::string path = shipped_path("A100");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not present: " << path;
  auto counts = import_shipped(path);
  ASSERT_GT(counts.rows, 0u) << path << ": the importer returned no rows";
  EXPECT_EQ(counts.valid, 4201u);
  EXPECT_EQ(counts.runtime_failed, 155u);
  EXPECT_EQ(counts.compile_failed, 6u);
  EXPECT_EQ(counts.other_invalid + counts.skips, 0u);
  EXPECT_NEAR(counts.best_ms, 0.554, 0.0005);
  EXPECT_EQ(counts.problem,
            "device=NVIDIA_A100-PCIE-40GB,kernel=convolution_kernel,size_x=4096,size_y=4096");
  EXPECT_EQ(counts.device_from_name, "NVIDIA_A100-PCIE-40GB");
}

TEST(KernelTunerShipped, MI250XTakesItsDeviceFromTheFileName) {
  const std::string path = shipped_path("MI250X");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not present: " << path;
  auto counts = import_shipped(path);
  ASSERT_GT(counts.rows, 0u) << path << ": the importer returned no rows";
  EXPECT_EQ(counts.valid, 4362u);  // no failures on this GPU
  EXPECT_NEAR(counts.best_ms, 0.659, 0.0005);
  EXPECT_EQ(counts.skips, 0u);
  EXPECT_EQ(counts.problem, "device=MI250X,kernel=convolution_kernel,size_x=4096,size_y=4096");
  EXPECT_EQ(counts.device_from_name, "MI250X");  // its device_name is empty
}

TEST(KernelTunerShipped, W6600) {
  const std::string path = shipped_path("W6600");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not present: " << path;
  auto counts = import_shipped(path);
  ASSERT_GT(counts.rows, 0u) << path << ": the importer returned no rows";
  EXPECT_EQ(counts.valid, 4362u);
  EXPECT_NEAR(counts.best_ms, 1.73, 0.005);
  EXPECT_EQ(counts.skips, 0u);
  EXPECT_THAT(counts.problem, HasSubstr("device=AMD_Radeon_PRO_W6600,"));
}

}  // namespace
}  // namespace kselect::importers
