// kselect shapes: writes a shape CSV of one family (docs/cli.md).
#include <iostream>

#include "cli/verb.h"
#include "core/error.h"
#include "ops/operation.h"
#include "ops/shape_csv.h"

namespace kselect::cli {
namespace {

struct Args {
  std::string op{default_operation().name()}, family = "wide", dtype = "fp32", layout = "rcr", output;
  int count = 20;
  unsigned seed = 1;
  double max_gflop = 2.0;
};

int run(const Args& a) {
  const Operation& op = find_operation(a.op);
  const std::vector<std::string> problems = op.generate_problems({.family = a.family,
                                                                  .count = a.count,
                                                                  .seed = a.seed,
                                                                  .max_gflop = a.max_gflop,
                                                                  .dtypes = {a.dtype},
                                                                  .layouts = {a.layout}});
  if (a.output.empty() || a.output == "-") {
    std::cout << format_shape_csv(op, problems);
  } else {
    write_shape_csv(op, problems, a.output);
    std::cerr << "kselect shapes: wrote " << problems.size() << " " << a.family << " shapes to "
              << a.output << "\n";
  }
  return kExitOk;
}

RegisterVerb reg("shapes", [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("shapes", "Write a shape CSV of one family of problems");
  cmd->add_option("--op", args->op, "Operation")->capture_default_str();
  cmd->add_option("--family", args->family, "wide, edge, llm, square or random")
      ->capture_default_str();
  cmd->add_option("--count", args->count, "Number of shapes (fewer if the family has fewer)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Random seed (same seed, same shapes)")
      ->capture_default_str();
  cmd->add_option("--max-gflop", args->max_gflop, "Largest shape, in GFLOP (2*M*N*K/1e9)")
      ->capture_default_str();
  cmd->add_option("--dtype", args->dtype, "fp32, bf16 or all (spread over the shapes)")
      ->capture_default_str();
  cmd->add_option("--layout", args->layout, "rcr, rrr, crr, ccr or all (spread over the shapes)")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Output CSV (default: stdout)");
  return [args] { return run(*args); };
});

}  // namespace
}  // namespace kselect::cli
