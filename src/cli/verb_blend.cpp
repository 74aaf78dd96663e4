// kselect blend: a model directory ranking by the weighted sum of other models' relative log
// speeds (docs/model-format.md, "Blends").
#include <iostream>

#include "cli/verb.h"
#include "core/error.h"
#include "model/blend.h"
#include "select/ranker.h"

namespace kselect::cli {
namespace {

struct BlendArgs {
  std::string out;
  std::vector<std::string> models;
  std::vector<double> weights;
  std::size_t survivors = model::kDefaultBlendSurvivors;
};

int run(const BlendArgs& a) {
  if (!a.weights.empty() && a.weights.size() != a.models.size())
    throw InputError("", 0, "weight",
                     "give one --weight per --model (" + std::to_string(a.models.size()) +
                         " models, " + std::to_string(a.weights.size()) + " weights) or none");
  std::vector<model::BlendInput> members;
  for (std::size_t i = 0; i < a.models.size(); ++i)
    members.push_back({a.models[i], a.weights.empty() ? 1.0 : a.weights[i]});
  const auto spec = model::write_blend(a.out, members, a.survivors);
  select::Ranker::check_written(a.out);
  std::cout << "blend of " << spec.blend.size() << " " << spec.op << " " << spec.dtype
            << " models written to " << a.out << "\n";
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto a = std::make_shared<BlendArgs>();
  auto* cmd = app.add_subcommand(
      "blend", "Write a model that ranks by the weighted sum of models' relative log speeds");
  cmd->add_option("--out", a->out, "Blend model directory to write")->required();
  cmd->add_option("--model", a->models,
                  "A member: a regression or efficiency model directory (two or more)")
      ->required();
  cmd->add_option("--weight", a->weights,
                  "The members' weights, in --model order (default 1 each)");
  cmd->add_option("--survivors", a->survivors,
                  "The later members score the first member's best this many candidates (0: all)")
      ->capture_default_str();
  return [a] { return run(*a); };
}

RegisterVerb reg("blend", setup);

}  // namespace
}  // namespace kselect::cli
