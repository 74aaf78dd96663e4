#include "data/import/driver.h"

#include <filesystem>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../temp_dir.h"
#include "compressed_bytes.h"
#include "core/error.h"
#include "core/key_values.h"
#include "data/import/importer.h"
#include "data/store.h"
#include "ops/operation.h"

namespace kselect::importers {
namespace {

using kselect::testing::read_bytes;
using kselect::testing::TempDir;
using kselect::testing::write_bytes;
using ::testing::ElementsAre;

// A test-only format, one record per line: "problem|kernel|time_ms", "skip <reason>" for a line
// the importer cannot use, "throw" for a file it cannot read at all.
class LinesImporter : public Importer {
 public:
  std::string_view format() const override { return "test-lines"; }
  std::string_view description() const override { return "test only"; }
  std::string device_from_name(const std::string& path) const override {
    return path.find("mi210") != std::string::npos ? "MI210" : "";
  }
  void read(std::istream& in, const ImportOptions& options, RowSink& sink) const override {
    std::string text;
    for (long line = 1; std::getline(in, text); ++line) {
      if (text == "throw") throw InputError(options.source, line, "", "cannot read this");
      if (text.rfind("skip ", 0) == 0) {
        sink.skip(line, text.substr(5));
        continue;
      }
      std::istringstream fields(text);
      ImportedRow row;
      std::string time;
      std::getline(fields, row.problem, '|');
      std::getline(fields, row.kernel, '|');
      std::getline(fields, time, '|');
      row.time_ms = std::stod(time);
      row.kernel_config = {{"name_length", long(row.kernel.size())}};
      row.line = line;
      sink.add(std::move(row));
    }
  }
};
const LinesImporter kLines;

// The same lines as the problems of another op.
class OpLinesImporter : public LinesImporter {
 public:
  explicit OpLinesImporter(std::string_view op) : op_(op) {}
  std::string_view op() const override { return op_; }

 private:
  std::string_view op_;
};

ImportRunOptions quiet() {
  ImportRunOptions options;
  options.progress = false;
  return options;
}

std::map<std::string, data::Measurement> by_pair(const std::string& db) {
  data::Store store(db, data::StoreOptions{.read_only = true});
  std::map<std::string, data::Measurement> out;
  data::MeasurementFilter filter;
  filter.with_repeats = true;
  for (auto& m : store.read_measurements(filter)) out[m.problem + " " + m.kernel] = m;
  return out;
}

class ImportDriver : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    write_bytes(dir_.file(name), text);
    return dir_.file(name);
  }
  TempDir dir_;
  std::string db_ = dir_.file("store.sqlite");
};

// "Not the format" is one rule for every importer: no record taken from the file (empty, or
// every line skipped), or none among the first 1000, is an InputError naming the format and
// the first skipped line, and nothing is written; a file with one usable record among skipped
// lines imports it.
TEST_F(ImportDriver, AFileWithNoRecordOfTheFormatIsRefused) {
  auto refused = [&](const std::string& file, const char* says) {
    try {
      import_file(file, kLines, db_, quiet());
      ADD_FAILURE() << file << " imported";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("is it a test-lines file?"), std::string::npos);
    }
  };
  refused(write("empty.txt", ""), "no test-lines record in the file");
  refused(write("all_skipped.txt", "skip not a record\nskip nor this\n"),
          "in all 2 records (first: ");
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "skip header noise\n";
  refused(write("late.txt", many + "p=1|k1|1.0\n"), "among the first 1000 records");
  EXPECT_FALSE(std::filesystem::exists(db_));
  ImportSummary s =
      import_file(write("mixed.txt", "skip noise\np=1|k1|1.0\n"), kLines, db_, quiet());
  EXPECT_EQ(s.added, 1);
  EXPECT_EQ(s.skipped, 1);
}

