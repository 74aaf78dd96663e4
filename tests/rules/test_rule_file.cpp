// The rule engine on small inline rule files: enumeration, sets, checks and error messages.
#include <set>

#include <gtest/gtest.h>

#include "core/error.h"
#include "rules/check.h"

namespace kselect::rules {

namespace {

// A small space: a * b <= limit, with b's parity as a category.
nlohmann::ordered_json base_file() {
  return nlohmann::ordered_json::parse(R"({
    "version": 1, "op": "toy", "name": "toy_{a}_{b}_{flag}", "group_by": ["flag"],
    "constants": {"limit": {"value": 24, "doc": "largest a * b"}},
    "axes": {"a": [1, 2, 3, 4, 5, 6], "b": [1, 2, 4, 8], "flag": [true, false]},
    "derived": {"area": "a * b", "odd": {"expr": "b % 2 == 1", "doc": "b is odd"}},
    "constraints": [
      {"name": "small", "expr": "area <= limit", "why": "keeps it small"},
      {"name": "flag_even", "expr": "flag or a % 2 == 0", "why": "flag off needs even a"}
    ],
    "sets": {
      "full": {"expect": {"total": [1, 100]}},
      "every3": {"from": "full", "sample": {"by": ["flag"], "every": 3}, "subset_of": ["full"]},
      "odd": {"filter": "odd", "subset_of": ["full"]},
      "cover": {"cover": {"per": "flag", "keys": ["a", "b"]}, "subset_of": ["full"]},
      "picked": {"names": ["toy_{a}_2_True"], "subset_of": ["full"]},
      "both": {"union": ["odd", "picked"]},
      "common": {"intersection": ["every3", "odd"]},
      "ensured": {"sample": {"by": "flag", "every": 100}, "ensure": [["a", "flag"]]}
    }
  })");
}

std::unique_ptr<RuleSets> generate(const nlohmann::ordered_json& j,
                                   const KeyValues& overrides = {}) {
  return std::make_unique<RuleSets>(RuleFile::parse(j.dump(), "toy.json", overrides));
}

// Brute force over the cartesian product, the reference the pruned enumeration must match.
std::vector<std::string> brute_force(int limit) {
  std::vector<std::string> out;
  for (int a : {1, 2, 3, 4, 5, 6})
    for (int b : {1, 2, 4, 8})
      for (bool flag : {true, false})
        if (a * b <= limit && (flag || a % 2 == 0))
          out.push_back("toy_" + std::to_string(a) + "_" + std::to_string(b) + "_" +
                        (flag ? "True" : "False"));
  return out;
}

std::vector<std::string> names(const RuleSets& sets, const std::string& set) {
  std::vector<std::string> out;
  for (std::size_t c : sets.get(set)) out.push_back(sets.space().name(c));
  return out;
}

std::string error_of(const nlohmann::ordered_json& j) {
  try {
    generate(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RuleSpace, PrunedEnumerationMatchesBruteForce) {
  auto sets = generate(base_file());
  EXPECT_EQ(names(*sets, "full"), brute_force(24));
  auto j = base_file();
  j["sets"] = {{"full", nlohmann::ordered_json::object()}};  // the other sets need limit 24
  auto smaller = generate(j, KeyValues::parse("limit=8"));
  EXPECT_EQ(names(*smaller, "full"), brute_force(8));
}

TEST(RuleSpace, FieldsAndLookup) {
  auto sets = generate(base_file());
  auto index = sets->space().find("toy_3_8_True");
  ASSERT_TRUE(index.has_value());
  nlohmann::json f = sets->space().fields(*index);
  EXPECT_EQ(f["a"], 3);
  EXPECT_EQ(f["b"], 8);
  EXPECT_EQ(f["flag"], true);
  EXPECT_FALSE(sets->space().find("toy_5_8_True").has_value());  // 40 > limit
}

TEST(RuleSets, SetOperations) {
  auto sets = generate(base_file());
  auto full = names(*sets, "full");
  // every3: the 1st, 4th, 7th... config of each flag category, in space order.
  std::vector<std::string> every3;
  int seen_true = 0, seen_false = 0;
  for (const auto& n : full) {
    int& seen = n.ends_with("True") ? seen_true : seen_false;
    if (seen++ % 3 == 0) every3.push_back(n);
  }
  EXPECT_EQ(names(*sets, "every3"), every3);
  for (const auto& n : names(*sets, "odd")) EXPECT_TRUE(n.find("_1_") != std::string::npos);
  EXPECT_EQ(names(*sets, "picked"),
            (std::vector<std::string>{"toy_1_2_True", "toy_2_2_True", "toy_3_2_True",
                                      "toy_4_2_True", "toy_5_2_True", "toy_6_2_True"}));
  EXPECT_EQ(sets->get("both").size(), sets->get("odd").size() + 6);
  for (const auto& n : names(*sets, "common")) EXPECT_TRUE(n.find("_1_") != std::string::npos);
  // ensure: the sample keeps the first config of each flag; ensure adds the first config of
  // every other (a, flag) pair: a 1..6 with True, even a with False.
  auto ensured = names(*sets, "ensured");
  EXPECT_EQ(ensured.size(), 9u);
  EXPECT_EQ(ensured[0], "toy_1_1_True");
  EXPECT_EQ(ensured[1], "toy_2_1_True");
  EXPECT_EQ(ensured[2], "toy_2_1_False");
}

TEST(RuleSets, CoverReachesEveryValuePerGroup) {
  auto sets = generate(base_file());
  std::set<std::string> covered;
  for (std::size_t c : sets->get("cover"))
    for (const char* axis : {"a", "b"})
      covered.insert(sets->group_of(c) + axis + sets->space().fields(c)[axis].dump());
  std::set<std::string> wanted;
  for (std::size_t c : sets->get("full"))
    for (const char* axis : {"a", "b"})
      wanted.insert(sets->group_of(c) + axis + sets->space().fields(c)[axis].dump());
  EXPECT_EQ(covered, wanted);
  EXPECT_LT(sets->get("cover").size(), sets->get("full").size() / 2);
}

TEST(RuleSets, GenerationIsDeterministic) {
  auto a = generate(base_file()), b = generate(base_file());
  for (const auto& s : a->names()) EXPECT_EQ(names(*a, s), names(*b, s)) << s;
}

TEST(RuleSets, MatchingFiltersByAxis) {
  auto sets = generate(base_file());
  auto m = sets->matching("full", KeyValues::parse("a=4,flag=false"));
  ASSERT_FALSE(m.empty());
  for (std::size_t c : m) EXPECT_EQ(sets->space().fields(c)["flag"], false);
  EXPECT_THROW(sets->matching("full", KeyValues::parse("zz=1")), InputError);
  EXPECT_THROW(sets->get("nope"), InputError);
}

TEST(RuleCheck, ReportsSizesAndViolations) {
  auto ok = check(*generate(base_file()));
  EXPECT_TRUE(ok.ok()) << ok.to_text();
  EXPECT_EQ(ok.sets.front().per_group.size(), 2u);

  auto j = base_file();
  j["sets"]["odd"]["subset_of"] = {"every3"};
  j["sets"]["full"]["expect"]["total"] = {1, 5};
  auto bad = check(*generate(j));
  ASSERT_EQ(bad.problems.size(), 2u) << bad.to_text();
  EXPECT_NE(bad.problems[0].find("expected [1, 5]"), std::string::npos);
  EXPECT_NE(bad.problems[1].find("not a subset of 'every3'"), std::string::npos);
}

TEST(RuleCheck, ExplainNamesTheViolatedConstraints) {
  auto sets = generate(base_file());
  auto valid = explain(*sets, "toy_2_4_False");
  EXPECT_TRUE(valid.problems.empty());
  EXPECT_NE(std::find(valid.sets.begin(), valid.sets.end(), "full"), valid.sets.end());
  auto invalid = explain(*sets, "toy_5_8_False");
  ASSERT_EQ(invalid.problems.size(), 2u);
  EXPECT_NE(invalid.problems[0].find("small"), std::string::npos);
  EXPECT_NE(invalid.problems[1].find("flag_even"), std::string::npos);
  auto off_axis = explain(*sets, "toy_7_1_True");
  ASSERT_EQ(off_axis.problems.size(), 1u);
  EXPECT_NE(off_axis.problems[0].find("axis a: 7"), std::string::npos);
  EXPECT_FALSE(explain(*sets, "other_1").problems.empty());
}

TEST(RuleFileErrors, NameTheFileFieldAndColumn) {
  auto j = base_file();
  j["constraints"][0]["expr"] = "aera <= limit";
  std::string e = error_of(j);
  EXPECT_NE(e.find("toy.json: field 'constraints.small': column 1: unknown name 'aera'"),
            std::string::npos)
      << e;

  j = base_file();
  j["derived"]["area"] = "a * * b";
  e = error_of(j);
  EXPECT_NE(e.find("field 'derived.area': column 5"), std::string::npos) << e;

  j = base_file();
  j["sets"]["odd"]["subset_of"] = {"fulll"};
  e = error_of(j);
  EXPECT_NE(e.find("unknown set 'fulll'"), std::string::npos) << e;
  EXPECT_NE(e.find("sets: full, every3"), std::string::npos) << e;

  j = base_file();
  j["sets"]["odd"]["from"] = "both";
  e = error_of(j);
  EXPECT_NE(e.find("circular definition"), std::string::npos) << e;

  j = base_file();
  j["sets"]["picked"]["names"] = {"toy_5_8_True"};
  e = error_of(j);
  EXPECT_NE(e.find("'toy_5_8_True' is not a valid configuration"), std::string::npos) << e;

  j = base_file();
  j["constraints"][0]["expr"] = "area // (b - b) < 3";
  e = error_of(j);
  EXPECT_NE(e.find("constraints.small': column 6: division by zero"), std::string::npos) << e;

  j = base_file();
  j["name"] = "toy_{a}_{b}";  // flag missing: names collide
  EXPECT_NE(error_of(j).find("share the name"), std::string::npos);

  j = base_file();
  j["axes"]["b"] = {1, 2, 2};
  EXPECT_NE(error_of(j).find("listed twice"), std::string::npos);

  j = base_file();
  j["colours"] = 1;
  EXPECT_NE(error_of(j).find("unknown top-level key"), std::string::npos);

  EXPECT_NE(error_of(nlohmann::ordered_json::array()).find("JSON object"), std::string::npos);
  EXPECT_THROW(RuleFile::parse("{", "x.json"), InputError);
  EXPECT_THROW(RuleFile::parse(base_file().dump(), "x.json", KeyValues::parse("limit=big")),
               InputError);
  EXPECT_THROW(RuleFile::parse(base_file().dump(), "x.json", KeyValues::parse("nope=1")),
               InputError);
  EXPECT_THROW(RuleFile::embedded("no_such_file"), InputError);
}

// "target" names what the kernels run on: the native CPU when absent, else another target
// (a GPU) whose kernels are only listed.
TEST(RuleFile, TargetDefaultsToTheNativeOne) {
  RuleFile native = RuleFile::parse(base_file().dump(), "x.json");
  EXPECT_EQ(native.target(), kNativeTarget);
  EXPECT_TRUE(native.native());
  auto j = base_file();
  j["target"] = "gfx950";
  RuleFile gpu = RuleFile::parse(j.dump(), "x.json");
  EXPECT_EQ(gpu.target(), "gfx950");
  EXPECT_FALSE(gpu.native());
  EXPECT_EQ(check(RuleSets(std::move(gpu))).target, "gfx950");
  j["target"] = 950;
  EXPECT_NE(error_of(j).find("expected a string"), std::string::npos);
  j["target"] = "";
  EXPECT_NE(error_of(j).find("must not be empty"), std::string::npos);
}

// The built-in files: one per (op, target), found by both.
TEST(RuleFile, EmbeddedFileOfAnOpAndTarget) {
  EXPECT_EQ(RuleFile::embedded_stem("conv", kNativeTarget), "conv_cpu");
  EXPECT_EQ(RuleFile::embedded_stem("gemm", kNativeTarget), "gemm_cpu");
  EXPECT_EQ(RuleFile::embedded_stem("conv", "gfx950"), "conv_gfx950");
  EXPECT_EQ(RuleFile::embedded_stem("conv", "gfx942"), "conv_gfx942");
  EXPECT_FALSE(RuleFile::embedded_stem("gemm", "gfx950"));
  EXPECT_FALSE(RuleFile::embedded_stem("conv", "gfx1100"));
  EXPECT_EQ(RuleFile::embedded_targets("conv"),
            (std::vector<std::string>{"cpu", "gfx942", "gfx950"}));
  EXPECT_EQ(RuleFile::embedded_targets("gemm"), (std::vector<std::string>{"cpu"}));
}

}  // namespace

}  // namespace kselect::rules
