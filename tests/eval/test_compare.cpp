#include <unistd.h>
#include "eval/compare.h"

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "eval/evaluate.h"
#include "eval_fixture.h"

namespace kselect::eval {
namespace {

// A run of `n` problems p0..p(n-1), all at `efficiency`, picking kernel "K".
EvalRun uniform(int n, double efficiency) {
  EvalRun run;
  for (int i = 0; i < n; ++i) run.problems["p" + std::to_string(i)] = {efficiency, "K"};
  return run;
}

const Criterion& rule(const CompareResult& r, const std::string& name) {
  for (const auto& c : r.criteria)
    if (c.name == name) return c;
  throw std::out_of_range(name);
}

TEST(Compare, IdenticalRunsAreAccepted) {
  CompareResult r = compare(uniform(20, 0.97), uniform(20, 0.97));
  EXPECT_TRUE(r.accepted);
  EXPECT_EQ(r.common, 20);
  EXPECT_EQ(r.same, 20);
  EXPECT_DOUBLE_EQ(r.agreement, 1.0);
}

TEST(Compare, MeanDropBeyondHalfAPointIsRejected) {
  CompareResult r = compare(uniform(20, 0.97), uniform(20, 0.964));
  EXPECT_FALSE(r.accepted);
  EXPECT_FALSE(rule(r, "mean").pass);
  EXPECT_NEAR(rule(r, "mean").delta, -0.6, 1e-9);
  EXPECT_TRUE(rule(r, "p10").pass);  // 0.6 points is within P10's 2
  EXPECT_EQ(r.degraded, 20);
  EXPECT_TRUE(compare(uniform(20, 0.97), uniform(20, 0.966)).accepted);  // 0.4 points
}

TEST(Compare, OneProblemDroppingMoreThanTenPointsIsRejected) {
  EvalRun base = uniform(100, 0.99), cand = uniform(100, 0.99);
  cand.problems["p42"] = {0.88, "OTHER"};  // mean moves 0.11 points only
  CompareResult r = compare(base, cand);
  EXPECT_FALSE(r.accepted);
  EXPECT_TRUE(rule(r, "mean").pass);
  EXPECT_TRUE(rule(r, "median").pass);
  EXPECT_TRUE(rule(r, "p10").pass);
  EXPECT_FALSE(rule(r, "max_problem_drop").pass);
  ASSERT_EQ(r.drops.size(), 1u);
  EXPECT_EQ(r.drops[0].problem, "p42");
  EXPECT_DOUBLE_EQ(r.agreement, 0.99);
  EXPECT_EQ(r.degraded, 1);
  cand.problems["p42"] = {0.89, "OTHER"};  // exactly 10 points: allowed
  EXPECT_TRUE(compare(base, cand).accepted);
}

TEST(Compare, P10DropBeyondTwoPointsIsRejected) {
  EvalRun base = uniform(10, 1.0), cand = uniform(10, 1.0);
  cand.problems["p0"] = {0.95, "K"};  // P10 = 0.95 + 0.9 * 0.05 = 0.995: -0.5 points, passes
  EXPECT_TRUE(compare(base, cand).accepted);
  cand.problems["p1"] = {0.95, "K"};  // P10 = 0.95: -5 points; mean -1 point
  CompareResult r = compare(base, cand);
  EXPECT_FALSE(rule(r, "p10").pass);
  EXPECT_FALSE(r.accepted);
}

TEST(Compare, ComparesOnlyTheCommonProblems) {
  EvalRun base = uniform(3, 0.9), cand = uniform(2, 0.9);
  cand.problems["extra"] = {0.1, "K"};
  CompareResult r = compare(base, cand);
  EXPECT_EQ(r.common, 2);
  EXPECT_EQ(r.only_baseline, 1);
  EXPECT_EQ(r.only_candidate, 1);
  EXPECT_TRUE(r.accepted);
  EXPECT_THROW(compare(uniform(2, 0.9), EvalRun{}), InputError);
}

TEST(Compare, ReadsTheReportsThatEvalWrites) {
  std::vector<data::Measurement> rows = {fixture::row("m=1,n=1,k=1", "A", 1.0),
                                         fixture::row("m=1,n=1,k=1", "B", 2.0)};
  EvalReport report =
      evaluate(rows, fixture::ranking("m=1,n=1,k=1", {"B", "A"}), fixture::options_with_cores(2));
  EvalRun run = run_from_json(nlohmann::json(report), "report.json");
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_DOUBLE_EQ(run.problems.at("m=1,n=1,k=1").efficiency, 0.5);
  EXPECT_EQ(run.problems.at("m=1,n=1,k=1").picked, "B");
}

TEST(Compare, MalformedReportsNameTheFileAndField) {
  using ::testing::HasSubstr;
  auto message = [](const nlohmann::json& j) {
    try {
      run_from_json(j, "base.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message({{"efficiency", 1}}), HasSubstr("base.json: field 'per_problem': missing"));
  nlohmann::json j = {{"per_problem",
                       {{{"problem", "a"}, {"efficiency", 0.5}, {"picked", "K"}},
                        {{"problem", "b"}, {"efficiency", "high"}, {"picked", "K"}}}}};
  EXPECT_THAT(message(j), HasSubstr("field 'per_problem[1].efficiency': expected a number"));
  j["per_problem"][1]["efficiency"] = 97.5;  // percent instead of a fraction
  EXPECT_THAT(message(j), HasSubstr("expected a fraction in [0, 1]"));
  j["per_problem"][1] = j["per_problem"][0];
  EXPECT_THAT(message(j), HasSubstr("repeated problem 'a'"));

  auto path = std::filesystem::temp_directory_path() /
              ("kselect_compare_bad_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << "{\"per_problem\": [";
  try {
    load_run(path.string());
    ADD_FAILURE() << "truncated JSON accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string() + ": not valid JSON"));
  }
  std::filesystem::remove(path);
  EXPECT_THROW(load_run("/nonexistent/kselect.json"), InputError);
}

TEST(Compare, VerdictTableAndJson) {
  EvalRun base = uniform(5, 0.99), cand = uniform(5, 0.99);
  cand.problems["p3"] = {0.5, "X"};
  CompareResult r = compare(base, cand);
  std::string text = format_comparison(r);
  EXPECT_THAT(text, ::testing::HasSubstr("REJECTED"));
  EXPECT_THAT(text, ::testing::HasSubstr("p3"));
  nlohmann::json j = r;
  EXPECT_FALSE(j["accepted"].get<bool>());
  EXPECT_EQ(j["criteria"].size(), 4u);
  EXPECT_EQ(j["drops"][0]["problem"], "p3");
}

}  // namespace
}  // namespace kselect::eval
