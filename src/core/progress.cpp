#include "core/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ostream>

namespace kselect {

Progress::Progress(std::string label, long total, std::ostream& out, bool enabled)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      enabled_(enabled),
      terminal_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

std::string Progress::format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  long s = std::lround(seconds);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

void Progress::update(long done, const std::string& current) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  double since_print = std::chrono::duration<double>(now - last_print_).count();
  if (printed_ && since_print < (terminal_ ? 0.2 : 5.0) && done < total_) return;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double rate = elapsed > 0 ? double(done) / elapsed : 0;
  double eta = rate > 0 ? double(total_ - done) / rate : INFINITY;
  char head[160];
  std::snprintf(head, sizeof head, "%s %ld/%ld (%.0f%%) %.1f/s ETA %s", label_.c_str(), done,
                total_, total_ ? 100.0 * double(done) / double(total_) : 100.0, rate,
                format_duration(eta).c_str());
  std::string line = std::string(head) + "  " + current.substr(0, 60);
  if (terminal_)
    out_ << "\r\033[K" << line << std::flush;
  else
    out_ << line << "\n" << std::flush;
  printed_ = true;
  last_print_ = now;
}

void Progress::finish() {
  if (enabled_ && printed_ && terminal_) out_ << "\n" << std::flush;
}

}  // namespace kselect
