#pragma once
// A progress line for long jobs on stderr: done/total, rate, ETA and what is being worked on.
#include <chrono>
#include <iosfwd>
#include <string>

namespace kselect {

class Progress {
 public:
  // Redraws in place on a terminal; elsewhere (logs, pipes) prints a line every few seconds.
  Progress(std::string label, long total, std::ostream& out, bool enabled = true);
  void update(long done, const std::string& current);
  void finish();

  static std::string format_duration(double seconds);  // "1:05", "1:02:03", "?" for infinity

 private:
  std::string label_;
  long total_;
  std::ostream& out_;
  bool enabled_, terminal_;
  std::chrono::steady_clock::time_point start_, last_print_;
  bool printed_ = false;
};

}  // namespace kselect
