// kselect: learned kernel selection. Thin command-line layer over libkselect.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/verb.h"
#include "core/error.h"

namespace kselect::cli {
std::vector<Verb>& verb_registry() {
  static std::vector<Verb> verbs;
  return verbs;
}
}  // namespace kselect::cli

namespace kselect::cli {
// Every verb's result passes through here: output a verb wrote to stdout that did not reach it
// (a full disk, a closed descriptor) fails the command, whatever the verb returned.
int checked_stdout(int rc) {
  std::cout.flush();
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good()) return rc;
  std::cerr << "kselect: storage error: cannot write standard output (disk full or descriptor "
               "closed): the output is incomplete\n";
  return kExitStorage;
}
}  // namespace kselect::cli

int main(int argc, char** argv) {
  using namespace kselect;
  CLI::App app{"kselect: learned kernel selection (see docs/cli.md)", "kselect"};
  app.set_version_flag("--version", std::string(KSELECT_VERSION));
  app.require_subcommand(1);
  auto& verbs = cli::verb_registry();
  std::sort(verbs.begin(), verbs.end(), [](auto& a, auto& b) { return a.name < b.name; });
  std::map<std::string, std::function<int()>> runners;
  for (auto& verb : verbs) runners[verb.name] = verb.setup(app);
  // CLI11 reports an unknown verb as a missing subcommand: name it and list the verbs.
  if (argc > 1 && argv[1][0] != '-' && !runners.count(argv[1])) {
    std::string known;
    for (const auto& [name, run] : runners) known += (known.empty() ? "" : ", ") + name;
    std::cerr << "kselect: unknown verb '" << argv[1] << "' (verbs: " << known << ")\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  try {
    for (auto* sub : app.get_subcommands())
      return cli::checked_stdout(runners.at(sub->get_name())());
  } catch (const UsageError& e) {
    std::cerr << "kselect: " << e.what() << " (see kselect <verb> --help)\n";
    return kExitUsage;
  } catch (const InputError& e) {
    std::cerr << "kselect: error: " << e.what() << "\n";
    return kExitInput;
  } catch (const StorageError& e) {
    std::cerr << "kselect: storage error: " << e.what() << "\n";
    return kExitStorage;
  } catch (const std::exception& e) {
    std::cerr << "kselect: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  return kExitUsage;
}
