// libFuzzer target for the model loader; seeds in fuzz/corpus/model-loader/. The first byte
// picks what the rest is: 0 an XGBoost JSON model (compiled into a forest, then predicting one
// row), 1 a feature_spec.json (loaded and validated as a model directory's), 2 a model file
// read from disk as gzip, plain JSON or LightGBM text, 3 a LightGBM text model (parsed,
// predicting a row of NaNs and a row of ones, then compiled into a forest that predicts them). The
// loader may refuse input only with StorageError or InputError; any other exception, crash, leak or
// undefined behaviour is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/feature_spec.h"
#include "model/forest.h"
#include "model/lightgbm.h"

namespace {

// A scratch directory of this process, made once.
const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    auto path =
        std::filesystem::temp_directory_path() / ("kselect-fuzz-model-" + std::to_string(getpid()));
    std::filesystem::create_directories(path);
    return path;
  }();
  return dir;
}

void write(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), std::streamsize(size));
}

// Every output of one row of NaNs and one of ones: the traversal reads every node it reaches.
void predict(const kselect::model::Forest& forest) {
  if (forest.num_features() > 1 << 16) return;
  const size_t width = size_t(std::max(forest.num_features(), 1));
  std::vector<float> rows(2 * width, 1.0f);
  for (size_t i = 0; i < width; ++i) rows[i] = NAN;
  std::vector<float> out(2 * forest.num_outputs());
  forest.predict_margins(rows.data(), 2, width, out.data());
  if (forest.num_outputs() != 1) return;
  std::vector<double> exact(2);
  forest.predict_exact(rows.data(), 2, width, 0, forest.num_trees(), exact.data());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 4;
  ++data, --size;
  try {
    if (mode == 0) {
      auto json = nlohmann::json::parse(data, data + size, nullptr, false);
      if (json.is_discarded()) return 0;
      predict(kselect::model::Forest::from_xgboost_json(json, "fuzz.json"));
    } else if (mode == 1) {
      write(scratch() / "feature_spec.json", data, size);
      (void)kselect::model::FeatureSpec::load(scratch());
    } else if (mode == 2) {
      write(scratch() / "model.json.gz", data, size);
      predict(kselect::model::Forest::load(scratch() / "model.json.gz"));
    } else {
      const auto model = kselect::model::LightGbmModel::parse(
          std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.txt");
      if (model.num_features() > 1 << 16) return 0;
      std::vector<double> row(model.num_features(), NAN);
      // predict writes one score per tree of an iteration (the file may disagree with num_class).
      std::vector<double> out(size_t(std::max(model.num_tree_per_iteration(), 1)));
      model.predict(row.data(), out.data());
      std::fill(row.begin(), row.end(), 1.0);
      model.predict(row.data(), out.data());
      predict(kselect::model::Forest::from_lightgbm(model, "fuzz.txt"));
    }
  } catch (const kselect::StorageError&) {
  } catch (const kselect::InputError&) {
  }
  return 0;
}
