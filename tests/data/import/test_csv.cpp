// The csv importer and its helpers (csv_reader, csv_fields).
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "data/import/common.h"
#include "data/import/csv_fields.h"
#include "data/import/csv_reader.h"
#include "data/import/importer.h"
#include "import_collector.h"

namespace kselect::importers {
namespace {

using kselect::testing::ImportCollector;
using ::testing::HasSubstr;

ImportCollector run_csv(const std::string& text, const std::string& mapping) {
  return kselect::testing::collect_text("csv", text, "t.csv", mapping);
}

std::string error_of(const std::string& text, const std::string& mapping) {
  try {
    run_csv(text, mapping);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kGemmMap = "problem=M;N;K,kernel=kernel,time=time";

TEST(CsvImporter, ReadsGemmRowsWithCanonicalProblemText) {
  ImportCollector c = run_csv(
      "M,N,K,kernel,time,dtype\n"
      "128.0,256,64,k_a,0.5,FP16\n"
      "128,256,64,k_b,0.25,fp16\n",
      kGemmMap + ",dtype=dtype");
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_TRUE(c.skips.empty());
  EXPECT_EQ(c.rows[0].problem, "m=128,n=256,k=64,dtype=fp16");
  EXPECT_EQ(c.rows[1].problem, c.rows[0].problem);
  EXPECT_EQ(c.rows[0].kernel, "k_a");
  EXPECT_DOUBLE_EQ(c.rows[0].time_ms, 0.5);
  EXPECT_DOUBLE_EQ(c.rows[0].tflops, 2.0 * 128 * 256 * 64 / 0.5e9);  // from 2mnk
  EXPECT_EQ(c.rows[0].line, 2);
  EXPECT_EQ(c.rows[1].line, 3);
}

TEST(CsvImporter, QuotedFieldsHoldDelimitersQuotesAndNewlines) {
  ImportCollector c = run_csv(
      "size,kernel,time\n"
      "1,\"a,b\",1\n"
      "2,\"say \"\"hi\"\"\",2\n"
      "3,\"two\nlines\",3\n"
      "4,plain,4\n",
      "problem=size,kernel=kernel,time=time");
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows[0].kernel, "a,b");
  EXPECT_EQ(c.rows[1].kernel, "say \"hi\"");
  EXPECT_EQ(c.rows[2].kernel, "two\nlines");
  EXPECT_EQ(c.rows[3].line, 6);  // the quoted newline counts as a line
}

TEST(CsvImporter, DelimiterIsDetectedOrGiven) {
  for (const std::string delimiter : {";", "\t", "|"}) {
    std::string d = delimiter;
    ImportCollector c = run_csv("size" + d + "kernel" + d + "time\n7" + d + "k" + d + "1.5\n",
                                "problem=size,kernel=kernel,time=time");
    ASSERT_EQ(c.rows.size(), 1u) << delimiter;
    EXPECT_EQ(c.rows[0].problem, "size=7");
  }
  ImportCollector tab = run_csv("size\tkernel\ttime\n7\tk\t1.5\n",
                                "problem=size,kernel=kernel,time=time,delimiter=tab");
  EXPECT_EQ(tab.rows.size(), 1u);
}

TEST(CsvImporter, WrongDelimiterIsAClearError) {
  EXPECT_THAT(error_of("size:kernel:time\n1:k:2\n", "problem=size,kernel=kernel,time=time"),
              HasSubstr("only one column"));
  EXPECT_THAT(
      error_of("size,kernel,time\n1,k,2\n", "problem=size,kernel=kernel,time=time,delimiter=;"),
      HasSubstr("only one column"));
}

TEST(CsvImporter, MissingColumnNamesFileColumnAndHeader) {
  std::string e = error_of("m,kern,time\n1,k,2\n", "problem=m,kernel=kernel,time=time");
  EXPECT_THAT(e, HasSubstr("t.csv"));
  EXPECT_THAT(e, HasSubstr("'kernel' not in the header"));
  EXPECT_THAT(e, HasSubstr("'m', 'kern', 'time'"));
}

TEST(CsvImporter, MappingErrors) {
  EXPECT_THAT(error_of("a,b\n", "problem=a,kernel=b,time=b,colour=red"),
              HasSubstr("unknown csv setting"));
  EXPECT_THAT(error_of("a,b\n", "problem=a,kernel=b"), HasSubstr("time=<column>"));
  EXPECT_THAT(error_of("a,b\n", "kernel=b,time=a"), HasSubstr("problem"));
  EXPECT_THAT(error_of("a,b\n", "problem=a,kernel=b,time=b,time_unit=hours"),
              HasSubstr("unknown unit"));
  EXPECT_THAT(error_of("a,A,b\n", "problem=a;A,kernel=b,time=b"), HasSubstr("mapped twice"));
  EXPECT_THAT(error_of("a,a,b\n", "problem=a,kernel=b,time=b"), HasSubstr("repeated"));
}

TEST(CsvImporter, HugeAndBadNumbersAreSkippedWithTheirReason) {
  ImportCollector c = run_csv(
      "size,kernel,time\n"
      "1,k1,1e400\n"
      "2,k2,abc\n"
      "3,k3,\n"
      "4,k4,inf\n"
      "5,k5,0\n"
      "6,k6,-1\n",
      "problem=size,kernel=kernel,time=time");
  ASSERT_EQ(c.skips.size(), 3u);
  EXPECT_EQ(c.skips[0].line, 2);
  EXPECT_EQ(c.skips[0].reason, "field 'time': number out of range '1e400'");
  EXPECT_EQ(c.skips[1].reason, "field 'time': not a number 'abc'");
  EXPECT_EQ(c.skips[2].reason, "field 'time': empty");
  ASSERT_EQ(c.rows.size(), 3u);  // kept as invalid data
  for (const auto& row : c.rows) {
    EXPECT_FALSE(row.valid) << row.kernel;
    EXPECT_THAT(row.reason, HasSubstr("not a positive finite number")) << row.kernel;
  }
}

TEST(CsvImporter, EmptyFileAndBinaryGarbageAreErrors) {
  EXPECT_THAT(error_of("", kGemmMap), HasSubstr("empty file"));
  EXPECT_THAT(error_of("\n\n", kGemmMap), HasSubstr("empty file"));
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += char((i * 7919 + 13) % 256);
  EXPECT_THAT(error_of(garbage, kGemmMap), HasSubstr("t.csv"));
  std::string no_nul = garbage;
  std::replace(no_nul.begin(), no_nul.end(), '\0', 'x');
  EXPECT_THAT(error_of(no_nul, kGemmMap), HasSubstr("t.csv"));
}

TEST(CsvImporter, InvalidUtf8IsSkippedOrRefused) {
  ImportCollector c = run_csv("M,N,K,kernel,time\n1,2,3,k\xff,1\n1,2,3,\xc3\xa9,1\n", kGemmMap);
  ASSERT_EQ(c.skips.size(), 1u);
  EXPECT_EQ(c.skips[0].reason, "field 4: not valid UTF-8");
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].kernel, "\xc3\xa9");
  EXPECT_THAT(error_of("M,N,K,kernel,t\xc0\xafime\n", kGemmMap), HasSubstr("UTF-8"));
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));  // a UTF-16 surrogate
  EXPECT_TRUE(valid_utf8("\xf0\x9f\x98\x80"));
}

