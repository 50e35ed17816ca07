/* SPDX-License-Identifier: MIT */
/*
 * synth/witness/witness_pvt.h — between the witness room's files: the
 * program and instance structs, the glue ABI the built library exports
 * (build.c writes it, rt.c and witness.c call it).  Do not include from
 * outside synth/witness/.
 */
#ifndef CZ_SYNTH_WITNESS_PVT_H
#define CZ_SYNTH_WITNESS_PVT_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <ucontext.h>
#include <wasm-rt.h>

#include "synth/witness/witness.h"

/* The glue's ABI version: a library built by another version is rebuilt
 * (4: the same glue as 3, built at -O2, so that caches of -O1 builds go;
 * 5: the same again, built at -O3). */
#define CZ_WGLUE_ABI 5

/* What the host gives the glue: the wasm runtime calls (wasm-rt.h) that need
 * the process (traps unwind the calling thread; memory is mapped with guard
 * pages) and the circom runtime imports. */
struct cz_wglue_host {
	void (*trap)(wasm_rt_trap_t code) __attribute__((noreturn));
	void (*mem_alloc)(wasm_rt_memory_t *m, uint32_t initial, uint32_t max);
	uint32_t (*mem_grow)(wasm_rt_memory_t *m, uint32_t delta);
	void (*mem_free)(wasm_rt_memory_t *m);
	void (*imp)(void *host, int which, const uint32_t *a);   /* a runtime import, its u32s */
};

/* The imports by number (the glue's runtime instance forwards each). */
enum {
	CZ_WIMP_EXCEPTION,      /* runtime.exceptionHandler(code) */
	CZ_WIMP_PRINT_ERROR,    /* runtime.printErrorMessage() */
	CZ_WIMP_WRITE_BUFFER,   /* runtime.writeBufferMessage() */
	CZ_WIMP_SHOW_SHARED,    /* runtime.showSharedRWMemory() */
	CZ_WIMP_ERROR,          /* runtime.error(...) (circom 0.5) */
	CZ_WIMP_LOG,            /* runtime.log(x) (circom 0.5) */
	CZ_WIMP_TRACE,          /* runtime.logSetSignal & co. (circom 0.5, sanity mode: ignored) */
	CZ_WIMP_N
};

/* One export, as the glue lists it: the name, the C prototype wasm2c gave
 * it (checked against the expected one), the function. */
struct cz_wglue_export {
	const char *name;
	const char *proto;      /* e.g. "u32 (u32, u32)": result, then parameters after the instance */
	void (*fn)(void);
};

struct cz_wglue {
	uint32_t abi;                          /* CZ_WGLUE_ABI */
	const char *sha256;                    /* the wasm's, hex */
	size_t inst_size;                      /* sizeof the module instance */
	void (*init)(const struct cz_wglue_host *h);   /* once per process */
	void (*instantiate)(void *inst, void *host);
	void (*release)(void *inst);
	wasm_rt_memory_t *(*memory)(void *inst);
	const struct cz_wglue_export *exports; /* NULL-name terminated */
	const char *const *imports;            /* "module.name", NULL terminated */
};

#define CZ_WGLUE_SYMBOL "cz_wglue"

/* The circom exports the protocol calls, resolved and type-checked. */
struct cz_wexports {
	uint32_t (*getVersion)(void *);
	uint32_t (*getFieldNumLen32)(void *);
	void (*getRawPrime)(void *);
	uint32_t (*readSharedRWMemory)(void *, uint32_t);
	void (*writeSharedRWMemory)(void *, uint32_t, uint32_t);
	void (*init)(void *, uint32_t);
	uint32_t (*getInputSignalSize)(void *, uint32_t, uint32_t);
	void (*setInputSignal)(void *, uint32_t, uint32_t, uint32_t);
	uint32_t (*getWitnessSize)(void *);
	void (*getWitness)(void *, uint32_t);
	uint32_t (*getInputSize)(void *);      /* optional (circom >= 2.0.?) */
	uint32_t (*getMessageChar)(void *);    /* optional */
	/* circom 0.5 */
	uint32_t (*getFrLen)(void *);
	uint32_t (*getPRawPrime)(void *);
	uint32_t (*getNVars)(void *);
	void (*getSignalOffset32)(void *, uint32_t, uint32_t, uint32_t, uint32_t);
	void (*setSignal)(void *, uint32_t, uint32_t, uint32_t, uint32_t);
	uint32_t (*getWitnessBuffer)(void *);
};

struct cz_witness_prog {
	void *dl;
	const struct cz_wglue *g;
	struct cz_wexports x;
	enum cz_curve curve;
	uint32_t n32, nvars, version;          /* version: circom's major, 1 for 0.5-era */
	uint32_t prime[16];                    /* little-endian words */
	uint64_t mem_bytes;                    /* an instance's wasm memory, as instantiated */
	FILE *log;
	struct cz_witness_inst *_Atomic spare; /* keep_probe: the probe's instance, until taken */
	char lib[4096];
	char sha[65];
};

#define CZ_WMSG 1024

