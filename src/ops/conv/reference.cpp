#include "ops/conv/reference.h"

namespace kselect::conv {

using std::int64_t;

int64_t x_elements(const Problem& p) {
  return p.n * p.di * p.hi * p.wi * p.c;
}
int64_t w_elements(const Problem& p) {
  return p.k * p.z * p.y * p.x * (p.c / p.g);
}
int64_t y_elements(const Problem& p) {
  return p.n * p.do_ * p.ho * p.wo * p.k;
}

std::vector<double> reference_conv(const Problem& p, const std::vector<float>& x,
                                   const std::vector<float>& w, const std::vector<float>& y) {
  const int64_t cg = p.c / p.g, kg = p.k / p.g;
  const Direction dir = *p.dir;
  std::vector<double> out(size_t(dir == Direction::kForward        ? y_elements(p)
                                 : dir == Direction::kBackwardData ? x_elements(p)
                                                                   : w_elements(p)),
                          0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t od = 0; od < p.do_; ++od)
      for (int64_t oh = 0; oh < p.ho; ++oh)
        for (int64_t ow = 0; ow < p.wo; ++ow)
          for (int64_t fz = 0; fz < p.z; ++fz)
            for (int64_t fy = 0; fy < p.y; ++fy)
              for (int64_t fx = 0; fx < p.x; ++fx) {
                const int64_t id = od * p.stride[0] - p.pad[0] + fz * p.dil[0];
                const int64_t ih = oh * p.stride[1] - p.pad[1] + fy * p.dil[1];
                const int64_t iw = ow * p.stride[2] - p.pad[2] + fx * p.dil[2];
                if (id < 0 || id >= p.di || ih < 0 || ih >= p.hi || iw < 0 || iw >= p.wi) continue;
                const int64_t x_pixel = (((n * p.di + id) * p.hi + ih) * p.wi + iw) * p.c;
                const int64_t y_pixel = (((n * p.do_ + od) * p.ho + oh) * p.wo + ow) * p.k;
                const int64_t tap = (fz * p.y + fy) * p.x + fx;
                for (int64_t g = 0; g < p.g; ++g)
                  for (int64_t k = 0; k < kg; ++k) {
                    const int64_t yi = y_pixel + g * kg + k;
                    const int64_t w_row = ((g * kg + k) * p.z * p.y * p.x + tap) * cg;
                    const int64_t x_row = x_pixel + g * cg;
                    if (dir == Direction::kForward) {
                      double sum = 0;
                      for (int64_t c = 0; c < cg; ++c) sum += double(x[x_row + c]) * w[w_row + c];
                      out[yi] += sum;
                    } else if (dir == Direction::kBackwardData) {
                      for (int64_t c = 0; c < cg; ++c)
                        out[x_row + c] += double(y[yi]) * w[w_row + c];
                    } else {
                      for (int64_t c = 0; c < cg; ++c)
                        out[w_row + c] += double(y[yi]) * x[x_row + c];
                    }
                  }
              }
  return out;
}

}  // namespace kselect::conv
