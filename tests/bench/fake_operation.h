#pragma once
// A test double of kselect::Operation whose kernels spin for a known time, throw, compute a
// wrong result or reject problems: the sweep runner and store are tested against it without
// depending on the real GEMM kernels.
#include <chrono>
#include <stdexcept>

#include "core/error.h"
#include "ops/operation.h"

namespace kselect::testing {

class FakeWorkload : public Workload {
 public:
  FakeWorkload(std::string problem, long size) : problem_(std::move(problem)), size_(size) {}
  const std::string& problem() const override { return problem_; }
  double flops() const override { return 1e6 * double(size_); }
  double bytes() const override { return 1e3 * double(size_); }
  void rotate_operands(int copies) override { last_rotation() = copies; }
  long size() const { return size_; }
  // The copies the last rotated workload was asked for.
  static int& last_rotation() {
    static int copies = 0;
    return copies;
  }

 private:
  std::string problem_;
  long size_;
};

// Kernels of set "tiny": fast (spins size us), slow (3 x size us), big_only (rejects
// size < 10), thrower (throws on run), wrong (verify fails), and other_dtype (dtype=b). Bound
// by name only: needs_self (size us right after its own run, else 3 x size us, like a kernel
// whose data another kernel evicted) and needs_two (size us after two runs of its own in a
// row, like a kernel whose operands a single run does not bring back into the cache).
class FakeOperation : public Operation {
 public:
  std::string_view name() const override { return "fake"; }
  const Capabilities& capabilities() const override {
    static const Capabilities caps;
    return caps;
  }
  std::string canonical_problem(std::string_view text, const std::string& source) const override {
    KeyValues kv = KeyValues::parse(text, source);
    auto unknown = kv.unknown_keys({"size", "dtype"});
    if (!unknown.empty()) throw InputError(source, 0, unknown.front(), "unknown field");
    long size = long(kv.require_int("size"));
    if (size < 1) throw InputError(source, 0, "size", "must be >= 1");
    std::string dtype = kv.get("dtype").value_or("a");
    if (dtype != "a" && dtype != "b") throw InputError(source, 0, "dtype", "unknown dtype");
    return "size=" + std::to_string(size) + ",dtype=" + dtype;
  }
  std::vector<std::string> problem_columns() const override { return {"size", "dtype"}; }
  std::vector<std::string> kernel_names(std::string_view set,
                                        const KeyValues& filter) const override {
    if (set != "tiny") throw InputError("", 0, "rules", "unknown set");
    std::vector<std::string> out;
    for (std::string k : {"fast", "slow", "big_only", "thrower", "wrong", "other_dtype"})
      if (!filter.has("dtype") || *filter.get("dtype") == dtype_of(k)) out.push_back(k);
    return out;
  }
  nlohmann::json kernel_fields(std::string_view kernel) const override {
    return {{"name", kernel}, {"dtype", dtype_of(std::string(kernel))}};
  }
  std::string unsupported_reason(std::string_view kernel, std::string_view problem) const override {
    long size = long(KeyValues::parse(problem).require_int("size"));
    if (kernel == "big_only" && size < 10) return "size below 10";
    return "";
  }
  // Bytes per unit of `size` a workload claims to need (0: unknown, no memory check).
  double bytes_per_size = 0;
  double workload_bytes(std::string_view problem) const override {
    return bytes_per_size * double(KeyValues::parse(problem).require_int("size"));
  }
  std::unique_ptr<Workload> make_workload(std::string_view problem, unsigned) const override {
    return std::make_unique<FakeWorkload>(std::string(problem),
                                          long(KeyValues::parse(problem).require_int("size")));
  }
  std::unique_ptr<BoundKernel> bind(std::string_view kernel, Workload& workload,
                                    int) const override {
    auto& w = dynamic_cast<FakeWorkload&>(workload);
    return std::make_unique<Bound>(std::string(kernel), w.size());
  }

  // Calls of any bound kernel's run() in this process, for tests that count calls.
  static long total_runs() { return Bound::runs(); }

  static std::string dtype_of(const std::string& kernel) {
    return kernel == "other_dtype" ? "b" : "a";
  }

 private:
  class Bound : public BoundKernel {
   public:
    Bound(std::string kernel, long size)
        : kernel_(std::move(kernel)), size_(size), id_(++ids().last_made) {}
    void run() override {
      ++ids().runs;
      if (kernel_ == "thrower") throw std::runtime_error("out of registers");
      long us = kernel_ == "slow" ? 3 * size_ : size_;
      ids().own_runs_before = ids().last_run == id_ ? ids().own_runs_before + 1 : 0;
      if (kernel_ == "needs_self" && ids().own_runs_before < 1) us = 3 * size_;
      if (kernel_ == "needs_two" && ids().own_runs_before < 2) us = 3 * size_;
      ids().last_run = id_;
      auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    static long runs() { return ids().runs; }
    std::string verify() override { return kernel_ == "wrong" ? "C[0,0] = 1, expected 2" : ""; }

   private:
    // Ids, not addresses: a new Bound may reuse the address of one already destroyed.
    struct Ids {
      long last_made = 0, last_run = 0, runs = 0;
      int own_runs_before = 0;  // runs of last_run's kernel in a row before this one
    };
    static Ids& ids() {
      static Ids ids;
      return ids;
    }
    std::string kernel_;
    long size_;
    long id_;
  };
};

}  // namespace kselect::testing
