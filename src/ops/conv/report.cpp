#include "ops/conv/report.h"

#include "core/error.h"
#include "ops/conv/config.h"
#include "ops/conv/cpu/driver.h"
#include "ops/conv/problem.h"

namespace kselect::conv {

namespace {

std::string m_bucket(std::int64_t m) {
  return m < 32 ? "tiny" : m < 256 ? "small" : m < 4096 ? "medium" : "large";
}
std::string k_bucket(std::int64_t k) {
  return k < 512 ? "shallow" : k < 4096 ? "medium" : "deep";
}
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

ReportGroups report_groups(std::string_view problem, std::string_view picked, int cores) {
  ReportGroups out;
  Problem p;
  try {
    p = parse_native_problem(problem);
  } catch (const InputError&) {
    return out;  // not a native conv problem: no conv slices
  }
  const cpu::GemmShape shape = cpu::implicit_gemm(p);
  out.slices = {{"direction", std::string(ck_direction(*p.dir))},
                {"ndim", std::to_string(spatial_dims(p)) + "d"},
                {"dtype", p.dtype},
                {"gemm_m", m_bucket(shape.m)},
                {"gemm_k", k_bucket(shape.k)}};
  const auto config = ConvConfig::from_name(picked);
  if (config) {
    out.slices.emplace_back("pipeline", std::string(to_string(config->pipeline)));
    out.slices.emplace_back("specialization", std::string(to_string(config->specialization)));
  }
  const bool depthwise = p.g == p.c && p.g == p.k;
  if (depthwise) out.strata.push_back("depthwise");
  if (p.g > 1 && !depthwise) out.strata.push_back("grouped");
  if (p.z == 1 && p.y == 1 && p.x == 1) out.strata.push_back("one_by_one");
  if (config && p.g * ceil_div(shape.m, config->tile_m) * ceil_div(shape.n, config->tile_n) < cores)
    out.strata.push_back("fewer_tiles_than_cores");
  return out;
}

}  // namespace kselect::conv
