#pragma once
// A thin RAII layer over the SQLite C API: errors become StorageError naming the database.
#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace kselect::data {

class Database {
 public:
  // Opens `path` (read-only or read-write, creating it if allowed) with a busy timeout. A
  // read-only open also works in a directory it cannot write to (see reopen_immutable).
  Database(const std::string& path, bool read_only, bool create, int busy_timeout_ms);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  long changes() const;
  std::int64_t last_insert_id() const;
  // How long a transaction waits in all for another writer's lock (Transaction); 0: one
  // busy timeout only.
  void set_lock_wait_ms(int ms) { lock_wait_ms_ = ms; }
  int lock_wait_ms() const { return lock_wait_ms_; }
  // Throws StorageError "<path>: <what>: <sqlite message>"; `rc` picks the wording for locks.
  [[noreturn]] void fail(const std::string& what, int rc) const;

 private:
  void open(const std::string& name, int flags);
  bool readable();
  void reopen_immutable(int flags);

  sqlite3* db_ = nullptr;
  std::string path_;
  int lock_wait_ms_ = 0;
};

class Statement {
 public:
  Statement(Database& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binders take 1-based parameter indexes, like SQLite.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }

  bool step();   // true while a row is available
  void run();    // steps to completion and resets, keeping bindings
  void reset();  // ready to run again with new bindings

  std::int64_t column_int(int col) const;
  double column_double(int col) const;
  std::string column_text(int col) const;
  bool column_null(int col) const;

 private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed without commit(). BEGIN takes the write
// lock before anything is written, so while another writer holds it BEGIN is tried again, with
// a message on stderr, until Database::lock_wait_ms() has passed: the caller's work in memory
// (a sweep's measured problem) waits instead of being lost. A transaction begun inside
// another is part of it: it begins and commits nothing.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace kselect::data
