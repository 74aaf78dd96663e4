// libFuzzer target for the shape-CSV reader (ops/shape_csv.h); seeds in fuzz/corpus/shape-csv/.
// The rows are GEMM problems, parsed and made canonical by the GEMM problem type the GEMM op
// uses, through an op that answers nothing else. The reader may refuse input only with
// InputError; any other exception, crash, leak or undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/key_values.h"
#include "ops/gemm/problem.h"
#include "ops/operation.h"
#include "ops/shape_csv.h"

namespace {

class GemmProblemsOnly : public kselect::Operation {
 public:
  std::string_view name() const override { return "gemm"; }
  const kselect::Capabilities& capabilities() const override {
    static const kselect::Capabilities caps;
    return caps;
  }
  std::string canonical_problem(std::string_view text, const std::string& source) const override {
    return kselect::gemm::GemmProblem::parse(text, source).to_string();
  }
  std::vector<std::string> problem_columns() const override {
    return {"m", "n", "k", "layout", "dtype", "split_k"};
  }
  std::vector<std::string> kernel_names(std::string_view, const kselect::KeyValues&) const override {
    return {};
  }
  nlohmann::json kernel_fields(std::string_view) const override { return {}; }
  std::string unsupported_reason(std::string_view, std::string_view) const override { return {}; }
  std::unique_ptr<kselect::Workload> make_workload(std::string_view, unsigned) const override {
    return nullptr;
  }
  std::unique_ptr<kselect::BoundKernel> bind(std::string_view, kselect::Workload&,
                                             int) const override {
    return nullptr;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const GemmProblemsOnly op;
  try {
    const auto problems = kselect::parse_shape_csv(
        op, std::string(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    // What the reader returns is canonical: reading it back as a CSV gives the same problems.
    if (kselect::parse_shape_csv(op, kselect::format_shape_csv(op, problems), "back.csv") !=
        problems)
      __builtin_trap();
  } catch (const kselect::InputError&) {
  }
  return 0;
}
