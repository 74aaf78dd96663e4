#include "eval/run_protocols.h"

#include <fstream>

#include "core/error.h"
#include "core/text.h"
#include "data/store.h"
#include "eval/imported_problems.h"

namespace kselect::eval {

ProtocolOutcome run_protocol(const ProtocolJob& job) {
  if (job.protocol != "strict" && job.protocol != "transfer")
    throw InputError("", 0, "protocol",
                     "unknown protocol '" + job.protocol + "' (expected strict or transfer)");
  data::Store store(job.db, {.read_only = true});
  // The newest row of each pair, as train and eval read: a file imported again under a newer
  // importer revision (or under another name) does not list its kernels twice.
  // Imported rows of every op (MIOpen's under conv, Kernel Tuner's under generic): those whose
  // kernels their op does not own, which imported_data_operation() learns from. --dtype and
  // --where select problems by their field values ("key!=value" excludes).
  auto rows = store.read_measurements(
      {.op = "", .dtype = job.dtype, .where = job.where, .latest_per_pair = true});
  ImportedRows imported;
  std::erase_if(rows, [&](const data::Measurement& m) { return !imported(m); });
  std::string filter = job.where;  // as given, --dtype appended
  if (!job.dtype.empty()) filter += (filter.empty() ? "dtype=" : ",dtype=") + job.dtype;
  if (rows.empty())
    throw InputError(job.db, 0, "op",
                     "no imported measurements (kernels measured elsewhere)" +
                         (filter.empty() ? std::string() : " with " + filter) +
                         " in the store: the " + job.protocol +
                         " protocol evaluates imported data (kselect import)");
  std::map<std::string, nlohmann::json> configs;
  for (const std::string& op : store.ops()) configs.merge(store.kernel_configs(op));
  ProtocolOutcome out;
  if (job.protocol == "strict") {
    ListedReport report = evaluate_listed(rows, configs, job.listed);
    out.json = report.to_json();
    out.text = listed_report_text(report);
    if (!job.picks_file.empty()) {
      std::ofstream file(job.picks_file);
      if (!(file << listed_picks_csv(report) << std::flush))
        throw StorageError(job.picks_file + ": cannot write the picks");
    }
  } else {
    TransferReport report = evaluate_transfer(rows, configs, job.transfer);
    out.json = report.to_json();
    out.text = transfer_report_text(report);
  }
  out.json["db"] = job.db;
  out.json["dtype"] = job.dtype.empty() ? "any" : job.dtype;
  out.json["where"] = filter;
  return out;
}

}  // namespace kselect::eval
