#include "ops/gemm/report.h"

#include "core/error.h"

namespace kselect::gemm {

namespace {
// Name of the first bucket whose exclusive upper bound exceeds `value`, else the last name.
std::string bin(std::int64_t value, std::int64_t b1, std::int64_t b2, std::int64_t b3,
                const char* n0, const char* n1, const char* n2, const char* n3) {
  if (value < b1) return n0;
  if (value < b2) return n1;
  if (value < b3) return n2;
  return n3;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
}  // namespace

std::string m_family_fp16(std::int64_t m) {
  return bin(m, 8, 128, 1024, "tiny", "small", "medium", "large");
}

std::string m_family_eval(std::int64_t m) {
  return bin(m, 32, 256, 4096, "tiny", "small", "medium", "large");
}

std::string k_regime(std::int64_t k) {
  if (k < 512) return "shallow";
  return k < kLargeK ? "medium" : "deep";
}

GemmView gemm_view(std::string_view problem, std::string_view picked) {
  GemmView view;
  try {
    view.problem = GemmProblem::parse(problem);
  } catch (const InputError&) {
    return view;  // not GEMM text: no GEMM slices for it
  }
  view.picked = GemmConfig::from_name(picked);
  return view;
}

std::vector<std::pair<std::string, std::string>> slice_buckets(const GemmView& view) {
  std::vector<std::pair<std::string, std::string>> out;
  if (const auto& p = view.problem) {
    out.emplace_back("m_family_fp16", m_family_fp16(p->m));
    out.emplace_back("m_family_eval", m_family_eval(p->m));
    out.emplace_back("k_regime", k_regime(p->k));
    out.emplace_back("layout", std::string(to_string(p->layout)));
    out.emplace_back("dtype", std::string(to_string(p->dtype)));
  }
  if (view.picked) out.emplace_back("pipeline", std::string(to_string(view.picked->pipeline)));
  return out;
}

std::vector<std::string> regret_strata(const GemmView& view, int cores) {
  std::vector<std::string> out = {"all"};
  const auto& p = view.problem;
  if (!p) return out;
  if (p->m <= 16) out.push_back("m_le_16");
  if (p->m % 16 != 0 || p->n % 16 != 0 || p->k % 16 != 0) out.push_back("not_divisible_by_16");
  if (p->k >= kLargeK) out.push_back("large_k");
  if (const auto& c = view.picked) {
    std::int64_t tiles = ceil_div(p->m, c->tile_m) * ceil_div(p->n, c->tile_n);
    if (tiles < cores) out.push_back("fewer_tiles_than_cores");
  }
  return out;
}

ReportGroups report_groups(const GemmView& view, int cores) {
  return {.slices = slice_buckets(view), .strata = regret_strata(view, cores)};
}

}  // namespace kselect::gemm
