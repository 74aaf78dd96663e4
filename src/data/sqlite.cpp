#include "data/sqlite.h"

#include <sqlite3.h>

#include "core/error.h"

namespace kselect::data {

Database::Database(const std::string& path, bool read_only, bool create, int busy_timeout_ms)
    : path_(path) {
  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (create && !read_only) flags |= SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw StorageError(path + ": cannot open database: " + message);
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  sqlite3_extended_result_codes(db_, 0);
}

Database::~Database() {
  sqlite3_close_v2(db_);
}

void Database::fail(const std::string& what, int rc) const {
  std::string message = sqlite3_errmsg(db_);
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
    throw StorageError(path_ + ": database is locked by another process or connection (" + what +
                       "): " + message);
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
  db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace kselect::data
