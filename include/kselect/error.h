#pragma once
// The exceptions kselect's C++ API throws. Both derive from std::runtime_error; the message
// names where bad input came from (file, line, field) so that it can be fixed.
#include <stdexcept>
#include <string>

namespace kselect {

// Bad input or data: a malformed file or problem, an unknown name, an impossible value.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
  // Formats "<file>:<line>: field '<field>': <what>"; empty parts are left out.
  InputError(const std::string& file, long line, const std::string& field, const std::string& what);
};

// Stored state (a database, a model directory, a cache file) that cannot be read or written.
class StorageError : public std::runtime_error {
 public:
  explicit StorageError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace kselect
