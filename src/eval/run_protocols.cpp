#include "eval/run_protocols.h"

#include "core/error.h"
#include "core/key_values.h"
#include "data/store.h"

namespace kselect::eval {

ProtocolOutcome run_protocol(const ProtocolJob& job) {
  if (job.protocol != "strict" && job.protocol != "transfer")
    throw InputError("", 0, "protocol",
                     "unknown protocol '" + job.protocol + "' (expected strict or transfer)");
  data::Store store(job.db, {.read_only = true});
  auto rows = store.read_measurements({.op = "generic"});
  // --dtype and --where select problems by their field values.
  KeyValues wanted = KeyValues::parse(job.where, "--where");
  if (!job.dtype.empty()) wanted.set("dtype", job.dtype);
  std::erase_if(rows, [&](const data::Measurement& m) {
    const KeyValues fields = KeyValues::parse(m.problem);
    for (const auto& [key, value] : wanted.items())
      if (fields.get(key).value_or("") != value) return true;
    return false;
  });
  if (rows.empty())
    throw InputError(job.db, 0, "op",
                     "no imported (generic) measurements" +
                         (wanted.items().empty() ? std::string() : " with " + wanted.to_string()) +
                         " in the store: the " + job.protocol +
                         " protocol evaluates imported data (kselect import)");
  const auto configs = store.kernel_configs("generic");
  ProtocolOutcome out;
  if (job.protocol == "strict") {
    ListedReport report = evaluate_listed(rows, configs, job.listed);
    out.json = report.to_json();
    out.text = listed_report_text(report);
  } else {
    TransferReport report = evaluate_transfer(rows, configs, job.transfer);
    out.json = report.to_json();
    out.text = transfer_report_text(report);
  }
  out.json["db"] = job.db;
  out.json["dtype"] = job.dtype.empty() ? "any" : job.dtype;
  out.json["where"] = wanted.to_string();
  return out;
}

}  // namespace kselect::eval
