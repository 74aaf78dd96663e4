#include "ops/cpu_gemm_core/pack.h"

#include <gtest/gtest.h>

#include <vector>

#include "ops/cpu_gemm_core/bf16.h"
#include "ops/cpu_gemm_core/isa.h"

namespace kselect::kernels {
namespace {

// Row-major A (rows x kl, leading dimension ld) packed into panels of `mr`: panel p, value k,
// lane i must be A(p*mr + i, k), or 0 past the last row.
void expect_a_panels(Isa isa, int rows, int kl, int mr, int ld) {
  std::vector<float> a(rows * ld);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 1013) + 0.5f;
  const int panels = (rows + mr - 1) / mr;
  std::vector<float> out(panels * mr * kl, -1.0f);
  pack_a(isa, SourceA{a.data(), Elem::kF32, ld, 1}, rows, kl, mr, false, out.data());
  for (int p = 0; p < panels; ++p)
    for (int k = 0; k < kl; ++k)
      for (int i = 0; i < mr; ++i) {
        int r = p * mr + i;
        float want = r < rows ? a[r * ld + k] : 0.0f;
        ASSERT_EQ(out[(p * mr + 0) * kl + k * mr + i], want)
            << "isa " << to_string(isa) << " rows " << rows << " kl " << kl << " mr " << mr
            << " panel " << p << " k " << k << " lane " << i;
      }
}

TEST(Pack, RowMajorAPanelsScalarAndAvx512) {
  std::vector<Isa> isas = {Isa::kScalar};
  if (detect_isa() >= Isa::kAvx512) isas.push_back(Isa::kAvx512);
  for (Isa isa : isas)
    for (int mr : {1, 4, 6, 8, 12, 14, 16, 32, 48, 64})
      for (int rows : {1, mr - 1, mr, 2 * mr + 3})
        for (int kl : {1, 15, 16, 17, 40})
          if (rows > 0) expect_a_panels(isa, rows, kl, mr, kl + 3);
}

// Column-major B in place: the same transposed walk as row-major A, with columns as lanes.
TEST(Pack, ColumnMajorBMatchesRowMajorB) {
  const int kl = 21, cols = 37, nr = 16;
  std::vector<float> b_row(kl * cols), b_col(kl * cols);
  for (int k = 0; k < kl; ++k)
    for (int j = 0; j < cols; ++j) b_row[k * cols + j] = b_col[j * kl + k] = float(k * 100 + j);
  const size_t size = 3 * nr * kl;
  std::vector<float> from_row(size, -1), from_col(size, -2);
  pack_b(detect_isa(), SourceB{b_row.data(), Elem::kF32, cols, 1}, kl, cols, nr, false,
         from_row.data());
  pack_b(detect_isa(), SourceB{b_col.data(), Elem::kF32, 1, kl}, kl, cols, nr, false,
         from_col.data());
  EXPECT_EQ(from_row, from_col);
  EXPECT_EQ(from_row[2 * nr * kl + 0 * nr + 4], 36.0f);  // panel 2, k 0, column 36
  EXPECT_EQ(from_row[2 * nr * kl + 0 * nr + 5], 0.0f);   // past the last column
}

// bf16 pair panels: word (pair p, lane j) = B(2p, j) | B(2p+1, j) << 16, odd K padded with 0.
TEST(Pack, Bf16PairPanels) {
  // Pair panels are what the vdpbf16ps kernels read; pack_b may use AVX-512 to write them.
  if (detect_isa() < Isa::kAvx512Bf16) GTEST_SKIP() << "no AVX-512 BF16";
  const int kl = 5, cols = 3, nr = 16;
  std::vector<std::uint16_t> b(kl * cols);
  for (int i = 0; i < kl * cols; ++i) b[i] = std::uint16_t(0x3f00 + i);
  std::vector<std::uint32_t> out(nr * 3, 7);
  pack_b(Isa::kAvx512Bf16, SourceB{b.data(), Elem::kBf16, cols, 1}, kl, cols, nr, true, out.data());
  EXPECT_EQ(out[0], std::uint32_t(b[0]) | std::uint32_t(b[cols]) << 16);
  EXPECT_EQ(out[1 * nr + 2], std::uint32_t(b[2 * cols + 2]) | std::uint32_t(b[3 * cols + 2]) << 16);
  EXPECT_EQ(out[2 * nr + 1], std::uint32_t(b[4 * cols + 1]));  // odd K: high half zero
  EXPECT_EQ(out[5], 0u);                                       // column past the edge
}

// The AVX-512 packing (fp32 and bf16 pairs transposed for lanes with contiguous K, bf16 pairs
// interleaved for contiguous lanes) must write exactly the scalar panels, edges and odd K
// included. pack_b routes small panels to the scalar copy, so the vector code is also called
// directly, panel by panel.
TEST(Pack, Avx512PanelsMatchScalar) {
  if (detect_isa() < Isa::kAvx512) GTEST_SKIP() << "no AVX-512";
  for (bool k_contiguous : {true, false})
    for (int width : {4, 6, 14, 16, 32, 48, 64})
      for (int lanes : {1, width - 1, width, 2 * width + 5})
        for (int kl : {1, 2, 3, 31, 32, 33, 64, 70}) {
          if (lanes < 1) continue;
          SCOPED_TRACE(testing::Message() << "k contiguous " << k_contiguous << " width " << width
                                          << " lanes " << lanes << " kl " << kl);
          // Lane stride or K stride padded by 3 so that neither is a multiple of the vectors.
          const std::int64_t ls = k_contiguous ? kl + 3 : 1, ks = k_contiguous ? 1 : lanes + 3;
          const std::size_t size = std::size_t(lanes + 3) * (kl + 3);
          std::vector<std::uint16_t> bf16(size);
          std::vector<float> fp32(size);
          for (std::size_t i = 0; i < size; ++i) {
            bf16[i] = std::uint16_t(0x3f00 + i * 7);
            fp32[i] = float(i) + 0.25f;
          }
          const int panels = (lanes + width - 1) / width, pairs = (kl + 1) / 2;
          std::vector<std::uint32_t> scalar(std::size_t(panels) * width * pairs, 1);
          std::vector<std::uint32_t> routed(scalar.size(), 2), direct(scalar.size(), 3);
          const SourceB b{bf16.data(), Elem::kBf16, ks, ls};
          pack_b(Isa::kScalar, b, kl, lanes, width, true, scalar.data());
          pack_b(Isa::kAvx512Bf16, b, kl, lanes, width, true, routed.data());
          EXPECT_EQ(scalar, routed);
          for (int p = 0; p < panels; ++p) {
            const int valid = std::min(width, lanes - p * width);
            std::uint32_t* out = direct.data() + std::size_t(p) * width * pairs;
            if (k_contiguous)
              avx512::pack_transposed_pairs(bf16.data() + p * width * ls, ls, valid, width, kl,
                                            out);
            else
              avx512::pack_interleaved_pairs(bf16.data() + p * width, ks, valid, width, kl, out);
          }
          EXPECT_EQ(scalar, direct);
          if (!k_contiguous) continue;
          std::vector<float> fp32_scalar(std::size_t(panels) * width * kl, 1.0f);
          std::vector<float> fp32_direct(fp32_scalar.size(), 2.0f);
          pack_b(Isa::kScalar, SourceB{fp32.data(), Elem::kF32, 1, ls}, kl, lanes, width, false,
                 fp32_scalar.data());
          for (int p = 0; p < panels; ++p)
            avx512::pack_transposed(fp32.data() + p * width * ls, ls,
                                    std::min(width, lanes - p * width), width, kl,
                                    fp32_direct.data() + std::size_t(p) * width * kl);
          EXPECT_EQ(fp32_scalar, fp32_direct);
        }
}

TEST(Bf16, RoundTripAndRounding) {
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.5f)), 1.5f);
  EXPECT_EQ(float_to_bf16(1.0f + 1.0f / 256), float_to_bf16(1.0f));  // ties to even
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f + 3.0f / 256)), 1.0f + 4.0f / 256);
}

}  // namespace
}  // namespace kselect::kernels
