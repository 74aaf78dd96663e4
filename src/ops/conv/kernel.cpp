#include "ops/conv/kernel.h"

#include "core/error.h"

namespace kselect::conv {

namespace {

// Why the configuration cannot be built, or "".
std::string build_reason(const ConvConfig& c) {
  auto positive = c.tile_m > 0 && c.tile_n > 0 && c.tile_k > 0 && c.warp_m > 0 && c.warp_n > 0 &&
                  c.warp_k > 0 && c.warp_tile_m > 0 && c.warp_tile_n > 0 && c.warp_tile_k > 0;
  if (!positive) return "tile, warp and warp tile sizes must be positive";
  if (c.tile_m % (c.warp_m * c.warp_tile_m) != 0)
    return "tile_m is not a multiple of warp_m * warp_tile_m";
  if (c.tile_n % (c.warp_n * c.warp_tile_n) != 0)
    return "tile_n is not a multiple of warp_n * warp_tile_n";
  if (c.tile_k % c.warp_k != 0) return "tile_k is not a multiple of warp_k";
  for (int vec : {c.vec_a, c.vec_b, c.vec_c})
    if (vec != 1 && vec != 4 && vec != 8) return "vector widths are 1, 4 or 8";
  if ((c.tile_k / c.warp_k) % c.vec_a != 0) return "vec_a must divide the K slice tile_k / warp_k";
  if (c.specialization == Specialization::kFilter1x1Stride1Pad0 && c.vec_a != 1)
    return "filter1x1stride1pad0 gathers nothing: vec_a must be 1";
  if (c.vec_b != 1 && c.dir != Direction::kBackwardData)
    return "vec_b is the width of backward data's weight-row copies: 1 in other directions";
  if (c.vec_c != 1 && c.epilogue != Epilogue::kCShuffle)
    return "vec_c is the width of the cshuffle epilogue's copies: 1 with epilogue default";
  if (c.two_stage && c.dir != Direction::kBackwardWeight)
    return "two_stage is a backward-weight variant";
  if (c.dsb) return "dsb (double-buffered gathers) has no CPU kernel yet";
  return "";
}

}  // namespace

struct ConvKernel::Impl {
  ConvConfig config;
  cpu::ConvDriver driver;
  Impl(const ConvConfig& c, kernels::Isa isa) : config(c), driver(c, isa) {}
};

ConvKernel::ConvKernel(const ConvConfig& config) {
  if (std::string why = build_reason(config); !why.empty())
    throw InputError("", 0, "kernel", config.name() + ": " + why);
  impl_ = std::make_unique<Impl>(config, kernels::detect_isa());
}
ConvKernel::~ConvKernel() = default;
ConvKernel::ConvKernel(ConvKernel&&) noexcept = default;
ConvKernel& ConvKernel::operator=(ConvKernel&&) noexcept = default;

const ConvConfig& ConvKernel::config() const {
  return impl_->config;
}

std::string ConvKernel::isa() const {
  return std::string(kernels::to_string(impl_->driver.isa()));
}

std::string ConvKernel::unsupported_reason(const Problem& p) const {
  const ConvConfig& c = impl_->config;
  if (!p.dir || *p.dir != c.dir)
    return "direction mismatch: kernel " + std::string(ck_direction(c.dir)) + ", problem " +
           (p.dir ? std::string(ck_direction(*p.dir)) : "none");
  if (p.dtype != c.dtype) return "dtype mismatch: kernel " + c.dtype + ", problem " + p.dtype;
  if (p.layout != c.layout())
    return "layout mismatch: kernel " + c.layout() + ", problem " + p.layout;
  if (std::string why = c.specialization_reason(p); !why.empty()) return why;
  const std::int64_t cg = p.c / p.g, kg = p.k / p.g;
  // The gathered operand's channel runs: the input's C/G (forward, backward weight) or the
  // output gradient's K/G (backward data).
  const bool backward_data = c.dir == Direction::kBackwardData;
  const std::int64_t gathered_run = backward_data ? kg : cg;
  if (gathered_run % c.vec_a != 0)
    return std::string(backward_data ? "K/G=" : "C/G=") + std::to_string(gathered_run) +
           " is not a multiple of vec_a=" + std::to_string(c.vec_a);
  if (backward_data && cg % c.vec_b != 0)
    return "C/G=" + std::to_string(cg) + " is not a multiple of vec_b=" + std::to_string(c.vec_b);
  const std::int64_t n = cpu::implicit_gemm(p).n;
  if (n % c.vec_c != 0)
    return "GEMM N=" + std::to_string(n) + " is not a multiple of vec_c=" + std::to_string(c.vec_c);
  return "";
}

void ConvKernel::run(const Problem& p, const cpu::ConvTensors& tensors, int threads,
                     const cpu::PackedWeights* packed) const {
  check_supported(p);
  impl_->driver.run(p, tensors, threads, packed);
}

std::shared_ptr<const cpu::PackedWeights> ConvKernel::pack_weights(const Problem& p,
                                                                   const void* w) const {
  check_supported(p);
  return impl_->driver.pack_weights(p, w);
}

std::string ConvKernel::weight_layout() const {
  return impl_->driver.weight_layout();
}

void ConvKernel::check_supported(const Problem& p) const {
  if (std::string why = unsupported_reason(p); !why.empty())
    throw InputError("", 0, "kernel", impl_->config.name() + " cannot run this problem: " + why);
}

double ConvKernel::workspace_bytes(const Problem& p, int threads) const {
  return impl_->driver.workspace_bytes(p, threads);
}

}  // namespace kselect::conv
