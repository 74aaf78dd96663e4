#include <gtest/gtest.h>

#include "core/error.h"
#include "import_collector.h"

namespace kselect::testing {
namespace {

TEST(CkLog, FixtureRowsExactly) {
  auto sink = collect_text("ck-log", fixture_text("ck/gemm_bench.log"));
  ASSERT_EQ(sink.rows.size(), 4u);
  const auto& first = sink.rows[0];
  EXPECT_EQ(first.problem, "m=1024,n=1024,k=1024,split_k=1,layout=rcr,dtype=fp16");
  EXPECT_EQ(first.line, 5);
  EXPECT_TRUE(first.valid);
  EXPECT_DOUBLE_EQ(first.time_ms, 0.0215);
  EXPECT_DOUBLE_EQ(first.tflops, 99.88);
  EXPECT_DOUBLE_EQ(first.bandwidth_gb_s, 292.6);
  EXPECT_EQ(first.kernel_config["tile_k"], 32);
  EXPECT_EQ(first.kernel_config["pipeline"], "compv4");

  const auto& one_line = sink.rows[1];  // an object written on one line
  EXPECT_EQ(one_line.kernel, kCkMem);
  EXPECT_EQ(one_line.line, 30);
  EXPECT_EQ(one_line.kernel_config["pad_m"], 1);  // mem always pads
  EXPECT_EQ(one_line.kernel_config["pad_k"], 1);

  EXPECT_EQ(sink.rows[2].problem, "m=1,n=4096,k=4096,split_k=1,layout=rcr,dtype=fp16");
  EXPECT_TRUE(sink.rows[2].valid);
  EXPECT_EQ(sink.rows[3].line, 42);
  EXPECT_FALSE(sink.rows[3].valid);  // latency 0 and tflops 0
  EXPECT_EQ(sink.rows[3].reason, "time 0 ms");
}

TEST(CkLog, MalformedObjectsAreSkippedWithTheirLine) {
  auto sink = collect_text("ck-log", fixture_text("ck/gemm_bench.log"));
  ASSERT_EQ(sink.skips.size(), 2u);
  EXPECT_EQ(sink.skips[0].line, 52);
  EXPECT_NE(sink.skips[0].reason.find("malformed JSON object"), std::string::npos);
  EXPECT_EQ(sink.skips[1].line, 57);
  EXPECT_EQ(sink.skips[1].reason, "field 'perf_result': missing or not an object");
}

TEST(CkLog, ValidOnlyWithPositiveTflopsAndLatency) {
  auto sink = collect_text("ck-log", R"L(Shape 0: M=64 N=64 K=64 dtype=bf16 layout=rrr
{"name": "k1", "perf_result": {"latency(ms)": 0.5, "tflops(TFlops)": 0}}
{"name": "k2", "perf_result": {"latency(ms)": -0.5, "tflops(TFlops)": 1}}
{"name": "k3", "perf_result": {"latency(ms)": 0.5}}
)L");
  ASSERT_EQ(sink.rows.size(), 3u);
  EXPECT_FALSE(sink.rows[0].valid);
  EXPECT_EQ(sink.rows[0].reason, "tflops 0");
  EXPECT_FALSE(sink.rows[1].valid);
  EXPECT_TRUE(sink.rows[2].valid);  // no tflops: computed from the Shape line
  EXPECT_NEAR(sink.rows[2].tflops, 2.0 * 64 * 64 * 64 / 0.5e-3 / 1e12, 1e-15);
  EXPECT_EQ(sink.rows[2].problem, "m=64,n=64,k=64,split_k=1,layout=rrr,dtype=bf16");
  EXPECT_EQ(sink.rows[2].kernel_config, nlohmann::json::object());  // not a CK name: an id
}

TEST(CkLog, BadShapeLinesAndMissingSizes) {
  auto sink = collect_text("ck-log", R"L(Shape 0: M=64 N=64 dtype=bf16
{"name": "k1", "perf_result": {"latency(ms)": 0.5}}
Shape 1: M=64 N=1e400 K=2 dtype=bf16
Shape 2 M=1
{"name": "k2", "problem": {"m": 4, "n": 4, "k": 4}, "perf_result": {"latency(ms)": 1}}
{"name": "k3", "problem": {"m": 4, "n": -4, "k": 4}, "perf_result": {"latency(ms)": 1}}
{"name": "k4", "perf_result": {"latency(ms)": 1e400}}
{"name": "k5", "problem": {"m": 4, "n": 4, "k": 4}, "perf_result": {"latency(ms)": "fast"}}
{"perf_result": {"latency(ms)": 1}}
)L");
  ASSERT_EQ(sink.rows.size(), 1u);  // k2 carries its own sizes
  EXPECT_EQ(sink.rows[0].problem, "m=4,n=4,k=4,split_k=1");
  std::vector<std::pair<long, std::string>> expected_parts = {
      {1, "field 'K': missing"},
      {2, "no sizes"},
      {3, "field 'N': not a positive integer"},
      {4, "Shape line without ':'"},
      {6, "field 'problem.n'"},
      {7, "number overflow"},
      {8, "field 'perf_result.latency(ms)': not a number"},
      {9, "field 'name'"}};
  expect_skips(sink, expected_parts);
}

TEST(CkLog, TruncatedObjects) {
  std::string text = fixture_text("ck/gemm_bench.log");
  auto cut = collect_text("ck-log", text.substr(0, text.find("\"bandwidth(GB/s)\": 292.6")));
  EXPECT_TRUE(cut.rows.empty());
  ASSERT_EQ(cut.skips.size(), 1u);
  EXPECT_EQ(cut.skips[0].line, 5);
  EXPECT_NE(cut.skips[0].reason.find("file ends"), std::string::npos);

  auto interrupted = collect_text("ck-log", R"L(Shape 0: M=8 N=8 K=8 dtype=fp16 layout=rcr
{
  "name": "k1",
Shape 1: M=16 N=16 K=16 dtype=fp16 layout=rcr
{"name": "k2", "perf_result": {"latency(ms)": 1}}
)L");
  ASSERT_EQ(interrupted.rows.size(), 1u);
  EXPECT_EQ(interrupted.rows[0].problem, "m=16,n=16,k=16,split_k=1,layout=rcr,dtype=fp16");
  ASSERT_EQ(interrupted.skips.size(), 1u);
  EXPECT_EQ(interrupted.skips[0].line, 2);
}

TEST(CkLog, NotALogIsAnInputError) {
  EXPECT_THROW(collect_text("ck-log", ""), InputError);
  EXPECT_THROW(collect_text("ck-log", "just some\nlog output\n"), InputError);
  EXPECT_THROW(collect_text("ck-log", std::string("\x00\x01\xff\xfe\n\x7f", 6)), InputError);
  EXPECT_THROW(collect_text("ck-log", "Shape 0: M=1 N=1 K=1\n", "", "layout=rcr"), InputError);
}

TEST(CkLog, BinaryGarbageWithBracesIsSkippedNotACrash) {
  std::string garbage = "{\x01\"\\\xff}}}\n{{{\x00\n\"unterminated\n";
  garbage += std::string(3000, '{');
  auto sink = collect_text("ck-log", garbage);
  EXPECT_TRUE(sink.rows.empty());
  EXPECT_FALSE(sink.skips.empty());
}

}  // namespace
}  // namespace kselect::testing
