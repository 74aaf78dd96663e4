#pragma once
// Routes (docs/model-format.md, "Routes"): a model directory that hands each problem to the
// first of its member models whose training filter (FeatureSpec::where, `kselect train
// --where`) the problem matches, so one directory serves, say, conv's three directions with a
// model per direction. It holds only a feature_spec.json naming its members; select::Ranker
// loads them and scores each problem with its member.
#include <filesystem>
#include <vector>

#include "model/feature_spec.h"

namespace kselect::model {

// InputError naming `member_dir` unless `member` can join a route whose first member is
// `first`: a model (not a route) of the same targets, op, dtype and feature schema, so that every
// member reads the candidates one engine prepared and predicts the same quantities. Objectives
// may differ: each problem is scored by one member (Scorer::scoring_objective says by what).
void check_route_member(const FeatureSpec& first, const FeatureSpec& member,
                        const std::string& member_dir);

// Writes <out>/feature_spec.json for a route of `members` (paths stored relative to `out`) and
// returns it. Its other fields are the first member's; its shortlist the union of the
// members' (none when a member ranks every candidate); its training ranges the members'
// together; its `where` every member's problems. InputError for fewer than two members, a
// member that cannot join (check_route_member), a member without a `where` before the last
// (it would take every problem from the members after it), or an `out` that holds a trained
// model (a route there is replaced); StorageError for a member without a readable
// feature_spec.json.
FeatureSpec write_route(const std::filesystem::path& out,
                        const std::vector<std::filesystem::path>& members);

}  // namespace kselect::model
