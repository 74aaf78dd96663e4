// kselect route: a model directory that scores each problem with the first of its member models
// whose training filter (--where) the problem matches, such as one conv model per direction
// behind one --model (docs/model-format.md, "Routes").
#include <filesystem>
#include <iostream>

#include "cli/verb.h"
#include "core/error.h"
#include "model/route.h"
#include "select/ranker.h"

namespace kselect::cli {
namespace {

struct RouteArgs {
  std::string out;
  std::vector<std::string> models;
};

int run(const RouteArgs& a) {
  const std::vector<std::filesystem::path> members(a.models.begin(), a.models.end());
  const auto spec = model::write_route(a.out, members);
  select::Ranker::check_written(a.out);
  std::cout << "route of " << spec.route.size() << " " << spec.op << " " << spec.dtype
            << " models written to " << a.out << ":\n";
  for (const auto& m : a.models) {
    const std::string where = model::FeatureSpec::load(m).where;
    std::cout << "  " << (where.empty() ? "every other problem" : where) << " -> " << m << "\n";
  }
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto a = std::make_shared<RouteArgs>();
  auto* cmd = app.add_subcommand(
      "route", "Write a model that scores each problem with the member trained on its kind");
  cmd->add_option("--out", a->out, "Route model directory to write")->required();
  cmd->add_option("--model", a->models,
                  "A member model directory (two or more), each trained with --where on its "
                  "problems; the first whose filter a problem matches scores it")
      ->required();
  return [a] { return run(*a); };
}

RegisterVerb reg("route", setup);

}  // namespace
}  // namespace kselect::cli
