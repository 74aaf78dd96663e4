/* The C API version of main.cpp: selects a GEMM kernel for a few shapes, runs the first one on
 * this program's buffers with verification, exits non-zero on any failure.
 *   select_and_run_c [model dir] */
#include <kselect/c_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                \
  do {                                                             \
    if ((call) != 0) {                                             \
      fprintf(stderr, "select_and_run_c: %s\n", KsGetLastError()); \
      return 1;                                                    \
    }                                                              \
  } while (0)

int main(int argc, char** argv) {
  char options[4096];
  if (argc > 1)
    snprintf(options, sizeof options,
             "{\"op\": \"gemm\", \"strategy\": \"ml\", \"require_model\": true, \"model\": \"%s\"}",
             argv[1]);
  else
    snprintf(options, sizeof options, "{\"op\": \"gemm\", \"strategy\": \"default\"}");

  KsSelector sel;
  CHECK(KsSelectorCreate(options, &sel));
  int num_kernels = 0;
  CHECK(KsSelectorNumKernels(sel, &num_kernels));
  printf("kselect %s, %d kernels\n", KsVersion(), num_kernels);

  const char* shapes[] = {"m=64,n=64,k=64,layout=rcr,dtype=fp32",
                          "m=128,n=1536,k=7168,layout=rcr,dtype=fp32",
                          "m=1,n=4096,k=4096,layout=rcr,dtype=fp32"};
  for (int i = 0; i < 3; ++i) {
    KsProblem p;
    const char *kernel, *level;
    CHECK(KsProblemCreate(sel, shapes[i], &p));
    CHECK(KsSelect(sel, p, &kernel, NULL, &level));
    printf("%-45s %s (%s)\n", shapes[i], kernel, level);
    CHECK(KsProblemFree(p));
  }

  /* A bad problem must fail with a message. */
  KsProblem bad;
  if (KsProblemCreate(sel, "m=-1,n=2,k=3,layout=rcr,dtype=fp32", &bad) == 0) {
    fprintf(stderr, "select_and_run_c: a negative m was accepted\n");
    return 1;
  }
  printf("bad problem rejected: %s\n", KsGetLastError());

  enum { M = 64, N = 64, K = 64 };
  float* a = malloc(sizeof(float) * M * K);
  float* b = malloc(sizeof(float) * K * N);
  float* c = calloc((size_t)M * N, sizeof(float));
  if (!a || !b || !c) return 1;
  for (int i = 0; i < M * K; ++i) a[i] = (float)(i % 7) - 3.0f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)(i % 5) * 0.5f;
  KsProblem p;
  CHECK(KsProblemCreate(sel, shapes[0], &p));
  void* operands[3] = {a, b, c};
  double ms = 0;
  const char* kernel;
  CHECK(KsRun(sel, p, operands, 3, 1, &ms, &kernel));
  printf("ran %s in %.3f ms: verified\n", kernel, ms);
  CHECK(KsProblemFree(p));
  free(a);
  free(b);
  free(c);
  CHECK(KsSelectorFree(sel));
  return 0;
}
