#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "import_collector.h"

namespace kselect::testing {
namespace {

TEST(CkJson, FixtureRowsExactly) {
  auto sink = collect_text("ck-json", fixture_text("ck/gemm_bench.json"));
  ASSERT_EQ(sink.rows.size(), 5u);
  EXPECT_TRUE(sink.skips.empty());
  const auto& first = sink.rows[0];
  EXPECT_EQ(first.kernel, kCkCompv4);
  EXPECT_EQ(first.problem, "m=1024,n=1024,k=1024,split_k=1,layout=rcr,dtype=fp16");
  EXPECT_TRUE(first.valid);
  EXPECT_DOUBLE_EQ(first.time_ms, 0.0215);
  EXPECT_DOUBLE_EQ(first.tflops, 99.88);
  EXPECT_EQ(first.line, 26);
  EXPECT_EQ(first.kernel_config,
            nlohmann::json::parse(R"({"tile_m":128,"tile_n":128,"tile_k":32,"warp_m":2,"warp_n":2,
              "warp_k":1,"warp_tile_m":32,"warp_tile_n":32,"warp_tile_k":16,"pipeline":"compv4",
              "epilogue":"cshuffle","scheduler":"intrawave","pad_m":1,"pad_n":1,"pad_k":1,
              "persistent":0})"));
  // tflops null: 2MNK / seconds / 1e12.
  const auto& gemv = sink.rows[1];
  EXPECT_EQ(gemv.problem, "m=1,n=4096,k=4096,split_k=1,layout=rcr,dtype=fp16");
  EXPECT_NEAR(gemv.tflops, 2.0 * 4096 * 4096 / 0.05e-3 / 1e12, 1e-12);
  EXPECT_EQ(gemv.line, 31);
}

TEST(CkJson, MemPipelineAlwaysPads) {
  auto sink = collect_text("ck-json", fixture_text("ck/gemm_bench.json"));
  ASSERT_EQ(sink.rows.size(), 5u);
  const auto& mem = sink.rows[2];
  EXPECT_EQ(mem.kernel, kCkMem);
  EXPECT_EQ(mem.kernel_config["pipeline"], "mem");
  // The file says false for all three (name and kernel_config); CK's fix sets them.
  EXPECT_EQ(mem.kernel_config["pad_m"], 1);
  EXPECT_EQ(mem.kernel_config["pad_n"], 1);
  EXPECT_EQ(mem.kernel_config["pad_k"], 1);
  EXPECT_EQ(mem.kernel_config["tile_n"], 128);
}

TEST(CkJson, InvalidRowsKeepTheirReason) {
  auto sink = collect_text("ck-json", fixture_text("ck/gemm_bench.json"));
  ASSERT_EQ(sink.rows.size(), 5u);
  EXPECT_FALSE(sink.rows[3].valid);
  EXPECT_EQ(sink.rows[3].reason, "kernel arguments not supported");
  // Negative time, no kernel_name in the benchmark: the name comes from kernel_config and the
  // parameters from the name.
  const auto& negative = sink.rows[4];
  EXPECT_FALSE(negative.valid);
  EXPECT_EQ(negative.reason, "time -1 ms");
  EXPECT_EQ(negative.kernel_config["tile_m"], 256);
  EXPECT_EQ(negative.kernel_config["warp_tile_k"], 8);
  EXPECT_EQ(negative.kernel_config["persistent"], 1);
  EXPECT_EQ(negative.kernel_config["epilogue"], "default");
}

TEST(CkJson, DeviceOptionAndNoSettings) {
  const std::string text = fixture_text("ck/gemm_bench.json");
  auto sink = collect_text("ck-json", text, "", "", "gfx942");
  EXPECT_EQ(sink.rows[0].problem,
            "m=1024,n=1024,k=1024,split_k=1,layout=rcr,dtype=fp16,device=gfx942");
  EXPECT_THROW(collect_text("ck-json", text, "", "dvice=gfx942"), InputError);
  EXPECT_THROW(collect_text("ck-json", text, "", "device=gfx942"), InputError);  // --device
  EXPECT_THROW(collect_text("ck-json", text, "", "", "gfx 942"), InputError);
}

std::string one_benchmark(const std::string& fields) {
  return std::string(R"({"metadata":{"dtype":"bf16","layout":"rrr"},"results":[{"kernel_config":)"
                     R"({"name":")") +
         kCkCompv4 + R"("},"benchmarks":[{)" + fields + "}]}]}";
}

