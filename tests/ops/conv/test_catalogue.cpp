// The conv op's kernel catalogue and its runs on a caller's tensors (Operation::catalogue,
// operand_names, wrap_buffers).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../catalogue_support.h"
#include "core/error.h"
#include "ops/conv/config.h"
#include "ops/conv/kernel.h"
#include "ops/conv/operation.h"
#include "ops/conv/problem.h"
#include "ops/conv/reference.h"
#include "ops/cpu_gemm_core/bf16.h"
#include "ops/operation.h"

namespace kselect::conv {
namespace {

const Operation& op() {
  return operation();
}

std::string native(const std::string& text) {
  return op().canonical_problem(text, "test");
}

// The `tests` set and every 17th kernel of `full`.
std::vector<std::string> sample_kernels() {
  std::vector<std::string> kernels = op().kernel_names("tests", {});
  const std::vector<std::string> full = op().kernel_names("full", {});
  for (std::size_t i = 0; i < full.size(); i += 17) kernels.push_back(full[i]);
  return kernels;
}

TEST(ConvCatalogue, AnswersAsTheOpDoesByName) {
  kselect::testing::expect_catalogue_answers_as_names(
      op(), sample_kernels(),
      {native("n=2,c=16,k=32,hi=14,wi=14,y=3,x=3,pad_h=1,pad_w=1,dir=fwd,dtype=fp32"),
       native("n=1,c=64,k=64,hi=7,wi=7,y=1,x=1,dir=fwd,dtype=bf16"),
       native("n=2,c=32,k=32,g=4,hi=9,wi=8,y=3,x=3,pad_h=1,pad_w=1,stride_h=2,dir=bwd_data,"
              "dtype=fp32"),
       native("n=4,c=8,k=16,hi=12,wi=12,y=3,x=3,dir=bwd_weight,dtype=bf16"),
       native("n=1,c=12,k=20,hi=8,wi=8,y=1,x=1,dir=bwd_weight,dtype=fp32"),
       native("n=1,c=16,k=16,di=4,hi=6,wi=6,z=3,y=3,x=3,pad_d=1,pad_h=1,pad_w=1,dir=fwd,"
              "dtype=fp32")});
}

TEST(ConvCatalogue, UnknownKernelsAreNamed) {
  auto tests = op().kernel_names("tests", {});
  try {
    op().catalogue({tests[0], "grouped_conv_fwd_fp32"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("grouped_conv_fwd_fp32"), std::string::npos) << e.what();
  }
}

TEST(ConvCatalogue, WorkspaceCountsGathersAndKPartials) {
  const std::string problem =
      native("n=4,c=64,k=64,hi=32,wi=32,y=3,x=3,pad_h=1,pad_w=1,dir=fwd,dtype=fp32");
  std::string gathering;  // a forward kernel that gathers im2col blocks
  for (const auto& kernel : op().kernel_names("tests", {}))
    if (op().unsupported_reason(kernel, problem).empty()) {
      const ConvConfig c = ConvConfig::parse_name(kernel);
      if (c.specialization != Specialization::kFilter1x1Stride1Pad0 && c.tile_k % 2 == 0 &&
          c.vec_a == 1 && c.warp_k == 1) {
        gathering = kernel;
        break;
      }
    }
  ASSERT_FALSE(gathering.empty());
  ConvConfig split = ConvConfig::parse_name(gathering);
  split.warp_k = 2;  // two K parts: one output-sized block of partial sums more
  auto catalogue = op().catalogue({gathering, split.name()});
  const double one = catalogue->workspace_bytes(0, problem);
  EXPECT_GT(one, 0);
  const double output = 4.0 * 4 * 32 * 32 * 64;
  EXPECT_GT(catalogue->workspace_bytes(1, problem), output);
  EXPECT_GT(catalogue->workspace_bytes(1, problem), one);
  const std::string backward = native("n=1,c=8,k=8,hi=6,wi=6,y=3,x=3,dir=bwd_data,dtype=fp32");
  EXPECT_EQ(catalogue->workspace_bytes(0, backward), 0);  // never bound to it
}

TEST(ConvCatalogue, TwoStageKeepsAPartialGradientPerWorker) {
  // K = 256 output pixels, 4 K tiles: four workers each sum one into a weight gradient.
  const std::string problem =
      native("n=1,c=64,k=64,hi=16,wi=16,y=3,x=3,pad_h=1,pad_w=1,dir=bwd_weight,dtype=fp32");
  ConvConfig c;
  c.dir = Direction::kBackwardWeight;
  ConvConfig two = c;
  two.two_stage = true;
  const ConvKernel one_stage(c), two_stage(two);
  const Problem p = parse_native_problem(problem);
  EXPECT_DOUBLE_EQ(two_stage.workspace_bytes(p, 1), one_stage.workspace_bytes(p, 1));
  const double weights = 4.0 * 64 * 9 * 64;
  EXPECT_GT(two_stage.workspace_bytes(p, 4), one_stage.workspace_bytes(p, 4) + weights);
  auto catalogue = op().catalogue({c.name(), two.name()});
  EXPECT_DOUBLE_EQ(catalogue->workspace_bytes(1, problem),
                   two_stage.workspace_bytes(p, omp_get_max_threads()));
}

TEST(ConvWrapBuffers, KernelsRunOnTheCallersTensors) {
  const struct {
    const char* dir;
    std::vector<std::string> names;
  } directions[] = {{"fwd", {"input", "weight", "output"}},
                    {"bwd_data", {"output_grad", "weight", "input_grad"}},
                    {"bwd_weight", {"input", "output_grad", "weight_grad"}}};
  for (const auto& d : directions)
    for (const char* dtype : {"fp32", "bf16"}) {
      const std::string problem = native(
          std::string("n=2,c=16,k=16,g=2,hi=9,wi=8,y=3,x=3,pad_h=1,pad_w=1,stride_h=2,dir=") +
          d.dir + ",dtype=" + dtype);
      const Problem p = parse_native_problem(problem);
      ASSERT_EQ(op().operand_names(problem), d.names);
      const bool bf16 = std::string(dtype) == "bf16";
      std::mt19937 rng(11);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      auto values = [&](std::int64_t count) {
        std::vector<float> v(std::size_t(count), 0.0f);
        for (float& x : v) {
          x = dist(rng);
          if (bf16) x = kernels::bf16_to_float(kernels::float_to_bf16(x));
        }
        return v;
      };
      std::vector<float> x = values(x_elements(p)), w = values(w_elements(p)),
                         y = values(y_elements(p));
      const std::string dir = d.dir;
      // Operand order: the two read tensors, then the written one.
      std::vector<float>* read[2] = {dir == "bwd_data" ? &y : &x, dir == "bwd_weight" ? &y : &w};
      const std::vector<double> expected = reference_conv(p, x, w, y);
      std::vector<float> stored32[2];
      std::vector<std::uint16_t> stored16[2];
      std::vector<void*> buffers;
      for (int i = 0; i < 2; ++i) {
        if (bf16) {
          for (float v : *read[i]) stored16[i].push_back(kernels::float_to_bf16(v));
          buffers.push_back(stored16[i].data());
        } else {
          stored32[i] = *read[i];
          buffers.push_back(stored32[i].data());
        }
      }
      std::vector<float> result(expected.size(), NAN);
      buffers.push_back(result.data());
      auto workload = op().wrap_buffers(problem, buffers);
      int ran = 0;
      for (const auto& kernel : op().kernel_names("tests", {})) {
        if (ran == 3 || !op().unsupported_reason(kernel, problem).empty()) continue;
        std::fill(result.begin(), result.end(), NAN);
        auto bound = op().bind(kernel, *workload, 2);
        bound->run();
        for (std::size_t i = 0; i < expected.size(); ++i)
          ASSERT_NEAR(result[i], expected[i], 1e-4 * (1 + std::fabs(expected[i])))
              << kernel << " on " << problem << ", element " << i;
        EXPECT_EQ(bound->verify(), "") << kernel << " on " << problem;
        result[3] += 50.0f;  // a corrupted output is reported
        EXPECT_NE(bound->verify(), "") << kernel;
        ++ran;
      }
      EXPECT_GE(ran, 1) << problem;
      EXPECT_THROW(workload->rotate_operands(3), InputError);
    }
}

TEST(ConvWrapBuffers, OperandCountsAndNullsAreRejected) {
  const std::string problem = native("n=1,c=4,k=4,hi=4,wi=4,y=3,x=3,dir=bwd_data,dtype=fp32");
  std::vector<float> a(256), b(256), c(256);
  auto message = [&](std::vector<void*> buffers) {
    return kselect::testing::wrap_error(op(), problem, std::move(buffers));
  };
  EXPECT_NE(message({a.data()}).find("expected 3 (output_grad, weight, input_grad), got 1"),
            std::string::npos);
  EXPECT_NE(message({nullptr, b.data(), c.data()}).find("'output_grad'"), std::string::npos);
  EXPECT_NE(message({a.data(), b.data(), nullptr}).find("'input_grad'"), std::string::npos);
  EXPECT_EQ(message({a.data(), b.data(), c.data()}), "no error");
}

}  // namespace
}  // namespace kselect::conv
