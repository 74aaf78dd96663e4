#include <fcntl.h>  // cli_runner.h uses O_WRONLY without including it

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../data/temp_dir.h"
#include "cli_runner.h"
#include "core/error.h"

namespace kselect::testing {
namespace {

using ::testing::HasSubstr;

class ImportCli : public ::testing::Test {
 protected:
  ImportCli() {
    write_bytes(csv_,
                "M,N,K,kernel,time_ms\n"
                "64,64,64,a,1.0\n"
                "64,64,64,a,3.0\n"
                "64,64,64,b,0.5\n"
                "64,64,64,c,abc\n"
                "128,64,64,a,2.0\n");
  }
  std::vector<std::string> import_args(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "import", "csv",           csv_,    "--db",        db_, "--map", "problem=M,N,K",
        "--map",  "kernel=kernel", "--map", "time=time_ms"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  TempDir dir_;
  std::string csv_ = dir_.file("runs.csv"), db_ = dir_.file("store.sqlite");
};

TEST_F(ImportCli, ListFormats) {
  CliResult r = run_cli({"import", "--list-formats"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_THAT(r.out, HasSubstr("csv\tgeneric long-format CSV"));
}

TEST_F(ImportCli, ImportsSummarisesAndIsIdempotent) {
  CliResult r = run_cli(import_args({"--json", "--quiet"}));
  ASSERT_EQ(r.code, kExitOk) << r.out;
  auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["added"], 3);
  EXPECT_EQ(json["skipped"], 1);
  const auto& file = json["files"][0];
  EXPECT_EQ(file["duplicates_merged"], 1);
  EXPECT_EQ(file["problems"], 2);
  EXPECT_EQ(file["device"], "unknown");
  EXPECT_EQ(file["first_skipped"][0]["line"], 5);

  CliResult again = run_cli(import_args({"--quiet"}));
  ASSERT_EQ(again.code, kExitOk) << again.out;
  EXPECT_THAT(again.out, HasSubstr("added 0, already present 3"));

  CliResult info = run_cli({"db", "info", db_, "--json"});
  ASSERT_EQ(info.code, kExitOk) << info.out;
  EXPECT_EQ(nlohmann::json::parse(info.out)["measurements"], 3);
}

TEST_F(ImportCli, SkippedLinesGoToStderrAndTheLog) {
  std::string log = dir_.file("skipped.txt");
  CliResult r = run_cli(import_args({"--quiet", "--skipped-log", log}), /*with_stderr=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.out;
  EXPECT_THAT(r.out, HasSubstr(csv_ + ":5: field 'time_ms': not a number 'abc'"));
  EXPECT_THAT(r.out, HasSubstr("skipped 1 x field 'time_ms': not a number '…'"));
  EXPECT_EQ(read_bytes(log), csv_ + ":5: field 'time_ms': not a number 'abc'\n");
}

TEST_F(ImportCli, StrictFailsWithTheLineAndWritesNothing) {
  CliResult r = run_cli(import_args({"--strict", "--quiet"}), true);
  EXPECT_EQ(r.code, kExitInput);
  EXPECT_THAT(r.out, HasSubstr(csv_ + ":5: field 'time_ms'"));
  EXPECT_FALSE(std::filesystem::exists(db_));
}

TEST_F(ImportCli, MappingFileAndDevice) {
  std::string mapping = dir_.file("map.json");
  write_bytes(mapping, R"({"problem": ["M", "N", "K"], "kernel": "kernel", "time": "time_ms"})");
  CliResult r = run_cli({"import", "csv", csv_, "--db", db_, "--mapping", mapping, "--device",
                         "MI210", "--json", "--quiet"});
  ASSERT_EQ(r.code, kExitOk) << r.out;
  auto file = nlohmann::json::parse(r.out)["files"][0];
  EXPECT_EQ(file["device"], "MI210");
  EXPECT_EQ(file["settings_key"], "import:csv:MI210:runs.csv");
}

TEST_F(ImportCli, ErrorsAndExitCodes) {
  CliResult missing = run_cli({"import", "csv", csv_, "--db", db_, "--map", "problem=M", "--map",
                               "kernel=name", "--map", "time=time_ms"},
                              true);
  EXPECT_EQ(missing.code, kExitInput);
  EXPECT_THAT(missing.out, HasSubstr("column 'name' not in the header"));
  EXPECT_EQ(run_cli({"import", "csv"}).code, kExitUsage);
  EXPECT_EQ(run_cli({"import", "no-such-format", csv_, "--db", db_}).code, kExitInput);
  EXPECT_EQ(run_cli(import_args({"--map", "oops"})).code, kExitInput);
  // The device is --device, for every format; a device setting is refused with that hint.
  CliResult device_setting =
      run_cli({"import", "ck-log", csv_, "--db", db_, "--map", "device=gfx942"}, true);
  EXPECT_EQ(device_setting.code, kExitInput);
  EXPECT_THAT(device_setting.out, HasSubstr("give the device with --device"));
  EXPECT_EQ(run_cli(import_args({"--device", "my gpu"})).code, kExitInput);
  EXPECT_FALSE(std::filesystem::exists(db_));  // no failed import wrote anything
}

}  // namespace
}  // namespace kselect::testing
