#pragma once
// The dispatcher's decision cache: a problem's kernel, found again with one hash lookup.
//
// Keys are canonical problem texts, valid for one (hardware, kernel catalogue, model): the
// three fingerprints head the cache file, and a file written under other ones is stale. The
// file is text, one decision per line like MIOpen's find-db, sorted by problem so that equal
// caches are equal files:
//
//   # kselect decision cache 1
//   hardware=<hex> catalogue=<hex> model=<hex>
//   <problem>\t<kernel>\t<source>
//
// Thread-safe: lookups take a shared lock on one of kShards shards (picked by the problem's
// hash), insertions an exclusive one.
#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kselect::select {

// A problem's text with its hash computed once (the public Problem handle carries both).
struct ProblemKey {
  std::string_view text;
  std::size_t hash = 0;
  static std::size_t hash_of(std::string_view text) { return std::hash<std::string_view>{}(text); }
};

// What a cache keeps per problem: the kernel (an index of the dispatcher's catalogue) and how
// it was decided (DecisionSource as a small integer).
struct CachedDecision {
  std::uint32_t kernel = 0;
  std::uint8_t source = 0;
  bool locked = false;  // replayed from a lockfile
};

// The fingerprints a cache file is valid for.
struct CacheKeys {
  std::string hardware, catalogue, model;
  bool operator==(const CacheKeys&) const = default;
};

class DecisionCache {
 public:
  static constexpr std::size_t kShards = 32;

  bool find(const ProblemKey& key, CachedDecision& out) const;
  // Keeps the first decision stored for a problem (a racing thread's equal decision is
  // dropped); returns whether this one was stored.
  bool insert(const ProblemKey& key, CachedDecision decision);
  std::size_t size() const;
  void clear();
  // Every entry, sorted by problem.
  std::vector<std::pair<std::string, CachedDecision>> entries() const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(const std::string& s) const { return ProblemKey::hash_of(s); }
    std::size_t operator()(const ProblemKey& k) const { return k.hash; }
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(const std::string& a, const std::string& b) const { return a == b; }
    bool operator()(const ProblemKey& a, const std::string& b) const { return a.text == b; }
    bool operator()(const std::string& a, const ProblemKey& b) const { return a == b.text; }
  };
  struct alignas(64) Shard {
    mutable std::shared_mutex mutex;
    std::unordered_map<std::string, CachedDecision, Hash, Equal> map;
  };
  Shard& shard(std::size_t hash) { return shards_[(hash >> 7) % kShards]; }
  const Shard& shard(std::size_t hash) const { return shards_[(hash >> 7) % kShards]; }

  std::array<Shard, kShards> shards_;
};

// One line of a decision file: problem, kernel name, source name.
struct DecisionLine {
  std::string problem, kernel, source;
};

// A decision file's contents: its keys and lines, as read.
struct DecisionFile {
  std::string kind;  // "decision cache" or "lockfile"
  CacheKeys keys;
  std::vector<DecisionLine> lines;
};

// Writes `file` to `path` atomically (a temporary file renamed over it), lines sorted by
// problem. StorageError when it cannot be written.
void write_decision_file(const std::filesystem::path& path, DecisionFile file);
// Reads a decision file of kind `kind`: StorageError when it cannot be read, InputError naming
// the file, line and field when it is malformed, of another kind or of another format version.
DecisionFile read_decision_file(const std::filesystem::path& path, const std::string& kind);

}  // namespace kselect::select
