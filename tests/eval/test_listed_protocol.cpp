#include "eval/listed_protocol.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/error.h"

namespace kselect::eval {
namespace {

// Listed-only data with known rules, as a find-db would hold it: per problem only the two
// fastest applicable solvers are listed. "wino" applies only to 3x3 filters and wins there
// when c >= 64; "gemm1x1" applies only to 1x1 filters; "direct" always applies and wins small
// problems; "naive" always applies and is never fast.
std::vector<data::Measurement> synthetic_find_db(int geometries) {
  std::mt19937 rng(7);
  std::vector<data::Measurement> rows;
  for (int g = 0; g < geometries; ++g) {
    int c = 1 << (2 + int(rng() % 8)), k = 1 << (2 + int(rng() % 8));
    int y = rng() % 2 ? 3 : 1;
    for (const char* dir : {"F", "B"}) {
      std::string problem = "c=" + std::to_string(c) + ",k=" + std::to_string(k) +
                            ",y=" + std::to_string(y) + ",x=" + std::to_string(y) + ",dir=" + dir +
                            ",dtype=fp32";
      double work = double(c) * k * y * y;
      std::vector<std::pair<double, std::string>> times = {
          {work / (c >= 64 ? 4e3 : 2e3) + 2, "direct"}, {work / 5e2 + 5, "naive"}};
      if (y == 3) times.push_back({work / (c >= 64 ? 2e4 : 1e3) + 3, "wino"});
      if (y == 1) times.push_back({work / 1e4 + 1, "gemm1x1"});
      std::sort(times.begin(), times.end());
      for (std::size_t i = 0; i < 2; ++i) {
        data::Measurement m;
        m.op = "generic", m.problem = problem, m.kernel = times[i].second, m.valid = true;
        m.median_ms = times[i].first;
        rows.push_back(m);
      }
    }
  }
  return rows;
}

// A listed row of problem number g (forward fp32, c = g + 1).
data::Measurement listed(int g, const std::string& kernel, double ms) {
  data::Measurement m;
  m.op = "generic", m.problem = "c=" + std::to_string(g + 1) + ",dir=F,dtype=fp32";
  m.kernel = kernel, m.valid = true, m.median_ms = ms;
  return m;
}

ListedOptions quick(const std::string& method) {
  ListedOptions o;
  o.method = parse_listed_method(method), o.boosting.trees = 25, o.boosting.eta = 0.3,
  o.boosting.threads = 2;
  return o;
}

TEST(ListedProtocol, LearnsApplicabilityAndSpeed) {
  auto rows = synthetic_find_db(120);
  for (const char* method : {"classify", "joint", "applicability"}) {
    ListedReport r = evaluate_listed(rows, {}, quick(method));
    EXPECT_GE(r.problems, 100) << method;  // distinct (geometry, dir) pairs
    EXPECT_GE(r.overall.top1, 0.9) << method;
    EXPECT_LE(r.overall.unlisted, 0.05) << method;
    EXPECT_GT(r.overall.top1, r.baseline.top1) << method;
    ASSERT_EQ(r.by_context.size(), 2u) << method;  // dir=B, dir=F
    auto j = r.to_json();
    for (const char* key : {"top1", "unlisted", "mean_slowdown", "efficiency", "baseline"})
      EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(ListedProtocol, SpeedOnlyRanksUnlistedKernelsAndPaysForIt) {
  // Without applicability, the speed model extrapolates to solvers that do not apply: some of
  // its picks are unlisted, and they count as misses.
  ListedReport r = evaluate_listed(synthetic_find_db(80), {}, quick("speed"));
  ListedReport joint = evaluate_listed(synthetic_find_db(80), {}, quick("joint"));
  EXPECT_GE(r.overall.unlisted, joint.overall.unlisted);
  EXPECT_LE(r.overall.top1, 1.0);
}

TEST(ListedProtocol, UnlistedPicksAreMissesWithTheSlowestListedTime) {
  // Every problem lists only "slow"; a selector can only pick it or miss.
  std::vector<data::Measurement> rows;
  for (int g = 0; g < 20; ++g) rows.push_back(listed(g, "slow", 2));
  ListedReport r = evaluate_listed(rows, {}, quick("classify"));
  EXPECT_DOUBLE_EQ(r.overall.top1, 1.0);
  EXPECT_DOUBLE_EQ(r.overall.unlisted, 0.0);
  EXPECT_DOUBLE_EQ(r.overall.mean_efficiency, 1.0);
}

TEST(ListedProtocol, PicksWithinTheTieBandCountAsTieHits) {
  // Two solvers 1% apart whose order follows no feature: exact top-1 is a coin toss, but
  // every pick is within the 2% tie band.
  std::vector<data::Measurement> rows;
  for (int g = 0; g < 40; ++g) {
    bool a_first = (g * 7919) % 5 < 2;
    rows.push_back(listed(g, "a", a_first ? 1.0 : 1.01));
    rows.push_back(listed(g, "b", a_first ? 1.01 : 1.0));
  }
  ListedReport r = evaluate_listed(rows, {}, quick("classify"));
  EXPECT_DOUBLE_EQ(r.overall.top1_tie_band, 1.0);
  EXPECT_LT(r.overall.top1, 1.0);
  EXPECT_GT(r.overall.mean_efficiency, 0.99);
}

TEST(ListedProtocol, PicksCsvHasEveryProblemAndThreeDimensionalLayoutsGetTheirOwnRows) {
  std::vector<data::Measurement> rows;
  for (int g = 0; g < 20; ++g) {
    rows.push_back(listed(g, "fast", 1));
    rows.push_back(listed(g, "slow", 2));
    data::Measurement three_d = listed(g, "naive3d", 5);  // the 3-D form lists other solvers
    three_d.problem += ",layout=NCDHW";
    rows.push_back(three_d);
  }
  ListedReport r = evaluate_listed(rows, {}, quick("classify"));
  ASSERT_EQ(r.by_context.size(), 2u);
  EXPECT_EQ(r.by_context[0].context, "dir=F,dtype=fp32");
  EXPECT_EQ(r.by_context[1].context, "dir=F,dtype=fp32,layout=NCDHW");
  ASSERT_EQ(r.picks.size(), 40u);
  EXPECT_TRUE(std::is_sorted(r.picks.begin(), r.picks.end(),
                             [](const auto& a, const auto& b) { return a.problem < b.problem; }));
  std::string csv = listed_picks_csv(r);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 41);
  EXPECT_EQ(csv.rfind("problem,context,fold,picked,best,listed,unlisted,efficiency,baseline\n", 0),
            0u);
  // Problem texts hold commas: quoted.
  EXPECT_NE(csv.find("\"c=1,dir=F,dtype=fp32\",\"dir=F,dtype=fp32\","), std::string::npos);
  for (const auto& p : r.picks) {
    EXPECT_EQ(p.listed, p.problem.find("NCDHW") != std::string::npos ? 1u : 2u);
    EXPECT_GE(p.fold, 0);
    EXPECT_LT(p.fold, 5);
  }
}

TEST(ListedProtocol, RejectsUnusableInput) {
  EXPECT_THROW(evaluate_listed({}, {}, quick("joint")), InputError);
  auto few = synthetic_find_db(2);  // 2 geometries, 5 folds
  EXPECT_THROW(evaluate_listed(few, {}, quick("joint")), InputError);
  ListedOptions one = quick("joint");
  one.folds = 1;
  EXPECT_THROW(evaluate_listed(synthetic_find_db(10), {}, one), InputError);
}

TEST(ListedProtocol, MethodNamesParseAndPrintBack) {
  for (ListedMethod method : {ListedMethod::kSpeed, ListedMethod::kApplicability,
                              ListedMethod::kJoint, ListedMethod::kClassify})
    EXPECT_EQ(parse_listed_method(to_string(method)), method);
  EXPECT_EQ(to_string(ListedMethod::kApplicability), "applicability");
  try {
    parse_listed_method("magic", "method");
    FAIL() << "an unknown method parsed";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'magic'"), std::string::npos) << what;
    EXPECT_NE(what.find("speed, applicability, joint, classify"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace kselect::eval