TEST(CsvImporter, GarbageAfterAGoodHeaderIsSkippedLineByLine) {
  std::string garbage = "M,N,K,kernel,time\n1,2,3,k,1\n";
  for (int i = 0; i < 2000; ++i) garbage += char((i * 131 + 7) % 256);
  ImportCollector c = run_csv(garbage, kGemmMap);
  EXPECT_EQ(c.rows.size(), 1u);
  EXPECT_FALSE(c.skips.empty());
}

TEST(CsvImporter, TruncatedLastLineIsSkipped) {
  ImportCollector c = run_csv("M,N,K,kernel,time\n1,2,3,k,1\n1,2,3,k", kGemmMap);
  ASSERT_EQ(c.rows.size(), 1u);
  ASSERT_EQ(c.skips.size(), 1u);
  EXPECT_EQ(c.skips[0].line, 3);
  EXPECT_EQ(c.skips[0].reason, "expected 5 fields (as the header), found 4");
  ImportCollector quote = run_csv("M,N,K,kernel,time\n1,2,3,\"k,1", kGemmMap);
  ASSERT_EQ(quote.skips.size(), 1u);
  EXPECT_THAT(quote.skips[0].reason, HasSubstr("unterminated quoted field"));
}

TEST(CsvImporter, AnOverlongRecordIsSkippedAndReadingResumesAtTheNextLine) {
  std::string text = "M,N,K,kernel,time\n1,2,3,\"" +
                     std::string(CsvReader::kMaxRecordBytes + 10, 'x') + "\n4,5,6,k,1\n";
  ImportCollector c = run_csv(text, kGemmMap);
  ASSERT_EQ(c.skips.size(), 1u);
  EXPECT_EQ(c.skips[0].line, 2);
  EXPECT_THAT(c.skips[0].reason, HasSubstr("record longer than"));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].problem, "m=4,n=5,k=6");
  EXPECT_EQ(c.rows[0].line, 3);
}

