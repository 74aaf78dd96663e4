#include "select/decision_cache.h"

#include <algorithm>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/error.h"

namespace kselect::select {

namespace {

constexpr int kFormatVersion = 1;

std::string header_line(const std::string& kind) {
  return "# kselect " + kind + " " + std::to_string(kFormatVersion);
}

// "name=value" -> value; InputError naming the field otherwise.
std::string key_value(const std::string& token, const std::string& name, const std::string& file,
                      long line) {
  const std::string prefix = name + "=";
  if (token.rfind(prefix, 0) != 0 || token.size() == prefix.size())
    throw InputError(file, line, name, "expected " + name + "=<hex>, got '" + token + "'");
  return token.substr(prefix.size());
}

}  // namespace

bool DecisionCache::find(const ProblemKey& key, CachedDecision& out) const {
  const Shard& s = shard(key.hash);
  std::shared_lock lock(s.mutex);
  auto it = s.map.find(key);
  if (it == s.map.end()) return false;
  out = it->second;
  return true;
}

bool DecisionCache::insert(const ProblemKey& key, CachedDecision decision) {
  Shard& s = shard(key.hash);
  std::unique_lock lock(s.mutex);
  return s.map.try_emplace(std::string(key.text), decision).second;
}

std::size_t DecisionCache::size() const {
  std::size_t n = 0;
  for (const Shard& s : shards_) {
    std::shared_lock lock(s.mutex);
    n += s.map.size();
  }
  return n;
}

void DecisionCache::clear() {
  for (Shard& s : shards_) {
    std::unique_lock lock(s.mutex);
    s.map.clear();
  }
}

std::vector<std::pair<std::string, CachedDecision>> DecisionCache::entries() const {
  std::vector<std::pair<std::string, CachedDecision>> out;
  for (const Shard& s : shards_) {
    std::shared_lock lock(s.mutex);
    out.insert(out.end(), s.map.begin(), s.map.end());
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return out;
}

void write_decision_file(const std::filesystem::path& path, DecisionFile file) {
  std::sort(file.lines.begin(), file.lines.end(),
            [](auto& a, auto& b) { return a.problem < b.problem; });
  std::ostringstream text;
  text << header_line(file.kind) << "\n"
       << "hardware=" << file.keys.hardware << " catalogue=" << file.keys.catalogue
       << " model=" << file.keys.model << "\n";
  for (const auto& l : file.lines)
    text << l.problem << '\t' << l.kernel << '\t' << l.source << "\n";
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text.str();
    out.flush();
    if (!out) throw StorageError("cannot write " + temporary.string());
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw StorageError("cannot replace " + path.string() + ": " + ec.message());
}

DecisionFile read_decision_file(const std::filesystem::path& path, const std::string& kind) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StorageError("cannot read " + path.string());
  const std::string name = path.string();
  DecisionFile file;
  file.kind = kind;
  std::string line;
  if (!std::getline(in, line) || line != header_line(kind))
    throw InputError(name, 1, "header",
                     "expected '" + header_line(kind) + "', got '" + line.substr(0, 80) + "'");
  if (!std::getline(in, line)) throw InputError(name, 2, "keys", "missing the fingerprint line");
  {
    std::istringstream tokens(line);
    std::string hardware, catalogue, model, extra;
    tokens >> hardware >> catalogue >> model;
    if (tokens >> extra) throw InputError(name, 2, "keys", "unexpected '" + extra + "'");
    file.keys.hardware = key_value(hardware, "hardware", name, 2);
    file.keys.catalogue = key_value(catalogue, "catalogue", name, 2);
    file.keys.model = key_value(model, "model", name, 2);
  }
  long number = 2;
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find('\t');
    const auto second = first == std::string::npos ? first : line.find('\t', first + 1);
    if (second == std::string::npos || line.find('\t', second + 1) != std::string::npos)
      throw InputError(name, number, "line", "expected <problem>\\t<kernel>\\t<source>");
    DecisionLine l{line.substr(0, first), line.substr(first + 1, second - first - 1),
                   line.substr(second + 1)};
    if (l.problem.empty()) throw InputError(name, number, "problem", "empty");
    if (l.kernel.empty()) throw InputError(name, number, "kernel", "empty");
    file.lines.push_back(std::move(l));
  }
  return file;
}

}  // namespace kselect::select
