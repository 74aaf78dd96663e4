// kselect run: the dispatcher's kernel for a problem, run on the CPU backend, verified against
// the op's reference and timed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/dispatch_args.h"
#include "cli/verb.h"
#include "core/error.h"

namespace kselect::cli {

namespace {

struct RunArgs {
  DispatchArgs dispatch;
  std::string problem;
  int runs = 5;
  bool json = false;
};

int run(const RunArgs& a) {
  if (a.runs < 1) throw InputError("", 0, "runs", "must be at least 1");
  select::Dispatcher d(a.dispatch.options());
  const std::string problem = d.canonical(a.problem, "--problem");
  const select::Decision decision = d.select(problem);
  const std::string& kernel = d.catalogue().name(decision.kernel);
  auto workload = d.op().make_workload(problem, 1);
  auto bound = d.op().bind(kernel, *workload, a.dispatch.threads);
  bound->run();  // warm-up
  const std::string wrong = bound->verify();
  std::vector<double> ms;
  for (int r = 0; r < a.runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    bound->run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  const double gflops = workload->flops() / (median * 1e6);
  if (a.json) {
    std::cout << nlohmann::json{{"problem", problem},
                                {"kernel", kernel},
                                {"level", select::to_string(decision.source)},
                                {"verified", wrong.empty()},
                                {"error", wrong},
                                {"median_ms", median},
                                {"min_ms", ms.front()},
                                {"gflops", gflops},
                                {"runs", a.runs}}
                     .dump(2)
              << "\n";
  } else {
    std::printf("kernel:   %s (%s)\n", kernel.c_str(),
                std::string(select::to_string(decision.source)).c_str());
    std::printf("verified: %s\n", wrong.empty() ? "yes" : ("NO: " + wrong).c_str());
    std::printf("time:     %.4g ms median of %d runs (min %.4g), %.4g GFLOP/s\n", median, a.runs,
                ms.front(), gflops);
  }
  a.dispatch.save(d);
  if (!wrong.empty())
    std::cerr << "kselect: " << kernel << " computed a wrong result: " << wrong << "\n";
  return wrong.empty() ? kExitOk : kExitFailure;
}

std::function<int()> setup(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Select a problem's kernel, run it on the CPU, verify it and time it");
  args->dispatch.add_options(*cmd);
  cmd->add_option("--problem", args->problem, "Problem, e.g. m=128,n=1536,k=7168,layout=rcr")
      ->required();
  cmd->add_option("--runs", args->runs, "Timed runs (the median is reported)")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON");
  return [args] { return run(*args); };
}

RegisterVerb reg("run", setup);

}  // namespace
}  // namespace kselect::cli
