// `kselect db split` on the real binary: a small sweep split by problem id, its output, and
// the exit codes of bad command lines and bad databases.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

#include "../data/temp_dir.h"
#include "cli_runner.h"
#include "core/error.h"
#include "data/store.h"

namespace kselect {
namespace {

using testing::run_cli;
using testing::TempDir;

std::set<std::string> problems_of(const std::string& db) {
  data::Store store(db, data::StoreOptions{.read_only = true});
  std::set<std::string> out;
  for (const auto& m : store.read_measurements()) out.insert(m.problem);
  return out;
}

class DbSplitCli : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_bytes(dir.file("s.csv"),
                         "m,n,k,layout,dtype\n4,4,4,rcr,fp32\n8,4,4,rcr,fp32\n12,4,4,rcr,fp32\n"
                         "16,4,4,rcr,fp32\n20,4,4,rcr,fp32\n24,4,4,rcr,fp32\n");
    auto bench =
        run_cli({"bench", "--op", "gemm", "--rules", "tiny", "--shapes", dir.file("s.csv"), "--db",
                 db, "--threads", "1", "--warmup", "1", "--repeat", "2", "--no-progress"});
    ASSERT_EQ(bench.code, 0) << bench.out;
  }
  TempDir dir;
  const std::string db = dir.file("sweep.sqlite");
};

TEST_F(DbSplitCli, WritesBothSidesAndReportsThem) {
  const std::string out = dir.file("splits");
  auto split = run_cli({"db", "split", db, out, "--part", "1", "--parts", "3", "--json"});
  ASSERT_EQ(split.code, 0) << split.out;
  auto j = nlohmann::json::parse(split.out);
  EXPECT_EQ(j["part"], 1);
  EXPECT_EQ(j["parts"], 3);
  EXPECT_EQ(j["train"]["path"], out + "/train1.sqlite");
  EXPECT_EQ(j["held"]["path"], out + "/held1.sqlite");
  EXPECT_EQ(j["held"]["problems"], 2);  // ids 1 and 4 of 6
  EXPECT_EQ(j["train"]["problems"], 4);
  const auto train = problems_of(out + "/train1.sqlite"), held = problems_of(out + "/held1.sqlite");
  EXPECT_EQ(train.size(), 4u);
  EXPECT_EQ(held.size(), 2u);
  std::set<std::string> all(train);
  all.insert(held.begin(), held.end());
  EXPECT_EQ(all, problems_of(db));
  EXPECT_EQ(
      j["train"]["measurements"].get<long>() + j["held"]["measurements"].get<long>(),
      long(data::Store(db, data::StoreOptions{.read_only = true}).read_measurements().size()));

  // The defaults are part 0 of 5; the text output names each file with its counts.
  auto text = run_cli({"db", "split", db, out});
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find(out + "/train0.sqlite: 5 problems, "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(out + "/held0.sqlite: 1 problems, "), std::string::npos) << text.out;
}

TEST_F(DbSplitCli, BadArgumentsAndDatabasesGiveTheirExitCodes) {
  const std::string out = dir.file("splits");
  auto part = run_cli({"db", "split", db, out, "--part", "5", "--parts", "5"}, true);
  EXPECT_EQ(part.code, kExitUsage);
  EXPECT_NE(part.out.find("--part must be in 0..PARTS-1"), std::string::npos) << part.out;
  EXPECT_EQ(run_cli({"db", "split", db, out, "--parts", "0"}).code, kExitUsage);
  EXPECT_EQ(run_cli({"db", "split", db, out, "--part", "-1"}).code, kExitUsage);
  EXPECT_EQ(run_cli({"db", "split", db}).code, kExitUsage);
  EXPECT_FALSE(std::filesystem::exists(out));

  auto absent = run_cli({"db", "split", dir.file("absent.sqlite"), out}, true);
  EXPECT_EQ(absent.code, kExitStorage);
  EXPECT_NE(absent.out.find(dir.file("absent.sqlite")), std::string::npos) << absent.out;
  testing::write_bytes(dir.file("shapes.sqlite"), "m,n,k\n1,2,3\n");
  EXPECT_EQ(run_cli({"db", "split", dir.file("shapes.sqlite"), out}).code, kExitStorage);

  // A split of a held-out file into its own directory would replace its input.
  ASSERT_EQ(run_cli({"db", "split", db, out}).code, 0);
  auto self = run_cli({"db", "split", out + "/held0.sqlite", out}, true);
  EXPECT_EQ(self.code, kExitInput);
  EXPECT_NE(self.out.find("is the input database itself"), std::string::npos) << self.out;
  EXPECT_EQ(problems_of(out + "/held0.sqlite").size(), 1u);  // id 5
}

}  // namespace
}  // namespace kselect
