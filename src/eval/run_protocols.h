#pragma once
// `kselect eval --protocol strict|transfer`: the protocols that train their own models per fold
// on imported data (listed_protocol.h, transfer.h), run end to end from a store.
#include <string>

#include <nlohmann/json.hpp>

#include "eval/listed_protocol.h"
#include "eval/transfer.h"

namespace kselect::eval {

struct ProtocolJob {
  std::string db;
  std::string protocol;    // "strict" or "transfer"
  std::string dtype;       // "" = every dtype; else only problems with this dtype field
  std::string where;       // "" or "key=value,...": only problems with these field values
  std::string picks_file;  // strict: "" or where to write every problem's pick as CSV
  ListedOptions listed;
  TransferOptions transfer;
};

struct ProtocolOutcome {
  nlohmann::json json;  // the protocol's report, plus "db" and "dtype"
  std::string text;     // the human table
};

// Throws InputError for an unknown protocol or unusable data, StorageError for the store.
ProtocolOutcome run_protocol(const ProtocolJob& job);

}  // namespace kselect::eval
