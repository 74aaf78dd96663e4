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
  if (!job.dtype.empty())
    std::erase_if(rows, [&](const data::Measurement& m) {
      return KeyValues::parse(m.problem).get("dtype").value_or("") != job.dtype;
    });
  if (rows.empty())
    throw InputError(job.db, 0, "op",
                     "no imported (generic) measurements" +
                         (job.dtype.empty() ? std::string() : " with dtype " + job.dtype) +
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
  return out;
}

}  // namespace kselect::eval
