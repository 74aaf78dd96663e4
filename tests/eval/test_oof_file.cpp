#include "eval/oof_file.h"

#include <cmath>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "eval_fixture.h"
#include "select/ranker.h"

namespace kselect::eval {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::string& text) {
  try {
    parse_oof_csv(text, "oof_tflops.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(OofFile, ReadsQuotedAndUnquotedProblems) {
  auto rows = parse_oof_csv(
      "problem,kernel,fold,predicted,measured\n"
      "\"m=1,n=2,k=3,layout=rcr,dtype=fp32\",A,0,1.5,2\n"
      "# a comment\n"
      "\n"
      "m=4,n=5,k=6,layout=rcr,dtype=fp32,B,3,0.25,1e-2\r\n",
      "oof.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].problem, "m=1,n=2,k=3,layout=rcr,dtype=fp32");
  EXPECT_EQ(rows[0].kernel, "A");
  EXPECT_DOUBLE_EQ(rows[0].predicted, 1.5);
  EXPECT_EQ(rows[1].problem, "m=4,n=5,k=6,layout=rcr,dtype=fp32");
  EXPECT_EQ(rows[1].fold, 3);
  EXPECT_DOUBLE_EQ(rows[1].measured, 0.01);
}

TEST(OofFile, OptionalShortlistedColumn) {
  auto rows = parse_oof_csv(
      "problem,kernel,fold,predicted,measured,shortlisted\n"
      "\"m=1,n=2,k=3\",A,0,1.5,2,1\n"
      "m=1,n=2,k=3,B,0,2.5,1,0\n",
      "oof.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].shortlisted);
  EXPECT_FALSE(rows[1].shortlisted);
  EXPECT_EQ(rows[1].problem, "m=1,n=2,k=3");
  EXPECT_FALSE(to_predictions(rows, "tflops")[1].shortlisted);
  EXPECT_TRUE(
      parse_oof_csv("problem,kernel,fold,predicted,measured\np,A,0,1,2\n", "x")[0].shortlisted);
  EXPECT_THAT(error_of("problem,kernel,fold,predicted,measured,shortlisted\np,A,0,1,2,yes\n"),
              HasSubstr("oof_tflops.csv:2: field 'shortlisted'"));
}

TEST(OofFile, AnyColumnOrderAndCanonicalProblems) {
  auto upper = [](std::string_view text, const std::string&) {
    return "<" + std::string(text) + ">";
  };
  auto rows = parse_oof_csv("kernel,measured,predicted,fold,problem\nK,2,3,1,\"m=1,n=1\"\n",
                            "oof.csv", upper);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].problem, "<m=1,n=1>");
  EXPECT_DOUBLE_EQ(rows[0].predicted, 3);
  EXPECT_EQ(to_predictions(rows, "tflops")[0].kernel, "K");
}

TEST(OofFile, ErrorsNameFileLineAndField) {
  EXPECT_THAT(error_of("problem,kernel,fold,predicted\n"), HasSubstr("field 'measured': missing"));
  EXPECT_THAT(error_of("problem,kernel,fold,predicted,measured\n\"p\",A,0,x,1\n"),
              HasSubstr("oof_tflops.csv:2: field 'predicted': not a number: 'x'"));
  EXPECT_THAT(error_of("problem,kernel,fold,predicted,measured\n\"p\",A,0.5,1,1\n"),
              HasSubstr("field 'fold'"));
  EXPECT_THAT(error_of("problem,kernel,fold,predicted,measured\n\"p,A,0,1,1\n"),
              HasSubstr("unterminated"));
  EXPECT_THAT(error_of("problem,kernel,fold,predicted,measured\np,A,0\n"), HasSubstr("3 cells"));
  EXPECT_THAT(error_of(""), HasSubstr("no header"));
  EXPECT_THROW(read_oof_csv("/nonexistent/oof_tflops.csv"), InputError);
}

TEST(OofFile, MatchesADatabaseByKey) {
  std::vector<data::Measurement> db = {fixture::row("p", "A", 1.0), fixture::row("p", "B", 2.0),
                                       fixture::row("p", "C", 2.0, false),
                                       fixture::row("p", "A", 4.0)};  // A again: 2.5 TFLOPS
  std::vector<OofRow> rows = {{"p", "A", 0, 9, 10.0},
                              {"p", "B", 0, 4, 4.0},
                              {"p", "C", 0, 1, 1.0},
                              {"q", "A", 0, 1, 1.0},
                              {"p", "A", 0, 9, 2.5}};
  OofMatch m = match_database(rows, db, "tflops");
  EXPECT_EQ(m.rows, 5);
  EXPECT_EQ(m.joined, 3);      // C is invalid, q is not in the database
  EXPECT_EQ(m.mismatched, 1);  // B was measured at 5 TFLOPS, the file says 4
}

TEST(OofFile, LatencyPredictionsRankLowestFirst) {
  std::vector<OofRow> rows = {{"p", "A", 0, 2.0, 2.0}};
  Prediction latency = to_predictions(rows, "latency")[0];
  EXPECT_DOUBLE_EQ(latency.score, -2.0);
  EXPECT_DOUBLE_EQ(latency.predicted, 2.0);
  // Ranking scores and predicted efficiencies are larger-is-better whatever the target.
  for (model::Objective objective : {model::Objective::kRanking, model::Objective::kEfficiency})
    for (const char* target : {"tflops", "latency"}) {
      Prediction p = to_predictions(rows, target, objective)[0];
      EXPECT_DOUBLE_EQ(p.score, 2.0) << to_string(objective) << " " << target;
      EXPECT_TRUE(std::isnan(p.predicted)) << to_string(objective) << " " << target;
    }
}

// A blend adds each member's log speed relative to that member's fastest kernel, over the pairs
// all members predicted, the shortlisted kernels apart from the rest (select::Ranker's blend
// score); with survivors the later members score only the first member's best.
TEST(OofFile, BlendPredictionsAddTheMembersRelativeLogSpeeds) {
  const double nan = std::nan("");
  std::vector<Prediction> regression = {{"p", "k1", 0, 2.0, 2.0, false},
                                        {"p", "k2", 0, 1.0, 1.0, true},
                                        {"p", "k3", 0, 4.0, 4.0, true},
                                        {"p", "k4", 0, 8.0, 8.0, false}};
  std::vector<Prediction> efficiency = {{"p", "k2", 0, nan, 0.5, true},
                                        {"p", "k1", 0, nan, 1.0, true},
                                        {"p", "k4", 0, nan, 0.25, false}};  // no k3
  auto by_kernel = [](const std::vector<Prediction>& v) {
    std::map<std::string, Prediction> out;
    for (const auto& p : v) out.emplace(p.kernel, p);
    return out;
  };
  auto blend = by_kernel(blend_predictions({regression, efficiency}, {1.0, 2.0}));
  ASSERT_EQ(blend.size(), 3u);
  EXPECT_DOUBLE_EQ(blend["k1"].score, 0.0);  // the best of its group in both members
  EXPECT_DOUBLE_EQ(blend["k2"].score, std::log(1.0 / 2.0) + 2 * std::log(0.5));
  EXPECT_DOUBLE_EQ(blend["k4"].score, 0.0);  // not shortlisted: ranked apart
  EXPECT_DOUBLE_EQ(blend["k2"].speed, std::exp(blend["k2"].score));
  EXPECT_DOUBLE_EQ(blend["k1"].predicted, 2.0);  // the first member's
  EXPECT_TRUE(blend["k1"].shortlisted);          // listed by the second member
  EXPECT_FALSE(blend["k4"].shortlisted);

  auto cut = by_kernel(blend_predictions({regression, efficiency}, {1.0, 2.0}, 1));
  EXPECT_DOUBLE_EQ(cut["k1"].score, 0.0);
  EXPECT_DOUBLE_EQ(cut["k2"].score, std::log(1.0 / 2.0) - select::Cascade::kCutPenalty);
  EXPECT_TRUE(std::isnan(cut["k2"].speed)) << "no whole score, no speed";
  EXPECT_DOUBLE_EQ(cut["k4"].score, 0.0);
}

}  // namespace
}  // namespace kselect::eval