TEST_F(ImportDriver, DuplicatesAreMergedByTheMedianWithAllTimesKept) {
  std::string file = write("a.txt",
                           "m=1|k1|1.0\n"
                           "m=1|k1|3.0\n"
                           "m=1|k2|5.0\n"
                           "m=1|k1|2.0\n");
  ImportSummary s = import_file(file, kLines, db_, quiet());
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.duplicates, 2);
  EXPECT_EQ(s.valid, 2);
  EXPECT_EQ(s.added, 2);
  EXPECT_EQ(s.problems, 1);
  EXPECT_EQ(s.kernels, 2);
  auto rows = by_pair(db_);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows["m=1 k1"].median_ms, 2.0);
  EXPECT_DOUBLE_EQ(rows["m=1 k1"].min_ms, 1.0);
  EXPECT_THAT(rows["m=1 k1"].repeats_ms, ElementsAre(1.0, 3.0, 2.0));  // file order
  EXPECT_DOUBLE_EQ(rows["m=1 k2"].median_ms, 5.0);
}

TEST_F(ImportDriver, BadTimesAreKeptAsInvalidAndValidDuplicatesWin) {
  std::string file = write("a.txt",
                           "m=1|zero|0\n"
                           "m=1|neg|-2\n"
                           "m=1|inf|inf\n"
                           "m=1|mixed|0\n"
                           "m=1|mixed|4\n");
  ImportSummary s = import_file(file, kLines, db_, quiet());
  EXPECT_EQ(s.invalid, 3);
  EXPECT_EQ(s.valid, 1);
  EXPECT_EQ(s.duplicates, 1);
  auto rows = by_pair(db_);
  for (const char* kernel : {"zero", "neg", "inf"}) {
    const auto& m = rows[std::string("m=1 ") + kernel];
    EXPECT_FALSE(m.valid) << kernel;
    EXPECT_THAT(m.reason, ::testing::HasSubstr("time_ms")) << kernel;
  }
  EXPECT_TRUE(rows["m=1 mixed"].valid);
  EXPECT_DOUBLE_EQ(rows["m=1 mixed"].median_ms, 4.0);
  EXPECT_THAT(rows["m=1 mixed"].repeats_ms, ElementsAre(4.0));
}

TEST_F(ImportDriver, SkippedLinesKeepFileLineAndReason) {
  std::string file = write("a.txt",
                           "m=1|k1|1\n"
                           "skip field 'time': not a number 'abc'\n"
                           "m=1|k2|1\n"
                           "skip field 'time': not a number 'xyz'\n"
                           "skip expected 5 fields, found 3\n"
                           "m=\xff|k3|1\n");
  ImportRunOptions options = quiet();
  options.show_skipped = 2;
  options.skipped_log = dir_.file("skipped.log");
  ImportSummary s = import_file(file, kLines, db_, options);
  EXPECT_EQ(s.skipped, 4);
  EXPECT_EQ(s.records, 6);
  EXPECT_EQ(s.skipped_by_reason.at("problem or kernel name is not valid UTF-8"), 1);
  ASSERT_EQ(s.first_skipped.size(), 2u);
  EXPECT_EQ(s.first_skipped[0].to_string(), file + ":2: field 'time': not a number 'abc'");
  EXPECT_EQ(s.first_skipped[1].line, 4);
  EXPECT_EQ(s.skipped_by_reason.at("field 'time': not a number '…'"), 2);
  EXPECT_EQ(s.skipped_by_reason.at("expected N fields, found N"), 1);
  EXPECT_EQ(read_bytes(options.skipped_log), file + ":2: field 'time': not a number 'abc'\n" +
                                                 file + ":4: field 'time': not a number 'xyz'\n" +
                                                 file + ":5: expected 5 fields, found 3\n" + file +
                                                 ":6: problem or kernel name is not valid UTF-8\n");
  EXPECT_EQ(s.to_json()["skipped"], 4);
}

