#include "data/import/csv_reader.h"

#include <array>
#include <streambuf>

namespace kselect::importers {

namespace {
constexpr int kEof = std::char_traits<char>::eof();
constexpr int kNone = -2;  // no byte pushed back (distinct from kEof, which is -1)
}  // namespace

CsvReader::CsvReader(std::istream& in, char delimiter) : in_(in), delimiter_(delimiter) {}

void CsvReader::unget(int c) {
  pending_ = c;
}

int CsvReader::get() {
  if (pending_ != kNone) {
    int c = pending_;
    pending_ = kNone;
    return c;
  }
  if (!started_) {
    // Drop a UTF-8 byte-order mark; other leading bytes are read again.
    started_ = true;
    std::string head;
    for (int i = 0; i < 3; ++i) {
      int c = in_.rdbuf()->sbumpc();
      if (c == kEof) break;
      head += char(c);
    }
    if (head != "\xEF\xBB\xBF") pushed_back_ = head + pushed_back_;
  }
  if (pushed_pos_ < pushed_back_.size())
    return static_cast<unsigned char>(pushed_back_[pushed_pos_++]);
  return in_.rdbuf()->sbumpc();
}

std::string CsvReader::peek_first_line() {
  std::string line;
  int c;
  while ((c = get()) != kEof && line.size() < kMaxRecordBytes) {
    line += char(c);
    if (c == '\n') break;
  }
  pushed_back_ = line + pushed_back_.substr(pushed_pos_);
  pushed_pos_ = 0;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

void CsvReader::skip_rest_of_line() {
  int c;
  while ((c = get()) != kEof && c != '\n') {
  }
  if (c == '\n') ++next_line_;
}

bool CsvReader::next(std::vector<std::string>& fields) {
  fields.clear();
  error_.clear();
  int c;
  while ((c = get()) == '\n' || c == '\r')  // blank lines (and the CR of CRLF ones)
    if (c == '\n') ++next_line_;
  if (c == kEof) return false;
  record_line_ = next_line_;
  std::string field;
  bool in_quotes = false, was_quoted = false;
  std::size_t bytes = 0;
  auto end_field = [&] {
    // The CR of a CRLF line end is not data (inside quotes it is kept).
    if (!field.empty() && field.back() == '\r') field.pop_back();
    fields.push_back(std::move(field));
    field.clear();
    was_quoted = false;
  };
  for (;; c = get()) {
    if (c == kEof) {
      if (in_quotes) error_ = "unterminated quoted field (the file ends inside quotes)";
      end_field();
      return true;
    }
    if (++bytes > kMaxRecordBytes) {
      error_ = "record longer than " + std::to_string(kMaxRecordBytes) +
               " bytes (an unterminated quote?)";
      if (c != '\n')
        skip_rest_of_line();
      else
        ++next_line_;
      end_field();
      return true;
    }
    const char ch = char(c);
    if (in_quotes) {
      if (ch == '"') {
        int d = get();
        if (d == '"') {
          field += '"';
        } else {
          in_quotes = false;
          unget(d);  // the byte after the closing quote is read as unquoted text
        }
        continue;
      }
      if (ch == '\n') ++next_line_;
      field += ch;
      continue;
    }
    if (ch == '"' && field.empty() && !was_quoted) {
      in_quotes = was_quoted = true;
    } else if (ch == delimiter_) {
      end_field();
    } else if (ch == '\n') {
      ++next_line_;
      end_field();
      return true;
    } else {
      field += ch;  // lenient: a quote inside an unquoted field is literal
    }
  }
}

char detect_delimiter(std::string_view header) {
  constexpr std::array<char, 4> kCandidates = {',', ';', '\t', '|'};
  std::array<long, 4> counts{};
  bool in_quotes = false;
  for (char ch : header) {
    if (ch == '"') in_quotes = !in_quotes;
    if (in_quotes) continue;
    for (std::size_t i = 0; i < kCandidates.size(); ++i)
      if (ch == kCandidates[i]) ++counts[i];
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < kCandidates.size(); ++i)
    if (counts[i] > counts[best]) best = i;
  return kCandidates[best];
}

}  // namespace kselect::importers
