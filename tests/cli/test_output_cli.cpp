// Every verb that writes to standard output fails when that output is lost (issue 30, item 3):
// one check in main() covers them all, so the test runs a verb of each kind against a full disk.
#include <filesystem>

#include <gtest/gtest.h>

#include "../data/temp_dir.h"
#include "cli_runner.h"
#include "core/error.h"

namespace kselect::testing {
namespace {

class OutputCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this machine";
    write_bytes(csv_, "M,N,K,kernel,time_ms\n64,64,64,a,1.0\n64,64,64,b,0.5\n128,64,64,a,2.0\n");
    ASSERT_EQ(run_cli({"import", "csv", csv_, "--db", db_, "--map", "problem=M,N,K", "--map",
                       "kernel=kernel", "--map", "time=time_ms", "--quiet"})
                  .code,
              kExitOk);
  }
  TempDir dir_;
  std::string csv_ = dir_.file("runs.csv"), db_ = dir_.file("store.sqlite");
};

TEST_F(OutputCli, EveryVerbFailsWhenStdoutIsFull) {
  const std::vector<std::vector<std::string>> verbs = {
      {"shapes", "--family", "random", "--count", "5000"},
      {"configs", "--rules", "tiny"},
      {"rules", "check"},
      {"db", "info", db_, "--json"},
      {"db", "best", db_, "--json"},
      {"features", "--db", db_},
  };
  for (const auto& args : verbs) {
    ASSERT_EQ(run_cli_to(args, "/dev/null"), kExitOk) << args[0] << " " << args[1];
    EXPECT_EQ(run_cli_to(args, "/dev/full"), kExitStorage) << args[0] << " " << args[1];
  }
}

// An unknown verb is named, with the verbs there are, as a usage error.
TEST(UsageCli, AnUnknownVerbIsNamed) {
  CliResult r = run_cli({"trian", "--db", "x.sqlite"}, true);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.out.find("unknown verb 'trian'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("train"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kselect::testing
