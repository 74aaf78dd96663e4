#include "data/split.h"

#include <filesystem>
#include <system_error>

#include "core/error.h"
#include "data/sqlite.h"
#include "data/store.h"

#include <sqlite3.h>

namespace kselect::data {

namespace {

// Removes a database file and the journal files SQLite keeps next to it: a stale -wal file
// beside a new database would be replayed into it.
void remove_database_files(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::error_code ec;
    std::filesystem::remove(path + suffix, ec);
    if (ec) throw StorageError(path + suffix + ": cannot remove: " + ec.message());
  }
}

// Copies every page of `from` into the new database at `to` (the sqlite3 shell's .backup).
void copy_database(Database& from, Database& to) {
  sqlite3_backup* backup = sqlite3_backup_init(to.handle(), "main", from.handle(), "main");
  if (!backup) to.fail("copying " + from.path(), sqlite3_errcode(to.handle()));
  int rc;
  do {
    rc = sqlite3_backup_step(backup, -1);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(10);
  } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) to.fail("copying " + from.path(), rc);
}

long count(Database& db, const char* table) {
  Statement query(db, std::string("SELECT COUNT(*) FROM ") + table);
  query.step();
  return long(query.column_int(0));
}

// One side: the copy without the other side's problems, written beside the target and renamed
// over it when complete.
SplitSide write_side(Database& source, const std::string& target, bool held, int part, int parts) {
  const std::string partial = target + ".partial";
  remove_database_files(partial);
  SplitSide side{target};
  {
    Database copy(partial, /*read_only=*/false, /*create=*/true, 5000);
    copy_database(source, copy);
    // The held-out side drops the problems not congruent to `part`, the training side the others.
    const std::string drop = held ? "!=" : "=";
    {
      Transaction txn(copy);
      Statement measurements(copy,
                             "DELETE FROM measurements WHERE problem_id % ?1 " + drop + " ?2");
      measurements.bind(1, parts).bind(2, part).run();
      Statement problems(copy, "DELETE FROM problems WHERE id % ?1 " + drop + " ?2");
      problems.bind(1, parts).bind(2, part).run();
      txn.commit();
    }
    copy.exec("VACUUM");
    side.problems = count(copy, "problems");
    side.measurements = count(copy, "measurements");
  }  // closing the copy checkpoints and removes its -wal file
  remove_database_files(target);
  std::error_code ec;
  std::filesystem::rename(partial, target, ec);
  if (ec) throw StorageError(target + ": cannot replace it with " + partial + ": " + ec.message());
  return side;
}

}  // namespace

SplitResult split_store(const std::string& db, const std::string& out_dir, int part, int parts) {
  if (parts < 1 || part < 0 || part >= parts)
    throw InputError("split: the part must be in 0..parts-1 (part " + std::to_string(part) +
                     ", parts " + std::to_string(parts) + ")");
  { Store check(db, StoreOptions{.read_only = true}); }  // validates format and version
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw StorageError(out_dir + ": cannot create the output directory: " + ec.message());
  const auto out = std::filesystem::path(out_dir);
  const std::string train = (out / ("train" + std::to_string(part) + ".sqlite")).string();
  const std::string held = (out / ("held" + std::to_string(part) + ".sqlite")).string();
  for (const std::string& target : {train, held})
    if (std::filesystem::equivalent(db, target, ec))
      throw InputError("", 0, "out", target + " is the input database itself");
  Database source(db, /*read_only=*/true, /*create=*/false, 5000);
  SplitResult result;
  result.train = write_side(source, train, /*held=*/false, part, parts);
  result.held = write_side(source, held, /*held=*/true, part, parts);
  return result;
}

}  // namespace kselect::data
