#include "model/lightgbm.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/error.h"
#include "model/file_io.h"

namespace kselect::model {
namespace {

// LightGBM's zero band: `kZeroThreshold = 1e-35f`, a float widened to double, i.e.
// 1.0000000180025095e-35. Inputs inside it are zero, and Zero-type missing values are those.
constexpr double kZeroThreshold = static_cast<double>(1e-35f);

constexpr int kCategoricalMask = 1;
constexpr int kDefaultLeftMask = 2;
enum MissingType { kMissingNone = 0, kMissingZero = 1, kMissingNaN = 2 };

int missing_type(std::int8_t decision_type) {
  return (decision_type >> 2) & 3;
}

bool is_zero(double x) {
  return x >= -kZeroThreshold && x <= kZeroThreshold;
}

int numerical_next(const LightGbmTree& t, int node, double x) {
  return lightgbm_numerical_left(t.decision_type[node], t.threshold[node], x) ? t.left_child[node]
                                                                              : t.right_child[node];
}

int categorical_next(const LightGbmTree& t, int node, double x) {
  const int bitset = static_cast<int>(t.threshold[node]);
  const auto begin = static_cast<std::size_t>(t.cat_boundaries[bitset]);
  const auto words = static_cast<std::size_t>(t.cat_boundaries[bitset + 1]) - begin;
  return lightgbm_categorical_left({t.cat_threshold.data() + begin, words}, x)
             ? t.left_child[node]
             : t.right_child[node];
}

// ---- parsing -----------------------------------------------------------------------------

struct Line {
  std::string_view text;
  long number = 0;  // 1-based
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  long number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, ++number});
    pos = end + 1;
  }
  return lines;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (pos < s.size()) {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    std::size_t end = pos;
    while (end < s.size() && s[end] != ' ') ++end;
    if (end > pos) words.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  return words;
}

// A key=value line, remembered with where it came from for error messages.
struct Field {
  std::string_view value;
  long line = 0;
};

class Parser {
 public:
  explicit Parser(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(long line, const std::string& context, const std::string& what) const {
    std::string message = source_;
    if (line > 0) message += ":" + std::to_string(line);
    message += ": ";
    if (!context.empty()) message += context + ": ";
    throw StorageError(message + what);
  }

  template <typename T>
  T number(std::string_view word, long line, const std::string& context,
           const std::string& field) const {
    T value{};
    const char* first = word.data();
    const char* last = word.data() + word.size();
    // from_chars reads doubles correctly rounded, which thresholds printed with 17 digits need.
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last) {
      fail(line, context, field + ": '" + std::string(word) + "' is not a valid number");
    }
    return value;
  }