TEST_F(ImportDriver, StrictStopsAtTheFirstSkippedLineAndWritesNothing) {
  std::string good = write("good.txt", "m=1|k1|1\n");
  import_file(good, kLines, db_, quiet());
  std::string bad = write("bad.txt", "m=2|k1|1\nm=2|k2|1\nskip bad field\nm=2|k3|1\n");
  ImportRunOptions options = quiet();
  options.strict = true;
  try {
    import_file(bad, kLines, db_, options);
    FAIL() << "no error in strict mode";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(bad + ":3: bad field"));
  }
  EXPECT_EQ(by_pair(db_).size(), 1u);
  EXPECT_EQ(data::Store(db_).info().runs.size(), 1u);
}

TEST_F(ImportDriver, StrictOnANewStoreLeavesNoFile) {
  std::string bad = write("bad.txt", "skip bad\n");
  ImportRunOptions options = quiet();
  options.strict = true;
  EXPECT_THROW(import_file(bad, kLines, db_, options), InputError);
  EXPECT_FALSE(std::filesystem::exists(db_));
}

TEST_F(ImportDriver, ReimportAddsNothingButOtherDevicesAndFilesAreKeptApart) {
  std::string file = write("a.txt", "m=1|k1|1\nm=1|k2|2\n");
  EXPECT_EQ(import_file(file, kLines, db_, quiet()).added, 2);
  ImportSummary again = import_file(file, kLines, db_, quiet());
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.already_present, 2);
  EXPECT_EQ(again.run_id, 0);
  EXPECT_EQ(data::Store(db_).info().runs.size(), 1u);  // no empty run recorded

  ImportRunOptions other = quiet();
  other.device = "A100";
  EXPECT_EQ(import_file(file, kLines, db_, other).added, 2);
  std::string copy = write("b.txt", "m=1|k1|1\nm=1|k2|2\n");
  EXPECT_EQ(import_file(copy, kLines, db_, quiet()).added, 2);
  EXPECT_EQ(data::Store(db_).info().measurements, 6);
}

// A revised importer (MIOpen's 3-D keys became their own problems) imports under a new key, so
// a store made by the older revision takes the new rows instead of calling them present.
TEST_F(ImportDriver, ImporterRevisionIsPartOfTheSettingsKey) {
  std::string file = write("gfx90a68.HIP.fdb.txt",
                           "64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F="
                           "GemmFwdRest:1,0,miopenConvolutionFwdAlgoGEMM\n");
  ImportSummary s = import_file(file, "miopen-fdb", db_, quiet());
  EXPECT_EQ(s.settings_key, "import:miopen-fdb/r2:gfx90a68:gfx90a68.HIP.fdb.txt");
  EXPECT_EQ(s.added, 1);
}

TEST_F(ImportDriver, RunRecordsDeviceFormatSourceAndSettingsKey) {
  std::string file = write("conv_mi210.txt", "m=1|k1|1\n");
  ImportRunOptions options = quiet();
  options.settings = KeyValues::parse("a=1");
  ImportSummary s = import_file(file, kLines, db_, options);
  EXPECT_EQ(s.device, "MI210");  // from the importer's reading of the file name
  EXPECT_EQ(s.settings_key, "import:test-lines:MI210:conv_mi210.txt");
  data::Store store(db_);
  auto info = store.info();
  ASSERT_EQ(info.runs.size(), 1u);
  const auto& run = info.runs[0];
  EXPECT_EQ(run.op, "generic");  // Importer::op()'s default: imported_data_operation()
  EXPECT_EQ(run.hardware["device"], "MI210");
  EXPECT_EQ(run.settings["format"], "test-lines");
  EXPECT_EQ(run.settings["source"], "conv_mi210.txt");
  EXPECT_EQ(run.settings["importer_settings"]["a"], "1");
  EXPECT_EQ(run.settings_key, s.settings_key);
  EXPECT_EQ(run.status, "finished");
  EXPECT_EQ(store.kernel_configs("generic").at("k1")["name_length"], 2);
  EXPECT_EQ(store.ops(), std::vector<std::string>{"generic"});

  std::string unnamed = write("plain.txt", "m=1|k1|1\n");
  EXPECT_EQ(import_file(unnamed, kLines, db_, quiet()).device, "unknown");
}

