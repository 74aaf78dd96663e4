#pragma once
// Errors carry where bad input came from (file, line, field) so users can fix it.
#include <stdexcept>
#include <string>

#include "kselect/error.h"  // InputError, StorageError: part of the public API

namespace kselect {

// A command line the parser accepts but the verb cannot run (an option required in one mode
// of a verb only): exit code 2, like a parse error.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
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
