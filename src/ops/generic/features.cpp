#include "ops/generic/features.h"

#include <stdexcept>

#include "core/error.h"

namespace kselect::generic {

namespace {
// Kernel features are computed once per kernel when the block is prepared.
struct GenericKernelBlock : features::KernelBlock {
  std::size_t width = 0;
  std::vector<double> values;  // size() rows of `width`
  std::size_t count = 0;
  std::size_t size() const override { return count; }
  std::unique_ptr<features::KernelBlock> subset(
      std::span<const std::uint32_t> rows) const override {
    auto out = std::make_unique<GenericKernelBlock>();
    out->width = width;
    out->count = rows.size();
    out->values.reserve(width * rows.size());
    for (std::uint32_t r : rows) {
      if (r >= count) throw std::out_of_range("GenericKernelBlock::subset");
      out->values.insert(out->values.end(), values.begin() + r * width,
                         values.begin() + (r + 1) * width);
    }
    copy_names(rows, *out);
    return out;
  }
};
}  // namespace

GenericFeatureEngine::GenericFeatureEngine(const HardwareProfile& hardware,
                                           GenericVocabulary vocabulary)
    : hardware_(hardware), vocabulary_(std::move(vocabulary)) {
  schema_.name = "generic";
  schema_.features = vocabulary_.features();
  schema_.categorical = vocabulary_.categorical();
}

const features::Schema& GenericFeatureEngine::schema(std::string_view name) const {
  if (name != schema_.name)
    throw InputError(
        "", 0, "schema",
        "unknown schema '" + std::string(name) + "' for the generic op (known: generic)");
  return schema_;
}

std::unique_ptr<features::KernelBlock> GenericFeatureEngine::prepare(
    std::span<const std::string> kernels) const {
  auto block = std::make_unique<GenericKernelBlock>();
  block->width = vocabulary_.kernel_width();
  block->count = kernels.size();
  block->values.resize(block->width * kernels.size());
  for (std::size_t i = 0; i < kernels.size(); ++i)
    vocabulary_.kernel_values(kernels[i], block->values.data() + i * block->width);
  block->names.assign(kernels.begin(), kernels.end());
  return block;
}

void GenericFeatureEngine::extract_rows(std::string_view problem,
                                        const features::KernelBlock& kernels,
                                        std::span<const int> columns, float* out) const {
  const auto& block = dynamic_cast<const GenericKernelBlock&>(kernels);
  const std::size_t pw = vocabulary_.problem_width();
  std::vector<double> row(pw + block.width);
  vocabulary_.problem_values(KeyValues::parse(problem, "problem"), row.data());
  for (std::size_t i = 0; i < block.count; ++i) {
    std::copy_n(block.values.data() + i * block.width, block.width, row.data() + pw);
    for (int col : columns) *out++ = float(row[std::size_t(col)]);
  }
}

std::string GenericFeatureEngine::group_key(std::string_view problem) const {
  KeyValues geometry, fields = KeyValues::parse(problem, "problem");
  for (const auto& [key, value] : fields.items())
    if (key != "dtype" && key != "dir" && key != "layout") geometry.set(key, value);
  return geometry.to_string();
}

std::string GenericFeatureEngine::dtype(std::string_view problem) const {
  return KeyValues::parse(problem, "problem").get("dtype").value_or("");
}

std::string GenericFeatureEngine::context(std::string_view problem) const {
  return GenericVocabulary::context(KeyValues::parse(problem, "problem"));
}

std::vector<std::string> GenericFeatureEngine::problem_features() const {
  const auto& all = vocabulary_.features();
  return {all.begin(), all.begin() + std::ptrdiff_t(vocabulary_.problem_width())};
}

}  // namespace kselect::generic
