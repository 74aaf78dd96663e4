/* kselect's C API: opaque handles, an int status (0: success, -1: failure) and a per-thread
 * last-error message, as XGBoost's and LightGBM's C APIs do.
 *
 *   KsSelector sel;
 *   if (KsSelectorCreate("{\"model\": \"models/gemm_fp32\"}", &sel) != 0)
 *     fprintf(stderr, "%s\n", KsGetLastError());
 *   KsProblem p;
 *   KsProblemCreate(sel, "m=128,n=1536,k=7168,layout=rcr,dtype=fp32", &p);
 *   const char* kernel; const char* level;
 *   KsSelect(sel, p, &kernel, &level);
 *   KsProblemFree(p);
 *   KsSelectorFree(sel);
 *
 * Options are a JSON object with the fields of kselect::SelectorOptions (include/kselect/
 * kselect.h): "model", "op", "rules", "strategy", "hybrid_top_k", "cache_file", "lockfile",
 * "replay_lockfile", "controls", ... Strings returned stay valid while the selector lives
 * (kernel names and levels) or until the thread's next call that returns a string (KsExplain,
 * KsGetLastError). A selector may be shared between threads. */
#ifndef KSELECT_C_API_H_
#define KSELECT_C_API_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef struct KsSelectorImpl* KsSelector;
typedef struct KsProblemImpl* KsProblem;

/* The message of this thread's last failed call; "" when none failed. */
const char* KsGetLastError(void);
const char* KsVersion(void);

int KsSelectorCreate(const char* options_json, KsSelector* out);
int KsSelectorFree(KsSelector selector);
/* The number of kernels the selector may choose and the name of one. */
int KsSelectorNumKernels(KsSelector selector, int* out);
int KsSelectorKernelName(KsSelector selector, int index, const char** out);

int KsProblemCreate(KsSelector selector, const char* text, KsProblem* out);
int KsProblemFree(KsProblem problem);
/* The canonical text of a problem, valid while the problem lives. */
int KsProblemText(KsProblem problem, const char** out);

/* The kernel for `problem`: its name, its index and the fallback level that answered
 * ("pinned", "lockfile", "cache", "measured", "model", "default"). Any output may be NULL. */
int KsSelect(KsSelector selector, KsProblem problem, const char** kernel, int* kernel_index,
             const char** level);
/* explain() as JSON (json != 0) or a table. */
int KsExplain(KsSelector selector, KsProblem problem, int json, int top, const char** out);
/* Selects and runs the kernel on the caller's operands (kselect::Selector::run). */
int KsRun(KsSelector selector, KsProblem problem, void* const* operands, int num_operands,
          int verify, double* ms, const char** kernel);
/* Writes the decisions held; NULL or "": the path given in the options. */
int KsSaveCache(KsSelector selector, const char* path);
int KsSaveLockfile(KsSelector selector, const char* path);
/* The selector's counters as a JSON object. */
int KsCounters(KsSelector selector, const char** out);

#ifdef __cplusplus
}
#endif

#endif /* KSELECT_C_API_H_ */