// MIOpen's convolutions are conv problems: stored under op conv, with conv's problem texts.
TEST_F(ImportDriver, ConvolutionsAreStoredAsConvProblems) {
  const std::string key = "64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F";
  std::string file =
      write("gfx90a68.HIP.fdb.txt", key + "=GemmFwdRest:1,0,miopenConvolutionFwdAlgoGEMM\n");
  import_file(file, "miopen-fdb", db_, quiet());
  data::Store store(db_);
  EXPECT_EQ(store.ops(), std::vector<std::string>{"conv"});
  EXPECT_EQ(store.runs().at(0).op, "conv");
  auto rows = store.read_measurements();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].op, "conv");
  EXPECT_EQ(rows[0].problem,
            "device=gfx90a68,dir=F,dtype=fp32,layout=NCHW,n=32,c=64,k=128,g=1,di=1,hi=56,wi=56,"
            "z=1,y=3,x=3,do=1,ho=28,wo=28,pad_d=0,pad_h=1,pad_w=1,stride_d=1,stride_h=2,"
            "stride_w=2,dil_d=1,dil_h=1,dil_w=1,bias=0");
  EXPECT_EQ(find_operation("conv").canonical_problem(rows[0].problem, "test"), rows[0].problem);
  EXPECT_TRUE(is_imported_kernel("conv", "GemmFwdRest"));
  EXPECT_EQ(store.kernel_configs("conv").at("GemmFwdRest")["algorithm"], "GEMM");
}

// Each problem passes its op's codec: one it refuses is a skipped line naming the field.
TEST_F(ImportDriver, ProblemsTheOpRefusesAreSkippedNamingTheField) {
  const OpLinesImporter conv_lines("conv");
  std::string file = write("a.txt",
                           "n=1,c=4,k=4,hi=8,wi=8,y=3,x=3,dir=fwd,dtype=fp32|k1|1\n"
                           "n=1,c=4,k=4,hi=8,wi=8,y=3,x=3,dir=fwd,dtype=fp32,color=red|k1|1\n"
                           "n=1,c=4,k=4,hi=2,wi=8,y=3,x=3,dir=fwd,dtype=fp32|k1|1\n");
  ImportSummary s = import_file(file, conv_lines, db_, quiet());
  EXPECT_EQ(s.rows, 1);
  ASSERT_EQ(s.first_skipped.size(), 2u);
  EXPECT_EQ(s.first_skipped[0].line, 2);
  EXPECT_THAT(s.first_skipped[0].to_string(),
              ::testing::HasSubstr("a.txt:2: problem of op conv: field 'color'"));
  EXPECT_EQ(s.first_skipped[1].line, 3);
  EXPECT_THAT(s.first_skipped[1].reason, ::testing::HasSubstr("field 'ho'"));
  // The native text is stored as conv's codec writes it (a layout, its output sizes).
  auto rows = data::Store(db_).read_measurements();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_THAT(rows[0].problem, ::testing::HasSubstr("dir=fwd,dtype=fp32,layout=nhwgc"));

  const OpLinesImporter nowhere("no_such_op");
  try {
    import_file(file, nowhere, dir_.file("other.sqlite"), quiet());
    ADD_FAILURE() << "an importer of an unknown op imported";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("unknown operation 'no_such_op'"));
  }
}

