// kselect select: the runtime dispatcher's decision for one problem or every problem of a
// shape file, with its fallback level; --explain says why.
#include <cstdio>
#include <iostream>

#include "cli/dispatch_args.h"
#include "cli/verb.h"
#include "core/error.h"
#include "ops/shape_csv.h"

namespace kselect::cli {

namespace {

struct SelectArgs {
  DispatchArgs dispatch;
  std::string problem, problems_file;
  bool explain = false, json = false;
  int top = 5;
};

nlohmann::json decision_json(select::Dispatcher& d, const std::string& problem) {
  const select::Decision s = d.select(problem);
  return {{"problem", problem},
          {"kernel", d.catalogue().name(s.kernel)},
          {"level", select::to_string(s.source)},
          {"decided_by", select::to_string(s.decided_by)}};
}

int run(const SelectArgs& a) {
  select::Dispatcher d(a.dispatch.options());
  std::vector<std::string> problems;
  if (!a.problem.empty())
    problems.push_back(d.canonical(a.problem, "--problem"));
  else
    problems = read_shape_csv(d.op(), a.problems_file);
  nlohmann::json all = nlohmann::json::array();
  for (const auto& problem : problems) {
    if (a.explain) {
      const select::Explanation e = d.explain(problem, a.top);  // kept like select()'s
      if (a.json)
        all.push_back(e.to_json());
      else
        std::cout << (problems.size() > 1 ? "== " + problem + "\n" : "") << e.to_table();
      continue;
    }
    nlohmann::json j = decision_json(d, problem);
    if (a.json)
      all.push_back(j);
    else
      std::printf("%s  %s  (%s)\n", j["problem"].get<std::string>().c_str(),
                  j["kernel"].get<std::string>().c_str(), j["level"].get<std::string>().c_str());
  }
  if (a.json) std::cout << (a.problem.empty() ? all : all.front()).dump(2) << "\n";
  a.dispatch.save(d);
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto args = std::make_shared<SelectArgs>();
  auto* cmd = app.add_subcommand(
      "select", "The kernel the runtime dispatcher picks for a problem, and the level that did");
  args->dispatch.add_options(*cmd);
  auto* one = cmd->add_option("--problem", args->problem,
                              "Problem, e.g. m=128,n=1536,k=7168,layout=rcr,dtype=fp32");
  auto* many = cmd->add_option("--problems", args->problems_file,
                               "Shape CSV (kselect shapes): decide every problem of it");
  one->excludes(many);
  cmd->add_flag("--explain", args->explain,
                "Say why: features, the top kernels, filters and rejected kernels, the level");
  cmd->add_option("--top", args->top, "Kernels shown by --explain (0: all)")->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON");
  return [args] {
    if (args->problem.empty() && args->problems_file.empty())
      throw InputError("", 0, "problem", "give --problem or --problems (a shape CSV)");
    return run(*args);
  };
}

RegisterVerb reg("select", setup);

}  // namespace
}  // namespace kselect::cli
