#include "ops/gemm/kernel.h"

#include <algorithm>
#include <climits>
#include <initializer_list>

#include "core/error.h"
#include "ops/cpu_gemm_core/isa.h"
#include "ops/gemm/cpu/driver.h"

namespace kselect::gemm {

namespace {

bool one_of(int v, std::initializer_list<int> set) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

std::string num(std::int64_t v) {
  return std::to_string(v);
}

// The compiled set (docs/gemm-kernels.md): register tiles within the AVX-512 register budget,
// K unrolls per dtype, and tiles divisible by warps x warp tiles.
void check_config(const GemmConfig& c) {
  auto fail = [&](const char* field, const std::string& what) {
    throw InputError("", 0, field, what + " (" + c.name() + ")");
  };
  if (!one_of(c.warp_tile_m, {1, 4, 6, 8, 12, 14}))
    fail("warp_tile_m", "must be one of 1, 4, 6, 8, 12, 14");
  if (!one_of(c.warp_tile_n, {16, 32, 48, 64}))
    fail("warp_tile_n", "must be one of 16, 32, 48, 64");
  if (c.warp_tile_m * c.warp_tile_n / 16 + c.warp_tile_n / 16 + 1 > 32)
    fail("warp_tile_m", "register tile " + num(c.warp_tile_m) + "x" + num(c.warp_tile_n) +
                            " needs more than 32 AVX-512 registers");
  if (c.dtype == DType::kFp32 ? !one_of(c.warp_tile_k, {1, 2, 4})
                              : !one_of(c.warp_tile_k, {2, 4, 8}))
    fail("warp_tile_k", c.dtype == DType::kFp32 ? "fp32 kernels unroll K by 1, 2 or 4"
                                                : "bf16 kernels unroll K by 2, 4 or 8");
  if (c.warp_m < 1 || c.warp_n < 1 || c.warp_k < 1 || !one_of(c.num_warps(), {1, 2, 4}))
    fail("warp_m", "warps per block (warp_m*warp_n*warp_k) must be 1, 2 or 4");
  if (c.tile_m % (c.warp_m * c.warp_tile_m))
    fail("tile_m", "must be a multiple of warp_m*warp_tile_m = " + num(c.warp_m * c.warp_tile_m));
  if (c.tile_n % (c.warp_n * c.warp_tile_n))
    fail("tile_n", "must be a multiple of warp_n*warp_tile_n = " + num(c.warp_n * c.warp_tile_n));
  if (c.tile_k % (c.warp_k * c.warp_tile_k))
    fail("tile_k", "must be a multiple of warp_k*warp_tile_k = " + num(c.warp_k * c.warp_tile_k));
}

std::string not_divisible(char dim, std::int64_t v, const char* tile, int t, const char* pad) {
  return std::string(1, dim) + "=" + num(v) + " is not a multiple of " + tile + "=" + num(t) +
         " and the kernel has no " + std::string(1, dim) + " padding (" + pad + "=False)";
}

}  // namespace

struct GemmKernel::Impl {
  GemmConfig config;
  kernels::GemmDriver driver;
};

GemmKernel::GemmKernel(const GemmConfig& config) {
  check_config(config);
  impl_ = std::make_unique<Impl>(Impl{config, kernels::GemmDriver(config, kernels::detect_isa())});
}
GemmKernel::~GemmKernel() = default;
GemmKernel::GemmKernel(GemmKernel&&) noexcept = default;
GemmKernel& GemmKernel::operator=(GemmKernel&&) noexcept = default;

const GemmConfig& GemmKernel::config() const {
  return impl_->config;
}

std::string GemmKernel::isa() const {
  return std::string(kernels::to_string(impl_->driver.isa()));
}

std::string GemmKernel::unsupported_reason(const GemmProblem& p) const {
  const GemmConfig& c = impl_->config;
  if (std::string why = p.invalid_reason(); !why.empty()) return why;
  if (p.dtype != c.dtype)
    return "problem dtype " + std::string(to_string(p.dtype)) + " but the kernel is " +
           std::string(to_string(c.dtype));
  if (p.layout != c.layout)
    return "problem layout " + std::string(to_string(p.layout)) + " but the kernel is " +
           std::string(to_string(c.layout));
  if (!c.pad_m && p.m % c.tile_m) return not_divisible('M', p.m, "tile_m", c.tile_m, "pad_m");
  if (!c.pad_n && p.n % c.tile_n) return not_divisible('N', p.n, "tile_n", c.tile_n, "pad_n");
  if (!c.pad_k && p.k % c.tile_k) return not_divisible('K', p.k, "tile_k", c.tile_k, "pad_k");
  const std::int64_t k_tiles = (p.k + c.tile_k - 1) / c.tile_k;
  if (p.split_k > k_tiles)
    return "split_k=" + num(p.split_k) + " exceeds the " + num(k_tiles) +
           " K tiles (ceil(K/tile_k)): each split-K part needs at least one K tile";
  // Gathers of column-major B use 32-bit element offsets.
  if (c.pipeline == Pipeline::kMem && !b_row_major(c.layout) && p.k * c.warp_tile_n > INT_MAX)
    return "K=" + num(p.k) + " is too large for the gathered column-major B of the mem pipeline";
  return "";
}

void GemmKernel::run(const GemmProblem& p, const void* a, const void* b, float* c,
                     int threads) const {
  if (threads < 1) throw InputError("", 0, "threads", "must be >= 1, got " + num(threads));
  if (std::string why = unsupported_reason(p); !why.empty())
    throw InputError("", 0, "", impl_->config.name() + " cannot run " + p.to_string() + ": " + why);
  impl_->driver.run(p, a, b, c, threads);
}

double GemmKernel::workspace_bytes(const GemmProblem& p, int threads) const {
  return impl_->driver.workspace_bytes(p, threads);
}

}  // namespace kselect::gemm
