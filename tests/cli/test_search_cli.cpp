// `kselect search` end to end: a model trained through the library, the real binary, its JSON
// and its exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "cli_runner.h"

namespace kselect {
namespace {

const std::string& model_dir() {
  static const std::string dir = [] {
    model::TrainOptions o = testing::quick_options("search_cli_model");
    o.targets = {"tflops"};
    o.folds = 0;
    o.boosting.trees = 20;
    model::train(testing::synthetic_measurements(), o);
    return o.out_dir.string();
  }();
  return dir;
}

std::vector<std::string> search_args(const std::string& strategy, const std::string& seed) {
  return {
      "search",     "--model", model_dir(), "--problem", "m=100,n=500,k=300,layout=rcr,dtype=fp32",
      "--strategy", strategy,  "--budget",  "200",       "--top-k",
      "3",          "--seed",  seed,        "--json",    "--no-progress"};
}

TEST(SearchCli, JsonListsTheTopKAndTheSameSeedRepeatsIt) {
  for (const std::string strategy : {"random", "de"}) {
    const auto first = testing::run_cli(search_args(strategy, "9"));
    ASSERT_EQ(first.code, 0) << first.out;
    const auto j = nlohmann::json::parse(first.out);
    EXPECT_EQ(j["strategy"], strategy);
    EXPECT_EQ(j["scored"], 200);
    ASSERT_EQ(j["top"].size(), 3u);
    EXPECT_GE(j["top"][0]["score"].get<double>(), j["top"][2]["score"].get<double>());
    EXPECT_TRUE(j["extrapolation"].is_array());
    if (strategy == "de")  // random draws are checked for determinism in tests/search
      EXPECT_EQ(testing::run_cli(search_args(strategy, "9")).out, first.out) << strategy;
  }
}

TEST(SearchCli, BadArgumentsAreUsageErrorsAndBadInputExitsThree) {
  EXPECT_EQ(testing::run_cli(search_args("hill-climb", "1")).code, 2);
  auto args = search_args("random", "1");
  args.push_back("--budget=0");
  EXPECT_EQ(testing::run_cli(args).code, 2);
  args = search_args("random", "1");
  args[4] = "m=100,n=500,k=300,layout=rcr,dtype=bf16";  // the model is fp32
  EXPECT_EQ(testing::run_cli(args).code, 3);
  args = search_args("random", "1");
  args.insert(args.end(), {"--space", "no-such-set"});
  const auto unknown = testing::run_cli(args, true);
  EXPECT_EQ(unknown.code, 3);
  EXPECT_NE(unknown.out.find("no-such-set"), std::string::npos) << unknown.out;
}

}  // namespace
}  // namespace kselect