struct cz_witness_inst {
	const struct cz_witness_prog *p;
	void *mod;                             /* the module instance (g->inst_size bytes) */
	void *snap;                            /* its bytes right after instantiate */
	wasm_rt_memory_t *mem;
	uint8_t *mem_base;                     /* the reservation */
	size_t mem_reserve;
	uint8_t *img;                          /* memory right after instantiate */
	size_t img_size;                       /* the image's bytes (up to its last non-zero page) */
	size_t mem_size0;                      /* the memory's size right after instantiate */
	int fresh;                             /* instantiated, not yet run */
	int live;                              /* instantiated: release() on free */
	int once;                              /* no image (keep_probe's): one run only */
	unsigned char *core;                   /* cz_witness_inst_touched's mincore vector */
	size_t core_n;                         /* its entries (pages) */
	/* the run: its own stack, a guard page below it, the signal stack */
	uint8_t *stk, *stk_guard, *sig_stk;
	size_t stk_size, guard_size, sig_size;
	ucontext_t host_ctx, wasm_ctx;
	sigjmp_buf jb;
	volatile sig_atomic_t running;         /* the handler may unwind us */
	int trap;                              /* 0, a wasm_rt_trap_t + 1, or CZ_WTRAP_* */
	uint32_t exc_code;                     /* exceptionHandler's code */
	/* the run's work, for run_entry */
	const char *json;
	size_t json_len;
	uint8_t *out;
	int rc;
	char *err;
	size_t cap;
	char msg[CZ_WMSG];                     /* the circuit's error message(s) */
	size_t msg_len;
	char logline[CZ_WMSG];                 /* log() output being assembled */
	size_t log_len;
	const char *looking_up;                /* circom 0.5: the signal getSignalOffset32 looks up */
	uint32_t v1_pfr, v1_poff;              /* circom 0.5: the value and offset cells */
	uint32_t v1_ngiven;                    /* circom 0.5: input signals given */
	int v1_tables;                         /* circom 0.5: its signal tables are readable */
};

#define CZ_WTRAP_BASE     64
#define CZ_WTRAP_EXC      (CZ_WTRAP_BASE + 1)   /* exceptionHandler called */
#define CZ_WTRAP_TIMEOUT  (CZ_WTRAP_BASE + 2)   /* the time limit's signal */
#define CZ_WTRAP_INPUT    (CZ_WTRAP_BASE + 3)   /* a bad input found inside the run: err says */

/* rt.c */
/* The host side of the glue, whose table witness.c builds (with its own
 * import dispatcher, so the runtime never calls back into witness.c). */
__attribute__((noreturn)) void cz_wrt_trap(wasm_rt_trap_t code);
void cz_wrt_mem_alloc(wasm_rt_memory_t *m, uint32_t initial, uint32_t max);
uint32_t cz_wrt_mem_grow(wasm_rt_memory_t *m, uint32_t delta);
void cz_wrt_mem_free(wasm_rt_memory_t *m);
int cz_wrt_inst_map(struct cz_witness_inst *in, char *err, size_t cap);
void cz_wrt_inst_unmap(struct cz_witness_inst *in);
/* Runs fn(in) on in's stack with traps, faults and the time limit caught:
 * returns 0, or the trap (in->trap set). */
int cz_wrt_run(struct cz_witness_inst *in, void (*fn)(struct cz_witness_inst *), uint64_t timeout_ms);
const char *cz_wrt_trap_name(int trap);
/* Unwinds the running instance with code (from an import). */
void cz_wrt_throw(struct cz_witness_inst *in, int code) __attribute__((noreturn));
/* Blocks / unblocks the time limit's signal around an import that takes a lock. */
void cz_wrt_timer_block(int block);
/* Set while a thread runs wasm: the imports find their instance here. */
extern __thread struct cz_witness_inst *cz_wrt_cur;

/* json.c: the input JSON in place (no heap call).  Kinds: */
enum { CZ_WJ_OBJ, CZ_WJ_ARR, CZ_WJ_STR, CZ_WJ_NUM, CZ_WJ_BOOL, CZ_WJ_NULL, CZ_WJ_BAD };
/* Checks s[0, n) is one JSON value: its first byte, or NULL with why and the
 * byte offset. */
const char *cz_wj_check(const char *s, size_t n, const char **why, size_t *at);
const char *cz_wj_ws(const char *p, const char *e);
int cz_wj_kind(const char *p, const char *e);
const char *cz_wj_kind_name(int kind);
const char *cz_wj_skip(const char *p, const char *e);      /* past the value at p */
const char *cz_wj_first(const char *p, const char *e);     /* an array's/object's first element or member, or NULL */
const char *cz_wj_next(const char *p, const char *e);      /* the element/member after p's, or NULL */
/* The member at p (its name, a string): the name decoded into key[cap]
 * (*too_long if it did not fit); returns its value. */
const char *cz_wj_member(const char *p, const char *e, char *key, size_t cap, int *too_long);
/* The string at p decoded into out[cap]; -1 if it does not fit. */
int cz_wj_string(const char *p, const char *e, char *out, size_t cap);

/* build.c */
int cz_wbuild(const char *wasm_path, const struct cz_witness_opts *o, char *lib, size_t libcap,
	      char *sha_hex, char *err, size_t cap);

#endif