// A store where an older kselect imported the same file as generic rows: importing it again as
// conv rows would store every measurement twice, so the import is refused and the store kept.
TEST_F(ImportDriver, AFileImportedUnderAnotherOpIsRefused) {
  std::string file = write("gfx90a68.HIP.fdb.txt",
                           "64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F="
                           "GemmFwdRest:1,0,miopenConvolutionFwdAlgoGEMM\n");
  {
    data::Store old(db_);
    data::ImportedRun run{"generic",
                          {{"device", "gfx90a68"}},
                          {{"format", "miopen-fdb"}, {"source", "gfx90a68.HIP.fdb.txt"}},
                          "import:miopen-fdb/r2:gfx90a68:gfx90a68.HIP.fdb.txt"};
    bool given = false;
    old.write_imported_run(run, [&](data::Measurement& m, nlohmann::json& config) {
      if (given) return false;
      given = true;
      m.op = "generic", m.problem = "device=gfx90a68,dir=F,n=32", m.kernel = "GemmFwdRest";
      m.valid = true, m.median_ms = 1, m.repeats_ms = {1};
      config = nlohmann::json::object();
      return true;
    });
  }
  try {
    import_file(file, "miopen-fdb", db_, quiet());
    ADD_FAILURE() << "imported the same file a second time under another op";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("as op 'generic' with an older kselect"));
  }
  EXPECT_EQ(data::Store(db_).ops(), std::vector<std::string>{"generic"});
  // Another file, or a new store, imports as usual.
  std::string other = write("gfx906_60.HIP.fdb.txt",
                            "64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F="
                            "GemmFwdRest:1,0,miopenConvolutionFwdAlgoGEMM\n");
  EXPECT_EQ(import_file(other, "miopen-fdb", db_, quiet()).added, 1);
  EXPECT_EQ(import_file(file, "miopen-fdb", dir_.file("new.sqlite"), quiet()).added, 1);
}

TEST_F(ImportDriver, AnExplicitDeviceJoinsProblemsThatDoNotNameOne) {
  std::string file = write("a.txt", "m=1|k1|1\ndevice=gfx90a,m=1|k1|2\n");
  ImportRunOptions options = quiet();
  options.device = "H100";
  import_file(file, kLines, db_, options);
  auto rows = by_pair(db_);
  EXPECT_EQ(rows.count("m=1,device=H100 k1"), 1u);
  EXPECT_EQ(rows.count("device=gfx90a,m=1 k1"), 1u);
  options.device = "a,b";
  EXPECT_THROW(import_file(file, kLines, db_, options), InputError);
}

// The devices the stored problems name ("" for a problem without one).
std::set<std::string> problem_devices(const std::string& db) {
  std::set<std::string> out;
  for (const auto& [pair, m] : by_pair(db)) {
    KeyValues problem = KeyValues::parse(m.problem);
    out.insert(problem.get("device").value_or(""));
  }
  return out;
}

TEST_F(ImportDriver, DeviceOptionReachesTheRunAndEveryProblemOfEachFormat) {
  const std::string cache = R"({"device_name": "NVIDIA A100-PCIE-40GB", "kernel_name": "conv",
      "problem_size": [64, 32], "tune_params_keys": ["bx"],
      "cache": {"8": {"bx": 8, "time": 1.5}, "16": {"bx": 16, "time": "RuntimeFailedConfig"}}})";
  const std::string fdb =
      "64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F=ConvA:0.5,0,ImplicitGEMM;ConvB:0.7,0,"
      "Direct\n"
      "64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP16-B=ConvA:0.9,0,ImplicitGEMM\n";
  const std::vector<std::pair<std::string, std::string>> files = {
      {"kernel-tuner", write("conv_A100.json", cache)},
      {"miopen-fdb", write("gfx90a68.HIP.fdb.txt", fdb)}};
  for (const auto& [format, file] : files) {
    SCOPED_TRACE(format);
    for (const std::string device : {"X1", ""}) {
      std::string db = dir_.file(format + device + ".sqlite");
      ImportRunOptions options = quiet();
      options.device = device;
      ImportSummary s = import_file(file, format, db, options);
      EXPECT_GT(s.added, 1);
      // Without --device both take the file's device; with it, both take --device.
      const std::string expected = device.empty() ? s.device : device;
      EXPECT_NE(expected, "unknown");
      auto runs = data::Store(db).info().runs;
      ASSERT_EQ(runs.size(), 1u);
      EXPECT_EQ(runs[0].hardware["device"], expected);
      EXPECT_EQ(problem_devices(db), std::set<std::string>{expected});
    }
  }
  ImportRunOptions bad = quiet();
  bad.device = "my gpu";
  EXPECT_THROW(import_file(files[0].second, "kernel-tuner", db_, bad), InputError);
}

