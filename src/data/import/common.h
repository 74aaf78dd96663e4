#pragma once
// What every importer shares (besides trim, lower and split of core/text.h): bounded line reading,
// a stream wrapper that knows the current line of a JSON parse, the validity rule for a measured
// time, the device rule and the skip-reason wording. Format-specific helpers live beside their
// format (ck_common.h, csv_fields.h, csv_reader.h).
#include <cstddef>
#include <istream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "data/import/importer.h"

namespace kselect::importers {

// Whether `text` is well-formed UTF-8 (JSON, and so the store, cannot hold anything else).
bool valid_utf8(std::string_view text);

// "field 'x': <what>", the wording of skip reasons, so the driver's reason categories keep the
// field name.
std::string field_reason(std::string_view field, std::string_view what);

// Reads one line (without its '\n' or a trailing '\r'), keeping at most kMaxLine bytes: the rest
// of a longer line is read and dropped, and too_long says so. Memory stays bounded on binary
// input without newlines. False at the end of the input. Reads with sbumpc, so the exceptions
// of a corrupt compressed stream reach the caller.
constexpr std::size_t kMaxLine = std::size_t{1} << 20;
bool read_line(std::istream& in, std::string& line, bool& too_long);

// Sets validity from the measured time and the reported TFLOPS (NaN when not reported): a
// non-finite or non-positive time, or a reported TFLOPS that is not positive, makes the row
// invalid (an already invalid row keeps its reason: "time 0 ms", "no time", ...); a valid row
// without TFLOPS gets problem_flops / seconds / 1e12 (NaN flops: stays NaN).
void finish_row(ImportedRow& row, double problem_flops);

// A device name usable in problem text and in the run's settings key: letters, digits and
// . _ + - only.
bool plain_device_name(std::string_view device);

// ImportOptions::device (the --device of `kselect import`), "" when not given; InputError
// naming options.source when it is not a plain_device_name.
std::string checked_device(const ImportOptions& options);

// For the formats that take no settings (all but csv): InputError for any setting (a `device`
// setting is pointed to --device, i.e. ImportOptions::device), else checked_device(options).
std::string device_without_settings(const ImportOptions& options, std::string_view format);

// Passes a stream through a buffer and tells the 1-based line of the next unread character, so
// a JSON parser reading from it can name lines in its messages. Memory is one buffer.
class LineCountingBuf : public std::streambuf {
 public:
  explicit LineCountingBuf(std::istream& source);
  long line();

 protected:
  int_type underflow() override;

 private:
  std::istream& source_;
  std::vector<char> buffer_;
  long newlines_ = 0;              // newlines before counted_
  const char* counted_ = nullptr;  // position in the buffer up to which newlines_ is exact
};

}  // namespace kselect::importers
