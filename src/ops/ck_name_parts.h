#pragma once
// The pieces CK's kernel names are made of, shared by the name codecs of every op
// (ops/gemm/ck_names.h, ops/conv/ck_names.h; reference ck-heuristics.md section 10): sizes,
// MxNxK triples, flags, plain words and the '_'-separated tokens of a name.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kselect::ck {

// Sizes are kept well inside int64 so that every derived size (output extent, flops as double)
// is exact and never overflows.
constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;

// A whole-string integer in [min, kMaxDim]; nullopt otherwise (text, sign, range, "1e400").
std::optional<std::int64_t> parse_dim(std::string_view text, std::int64_t min = 1);

// Letters, digits and _ - . + only, not empty: a word usable in names and problem texts.
bool is_word(std::string_view text);
bool all_digits(std::string_view text);

// "128x128x32" -> {128, 128, 32} (digits only, each in [1, kMaxDim]).
std::optional<std::array<std::int64_t, 3>> parse_triple(std::string_view text);
// config[prefix + "m"|"n"|"k"] = values; and back ("128x128x32" from those three members).
void put_triple(nlohmann::json& config, const std::string& prefix,
                const std::array<std::int64_t, 3>& values);
std::string format_triple(const nlohmann::json& config, const std::string& prefix);

// true/1/t and false/0/f in any case -> 1 and 0.
std::optional<int> parse_flag(std::string_view text);

// parts[begin, end) joined by '_'.
std::string join_parts(const std::vector<std::string_view>& parts, size_t begin, size_t end);

// The '_'-separated tokens of a name, consumed front to back.
class Tokens {
 public:
  explicit Tokens(std::string_view name);
  bool done() const { return next_ >= parts_.size(); }
  std::string_view peek(size_t ahead = 0) const {
    return next_ + ahead < parts_.size() ? parts_[next_ + ahead] : std::string_view();
  }
  std::string_view take() { return done() ? std::string_view() : parts_[next_++]; }
  bool take_if(std::string_view word) {
    if (peek() != word) return false;
    ++next_;
    return true;
  }
  size_t position() const { return next_; }
  const std::vector<std::string_view>& parts() const { return parts_; }

 private:
  std::vector<std::string_view> parts_;
  size_t next_ = 0;
};

}  // namespace kselect::ck
