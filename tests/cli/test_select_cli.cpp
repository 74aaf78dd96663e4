// kselect select and kselect run: decisions with their level, explain, the cache and the
// lockfile across processes, bad input.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../data/temp_dir.h"
#include "cli_runner.h"
#include "core/error.h"

namespace kselect::testing {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class SelectCli : public ::testing::Test {
 protected:
  void SetUp() override {
    write_bytes(shapes_, "m,n,k,layout,dtype\n1,4096,512,rcr,fp32\n64,64,64,rcr,fp32\n"
                         "700,300,129,rcr,fp32\n");
  }
  TempDir dir_;
  std::string shapes_ = dir_.file("shapes.csv"), lock_ = dir_.file("kselect.lock"),
              cache_ = dir_.file("kselect.cache");
};

TEST_F(SelectCli, SelectsWithTheLevelAndExplains) {
  CliResult r = run_cli({"select", "--op", "gemm", "--strategy", "default", "--problem",
                         "m=64,n=64,k=64", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["level"], "default");
  EXPECT_EQ(j["problem"], "m=64,n=64,k=64,layout=rcr,dtype=fp32");
  r = run_cli({"select", "--op", "gemm", "--strategy", "default", "--problem", "m=64,n=64,k=64",
               "--explain", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.out;
  const auto e = nlohmann::json::parse(r.out);
  EXPECT_EQ(e["kernel"], j["kernel"]);
  EXPECT_FALSE(e["rejected"].empty());
  r = run_cli({"select", "--op", "gemm", "--strategy", "default", "--problem", "m=64,n=64,k=64",
               "--explain"});
  EXPECT_NE(r.out.find("decision:"), std::string::npos) << r.out;
}

TEST_F(SelectCli, LockfileReplaysByteForByteInAnotherProcess) {
  const std::vector<std::string> base = {"select", "--op", "gemm", "--strategy", "exhaustive",
                                         "--rules", "tests", "--repeats", "1", "--problems",
                                         shapes_, "--json", "--lockfile", lock_};
  CliResult first = run_cli(base);
  ASSERT_EQ(first.code, kExitOk) << first.out;
  const std::string recorded = read_text(lock_);
  auto replay = base;
  replay.push_back("--replay");
  CliResult second = run_cli(replay);
  ASSERT_EQ(second.code, kExitOk) << second.out;
  EXPECT_EQ(read_text(lock_), recorded);
  const auto a = nlohmann::json::parse(first.out), b = nlohmann::json::parse(second.out);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i]["kernel"], b[i]["kernel"]);
    EXPECT_EQ(a[i]["level"], "measured");
    EXPECT_EQ(b[i]["level"], "lockfile");
  }
}

TEST_F(SelectCli, CacheFileIsReusedAndACorruptOneRebuilt) {
  const std::vector<std::string> args = {"select", "--op", "gemm", "--strategy", "default",
                                         "--problems", shapes_, "--json", "--cache", cache_};
  ASSERT_EQ(run_cli(args).code, kExitOk);
  CliResult again = run_cli(args);
  ASSERT_EQ(again.code, kExitOk) << again.out;
  for (const auto& d : nlohmann::json::parse(again.out)) EXPECT_EQ(d["level"], "cache");
  write_bytes(cache_, "# kselect decision cache 1\nnonsense\n");
  CliResult rebuilt = run_cli(args, true);
  ASSERT_EQ(rebuilt.code, kExitOk) << rebuilt.out;
  EXPECT_NE(rebuilt.out.find("corrupt"), std::string::npos) << rebuilt.out;
  EXPECT_NE(read_text(cache_).find("hardware="), std::string::npos) << "rewritten";
}

TEST_F(SelectCli, RunVerifiesAndTimesTheSelectedKernel) {
  CliResult r = run_cli({"run", "--op", "gemm", "--strategy", "default", "--problem",
                         "m=50,n=70,k=90", "--runs", "2", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["verified"].get<bool>());
  EXPECT_GT(j["median_ms"].get<double>(), 0);
}

TEST_F(SelectCli, BadInputIsNamed) {
  CliResult r = run_cli({"select", "--op", "gemm", "--problem", "m=0,n=1,k=1"}, true);
  EXPECT_EQ(r.code, kExitInput) << r.out;
  r = run_cli({"select", "--op", "gemm", "--strategy", "best", "--problem", "m=1,n=1,k=1"}, true);
  EXPECT_EQ(r.code, kExitInput) << r.out;
  EXPECT_NE(r.out.find("strategy"), std::string::npos) << r.out;
  r = run_cli({"select", "--model", "/nonexistent", "--require-model", "--problem", "m=1,n=1,k=1"},
              true);
  EXPECT_EQ(r.code, kExitStorage) << r.out;
  write_bytes(lock_, "# kselect lockfile 1\nhardware=a catalogue=b model=c\nm=1,n=1,k=1\tnope\tmodel\n");
  r = run_cli({"select", "--op", "gemm", "--problem", "m=1,n=1,k=1", "--lockfile", lock_,
               "--replay"},
              true);
  EXPECT_EQ(r.code, kExitInput) << r.out;
  EXPECT_NE(r.out.find("kselect.lock:3"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kselect::testing
