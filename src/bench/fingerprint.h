#pragma once
// A content hash of the code whose speed a sweep measures: the CPU kernels (src/kernels) and
// the GEMM kernel, configuration and workload (src/ops/gemm/{kernel,config,operation}),
// computed at build time by cmake/fingerprint.cmake. Two builds with the same fingerprint time
// the same code whatever else changed between them; a sweep records it with its run, and a
// resumed sweep warns when the pairs it skips were measured by a build with another one.

namespace kselect::bench {

const char* measured_code_fingerprint();

}  // namespace kselect::bench
