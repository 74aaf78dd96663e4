#pragma once
// x86 intrinsics for the ISA-specific translation units. GCC's intrinsic headers use
// self-initialised "undefined" vectors, which -Wmaybe-uninitialized reports once they are
// inlined into our kernels; the warning is silenced for these files only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
