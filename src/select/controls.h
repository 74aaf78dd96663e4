#pragma once
// What a user imposes on the dispatcher, from a JSON file (docs/runtime.md, "Controls"):
//
//   {
//     "pins":  [{"problem": "m=1,layout=rcr", "kernel": "gemm_universal_..."}],
//     "allow": ["gemm_universal_..."],          // only these (absent: every kernel)
//     "deny":  ["gemm_universal_..."],          // never these
//     "workspace_bytes": 1048576                // scratch memory a kernel may use at most
//   }
//
// A pin's problem is a pattern: each key=value must match the problem's field of that name,
// where a value is exact text, a glob with '*', or an integer range "lo..hi" (inclusive).
// Everything is checked when loaded: kernels must be in the catalogue, pattern keys must be
// problem fields. Each filter counts what it removes.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/operation.h"

namespace kselect::select {

// A kernel a filter removed, and why.
struct Rejection {
  std::uint32_t kernel = 0;  // catalogue index
  std::string filter;        // "unsupported", "deny", "allow", "workspace"
  std::string reason;
};

struct ControlCounts {
  std::uint64_t pins_applied = 0, denied = 0, not_allowed = 0, over_workspace = 0;
};

class Controls {
 public:
  Controls() = default;  // nothing imposed
  // InputError naming `path` and the field for anything malformed or unknown.
  static Controls load(const std::filesystem::path& path, const Operation& op,
                       const KernelCatalogue& catalogue);
  static Controls parse(const std::string& json_text, const std::string& source,
                        const Operation& op, const KernelCatalogue& catalogue);

  bool empty() const { return pins_.empty() && !allow_ && deny_.empty() && !workspace_; }
  // The pinned kernel of the first pin whose pattern matches `problem` (canonical), if any.
  std::optional<std::uint32_t> pinned(std::string_view problem) const;
  // `candidates` without the kernels the allow and deny lists and the workspace budget
  // exclude; `rejected`, when given, receives each removal with its reason.
  std::vector<std::uint32_t> filter(std::string_view problem,
                                    std::span<const std::uint32_t> candidates,
                                    const KernelCatalogue& catalogue,
                                    std::vector<Rejection>* rejected = nullptr) const;
  ControlCounts counts() const;

  Controls(Controls&& other) noexcept;
  Controls& operator=(Controls&& other) noexcept;

 private:
  struct FieldPattern {
    std::string key, value;  // value: exact, glob or lo..hi
  };
  struct Pin {
    std::vector<FieldPattern> pattern;
    std::uint32_t kernel = 0;
  };
  static bool matches(const std::vector<FieldPattern>& pattern, std::string_view problem);

  std::vector<Pin> pins_;
  std::optional<std::vector<char>> allow_;  // per catalogue index
  std::vector<char> deny_;                  // per catalogue index; empty: none denied
  std::optional<double> workspace_;
  mutable std::atomic<std::uint64_t> pins_applied_{0}, denied_{0}, not_allowed_{0},
      over_workspace_{0};
};

}  // namespace kselect::select
