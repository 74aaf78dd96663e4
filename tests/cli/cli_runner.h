#pragma once
// Runs the built kselect binary from tests: exit code and output, or a live child to kill.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace kselect::testing {

struct CliResult {
  int code = -1;
  std::string out;  // stdout, plus stderr when asked
};

inline std::string quote(const std::string& arg) {
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `kselect args...` to completion. stderr is merged into `out` when `with_stderr`.
inline CliResult run_cli(const std::vector<std::string>& args, bool with_stderr = false) {
  std::string command = quote(KSELECT_CLI_PATH);
  for (const auto& a : args) command += " " + quote(a);
  command += with_stderr ? " 2>&1" : " 2>/dev/null";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.out.append(buffer.data(), n);
  int status = pclose(pipe);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Runs `kselect args...` with stdout written to `stdout_path` (e.g. /dev/full); the exit code.
inline int run_cli_to(const std::vector<std::string>& args, const std::string& stdout_path) {
  std::string command = quote(KSELECT_CLI_PATH);
  for (const auto& a : args) command += " " + quote(a);
  command += " > " + quote(stdout_path) + " 2>/dev/null";
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Starts `kselect args...` in the background with output discarded; returns its pid.
inline pid_t spawn_cli(const std::vector<std::string>& args) {
  std::vector<std::string> all = {KSELECT_CLI_PATH};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace kselect::testing