  template <typename T>
  std::vector<T> numbers(const Field& f, const std::string& context,
                         const std::string& field) const {
    std::vector<T> out;
    for (auto word : split_words(f.value)) out.push_back(number<T>(word, f.line, context, field));
    return out;
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

// Collects the key=value lines of one section; a repeated key is an error.
std::map<std::string, Field, std::less<>> read_fields(const Parser& p,
                                                      const std::vector<Line>& lines,
                                                      std::size_t begin, std::size_t end,
                                                      const std::string& context) {
  std::map<std::string, Field, std::less<>> fields;
  for (std::size_t i = begin; i < end; ++i) {
    const auto& line = lines[i];
    if (line.text.empty()) continue;
    const auto eq = line.text.find('=');
    if (eq == std::string_view::npos) {
      // Header flags without a value (`average_output`) are stored with an empty value.
      fields.emplace(std::string(line.text), Field{{}, line.number});
      continue;
    }
    std::string key(line.text.substr(0, eq));
    if (!fields.emplace(key, Field{line.text.substr(eq + 1), line.number}).second) {
      p.fail(line.number, context, "'" + key + "' appears twice");
    }
  }
  return fields;
}

const Field& required(const Parser& p, const std::map<std::string, Field, std::less<>>& fields,
                      const std::string& key, long section_line, const std::string& context) {
  auto it = fields.find(key);
  if (it == fields.end()) p.fail(section_line, context, "missing '" + key + "='");
  return it->second;
}

LightGbmObjective parse_objective_line(const Parser& p, const Field& f) {
  LightGbmObjective objective;
  const auto words = split_words(f.value);
  if (words.empty()) p.fail(f.line, "objective", "empty");
  objective.name = std::string(words[0]);
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto colon = words[i].find(':');
    std::string key(words[i].substr(0, colon));
    std::string value =
        colon == std::string_view::npos ? "" : std::string(words[i].substr(colon + 1));
    if (key == "sigmoid")
      objective.sigmoid = p.number<double>(value, f.line, "objective", "sigmoid");
    if (key == "sqrt") objective.sqrt = true;
    objective.parameters.emplace_back(std::move(key), std::move(value));
  }
  // Objectives whose output transform we know (ObjectiveFunction::ConvertOutput); anything
  // else would be predicted wrongly, so it is refused.
  static const char* const kKnown[] = {"regression",    "regression_l1",
                                       "huber",         "fair",
                                       "quantile",      "mape",
                                       "poisson",       "gamma",
                                       "tweedie",       "binary",
                                       "multiclass",    "multiclassova",
                                       "cross_entropy", "cross_entropy_lambda",
                                       "lambdarank",    "rank_xendcg",
                                       "custom"};
  for (const char* known : kKnown) {
    if (objective.name == known) return objective;
  }
  p.fail(f.line, "objective", "unknown objective '" + objective.name + "'");
}

LightGbmTree parse_tree(const Parser& p, const std::vector<Line>& lines, std::size_t begin,
                        std::size_t end, int num_features) {
  const std::string context(lines[begin].text);
  const long tree_line = lines[begin].number;
  const auto fields = read_fields(p, lines, begin + 1, end, context);
  LightGbmTree t;
  const Field& leaves = required(p, fields, "num_leaves", tree_line, context);
  t.num_leaves = p.number<int>(leaves.value, leaves.line, context, "num_leaves");
  if (t.num_leaves < 1) p.fail(leaves.line, context, "num_leaves must be at least 1");
  const auto num_leaves = static_cast<std::size_t>(t.num_leaves);

  // Checks an array's length against what num_leaves needs.
  auto sized = [&](const std::string& key, std::size_t expected, auto parsed) {
    const Field& f = required(p, fields, key, tree_line, context);
    auto values = p.numbers<typename decltype(parsed)::value_type>(f, context, key);
    if (values.size() != expected) {
      p.fail(f.line, context,
             key + " has " + std::to_string(values.size()) + " entries, num_leaves " +
                 std::to_string(t.num_leaves) + " needs " + std::to_string(expected));
    }
    return values;
  };
  t.leaf_value = sized("leaf_value", num_leaves, std::vector<double>{});
  // A linear tree's leaves are linear models of the row, which this evaluator does not compute:
  // refused rather than predicted from the leaves' constants alone.
  if (auto it = fields.find("is_linear"); it != fields.end() && it->second.value != "0")
    p.fail(it->second.line, context, "linear trees (is_linear=1) are not supported");
  if (auto it = fields.find("shrinkage"); it != fields.end()) {
    t.shrinkage = p.number<double>(it->second.value, it->second.line, context, "shrinkage");
  }
  if (t.num_leaves == 1) return t;  // a constant tree: LightGBM writes only leaf_value

  const std::size_t internal = num_leaves - 1;
  t.split_feature = sized("split_feature", internal, std::vector<int>{});
  t.threshold = sized("threshold", internal, std::vector<double>{});
  auto decision = sized("decision_type", internal, std::vector<int>{});
  t.left_child = sized("left_child", internal, std::vector<int>{});
  t.right_child = sized("right_child", internal, std::vector<int>{});

  int num_cat = 0;
  if (auto it = fields.find("num_cat"); it != fields.end()) {
    num_cat = p.number<int>(it->second.value, it->second.line, context, "num_cat");
    if (num_cat < 0) p.fail(it->second.line, context, "num_cat is negative");
  }
  if (num_cat > 0) {
    const Field& bounds = required(p, fields, "cat_boundaries", tree_line, context);
    t.cat_boundaries = p.numbers<int>(bounds, context, "cat_boundaries");
    const Field& words = required(p, fields, "cat_threshold", tree_line, context);
    t.cat_threshold = p.numbers<std::uint32_t>(words, context, "cat_threshold");
    if (t.cat_boundaries.size() != static_cast<std::size_t>(num_cat) + 1) {
      p.fail(bounds.line, context,
             "cat_boundaries has " + std::to_string(t.cat_boundaries.size()) +
                 " entries, num_cat " + std::to_string(num_cat) + " needs " +
                 std::to_string(num_cat + 1));
    }
    if (t.cat_boundaries.front() != 0)
      p.fail(bounds.line, context, "cat_boundaries must start at 0");
    for (std::size_t i = 1; i < t.cat_boundaries.size(); ++i) {
      if (t.cat_boundaries[i] < t.cat_boundaries[i - 1]) {
        p.fail(bounds.line, context, "cat_boundaries decreases at entry " + std::to_string(i));
      }
    }
    if (static_cast<std::size_t>(t.cat_boundaries.back()) != t.cat_threshold.size()) {
      p.fail(words.line, context,
             "cat_threshold has " + std::to_string(t.cat_threshold.size()) +
                 " entries, cat_boundaries ends at " + std::to_string(t.cat_boundaries.back()));
    }
  }

  const long split_line = fields.find("split_feature")->second.line;
  const long decision_line = fields.find("decision_type")->second.line;
  const long threshold_line = fields.find("threshold")->second.line;
  t.decision_type.resize(internal);
  for (std::size_t node = 0; node < internal; ++node) {
    const std::string at = " at node " + std::to_string(node);
    const int dt = decision[node];
    if (dt < 0 || dt > 15 || missing_type(static_cast<std::int8_t>(dt)) == 3) {
      p.fail(decision_line, context, "decision_type " + std::to_string(dt) + at + " is invalid");
    }
    t.decision_type[node] = static_cast<std::int8_t>(dt);
    if (t.split_feature[node] < 0 || t.split_feature[node] >= num_features) {
      p.fail(split_line, context,
             "split_feature " + std::to_string(t.split_feature[node]) + at + " is outside the " +
                 std::to_string(num_features) + " features");
    }
    if (dt & kCategoricalMask) {
      const double index = t.threshold[node];
      if (!(index >= 0 && index < num_cat) || index != std::floor(index)) {
        p.fail(threshold_line, context,
               "categorical threshold " + std::to_string(index) + at +
                   " is not a bitset index below num_cat " + std::to_string(num_cat));
      }
    }
    // LightGBM numbers a new internal node after its parent, so children are always larger;
    // requiring it rules out cycles, so prediction always ends at a leaf.
    for (const auto* side : {&t.left_child, &t.right_child}) {
      const int child = (*side)[node];
      const bool ok = child >= 0
                          ? (child > static_cast<int>(node) && child < static_cast<int>(internal))
                          : (~child < t.num_leaves);
      if (!ok) {
        const char* name = side == &t.left_child ? "left_child" : "right_child";
        p.fail(fields.find(name)->second.line, context,
               std::string(name) + " " + std::to_string(child) + at +
                   " is neither a later internal node nor a leaf below num_leaves " +
                   std::to_string(t.num_leaves));
      }
    }
  }
  return t;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

// Tree::NumericalDecision: NaN is zero unless the node's missing type is NaN; missing values
// (zero for type Zero, NaN for type NaN) take the default direction; otherwise `x <= thr`.
bool lightgbm_numerical_left(std::int8_t decision_type, double threshold, double x) {
  const int missing = missing_type(decision_type);
  if (std::isnan(x) && missing != kMissingNaN) x = 0.0;
  if ((missing == kMissingZero && is_zero(x)) || (missing == kMissingNaN && std::isnan(x)))
    return (decision_type & kDefaultLeftMask) != 0;
  return x <= threshold;
}

// Tree::CategoricalDecision: the value becomes a category by truncation toward zero (so -0.5
// is category 0); NaN, negative categories and categories past the bitset go right.
bool lightgbm_categorical_left(std::span<const std::uint32_t> bitset, double x) {
  if (std::isnan(x)) return false;
  // static_cast<int> is undefined outside int's range; any such value is past every bitset
  // (or negative) and so goes right, which is what LightGBM does on x86 in practice too.
  if (!(x > -1.0 && x < 2147483648.0)) return false;
  const auto category = static_cast<std::uint32_t>(static_cast<int>(x));
  const std::size_t word = category / 32;
  return word < bitset.size() && ((bitset[word] >> (category % 32)) & 1u);
}

double lightgbm_input(double x) {
  return is_zero(x) ? 0.0 : x;
}

double LightGbmTree::predict(const double* row) const {
  if (num_leaves == 1) return leaf_value[0];
  int node = 0;
  while (node >= 0) {
    const double x = row[split_feature[node]];
    node = (decision_type[node] & kCategoricalMask) ? categorical_next(*this, node, x)
                                                    : numerical_next(*this, node, x);
  }
  return leaf_value[~node];
}

LightGbmModel LightGbmModel::load(const std::filesystem::path& path) {
  const std::string text = read_file(path);
  return parse(text, path.string());
}

LightGbmModel LightGbmModel::parse(std::string_view text, const std::string& source) {
  const Parser p(source);
  const auto lines = split_lines(text);
  if (lines.empty()) p.fail(0, "", "empty model file");
  if (lines[0].text != "tree") {
    p.fail(1, "", "not a LightGBM text model (first line is not 'tree')");
  }

  // Sections: the header runs to the first Tree= line; each tree to the next Tree= line or
  // `end of trees`. A file without `end of trees` was cut short, even if every tree parses.
  std::vector<std::size_t> tree_starts;
  std::optional<std::size_t> end_of_trees;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (starts_with(lines[i].text, "Tree=")) tree_starts.push_back(i);
    if (lines[i].text == "end of trees") {
      end_of_trees = i;
      break;
    }
  }
  if (!end_of_trees)
    p.fail(static_cast<long>(lines.size()), "", "truncated: no 'end of trees' line");
  const std::size_t header_end = tree_starts.empty() ? *end_of_trees : tree_starts.front();
  const auto header = read_fields(p, lines, 1, header_end, "header");

  LightGbmModel m;
  const Field& version = required(p, header, "version", 1, "header");
  if (version.value != "v4") {
    p.fail(version.line, "header", "version '" + std::string(version.value) + "' is not v4");
  }
  const Field& num_class = required(p, header, "num_class", 1, "header");
  m.num_class_ = p.number<int>(num_class.value, num_class.line, "header", "num_class");
  const Field& per_iteration = required(p, header, "num_tree_per_iteration", 1, "header");
  m.num_tree_per_iteration_ =
      p.number<int>(per_iteration.value, per_iteration.line, "header", "num_tree_per_iteration");
  if (m.num_class_ < 1 || m.num_tree_per_iteration_ < 1 || m.num_tree_per_iteration_ > 1 << 16) {
    p.fail(per_iteration.line, "header", "num_class and num_tree_per_iteration must be positive");
  }
  const Field& max_feature = required(p, header, "max_feature_idx", 1, "header");
  const int max_feature_idx =
      p.number<int>(max_feature.value, max_feature.line, "header", "max_feature_idx");
  const Field& names = required(p, header, "feature_names", 1, "header");
  for (auto word : split_words(names.value)) m.feature_names_.emplace_back(word);
  if (max_feature_idx < 0 ||
      m.feature_names_.size() != static_cast<std::size_t>(max_feature_idx) + 1) {
    p.fail(names.line, "header",
           "feature_names has " + std::to_string(m.feature_names_.size()) +
               " names, max_feature_idx " + std::to_string(max_feature_idx) + " needs " +
               std::to_string(max_feature_idx + 1));
  }
  if (auto it = header.find("objective"); it != header.end()) {
    m.objective_ = parse_objective_line(p, it->second);
  } else {
    m.objective_.name = "custom";  // LightGBM omits the line for custom objectives
  }
  if (m.objective_.name == "multiclass" && m.num_tree_per_iteration_ != m.num_class_) {
    p.fail(per_iteration.line, "header", "multiclass needs one tree per class per iteration");
  }
  m.average_output_ = header.count("average_output") > 0;

  for (std::size_t k = 0; k < tree_starts.size(); ++k) {
    const std::size_t begin = tree_starts[k];
    const std::size_t end = k + 1 < tree_starts.size() ? tree_starts[k + 1] : *end_of_trees;
    if (lines[begin].text != "Tree=" + std::to_string(k)) {
      p.fail(lines[begin].number, "", "expected 'Tree=" + std::to_string(k) + "'");
    }
    m.trees_.push_back(parse_tree(p, lines, begin, end, static_cast<int>(m.feature_names_.size())));
  }
  if (auto it = header.find("tree_sizes"); it != header.end()) {
    const auto sizes = split_words(it->second.value);
    if (sizes.size() != m.trees_.size()) {
      p.fail(it->second.line, "header",
             "tree_sizes lists " + std::to_string(sizes.size()) + " trees, the file has " +
                 std::to_string(m.trees_.size()));
    }
  }
  if (m.trees_.size() % static_cast<std::size_t>(m.num_tree_per_iteration_) != 0) {
    p.fail(lines[*end_of_trees].number, "",
           std::to_string(m.trees_.size()) + " trees is not a whole number of iterations of " +
               std::to_string(m.num_tree_per_iteration_));
  }
  return m;
}

void LightGbmModel::predict_raw(const double* row, double* out) const {
  const std::size_t n = num_features();
  // LightGBM's predictor drops |x| <= kZeroThreshold from its sparse input, so such values
  // reach the trees as exactly 0.0; NaN is kept.
  std::vector<double> clean(row, row + n);
  for (double& x : clean) x = lightgbm_input(x);
  const auto k = static_cast<std::size_t>(num_tree_per_iteration_);
  for (std::size_t c = 0; c < k; ++c) out[c] = 0.0;
  // GBDT::PredictRaw: tree i adds to class i % k, in file order, in double.
  for (std::size_t i = 0; i < trees_.size(); ++i) out[i % k] += trees_[i].predict(clean.data());
  if (average_output_ && !trees_.empty()) {
    const double iterations = static_cast<double>(trees_.size() / k);
    for (std::size_t c = 0; c < k; ++c) out[c] /= iterations;
  }
}

void LightGbmModel::predict(const double* row, double* out) const {
  predict_raw(row, out);
  const auto k = static_cast<std::size_t>(num_tree_per_iteration_);
  const std::string& name = objective_.name;
  // ObjectiveFunction::ConvertOutput of each objective.
  if (name == "binary" || name == "multiclassova") {
    for (std::size_t c = 0; c < k; ++c)
      out[c] = 1.0 / (1.0 + std::exp(-objective_.sigmoid * out[c]));
  } else if (name == "multiclass") {
    // Common::Softmax: shift by the maximum, exponentiate, normalise.
    double wmax = out[0];
    for (std::size_t c = 1; c < k; ++c) wmax = std::max(wmax, out[c]);
    double sum = 0.0;
    for (std::size_t c = 0; c < k; ++c) {
      out[c] = std::exp(out[c] - wmax);
      sum += out[c];
    }
    for (std::size_t c = 0; c < k; ++c) out[c] /= sum;
  } else if (name == "cross_entropy") {
    for (std::size_t c = 0; c < k; ++c) out[c] = 1.0 / (1.0 + std::exp(-out[c]));
  } else if (name == "cross_entropy_lambda") {
    for (std::size_t c = 0; c < k; ++c) out[c] = std::log1p(std::exp(out[c]));
  } else if (name == "poisson" || name == "gamma" || name == "tweedie") {
    for (std::size_t c = 0; c < k; ++c) out[c] = std::exp(out[c]);
  } else if (objective_.sqrt &&
             (name == "regression" || name == "regression_l1" || name == "huber" ||
              name == "fair" || name == "quantile" || name == "mape")) {
    for (std::size_t c = 0; c < k; ++c) out[c] = std::copysign(out[c] * out[c], out[c]);
  }
}

}  // namespace kselect::model
