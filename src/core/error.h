#pragma once
// Errors carry where bad input came from (file, line, field) so users can fix it.
#include <stdexcept>
#include <string>

namespace kselect {

// Thrown for bad user input or data: a malformed file, an unknown name, an impossible value.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
  // Formats "<file>:<line>: field '<field>': <what>"; empty parts are left out.
  InputError(const std::string& file, long line, const std::string& field, const std::string& what);
};

// A command line the parser accepts but the verb cannot run (an option required in one mode
// of a verb only): exit code 2, like a parse error.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

// Thrown when stored state (database, model directory) cannot be read or written.
class StorageError : public std::runtime_error {
 public:
  explicit StorageError(const std::string& what) : std::runtime_error(what) {}
};

// Exit codes of the CLI; documented in docs/cli.md.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,    // a check or acceptance test did not pass
  kExitUsage = 2,      // bad command line
  kExitInput = 3,      // bad input data (file, line, field named in the message)
  kExitStorage = 4,    // database or model file unreadable, locked or corrupt
  kExitInternal = 70,  // a bug: please report
};

}  // namespace kselect