TEST(CsvImporter, CrLfLineEndsAndByteOrderMark) {
  ImportCollector c =
      run_csv("\xEF\xBB\xBFM,N,K,kernel,time\r\n1,2,3,k,1\r\n\r\n4,5,6,\"q\",2\r\n", kGemmMap);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].problem, "m=1,n=2,k=3");
  EXPECT_DOUBLE_EQ(c.rows[0].time_ms, 1);
  EXPECT_EQ(c.rows[1].kernel, "q");
  EXPECT_EQ(c.rows[1].line, 4);
}

TEST(CsvImporter, ParametersFromColumnsAndFromTheKernelName) {
  ImportCollector c = run_csv(
      "M,N,K,config,warps,stages,time\n"
      "64,64,64,type=triton_BLOCK-M=128_BLOCK-K=32_numwarps=4,4,true,0.1\n",
      "problem=M;N;K,kernel=config,time=time,params=warps;stages,parse_name=true");
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].kernel_config, nlohmann::json({{"type", "triton"},
                                                     {"block-m", 128},
                                                     {"block-k", 32},
                                                     {"numwarps", 4},
                                                     {"warps", 4},
                                                     {"stages", true}}));
}

TEST(CsvImporter, ThroughputColumnsAndTimeUnits) {
  ImportCollector c = run_csv(
      "M,N,K,kernel,gflops,us\n"
      "1000,1000,1000,k,2000,1000\n",
      "problem=M;N;K,kernel=kernel,gflops=gflops");
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(c.rows[0].tflops, 2.0);
  EXPECT_DOUBLE_EQ(c.rows[0].time_ms, 1.0);  // 2e9 flops at 2 TFLOP/s
  ImportCollector us = run_csv("M,N,K,kernel,gflops,us\n1000,1000,1000,k,2000,1000\n",
                               "problem=M;N;K,kernel=kernel,time=us,time_unit=us");
  EXPECT_DOUBLE_EQ(us.rows.at(0).time_ms, 1.0);
  // No flops known: the time is the inverse throughput (ms per TFLOP), ranking unchanged.
  ImportCollector opaque =
      run_csv("shape,kernel,tflops\nx,k,4\n", "problem=shape,kernel=kernel,tflops=tflops");
  EXPECT_DOUBLE_EQ(opaque.rows.at(0).time_ms, 250.0);
}

TEST(CsvImporter, ValidityDeviceAndBadProblemValues) {
  ImportCollector c = run_csv(
      "M,N,K,kernel,time,ok,gpu\n"
      "1,2,3,k1,1,0,MI210\n"
      "1,2,3,k2,1,maybe,MI210\n"
      "1,2,3,k3,oops,false,MI210\n"
      "1,2=3,3,k4,1,1,MI210\n"
      ",2,3,k5,1,1,MI210\n",
      kGemmMap + ",valid=ok,device=gpu");
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_FALSE(c.rows[0].valid);
  EXPECT_EQ(c.rows[0].reason, "marked invalid in column 'ok'");
  EXPECT_EQ(c.rows[0].problem, "m=1,n=2,k=3,device=MI210");
  EXPECT_FALSE(c.rows[1].valid);  // k3: invalid, so its unreadable time does not matter
  ASSERT_EQ(c.skips.size(), 3u);
  EXPECT_EQ(c.skips[0].reason, "field 'ok': not a boolean 'maybe'");
  EXPECT_EQ(c.skips[1].reason, "field 'N': value '2=3' contains ',' or '='");
  EXPECT_EQ(c.skips[2].reason, "field 'M': empty value");
}

TEST(CsvFields, KernelNameRuleKeepsUnderscoresInsideValues) {
  EXPECT_EQ(parse_kernel_name("matmul_kernel_act=relu_fused_n=4"),
            nlohmann::json({{"base", "matmul_kernel"}, {"act", "relu_fused"}, {"n", 4}}));
  EXPECT_EQ(parse_kernel_name("plain"), nlohmann::json({{"base", "plain"}}));
}

TEST(CsvFields, ProblemFlops) {
  EXPECT_DOUBLE_EQ(*problem_flops(KeyValues::parse("m=2,n=3,k=4")), 48);
  EXPECT_DOUBLE_EQ(*problem_flops(KeyValues::parse("n=1,c=4,k=2,g=2,ho=3,wo=3,y=1,x=1,do=1,z=1")),
                   2.0 * 1 * 2 * 2 * 9);
  EXPECT_FALSE(problem_flops(KeyValues::parse("size=7")));
}

TEST(CsvReader, DetectDelimiterIgnoresQuotedText) {
  EXPECT_EQ(detect_delimiter("\"a;b;c\",x,y"), ',');
  EXPECT_EQ(detect_delimiter("a\tb\tc"), '\t');
  EXPECT_EQ(detect_delimiter("abc"), ',');
}

}  // namespace
}  // namespace kselect::importers
