#pragma once
// A small RFC 4180 record reader for the CSV-like importers: quoted fields may hold the
// delimiter, doubled quotes and line breaks; CRLF and LF line ends; a UTF-8 byte-order mark
// before the header is dropped. Memory per record is bounded (kMaxRecordBytes), so an
// unterminated quote cannot swallow a whole file.
#include <cstddef>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace kselect::importers {

class CsvReader {
 public:
  static constexpr std::size_t kMaxRecordBytes = 1 << 20;

  // `delimiter` may be set later (set_delimiter) when it is detected from the header.
  explicit CsvReader(std::istream& in, char delimiter = ',');
  void set_delimiter(char delimiter) { delimiter_ = delimiter; }

  // Reads the next record into `fields`; false at the end of the input. Blank lines are not
  // records. When the record is malformed (unterminated quote, longer than kMaxRecordBytes),
  // error() says why; the reader has then resumed at the next line.
  bool next(std::vector<std::string>& fields);
  long line() const { return record_line_; }  // 1-based line where the last record started
  const std::string& error() const { return error_; }

  // The physical first line, unparsed (for delimiter detection); call before next(). The
  // line is parsed again by the following next().
  std::string peek_first_line();

 private:
  int get();
  void unget(int c);  // one byte (or EOF) to be returned by the next get()
  bool read_record(std::vector<std::string>& fields);
  void skip_rest_of_line();

  std::istream& in_;
  char delimiter_;
  std::string pushed_back_;  // bytes returned by peek_first_line, read again before the stream
  std::size_t pushed_pos_ = 0;
  int pending_ = -2;
  long next_line_ = 1, record_line_ = 0;
  std::string error_;
  bool started_ = false;
};

// The delimiter among , ; tab | that occurs most often outside quotes in `header`
// (',' when none does).
char detect_delimiter(std::string_view header);

}  // namespace kselect::importers