TEST(CkJson, MissingAndBadFieldsSkipNamingTheField) {
  struct Case {
    std::string fields, reason_part;
  } cases[] = {
      {R"("n":8,"k":8,"avg_time_ms":1)", "field 'm': missing"},
      {R"("m":"x","n":8,"k":8,"avg_time_ms":1)", "field 'm': not a positive integer"},
      {R"("m":1e30,"n":8,"k":8,"avg_time_ms":1)", "field 'm'"},
      {R"("m":-4,"n":8,"k":8,"avg_time_ms":1)", "field 'm'"},
      {R"("m":8,"n":8,"k":8)", "field 'avg_time_ms': missing"},
      {R"("m":8,"n":8,"k":8,"avg_time_ms":"fast")", "field 'avg_time_ms': not a number"},
      {R"("m":8,"n":8,"k":8,"avg_time_ms":1,"is_valid":"yes")", "field 'is_valid'"},
  };
  for (const auto& c : cases) {
    auto sink = collect_text("ck-json", one_benchmark(c.fields));
    EXPECT_TRUE(sink.rows.empty()) << c.fields;
    ASSERT_EQ(sink.skips.size(), 1u) << c.fields;
    EXPECT_NE(sink.skips[0].reason.find(c.reason_part), std::string::npos) << sink.skips[0].reason;
  }
}

TEST(CkJson, ZeroTimeAndZeroTflopsAreInvalidRows) {
  auto zero = collect_text("ck-json", one_benchmark(R"("m":8,"n":8,"k":8,"avg_time_ms":0)"));
  ASSERT_EQ(zero.rows.size(), 1u);
  EXPECT_FALSE(zero.rows[0].valid);
  EXPECT_EQ(zero.rows[0].reason, "time 0 ms");
  EXPECT_EQ(zero.rows[0].problem, "m=8,n=8,k=8,split_k=1,layout=rrr,dtype=bf16");
  auto no_tflops = collect_text(
      "ck-json", one_benchmark(R"("m":8,"n":8,"k":8,"split_k":2,"avg_time_ms":1,"tflops":0)"));
  ASSERT_EQ(no_tflops.rows.size(), 1u);
  EXPECT_FALSE(no_tflops.rows[0].valid);
  EXPECT_EQ(no_tflops.rows[0].problem, "m=8,n=8,k=8,split_k=2,layout=rrr,dtype=bf16");
}

TEST(CkJson, TruncatedFileKeepsFinishedResults) {
  std::string text = fixture_text("ck/gemm_bench.json");
  std::string cut = text.substr(0, text.find("\"kernel arguments"));
  auto sink = collect_text("ck-json", cut);
  EXPECT_EQ(sink.rows.size(), 2u);  // the first result's two benchmarks
  ASSERT_EQ(sink.skips.size(), 1u);
  EXPECT_NE(sink.skips[0].reason.find("rest of the file ignored"), std::string::npos);
  EXPECT_GT(sink.skips[0].line, 50);
}

TEST(CkJson, HugeNumberStopsTheFileWithAReason) {
  std::string text = fixture_text("ck/gemm_bench.json");
  size_t at = text.find("0.0312");
  text.replace(at, 6, "1e400");
  auto sink = collect_text("ck-json", text);
  EXPECT_EQ(sink.rows.size(), 2u);
  ASSERT_EQ(sink.skips.size(), 1u);
  EXPECT_NE(sink.skips[0].reason.find("1e400"), std::string::npos) << sink.skips[0].reason;
  EXPECT_EQ(sink.skips[0].line, 51);
}

TEST(CkJson, NotThisFormatIsAnInputError) {
  for (std::string text :
       {std::string(""), std::string("{\"metadata\": {\"dtype\": \"fp16\""),
        std::string("[1, 2, 3]"), std::string("{\"results\": {}}"),
        std::string("\x00\x01\xff\xfe garbage \x7f", 14), std::string("kernel,N,C\nx,1,2\n"),
        std::string(R"({"metadata":{"dtype":"fp,16"},"results":[]})")}) {
    EXPECT_THROW(collect_text("ck-json", text), InputError) << text;
  }
  try {
    collect_text("ck-json", "not json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test.ck-json"), std::string::npos) << e.what();
  }
}

TEST(CkJson, OddElementsAreSkippedNotFatal) {
  auto sink = collect_text("ck-json", R"({"results":[1, [2], {"benchmarks":3},
    {"kernel_config":[],"benchmarks":[]}, {"benchmarks":[7, {"m":1}]}]})");
  EXPECT_TRUE(sink.rows.empty());
  EXPECT_EQ(sink.skips.size(), 6u);
}

}  // namespace
}  // namespace kselect::testing
