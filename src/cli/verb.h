#pragma once
// Each CLI verb lives in its own file and registers itself here; main() builds the app from
// the registry. Verbs only parse arguments and call the library.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kselect::cli {

// `setup` adds the verb's subcommand to `app` and returns the function that runs it. The
// function returns the process exit code (see core/error.h ExitCode).
struct Verb {
  std::string name;
  std::function<std::function<int()>(CLI::App& app)> setup;
};

std::vector<Verb>& verb_registry();

struct RegisterVerb {
  RegisterVerb(std::string name, std::function<std::function<int()>(CLI::App&)> setup) {
    verb_registry().push_back({std::move(name), std::move(setup)});
  }
};

}  // namespace kselect::cli
