// `kselect import` of CK's three output formats on the real binary: the fixtures of
// tests/data/import/fixtures/ck into one store, rows, skips and idempotence.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

#include "../data/temp_dir.h"

namespace kselect::testing {
namespace {

// The three formats through `kselect import` into one store: rows, skips and idempotence.
TEST(CkImport, AllThreeThroughTheCli) {
  TempDir dir;
  std::string db = dir.file("ck.sqlite");
  std::string fixtures = std::string(KSELECT_SOURCE_DIR) + "/tests/data/import/fixtures/ck/";
  auto run = [&](const std::string& format, const std::string& file) {
    std::string out = dir.file("out.json");
    std::string command = std::string(KSELECT_CLI_PATH) + " import " + format + " " + fixtures +
                          file + " --db " + db + " --device gfx942 --json --quiet > " + out +
                          " 2>/dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return nlohmann::json::parse(read_bytes(out))["files"][0];
  };
  auto json = run("ck-json", "gemm_bench.json");
  EXPECT_EQ(json["added"], 5);
  EXPECT_EQ(json["valid"], 3);
  auto log = run("ck-log", "gemm_bench.log");
  EXPECT_EQ(log["added"], 4);
  EXPECT_EQ(log["skipped"], 2);
  auto conv = run("ck-conv-csv", "conv_bench.csv");
  EXPECT_EQ(conv["added"], 5);
  EXPECT_EQ(conv["problems"], 4);
  EXPECT_EQ(run("ck-json", "gemm_bench.json")["added"], 0);  // re-import adds nothing
}

}  // namespace
}  // namespace kselect::testing