TEST_F(ImportDriver, CompressedCsvThroughTheWholePipeline) {
  const std::string text = "M,N,K,kernel,us\n8,8,8,a,10\n8,8,8,a,30\n8,8,8,a,20\n8,8,8,b,5\n";
  std::string gz = write("runs.csv.gz", kselect::testing::gzip_bytes(text));
  std::string bz = write("runs.csv.bz2", kselect::testing::bzip2_bytes(text));
  ImportRunOptions options = quiet();
  options.settings = KeyValues::parse("problem=M;N;K,kernel=kernel,time=us,time_unit=us");
  ImportSummary s = import_file(gz, "csv", db_, options);
  EXPECT_EQ(s.compression, "gzip");
  EXPECT_EQ(s.added, 2);
  EXPECT_EQ(s.duplicates, 2);
  EXPECT_EQ(import_file(bz, "csv", db_, options).compression, "bzip2");
  auto rows = by_pair(db_);
  EXPECT_DOUBLE_EQ(rows.at("m=8,n=8,k=8 a").median_ms, 0.02);
  EXPECT_NEAR(rows.at("m=8,n=8,k=8 a").tflops, 1024 / 0.02e9, 1e-12);
  std::string cut = write("cut.csv.gz", kselect::testing::gzip_bytes(text).substr(0, 20));
  EXPECT_THROW(import_file(cut, "csv", db_, options), InputError);
  EXPECT_EQ(data::Store(db_).info().measurements, 4);  // two files, two kernels each
}

TEST_F(ImportDriver, AFailingImportLeavesEarlierDataIntact) {
  std::string good = write("good.txt", "m=1|k1|1\nm=1|k2|2\n");
  import_file(good, kLines, db_, quiet());
  std::string broken = write("broken.txt", "m=2|k1|1\nm=2|k2|1\nthrow\n");
  EXPECT_THROW(import_file(broken, kLines, db_, quiet()), InputError);
  auto rows = by_pair(db_);
  EXPECT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows.count("m=1 k1"), 1u);
  EXPECT_EQ(data::Store(db_).info().runs.size(), 1u);
}

TEST_F(ImportDriver, UnknownFormatMissingFileAndWrongStoreAreErrors) {
  std::string file = write("a.txt", "m=1|k1|1\n");
  EXPECT_THROW(import_file(file, "no-such-format", db_, quiet()), InputError);
  EXPECT_THROW(import_file(dir_.file("absent.txt"), kLines, db_, quiet()), InputError);
  std::string not_db = write("not.sqlite", "a,b\n1,2\n");
  EXPECT_THROW(import_file(file, kLines, not_db, quiet()), StorageError);
  EXPECT_EQ(read_bytes(not_db), "a,b\n1,2\n");
}

TEST_F(ImportDriver, ProgressReportsOnTheLog) {
  std::string file = write("a.txt", "m=1|k1|1\n");
  std::ostringstream log;
  ImportRunOptions options;
  options.log = &log;
  import_file(file, kLines, db_, options);
  EXPECT_THAT(log.str(), ::testing::HasSubstr("import a.txt"));
}

TEST(ReasonCategory, BlanksValuesAndNumbersButKeepsFieldNames) {
  EXPECT_EQ(reason_category("field 'time': not a number 'abc'"), "field 'time': not a number '…'");
  EXPECT_EQ(reason_category("expected 12 fields, found 3"), "expected N fields, found N");
  EXPECT_EQ(reason_category("unknown solver 'ConvX'"), "unknown solver '…'");
  EXPECT_EQ(reason_category("unterminated 'quote"), "unterminated '…'");
  EXPECT_EQ(reason_category("not valid UTF-8 in fp16 row 12"), "not valid UTF-8 in fp16 row N");
}

}  // namespace
}  // namespace kselect::importers
