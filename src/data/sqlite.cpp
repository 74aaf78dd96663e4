#include "data/sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <thread>

#include "core/error.h"

namespace kselect::data {

namespace {
// `path` as an SQLite URI naming the file, with the characters a URI gives meaning escaped.
std::string file_uri(const std::string& path, const char* query) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      static const char* hex = "0123456789ABCDEF";
      uri += '%';
      uri += hex[(unsigned char)c >> 4];
      uri += hex[(unsigned char)c & 15];
    } else {
      uri += c;
    }
  }
  return uri + query;
}

// Whether a write-ahead log beside `path` holds commits not yet copied into the file.
bool has_unmerged_log(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path + "-wal", ec);
  return !ec && size > 0;
}
}  // namespace

Database::Database(const std::string& path, bool read_only, bool create, int busy_timeout_ms)
    : path_(path) {
  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (create && !read_only) flags |= SQLITE_OPEN_CREATE;
  open(path, flags);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  sqlite3_extended_result_codes(db_, 0);
  if (read_only && !readable()) reopen_immutable(flags);
}

void Database::open(const std::string& name, int flags) {
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw StorageError(path_ + ": cannot open database: " + message);
  }
}

bool Database::readable() {
  const int rc = sqlite3_exec(db_, "SELECT COUNT(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  return rc != SQLITE_READONLY && rc != SQLITE_CANTOPEN;
}

// A database in write-ahead-log mode is read through a shared-memory index kept in a file
// beside it; in a read-only directory (a mounted archive, another user's folder) that file
// cannot be made, and SQLite refuses the read. Opened as immutable, SQLite reads the file alone,
// which is exact when no log holds commits the file lacks, and no writer can exist in a
// directory nobody may write to.
void Database::reopen_immutable(int flags) {
  sqlite3_close_v2(db_);
  db_ = nullptr;
  if (has_unmerged_log(path_))
    throw StorageError(path_ + ": cannot be read here: its write-ahead log (" + path_ +
                       "-wal) holds commits and its directory is read-only; open it once "
                       "where it can be written (any read-only verb) to merge the log");
  open(file_uri(path_, "?immutable=1"), flags | SQLITE_OPEN_URI);
}
Database::~Database() {
  sqlite3_close_v2(db_);
}

void Database::fail(const std::string& what, int rc) const {
  std::string message = sqlite3_errmsg(db_);
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
    throw StorageError(path_ + ": database is locked by another process or connection (" + what +
                       "): " + message);
  if (rc == SQLITE_READONLY)
    throw StorageError(path_ + ": cannot write (" + what +
                       "): the database or its directory is read-only: " + message);
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
    throw StorageError(path_ + ": not a valid SQLite database or corrupt (" + what +
                       "): " + message);
  throw StorageError(path_ + ": " + what + ": " + message);
}

void Database::exec(const std::string& sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  sqlite3_free(error);
  if (rc != SQLITE_OK) fail("executing '" + sql.substr(0, 60) + "'", rc);
}

long Database::changes() const {
  return sqlite3_changes(db_);
}

std::int64_t Database::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}

Statement::Statement(Database& db, const std::string& sql) : db_(db), sql_(sql) {
  int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), int(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) db.fail("preparing '" + sql.substr(0, 60) + "'", rc);
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), int(value.size()), SQLITE_TRANSIENT);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  db_.fail("running '" + sql_.substr(0, 60) + "'", rc);
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
}

std::int64_t Statement::column_int(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double Statement::column_double(int col) const {
  return sqlite3_column_double(stmt_, col);
}
std::string Statement::column_text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  return text ? std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, col))
              : std::string();
}
bool Statement::column_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

Transaction::Transaction(Database& db) : db_(db) {
  if (!sqlite3_get_autocommit(db_.handle())) {  // inside another: that one commits
    done_ = true;
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  for (int attempt = 1;; ++attempt) {
    // Each attempt already waits the busy timeout inside SQLite.
    const int rc = sqlite3_exec(db_.handle(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || waited >= db_.lock_wait_ms())
      db_.fail("starting a write after waiting " + std::to_string(waited / 1000) + " s", rc);
    std::cerr << "kselect: " << db_.path() << " is locked by another writer; waiting ("
              << waited / 1000 << " s of at most " << db_.lock_wait_ms() / 1000 << " s)\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(100 * attempt, 2000)));
  }
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  if (done_) return;
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace kselect::data
