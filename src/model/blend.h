#pragma once
// Blends (docs/model-format.md, "Blends"): a model directory whose ranking is the weighted sum
// of other model directories' relative log speeds. It holds only a feature_spec.json naming
// its members; select::Ranker loads and adds them.
#include <cstddef>
#include <filesystem>
#include <vector>

#include "model/feature_spec.h"

namespace kselect::model {

struct BlendInput {
  std::filesystem::path model;  // a model directory
  double weight = 1;
};

// InputError naming `member_dir` unless `member` can join a blend whose first member is
// `first`: a regression or efficiency model (it predicts speeds) of the same op and dtype, not
// generic (blended candidates share one prepared block).
void check_blend_member(const FeatureSpec& first, const FeatureSpec& member,
                        const std::string& member_dir);

// InputError unless `out` can take a blend: it holds no model, or a blend (which a new one
// replaces). A trained model's feature_spec.json is its only description, so it is never
// written over.
void check_blend_out(const std::filesystem::path& out);

// The later members of a blend written by `kselect blend` score the first member's best 8
// candidates: the first member (a regression of every row) rules out the slow kernels, the
// later ones only order its contenders, so scoring the rest would cost their time for picks
// the first member has already ruled out.
inline constexpr std::size_t kDefaultBlendSurvivors = 8;

// Writes <out>/feature_spec.json for a blend of `members` (at least two regression or efficiency
// models of one op and dtype; paths stored relative to `out`), whose later members score the
// first member's best `survivors` candidates (FeatureSpec::blend_survivors; 0: all), and returns
// it. Its other fields are the first member's, its shortlist the union of the members'. InputError
// for fewer than two members, another objective, a mixed op or dtype, a weight that is not finite
// and > 0, or an `out` that holds a trained model (a blend there is replaced); StorageError for a
// member without a readable feature_spec.json.
FeatureSpec write_blend(const std::filesystem::path& out, const std::vector<BlendInput>& members,
                        std::size_t survivors = kDefaultBlendSurvivors);

}  // namespace kselect::model
