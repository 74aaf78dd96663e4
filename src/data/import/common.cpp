#include "data/import/common.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "core/error.h"

namespace kselect::importers {

bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    // Lead byte -> sequence length and the smallest code point it may encode (no overlongs).
    std::size_t length = byte < 0x80           ? 1
                         : (byte >> 5) == 0x6  ? 2
                         : (byte >> 4) == 0xe  ? 3
                         : (byte >> 3) == 0x1e ? 4
                                               : 0;
    if (length == 0 || i + length > text.size()) return false;
    std::uint32_t code = length == 1 ? byte : byte & (0xff >> (length + 1));
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next >> 6) != 0x2) return false;
      code = (code << 6) | (next & 0x3f);
    }
    constexpr std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      return false;
    i += length;
  }
  return true;
}

namespace {
std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}
}  // namespace

void finish_row(ImportedRow& row, double problem_flops) {
  auto invalidate = [&row](std::string reason) {
    if (!row.valid) return;
    row.valid = false;
    row.reason = std::move(reason);
  };
  if (!std::isfinite(row.time_ms))
    invalidate(std::isnan(row.time_ms) ? "no time" : "time not finite");
  else if (row.time_ms <= 0)
    invalidate("time " + number(row.time_ms) + " ms");
  if (!std::isnan(row.tflops) && !(row.tflops > 0 && std::isfinite(row.tflops)))
    invalidate("tflops " + number(row.tflops));
  if (row.valid && std::isnan(row.tflops)) row.tflops = problem_flops / (row.time_ms * 1e9);
}

bool plain_device_name(std::string_view device) {
  return !device.empty() && std::all_of(device.begin(), device.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
           c == '-';
  });
}

std::string checked_device(const ImportOptions& options) {
  if (!options.device.empty() && !plain_device_name(options.device))
    throw InputError(options.source, 0, "device",
                     "'" + options.device + "' is not a plain name (letters, digits, . _ + -)");
  return options.device;
}

std::string device_without_settings(const ImportOptions& options, std::string_view format) {
  for (const auto& key : options.settings.unknown_keys({}))
    throw InputError(options.source, 0, key,
                     "unknown setting for " + std::string(format) + ", which takes none" +
                         (key == "device" ? " (give the device with --device)" : ""));
  return checked_device(options);
}

std::string field_reason(std::string_view field, std::string_view what) {
  return "field '" + std::string(field) + "': " + std::string(what);
}

bool read_line(std::istream& in, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* buf = in.rdbuf();
  using traits = std::streambuf::traits_type;
  auto c = buf->sbumpc();
  if (traits::eq_int_type(c, traits::eof())) return false;
  for (; !traits::eq_int_type(c, traits::eof()) && c != '\n'; c = buf->sbumpc()) {
    if (line.size() < kMaxLine)
      line.push_back(traits::to_char_type(c));
    else
      too_long = true;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

LineCountingBuf::LineCountingBuf(std::istream& source) : source_(source), buffer_(1 << 16) {}

long LineCountingBuf::line() {
  newlines_ += std::count(counted_, static_cast<const char*>(gptr()), '\n');
  counted_ = gptr();
  return newlines_ + 1;
}

LineCountingBuf::int_type LineCountingBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  newlines_ += std::count(counted_, static_cast<const char*>(egptr()), '\n');
  source_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  std::streamsize got = source_.gcount();
  setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
  counted_ = buffer_.data();
  return got > 0 ? traits_type::to_int_type(buffer_[0]) : traits_type::eof();
}

}  // namespace kselect::importers
