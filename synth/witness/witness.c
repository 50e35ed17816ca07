/* SPDX-License-Identifier: MIT */
/*
 * synth/witness/witness.c — circom witness generation, native.
 *
 * WHAT.  circom compiles a circuit's witness computation to WebAssembly; the
 * prover needs the witness (every signal's value) of one input.  Here the
 * .wasm is translated once to C (wabt's wasm2c), compiled into a shared
 * object, cached by the wasm's SHA-256 (build.c), dlopen'd, and run natively
 * on a per-worker instance (rt.c).  This file is the circom protocol: the
 * exports a program must have, the input JSON put into the circuit, the
 * witness read out, the circuit's messages and errors, the .wtns image.
 *
 * PROGRAM AND INSTANCES.  cz_witness_prog_load() resolves and type-checks the
 * exports (a missing one is named), runs one throw-away instance to read the
 * field (getFieldNumLen32, getRawPrime, or circom 0.5's getFrLen,
 * getPRawPrime: BN254's or BLS12-381's r, else an
 * error naming the prime) and the witness size, and is then read-only
 * (but for keep_probe: a one-shot caller's first cz_witness_inst_create
 * takes that instance, probed exactly as snarkjs probes its own before the
 * first witness, instead of instantiating again; it keeps no reset image,
 * so it runs one witness and refuses a second).  An
 * instance is instantiated once; after each run it is reset to the state
 * instantiate left (the module's bytes and the memory's initial image copied
 * back, pages the run grew discarded and made PROT_NONE again), so a run
 * costs no heap call of the instance's and no re-instantiation.
 *
 * THE PROTOCOL (circom 2.0.x - 2.2.x, as its witness_calculator.js drives
 * it): init(1); each input signal, named as circom qualifies it ("a",
 * "c.x", "v[2].y") and hashed with FNV-1a 64 (the hash's high and low
 * halves as two u32), is looked up with getInputSignalSize (negative: no
 * such signal), and each of its values (nested arrays flattened in order)
 * is written to the shared memory, n32 little-endian words, and set with
 * setInputSignal(msb, lsb, index); then getInputSize must equal the count
 * set; then getWitness(i) leaves value i in the shared memory.  The imports:
 * exceptionHandler(code) ends the run with circom's error for the code and
 * the message printErrorMessage collected (getMessageChar, one character a
 * call: "Error in template X_0 line: 8"); writeBufferMessage and
 * showSharedRWMemory build log() lines, written to the log on "\n".
 *
 * CIRCOM 0.5 (a module exporting getFrLen; its memory imported as env.memory,
 * given 32767 pages as snarkjs gives it): an element is getFrLen bytes, a
 * short (signed 32 bits) or a long (n32 words, bit 30 of its type word
 * meaning Montgomery form); the prime lies in memory at getPRawPrime.  The
 * run is init(1) (its sanity checks on), two cells taken at the free pointer
 * (address 0), each input found by getSignalOffset32 (the runtime's error()
 * inside it: no such signal), its values written as setFr writes them and
 * set with setSignal; its size, its being an input and the inputs missing
 * are read from the runtime's tables where they agree with
 * getSignalOffset32; then getWitnessBuffer's values in standard form.
 * runtime.error() ends the run with its message (as circom_runtime words
 * it), runtime.log() writes a line.
 *
 * VALUES.  A JSON number (an integer) or a string: decimal, 0x hex, either
 * with a leading '-' (p - v).  A value >= p is refused (snarkjs would reduce
 * it silently); so is a fraction.
 *
 * FAILURE MODES.  Every error names what it is about: the file and export
 * at load; the signal and index of a bad input; the circuit's own message
 * and template for a failed assert; the trap (out of bounds, stack
 * exhausted, unreachable) or the time limit for a run that did not finish.
 * None of them leaves the instance unusable: the next run resets it.
 */
#define _GNU_SOURCE
#include "synth/witness/witness_pvt.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* r of the two curves, little-endian 32-bit words */
static const uint32_t bn254_r[8] = { 0xf0000001, 0x43e1f593, 0x79b97091, 0x2833e848,
				     0x8181585d, 0xb85045b6, 0xe131a029, 0x30644e72 };
static const uint32_t bls_r[8] = { 0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
				   0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753 };

static void errf(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
}

/* ---- numbers: n32 little-endian words ---- */

/* v = v * m + a over n words; returns the carry out. */
static uint32_t mul_add(uint32_t *v, uint32_t n, uint32_t m, uint32_t a)
{
	uint64_t c = a;
	for (uint32_t i = 0; i < n; i++) {
		c += (uint64_t)v[i] * m;
		v[i] = (uint32_t)c;
		c >>= 32;
	}
	return (uint32_t)c;
}

static int cmp(const uint32_t *a, const uint32_t *b, uint32_t n)
{
	for (uint32_t i = n; i-- > 0;)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* v = p - v (v < p, v != 0) */
static void neg_mod(uint32_t *v, const uint32_t *p, uint32_t n)
{
	int64_t b = 0;
	for (uint32_t i = 0; i < n; i++) {
		int64_t d = (int64_t)p[i] - v[i] + b;
		v[i] = (uint32_t)d;
		b = d < 0 ? -1 : 0;
	}
}

/* Decimal of v (n words) into s; v is consumed. */
static void to_dec(uint32_t *v, uint32_t n, char *s, size_t cap)
{
	char tmp[200];
	size_t k = 0;
	for (;;) {
		uint64_t r = 0;
		int nz = 0;
		for (uint32_t i = n; i-- > 0;) {
			uint64_t cur = (r << 32) | v[i];
			v[i] = (uint32_t)(cur / 1000000000u);
			r = cur % 1000000000u;
			nz |= v[i] != 0;
		}
		for (int d = 0; d < 9 && k < sizeof(tmp); d++) {
			tmp[k++] = (char)('0' + r % 10);
			r /= 10;
			if (!nz && !r)
				break;
		}
		if (!nz)
			break;
	}
	size_t o = 0;
	while (k > 0 && o + 1 < cap)
		s[o++] = tmp[--k];
	if (cap)
		s[o] = 0;
}

/* Parses s (circom's input value) into v < p.  Returns 0 or -1 with why. */
static int parse_value(const char *s, const uint32_t *p, uint32_t n, uint32_t *v, const char **why)
{
	int neg = 0, any = 0;
	memset(v, 0, n * 4);
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s == '-')
		neg = 1, s++;
	else if (*s == '+')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (s += 2; *s; s++) {
			int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
				: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
			if (d < 0)
				break;
			if (mul_add(v, n, 16, (uint32_t)d)) {
				*why = "is >= the field's prime";
				return -1;
			}
			any = 1;
		}
	} else
		for (; *s >= '0' && *s <= '9'; s++) {
			if (mul_add(v, n, 10, (uint32_t)(*s - '0'))) {
				*why = "is >= the field's prime";
				return -1;
			}
			any = 1;
		}
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s == '.' || *s == 'e' || *s == 'E') {
		/* 1.0 and 1e3 are integers; 1.5 is not */
		const char *t = s;
		if (*t == '.')
			for (t++; *t == '0'; t++)
				;
		if (*t && !((*t == 'e' || *t == 'E') && !strchr(s, '.'))) {
			*why = "is not an integer";
			return -1;
		}
		if (*t == 'e' || *t == 'E') {
			long e = strtol(t + 1, NULL, 10);
			for (long i = 0; i < e; i++)
				if (mul_add(v, n, 10, 0)) {
					*why = "is >= the field's prime";
					return -1;
				}
		}
		s = t + strlen(t);
	}
	if (*s || (!any && neg)) {
		*why = "is not a decimal or 0x-hex integer";
		return -1;
	}
	if (cmp(v, p, n) >= 0) {
		*why = "is >= the field's prime";
		return -1;
	}
	int zero = 1;
	for (uint32_t i = 0; i < n; i++)
		zero &= v[i] == 0;
	if (neg && !zero)
		neg_mod(v, p, n);
	return 0;
}

/* ---- circom 0.5: its memory, read and written by the host ---- */

/* Bounds-checked 32-bit access to the instance's memory. */
static int m32(const struct cz_witness_inst *in, uint32_t addr, uint32_t *v)
{
	if ((uint64_t)addr + 4 > in->mem->size)
		return -1;
	memcpy(v, in->mem->data + addr, 4);
	return 0;
}

static int w32(struct cz_witness_inst *in, uint32_t addr, uint32_t v)
{
	if ((uint64_t)addr + 4 > in->mem->size)
		return -1;
	memcpy(in->mem->data + addr, &v, 4);
	return 0;
}

/* v * 2^(-32n) mod p (Montgomery's reduction; v < p). */
static void from_mont(uint32_t *v, const uint32_t *p, uint32_t n)
{
	uint32_t t[34] = { 0 }, inv = p[0];
	for (int i = 0; i < 5; i++)
		inv *= 2 - p[0] * inv;          /* p[0]^-1 mod 2^32 */
	inv = -inv;
	memcpy(t, v, n * 4);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t m = t[i] * inv;
		uint64_t c = 0;
		for (uint32_t j = 0; j < n; j++) {
			c += t[i + j] + (uint64_t)m * p[j];
			t[i + j] = (uint32_t)c;
			c >>= 32;
		}
		for (uint32_t k = i + n; c && k < 2 * n + 1; k++) {
			c += t[k];
			t[k] = (uint32_t)c;
			c >>= 32;
		}
	}
	if (t[2 * n] || cmp(t + n, p, n) >= 0) {
		int64_t b = 0;
		for (uint32_t j = 0; j < n; j++) {
			int64_t d = (int64_t)t[n + j] - p[j] + b;
			t[n + j] = (uint32_t)d;
			b = d < 0 ? -1 : 0;
		}
	}
	memcpy(v, t + n, n * 4);
}

/* circom 0.5's field element at ptr: a short (a signed 32-bit value, type
 * word 0) or a long (type bit 31; bit 30: in Montgomery form) of n32 words. */
static int fr_read(const struct cz_witness_inst *in, uint32_t ptr, uint32_t *v)
{
	const struct cz_witness_prog *p = in->p;
	uint32_t sh, ty;
	if (m32(in, ptr, &sh) || m32(in, ptr + 4, &ty))
		return -1;
	memset(v, 0, p->n32 * 4);
	if (ty & 0x80000000u) {
		for (uint32_t j = 0; j < p->n32; j++)
			if (m32(in, ptr + 8 + 4 * j, &v[j]))
				return -1;
		if (ty & 0x40000000u)
			from_mont(v, p->prime, p->n32);
	} else if ((int32_t)sh >= 0)
		v[0] = sh;
	else {
		v[0] = (uint32_t)-(int64_t)(int32_t)sh;
		neg_mod(v, p->prime, p->n32);
	}
	return 0;
}

static void fr_dec(const struct cz_witness_inst *in, uint32_t ptr, char *d, size_t cap)
{
	uint32_t v[16];
	if (fr_read(in, ptr, v))
		snprintf(d, cap, "(bad pointer %u)", ptr);
	else
		to_dec(v, in->p->n32, d, cap);
}

/* The C string at ptr (at most cap - 1 characters). */
static void p2str(const struct cz_witness_inst *in, uint32_t ptr, char *s, size_t cap)
{
	size_t k = 0;
	while (k + 1 < cap && (uint64_t)ptr + k < in->mem->size && in->mem->data[ptr + k]) {
		s[k] = (char)in->mem->data[ptr + k];
		k++;
	}
	s[k] = 0;
}

/* runtime.error(code, pstr, a, b, c, d), worded as circom 0.5's runtime
 * words it; inside an input's lookup it means the circuit has no such
 * signal. */
static __attribute__((noreturn)) void v1_error(struct cz_witness_inst *in, const uint32_t *a)
{
	char s1[160], s2[160], d1[100], d2[100];
	if (in->looking_up) {
		errf(in->err, in->cap, "input signal '%s': the circuit has no such input signal",
		     in->looking_up);
		cz_wrt_throw(in, CZ_WTRAP_INPUT);
	}
	p2str(in, a[1], s1, sizeof(s1));
	if (a[0] == 7) {
		fr_dec(in, a[3], d1, sizeof(d1));
		fr_dec(in, a[4], d2, sizeof(d2));
		p2str(in, a[5], s2, sizeof(s2));
		snprintf(in->msg, sizeof(in->msg), "%s %s != %s %s", s1, d1, d2, s2);
	} else if (a[0] == 9) {
		fr_dec(in, a[3], d1, sizeof(d1));
		p2str(in, a[4], s2, sizeof(s2));
		snprintf(in->msg, sizeof(in->msg), "%s %s %s", s1, d1, s2);
	} else
		snprintf(in->msg, sizeof(in->msg), "%s %u %u %u %u", s1, a[2], a[3], a[4], a[5]);
	in->msg_len = strlen(in->msg);
	in->exc_code = a[0];
	cz_wrt_throw(in, CZ_WTRAP_EXC);
}

static void log_line(struct cz_witness_inst *in, const char *s)
{
	if (!in->p->log)
		return;
	cz_wrt_timer_block(1);
	fprintf(in->p->log, "%s\n", s);
	fflush(in->p->log);
	cz_wrt_timer_block(0);
}

/* ---- the imports ---- */

static void msg_read(struct cz_witness_inst *in, char *buf, size_t *len, size_t cap)
{
	const struct cz_wexports *x = &in->p->x;
	if (!x->getMessageChar)
		return;
	for (int i = 0; i < (1 << 16); i++) {   /* bounded: a message is one line */
		uint32_t c = x->getMessageChar(in->mod);
		if (!c)
			break;
		if (*len + 1 < cap)
			buf[(*len)++] = (char)c;
	}
	buf[*len] = 0;
}

static void imp_dispatch(void *host, int which, const uint32_t *a)
{
	struct cz_witness_inst *in = host;
	const struct cz_wexports *x = &in->p->x;

	switch (which) {
	case CZ_WIMP_EXCEPTION:
		in->exc_code = a[0];
		cz_wrt_throw(in, CZ_WTRAP_EXC);
	case CZ_WIMP_ERROR:
		v1_error(in, a);
	case CZ_WIMP_LOG: {
		char d[200];
		fr_dec(in, a[0], d, sizeof(d));
		log_line(in, d);
		return;
	}
	case CZ_WIMP_TRACE:
		return;
	case CZ_WIMP_PRINT_ERROR:
		if (in->msg_len && in->msg_len + 2 < sizeof(in->msg))
			in->msg[in->msg_len++] = ';', in->msg[in->msg_len++] = ' ';
		msg_read(in, in->msg, &in->msg_len, sizeof(in->msg));
		return;
	case CZ_WIMP_WRITE_BUFFER: {
		char m[CZ_WMSG];
		size_t n = 0;
		msg_read(in, m, &n, sizeof(m));
		m[n] = 0;
		if (!strcmp(m, "\n")) {
			log_line(in, in->logline);
			in->log_len = 0;
			in->logline[0] = 0;
			return;
		}
		in->log_len += (size_t)snprintf(in->logline + in->log_len,
						sizeof(in->logline) - in->log_len, "%s%s",
						in->log_len ? " " : "", m);
		if (in->log_len >= sizeof(in->logline))
			in->log_len = sizeof(in->logline) - 1;
		return;
	}
	case CZ_WIMP_SHOW_SHARED: {
		uint32_t v[16];
		char d[200];
		for (uint32_t j = 0; j < in->p->n32; j++)
			v[j] = x->readSharedRWMemory(in->mod, j);
		to_dec(v, in->p->n32, d, sizeof(d));
		in->log_len += (size_t)snprintf(in->logline + in->log_len,
						sizeof(in->logline) - in->log_len, "%s%s",
						in->log_len ? " " : "", d);
		if (in->log_len >= sizeof(in->logline))
			in->log_len = sizeof(in->logline) - 1;
		return;
	}
	default:
		cz_wrt_throw(in, WASM_RT_TRAP_UNREACHABLE + 1);
	}
}

static const struct cz_wglue_host host_table = {
	.trap = cz_wrt_trap,
	.mem_alloc = cz_wrt_mem_alloc,
	.mem_grow = cz_wrt_mem_grow,
	.mem_free = cz_wrt_mem_free,
	.imp = imp_dispatch,
};

/* ---- the program ---- */

/* The exports each protocol calls: circom 2.x's (2), circom 0.5's (1), both (3). */
static const struct {
	const char *name, *proto;
	size_t off;
	int optional, proto_of;
} wanted[] = {
#define W(n, p, o, v) { #n, p, offsetof(struct cz_wexports, n), o, v }
	W(getVersion, "u32 ()", 1, 2),
	W(getFieldNumLen32, "u32 ()", 0, 2),
	W(getRawPrime, "void ()", 0, 2),
	W(readSharedRWMemory, "u32 (u32)", 0, 2),
	W(writeSharedRWMemory, "void (u32, u32)", 0, 2),
	W(init, "void (u32)", 0, 3),
	W(getInputSignalSize, "u32 (u32, u32)", 0, 2),
	W(setInputSignal, "void (u32, u32, u32)", 0, 2),
	W(getWitnessSize, "u32 ()", 0, 2),
	W(getWitness, "void (u32)", 0, 2),
	W(getInputSize, "u32 ()", 1, 2),
	W(getMessageChar, "u32 ()", 1, 2),
	W(getFrLen, "u32 ()", 0, 1),
	W(getPRawPrime, "u32 ()", 0, 1),
	W(getNVars, "u32 ()", 0, 1),
	W(getSignalOffset32, "void (u32, u32, u32, u32)", 0, 1),
	W(setSignal, "void (u32, u32, u32, u32)", 0, 1),
	W(getWitnessBuffer, "u32 ()", 0, 1),
#undef W
};

/* The runtime imports each protocol's modules may make. */
static const char *const imports_v2[] = { "runtime.exceptionHandler", "runtime.printErrorMessage",
	"runtime.writeBufferMessage", "runtime.showSharedRWMemory", NULL };
static const char *const imports_v1[] = { "env.memory", "runtime.error", "runtime.log",
	"runtime.logSetSignal", "runtime.logGetSignal", "runtime.logStartComponent",
	"runtime.logFinishComponent", "runtime.printDebug", NULL };

static const struct cz_wglue_export *find_export(const struct cz_wglue *g, const char *name)
{
	for (const struct cz_wglue_export *e = g->exports; e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

/* circom 0.5: an element is getFrLen bytes, two words of header then n32;
 * the prime is in memory at getPRawPrime. */
static void probe_run_v1(struct cz_witness_inst *in)
{
	struct cz_witness_prog *p = (struct cz_witness_prog *)in->p;
	uint32_t len = p->x.getFrLen(in->mod), pp;
	in->rc = -1;
	if (len % 4 || len < 12 || len > 72)
		return;
	p->n32 = len / 4 - 2;
	pp = p->x.getPRawPrime(in->mod);
	for (uint32_t j = 0; j < p->n32; j++)
		if (m32(in, pp + 4 * j, &p->prime[j]))
			return;
	p->nvars = p->x.getNVars(in->mod);
	in->rc = 0;
}

static void probe_run(struct cz_witness_inst *in)
{
	struct cz_witness_prog *p = (struct cz_witness_prog *)in->p;
	if (p->version == 1) {
		probe_run_v1(in);
		return;
	}
	p->version = p->x.getVersion ? p->x.getVersion(in->mod) : 2;
	p->n32 = p->x.getFieldNumLen32(in->mod);
	if (p->n32 == 0 || p->n32 > 16) {
		in->rc = -1;
		return;
	}
	p->x.getRawPrime(in->mod);
	for (uint32_t j = 0; j < p->n32; j++)
		p->prime[j] = p->x.readSharedRWMemory(in->mod, j);
	p->nvars = p->x.getWitnessSize(in->mod);
	in->rc = 0;
}

void cz_witness_prog_free(struct cz_witness_prog *p)
{
	if (!p)
		return;
	cz_witness_inst_free(atomic_exchange(&p->spare, NULL));
	if (p->dl)
		dlclose(p->dl);
	free(p);
}

/* dlopen the library (a cached one of another glue version is built again,
 * once) and take its glue table. */
static int open_lib(struct cz_witness_prog *p, const char *path, const struct cz_witness_opts *o,
		    int prebuilt, char *err, size_t cap)
{
	for (int attempt = 0;; attempt++) {
		p->dl = dlopen(p->lib, RTLD_NOW | RTLD_LOCAL);
		p->g = p->dl ? dlsym(p->dl, CZ_WGLUE_SYMBOL) : NULL;
		if (p->g && p->g->abi == CZ_WGLUE_ABI)
			break;
		const char *why = p->dl ? (p->g ? "built by another version of cuzk"
						 : "not a cuzk witness library (no " CZ_WGLUE_SYMBOL ")")
					: dlerror();
		if (p->dl)
			dlclose(p->dl);
		p->dl = NULL;
		if (prebuilt || attempt) {
			errf(err, cap, "%s: %s", p->lib, why);
			return -1;
		}
		/* a cached library of another glue version: build it again */
		struct cz_witness_opts o2 = o ? *o : (struct cz_witness_opts){ 0 };
		o2.rebuild = 1;
		if (cz_wbuild(path, &o2, p->lib, sizeof(p->lib), p->sha, err, cap)) {
			return -1;
		}
	}
	return 0;
}

static int listed(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

/* The protocol (circom 2.x's if the module exports getFieldNumLen32, circom
 * 0.5's if getFrLen), its imports and its exports, each with circom's
 * prototype. */
static int bind_exports(struct cz_witness_prog *p, const char *path, char *err, size_t cap)
{
	int v = find_export(p->g, "getFieldNumLen32") ? 2 : find_export(p->g, "getFrLen") ? 1 : 2;
	p->version = (uint32_t)v;
	for (const char *const *i = p->g->imports; *i; i++)
		if (!listed(v == 2 ? imports_v2 : imports_v1, *i)) {
			errf(err, cap, "%s: imports %s, which circom %s's runtime does not provide: "
				       "not a circom %s witness program", path, *i, v == 2 ? "2.x" : "0.5",
			     v == 2 ? "2" : "0.5");
			return -1;
		}
	if (v == 1 && !listed(p->g->imports, "env.memory")) {
		errf(err, cap, "%s: a circom 0.5-era wasm (exports getFrLen) that does not import "
			       "env.memory: not a circom 0.5 witness program", path);
		return -1;
	}
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		if (!(wanted[i].proto_of & v))
			continue;
		const struct cz_wglue_export *e = find_export(p->g, wanted[i].name);
		if (!e) {
			if (wanted[i].optional)
				continue;
			errf(err, cap, "%s: no export '%s': not a circom %s witness program", path,
			     wanted[i].name, v == 2 ? "2.x" : "0.5-era");
			return -1;
		}
		if (strcmp(e->proto, wanted[i].proto)) {
			errf(err, cap, "%s: export '%s' is %s, circom's is %s", path, e->name, e->proto,
			     wanted[i].proto);
			return -1;
		}
		memcpy((char *)&p->x + wanted[i].off, &e->fn, sizeof(e->fn));
	}
	return 0;
}

static struct cz_witness_inst *inst_new(const struct cz_witness_prog *p, int image, char *err,
					size_t cap);

/* The glue's init, then a probe run that reads the field: its prime picks
 * the curve. */
static int probe_field(struct cz_witness_prog *p, const char *path, int keep, char *err,
		       size_t cap)
{
	char e2[1024];

	static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&init_lock);   /* the glue's type registry is written here only */
	p->g->init(&host_table);
	pthread_mutex_unlock(&init_lock);

	struct cz_witness_inst *in = inst_new(p, !keep, e2, sizeof(e2));
	if (!in) {
		errf(err, cap, "%s: %s", path, e2);
		return -1;
	}
	in->err = e2;
	in->cap = sizeof(e2);
	int t = cz_wrt_run(in, probe_run, 10000);
	int rc = in->rc;
	p->mem_bytes = in->mem->size;
	if (keep && !t && !rc) {
		in->err = NULL;         /* e2 is gone: inst_create points it at its caller's */
		atomic_store(&p->spare, in);
	} else
		cz_witness_inst_free(in);
	if (t || rc) {
		errf(err, cap, "%s: reading the field: %s", path,
		     t ? cz_wrt_trap_name(t) : p->version == 1 ? "getFrLen is not 12..72 bytes or "
		     "the prime is outside the memory" : "getFieldNumLen32 is 0 or over 16 words");
		return -1;
	}
	if (p->n32 == 8 && !cmp(p->prime, bn254_r, 8))
		p->curve = CZ_CURVE_BN254;
	else if (p->n32 == 8 && !cmp(p->prime, bls_r, 8))
		p->curve = CZ_CURVE_BLS12_381;
	else {
		uint32_t v[16];
		char d[200];
		memcpy(v, p->prime, p->n32 * 4);
		to_dec(v, p->n32, d, sizeof(d));
		errf(err, cap, "%s: the circuit's prime %s is neither BN254's nor BLS12-381's r "
			       "(circom --prime bn128 or bls12381)", path, d);
		return -1;
	}
	if (p->nvars == 0) {
		errf(err, cap, "%s: getWitnessSize is 0", path);
		return -1;
	}
	return 0;
}

struct cz_witness_prog *cz_witness_prog_load(const char *path, const struct cz_witness_opts *o,
					     char *err, size_t cap)
{
	struct cz_witness_prog *p = calloc(1, sizeof(*p));
	char magic[4] = { 0 };
	if (!p) {
		errf(err, cap, "witness: out of memory");
		return NULL;
	}
	p->log = o ? o->log : NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, magic, 4) != 4) {
		errf(err, cap, "%s: %s", path, fd < 0 ? strerror(errno) : "shorter than 4 bytes");
		if (fd >= 0)
			close(fd);
		free(p);
		return NULL;
	}
	close(fd);
	int prebuilt = !memcmp(magic, "\x7f" "ELF", 4);
	if (prebuilt)
		snprintf(p->lib, sizeof(p->lib), "%s", path);
	else if (cz_wbuild(path, o, p->lib, sizeof(p->lib), p->sha, err, cap)) {
		free(p);
		return NULL;
	}
	if (o && o->stage)
		o->stage(o->stage_arg, "link");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (open_lib(p, path, o, prebuilt, err, cap)) {
		free(p);
		return NULL;
	}
	if (prebuilt)
		snprintf(p->sha, sizeof(p->sha), "%s", p->g->sha256);
	if (bind_exports(p, path, err, cap) ||
	    probe_field(p, path, o ? o->keep_probe : 0, err, cap)) {
		cz_witness_prog_free(p);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o && o->report)
		o->report->link_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return p;
}

enum cz_curve cz_witness_prog_curve(const struct cz_witness_prog *p) { return p->curve; }
uint32_t cz_witness_prog_nvars(const struct cz_witness_prog *p) { return p->nvars; }
uint32_t cz_witness_prog_n8(const struct cz_witness_prog *p) { return p->n32 * 4; }
uint32_t cz_witness_prog_version(const struct cz_witness_prog *p) { return p->version; }
uint64_t cz_witness_prog_mem_bytes(const struct cz_witness_prog *p) { return p->mem_bytes; }
const char *cz_witness_prog_lib(const struct cz_witness_prog *p) { return p->lib; }
const char *cz_witness_prog_sha256(const struct cz_witness_prog *p) { return p->sha; }

/* ---- instances ---- */

static void inst_run(struct cz_witness_inst *in)
{
	in->p->g->instantiate(in->mod, in);
	in->rc = 0;
}

void cz_witness_inst_free(struct cz_witness_inst *in)
{
	if (!in)
		return;
	/* the module's tables are the glue's heap; its memory is our mapping */
	if (in->mod && in->live)
		in->p->g->release(in->mod);
	free(in->mod);
	free(in->snap);
	free(in->img);
	free(in->core);
	cz_wrt_inst_unmap(in);
	free(in);
}

/* The bytes up to the last page instantiate wrote (resident: the memory is
 * fresh anonymous pages, so untouched ones are not), page-aligned: circom
 * 0.5's imported memory is 2 GiB of which the data segments touch a few. */
static size_t image_size(const struct cz_witness_inst *in)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = in->mem->size / pg;
	unsigned char *vec = n ? malloc(n) : NULL;
	if (!vec || mincore(in->mem_base, n * pg, vec)) {
		free(vec);
		return in->mem->size;      /* cannot tell: all of it */
	}
	size_t last = 0;
	for (size_t i = 0; i < n; i++)
		if (vec[i] & 1)
			last = i + 1;
	free(vec);
	return last * pg;
}

uint64_t cz_witness_inst_touched(struct cz_witness_inst *in)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = in->mem ? in->mem->size / pg : 0;
	if (n > in->core_n) {   /* a heap call only for a memory larger than any before */
		free(in->core);
		in->core_n = 0;
		if (!(in->core = malloc(n)))
			return 0;
		in->core_n = n;
	}
	if (!n || mincore(in->mem_base, n * pg, in->core))
		return 0;
	uint64_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += in->core[i] & 1;
	return k * pg;
}

struct cz_witness_inst *cz_witness_inst_create(const struct cz_witness_prog *p, char *err,
					       size_t cap)
{
	/* keep_probe's instance, once: the prog is otherwise read-only (malloc'd,
	 * so writing its one atomic member through the const view is defined) */
	struct cz_witness_inst *in = atomic_exchange(&((struct cz_witness_prog *)p)->spare, NULL);
	if (in) {
		in->err = err;
		in->cap = cap;
		return in;
	}
	return inst_new(p, 1, err, cap);
}

/* An instance, instantiated; with image, the memory's image and the module's
 * bytes kept for inst_reset, else (keep_probe's: one run) neither: 8 MB of
 * copy and ~2,000 page faults of a one-shot SHA-256 witness saved. */
static struct cz_witness_inst *inst_new(const struct cz_witness_prog *p, int image, char *err,
					size_t cap)
{
	struct cz_witness_inst *in = calloc(1, sizeof(*in));
	if (!in) {
		errf(err, cap, "witness: out of memory");
		return NULL;
	}
	in->p = p;
	if (cz_wrt_inst_map(in, err, cap)) {
		free(in);
		return NULL;
	}
	size_t sz = (p->g->inst_size + 63) & ~(size_t)63;
	in->mod = aligned_alloc(64, sz);
	in->err = err;
	in->cap = cap;
	if (!in->mod) {
		errf(err, cap, "witness: out of memory for the module instance");
		goto fail;
	}
	memset(in->mod, 0, sz);
	int t = cz_wrt_run(in, inst_run, 0);
	if (t) {
		errf(err, cap, "witness: instantiating the circuit: %s", cz_wrt_trap_name(t));
		goto fail;
	}
	in->live = 1;
	in->mem = p->g->memory(in->mod);
	if (!in->mem) {
		errf(err, cap, "witness: the circuit has no memory");
		goto fail;
	}
	in->mem_size0 = in->mem->size;
	in->fresh = 1;
	if (!image) {
		in->once = 1;
		return in;
	}
	in->img_size = image_size(in);
	in->snap = malloc(p->g->inst_size);
	in->img = malloc(in->img_size ? in->img_size : 1);
	if (!in->snap || !in->img) {
		errf(err, cap, "witness: out of memory for the instance's %zu-byte image", in->img_size);
		goto fail;
	}
	memcpy(in->snap, in->mod, p->g->inst_size);
	memcpy(in->img, in->mem->data, in->img_size);
	in->fresh = 1;
	return in;
fail:
	cz_witness_inst_free(in);
	return NULL;
}

/* Back to the state right after instantiate: the image (the pages
 * instantiate wrote) copied back, the rest of the memory zero again (its
 * pages dropped), the pages the run grew PROT_NONE again. */
static void inst_reset(struct cz_witness_inst *in)
{
	size_t size = in->mem->size;
	if (size > in->img_size)
		madvise(in->mem_base + in->img_size, size - in->img_size, MADV_DONTNEED);
	if (size > in->mem_size0)
		mprotect(in->mem_base + in->mem_size0, size - in->mem_size0, PROT_NONE);
	memcpy(in->mem_base, in->img, in->img_size);
	memcpy(in->mod, in->snap, in->p->g->inst_size);
	in->msg_len = 0;
	in->msg[0] = 0;
	in->log_len = 0;
	in->logline[0] = 0;
}

/* ---- a witness ---- */

struct walk {
	struct cz_witness_inst *in;
	const char *e;          /* the input's end (checked whole: json.c) */
	uint32_t set;           /* values set so far */
	char name[1024];
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001B3ull;
	}
	return h;
}

static void count_flat(const char *v, const char *e, uint32_t *n, int *type, int *mixed)
{
	if (cz_wj_kind(v, e) == CZ_WJ_ARR) {
		for (const char *x = cz_wj_first(v, e); x; x = cz_wj_next(x, e))
			count_flat(x, e, n, type, mixed);
		return;
	}
	int t = cz_wj_kind(v, e);
	if (*n && *type != t)
		*mixed = 1;
	*type = t;
	(*n)++;
}

/* ---- circom 0.5: inputs and the witness ---- */

/* circom 0.5's wasm runtime's tables, as its generator lays them out: at
 * address 36 the components (20 bytes each; the main one first: its hash
 * table of 256 slots {u64 hash, u32 entry index} and its entries {offset,
 * sizes, type}; sizes[0] is the signal's element count, type 1 a signal), at
 * 40 the bitmap of input signals.  Read only to check an input's size and
 * kind, and trusted only where the entry agrees with getSignalOffset32. */
static int v1_slot(const struct cz_witness_inst *in, uint32_t k, uint64_t *h, uint32_t *e)
{
	uint32_t comps, ht, ents, lo, hi, idx;
	if (m32(in, 36, &comps) || m32(in, comps, &ht) || m32(in, comps + 4, &ents) ||
	    m32(in, ht + k * 12, &lo) || m32(in, ht + k * 12 + 4, &hi) || m32(in, ht + k * 12 + 8, &idx))
		return -1;
	*h = (uint64_t)hi << 32 | lo;
	*e = ents + idx * 12;
	return 0;
}

static int v1_signal(const struct cz_witness_inst *in, uint32_t e, uint32_t *off, uint32_t *size,
		     int *is_input)
{
	uint32_t sizes, type, map, bits;
	if (m32(in, e, off) || m32(in, e + 4, &sizes) || m32(in, e + 8, &type) || type != 1 ||
	    m32(in, sizes, size) || m32(in, 40, &map) || m32(in, map + (*off >> 5) * 4, &bits))
		return -1;
	*is_input = (bits >> (*off & 31)) & 1;
	return 0;
}

/* The signal of hash h: its offset must be off. */
static int v1_lookup(const struct cz_witness_inst *in, uint64_t h, uint32_t off, uint32_t *size,
		     int *is_input)
{
	for (uint32_t k = 0; k < 256; k++) {
		uint64_t sh;
		uint32_t e, o;
		if (v1_slot(in, ((uint32_t)h + k) & 255, &sh, &e) || !sh)
			return -1;
		if (sh == h)
			return v1_signal(in, e, &o, size, is_input) || o != off ? -1 : 0;
	}
	return -1;
}

/* The main component's input signals, or -1 if the tables are not as
 * expected. */
static int v1_inputs(const struct cz_witness_inst *in)
{
	int n = 0;
	for (uint32_t k = 0; k < 256; k++) {
		uint64_t sh;
		uint32_t e, off, size;
		int is_in;
		if (v1_slot(in, k, &sh, &e))
			return -1;
		if (sh && !v1_signal(in, e, &off, &size, &is_in))
			n += is_in;
	}
	return n;
}

/* Value val into circom 0.5's element cell (as its runtime's setFr: a short
 * when -2^31 <= val < 2^31, else a long in standard form), then set it. */
static int v1_put(struct cz_witness_inst *in, const uint32_t *val, uint32_t sig)
{
	const struct cz_witness_prog *p = in->p;
	uint32_t pf = in->v1_pfr, neg[16];
	int hi0 = 1, nhi0 = 1, rc = 0;
	for (uint32_t j = 1; j < p->n32; j++)
		hi0 &= val[j] == 0;
	memcpy(neg, val, p->n32 * 4);
	neg_mod(neg, p->prime, p->n32);          /* p - val (p when val = 0: not short) */
	for (uint32_t j = 1; j < p->n32; j++)
		nhi0 &= neg[j] == 0;
	if (hi0 && val[0] <= 0x7fffffffu)
		rc = w32(in, pf, val[0]) | w32(in, pf + 4, 0);
	else if (nhi0 && neg[0] <= 0x80000000u)
		rc = w32(in, pf, (uint32_t)-(int64_t)neg[0]) | w32(in, pf + 4, 0);
	else {
		rc = w32(in, pf, 0) | w32(in, pf + 4, 0x80000000u);
		for (uint32_t j = 0; j < p->n32; j++)
			rc |= w32(in, pf + 8 + 4 * j, val[j]);
	}
	if (rc)
		return -1;
	p->x.setSignal(in->mod, 0, 0, sig, pf);
	return 0;
}

/* Sets v's values (nested arrays in order) from index *idx: msb, lsb are the
 * name's hash halves (circom 2.x), or the signal's offset and 0 (0.5). */
/* A JSON number's text into num (an integer's digits as they are; a
 * fraction or exponent through a double, as JSON readers take it):
 * 0, or -1 with the error. */
static int number_text(struct walk *w, const char *v, uint32_t idx, char *num, size_t cap)
{
	struct cz_witness_inst *in = w->in;
	const char *end = cz_wj_skip(v, w->e);
	size_t n = (size_t)(end - v);
	char t[64];
	if (n >= sizeof(t) || (!memchr(v, '.', n) && !memchr(v, 'e', n) && !memchr(v, 'E', n))) {
		/* an integer: exact in JSON's text, but not in snarkjs's JSON.parse past 64 bits */
		int neg = *v == '-';
		if (n - (size_t)neg > 19 || n >= cap) {
			errf(in->err, in->cap, "input signal '%s' value %u: a JSON number too large to be "
					       "exact: write it as a string", w->name, idx);
			return -1;
		}
		memcpy(num, v, n);
		num[n] = 0;
		return 0;
	}
	memcpy(t, v, n);
	t[n] = 0;
	{
		double d = strtod(t, NULL);
		if (d != d || d != (double)(int64_t)d) {
			errf(in->err, in->cap, "input signal '%s' value %u: %g is not an integer", w->name,
			     idx, d);
			return -1;
		}
		if (d >= 9007199254740992.0 || d <= -9007199254740992.0) {
			errf(in->err, in->cap, "input signal '%s' value %u: %g is past 2^53, not exact in "
					       "JSON: write it as a string", w->name, idx, d);
			return -1;
		}
		snprintf(num, cap, "%lld", (long long)(int64_t)d);
	}
	return 0;
}

static int set_one(struct walk *w, const char *v, uint32_t msb, uint32_t lsb, uint32_t *idx)
{
	struct cz_witness_inst *in = w->in;
	const struct cz_wexports *x = &in->p->x;
	if (cz_wj_kind(v, w->e) == CZ_WJ_ARR) {
		for (const char *el = cz_wj_first(v, w->e); el; el = cz_wj_next(el, w->e))
			if (set_one(w, el, msb, lsb, idx))
				return -1;
		return 0;
	}
	const char *s = NULL, *why = NULL;
	char num[1100];
	int t = cz_wj_kind(v, w->e);
	/* No heap call here (the time limit may unwind at any instruction):
	 * strings are decoded and numbers formatted on the stack. */
	if (t == CZ_WJ_STR) {
		if (cz_wj_string(v, w->e, num, sizeof(num))) {
			errf(in->err, in->cap, "input signal '%s' value %u: a string of over %zu bytes is "
					       "not a value", w->name, *idx, sizeof(num) - 1);
			return -1;
		}
		s = num;
	} else if (t == CZ_WJ_NUM) {
		if (number_text(w, v, *idx, num, sizeof(num)))
			return -1;
		s = num;
	} else {
		errf(in->err, in->cap, "input signal '%s' value %u: %s is not a number or a string",
		     w->name, *idx, cz_wj_kind_name(t));
		return -1;
	}
	uint32_t val[16];
	if (parse_value(s, in->p->prime, in->p->n32, val, &why)) {
		errf(in->err, in->cap, "input signal '%s' value %u: \"%.80s\" %s", w->name, *idx, s, why);
		return -1;
	}
	if (in->p->version == 1) {
		if (v1_put(in, val, msb + *idx)) {
			errf(in->err, in->cap, "input signal '%s': its value cell is outside the "
					       "circuit's memory", w->name);
			return -1;
		}
	} else {
		for (uint32_t j = 0; j < in->p->n32; j++)
			x->writeSharedRWMemory(in->mod, j, val[j]);
		x->setInputSignal(in->mod, msb, lsb, *idx);
	}
	(*idx)++;
	w->set++;
	return 0;
}

/* circom 0.5: getSignalOffset32 finds the signal (its runtime's error inside
 * it: no such signal); its size and kind from the tables where readable. */
static int leaf_v1(struct walk *w, const char *v, uint64_t h)
{
	struct cz_witness_inst *in = w->in;
	uint32_t off, n = 0, idx = 0, size;
	int type = 0, mixed = 0, is_in;
	in->looking_up = w->name;
	in->p->x.getSignalOffset32(in->mod, in->v1_poff, 0, (uint32_t)(h >> 32), (uint32_t)h);
	in->looking_up = NULL;
	if (m32(in, in->v1_poff, &off))
		return -1;
	count_flat(v, w->e, &n, &type, &mixed);
	if (mixed) {
		errf(in->err, in->cap, "input signal '%s': its values are not all of one type", w->name);
		return -1;
	}
	if (!v1_lookup(in, h, off, &size, &is_in)) {
		if (!is_in) {
			errf(in->err, in->cap, "input signal '%s': the circuit's signal is not an input",
			     w->name);
			return -1;
		}
		if (n != size) {
			errf(in->err, in->cap, "input signal '%s': %u value%s given, the circuit's "
					       "signal has %u", w->name, n, n == 1 ? "" : "s", size);
			return -1;
		}
		in->v1_ngiven++;
	} else
		in->v1_tables = 0;
	return set_one(w, v, off, 0, &idx);
}

static int leaf(struct walk *w, const char *v)
{
	struct cz_witness_inst *in = w->in;
	uint64_t h = fnv1a(w->name);
	if (in->p->version == 1)
		return leaf_v1(w, v, h);
	uint32_t msb = (uint32_t)(h >> 32), lsb = (uint32_t)h;
	int32_t size = (int32_t)in->p->x.getInputSignalSize(in->mod, msb, lsb);
	uint32_t n = 0, idx = 0;
	int type = 0, mixed = 0;
	count_flat(v, w->e, &n, &type, &mixed);
	if (size < 0 || (size == 0 && n > 0)) {
		/* circom 2.2 answers 0 for a name it does not know, older ones -1 */
		errf(in->err, in->cap, "input signal '%s': the circuit has no such input signal",
		     w->name);
		return -1;
	}
	if (mixed) {
		errf(in->err, in->cap, "input signal '%s': its values are not all of one type", w->name);
		return -1;
	}
	if (n != (uint32_t)size) {
		errf(in->err, in->cap, "input signal '%s': %u value%s given, the circuit's signal has %d",
		     w->name, n, n == 1 ? "" : "s", size);
		return -1;
	}
	return set_one(w, v, msb, lsb, &idx);
}

static int qualify(struct walk *w, const char *v);

/* An array of objects: each element under NAME[i]. */
static int qualify_list(struct walk *w, const char *v)
{
	if (cz_wj_kind(v, w->e) != CZ_WJ_ARR)
		return qualify(w, v);
	size_t base = strlen(w->name), i = 0;
	for (const char *el = cz_wj_first(v, w->e); el; el = cz_wj_next(el, w->e), i++) {
		if (snprintf(w->name + base, sizeof(w->name) - base, "[%zu]", i) >=
		    (int)(sizeof(w->name) - base)) {
			errf(w->in->err, w->in->cap, "input signal name '%.60s...' is too long", w->name);
			return -1;
		}
		if (qualify_list(w, el))
			return -1;
	}
	w->name[base] = 0;
	return 0;
}

static int first_leaf_kind(const char *v, const char *e)
{
	while (cz_wj_kind(v, e) == CZ_WJ_ARR)
		if (!(v = cz_wj_first(v, e)))
			return CZ_WJ_NULL;
	return cz_wj_kind(v, e);
}

static int qualify(struct walk *w, const char *v)
{
	int k = cz_wj_kind(v, w->e);
	if (k == CZ_WJ_ARR && first_leaf_kind(v, w->e) == CZ_WJ_OBJ)
		return qualify_list(w, v);
	if (k == CZ_WJ_OBJ) {
		size_t base = strlen(w->name), sep = base ? 1 : 0;
		for (const char *m = cz_wj_first(v, w->e); m; ) {
			int too_long = sizeof(w->name) - base <= sep + 1;
			const char *val = m;
			if (!too_long) {
				if (sep)
					w->name[base] = '.';
				val = cz_wj_member(m, w->e, w->name + base + sep, sizeof(w->name) - base - sep,
						   &too_long);
			}
			if (too_long) {
				w->name[sizeof(w->name) - 1] = 0;
				errf(w->in->err, w->in->cap, "input signal name '%.60s...' is too long",
				     w->name);
				return -1;
			}
			if (qualify(w, val))
				return -1;
			w->name[base] = 0;
			m = cz_wj_next(val, w->e);
		}
		return 0;
	}
	return leaf(w, v);
}

/* circom 0.5's run, as its witness calculator drives it: init(1) (its
 * sanity checks on: asserts, constraints, signals read unset or set twice
 * fail the run, where snarkjs's default would write a witness no proof
 * verifies), a cell
 * for an offset and one for a value taken from the free pointer at 0, each
 * input set, then getWitnessBuffer: the values in standard form. */
static void calc_run_v1(struct cz_witness_inst *in)
{
	const struct cz_witness_prog *p = in->p;
	struct walk w = { .in = in, .e = in->json + in->json_len };
	uint32_t top;
	size_t need = (size_t)p->nvars * p->n32 * 4;

	in->rc = -1;
	p->x.init(in->mod, 1);
	if (m32(in, 0, &top) || w32(in, 0, top + 16 + p->n32 * 4)) {
		errf(in->err, in->cap, "the circuit's free-memory pointer is outside its memory");
		return;
	}
	in->v1_poff = top;
	in->v1_pfr = top + 8;
	in->v1_ngiven = 0;
	in->v1_tables = 1;
	if (qualify(&w, in->json))
		return;
	int want = in->v1_tables ? v1_inputs(in) : -1;
	if (want > 0 && in->v1_ngiven < (uint32_t)want) {
		errf(in->err, in->cap, "%u of the circuit's %d input signals given: an input signal is "
				       "missing", in->v1_ngiven, want);
		return;
	}
	uint32_t pw = p->x.getWitnessBuffer(in->mod);
	if ((uint64_t)pw + need > in->mem->size) {
		errf(in->err, in->cap, "getWitnessBuffer: %u + %zu bytes is outside the memory", pw, need);
		return;
	}
	memcpy(in->out, in->mem->data + pw, need);
	in->rc = 0;
}

static void calc_run(struct cz_witness_inst *in)
{
	const struct cz_witness_prog *p = in->p;
	struct walk w = { .in = in, .e = in->json + in->json_len };

	if (p->version == 1) {
		calc_run_v1(in);
		return;
	}
	in->rc = -1;
	p->x.init(in->mod, 1);
	if (qualify(&w, in->json))
		return;
	if (p->x.getInputSize) {
		uint32_t want = p->x.getInputSize(in->mod);
		if (w.set < want) {
			errf(in->err, in->cap, "%u of the circuit's %u input values given: an input "
					       "signal is missing", w.set, want);
			return;
		}
	}
	uint32_t n32 = p->n32;
	uint8_t *o = in->out;
	for (uint32_t i = 0; i < p->nvars; i++) {
		p->x.getWitness(in->mod, i);
		for (uint32_t j = 0; j < n32; j++, o += 4) {
			uint32_t v = p->x.readSharedRWMemory(in->mod, j);
			memcpy(o, &v, 4);   /* little-endian host: the .wtns layout */
		}
	}
	in->rc = 0;
}

static const char *exc_name(uint32_t code)
{
	switch (code) {
	case 1: return "signal not found";
	case 2: return "too many signals set";
	case 3: return "signal already set";
	case 4: return "assert failed";
	case 5: return "not enough memory";
	case 6: return "input signal array access exceeds the size";
	case 7: return "out of bounds array access";
	default: return "unknown error";
	}
}

int cz_witness_calc(struct cz_witness_inst *in, const char *json, size_t len, uint8_t *out,
		    size_t out_cap, uint64_t timeout_ms, char *err, size_t cap)
{
	const struct cz_witness_prog *p = in->p;
	size_t need = (size_t)p->nvars * p->n32 * 4;
	if (out_cap < need) {
		errf(err, cap, "witness: the output holds %zu bytes, the witness needs %zu (%u values)",
		     out_cap, need, p->nvars);
		return -1;
	}
	if (len > INT32_MAX) {
		errf(err, cap, "input JSON: %zu bytes is too large", len);
		return -1;
	}
	const char *why;
	size_t off;
	const char *root = cz_wj_check(json, len, &why, &off);
	if (!root) {
		errf(err, cap, "input JSON: %s at byte %zu", why, off);
		return -1;
	}
	if (cz_wj_kind(root, json + len) != CZ_WJ_OBJ) {
		errf(err, cap, "input JSON: the top level is %s, not an object of signal names",
		     cz_wj_kind_name(cz_wj_kind(root, json + len)));
		return -1;
	}
	if (!in->fresh && in->once) {
		errf(err, cap, "witness: this instance ran its one witness (keep_probe's: it keeps "
			       "no image to reset to)");
		return -1;
	}
	if (!in->fresh)
		inst_reset(in);
	in->fresh = 0;
	in->json = root;
	in->json_len = len - (size_t)(root - json);
	in->out = out;
	in->err = err;
	in->cap = cap;
	in->rc = -1;
	err[0] = 0;
	int t = cz_wrt_run(in, calc_run, timeout_ms);
	in->looking_up = NULL;
	if (t == CZ_WTRAP_INPUT)
		return -1;
	if (t == CZ_WTRAP_EXC && p->version == 1) {
		errf(err, cap, "the circuit failed: %s", in->msg);
		return -1;
	}
	if (t == CZ_WTRAP_EXC) {
		if (in->msg_len)
			errf(err, cap, "the circuit failed: %s: %s", exc_name(in->exc_code), in->msg);
		else
			errf(err, cap, "the circuit failed: %s (code %u)", exc_name(in->exc_code),
			     in->exc_code);
		return -1;
	}
	if (t == CZ_WTRAP_TIMEOUT) {
		errf(err, cap, "the circuit ran past the time limit of %llu ms",
		     (unsigned long long)timeout_ms);
		return -1;
	}
	if (t > 0) {
		errf(err, cap, "the circuit trapped: %s%s%s", cz_wrt_trap_name(t),
		     in->msg_len ? ": " : "", in->msg);
		return -1;
	}
	if (t < 0 || in->rc) {
		if (!err[0])
			errf(err, cap, "witness: the run failed");
		return -1;
	}
	return 0;
}

size_t cz_witness_wtns_size(const struct cz_witness_prog *p)
{
	size_t n8 = p->n32 * 4;
	return 44 + n8 + (size_t)p->nvars * n8;
}

static uint8_t *put32(uint8_t *b, uint32_t v)
{
	memcpy(b, &v, 4);
	return b + 4;
}

static uint8_t *put64(uint8_t *b, uint64_t v)
{
	memcpy(b, &v, 8);
	return b + 8;
}

void cz_witness_wtns_encode(const struct cz_witness_prog *p, const uint8_t *w, uint8_t *buf)
{
	uint32_t n8 = p->n32 * 4;
	uint8_t *b = buf;
	memcpy(b, "wtns", 4);
	b = put32(b + 4, 2);                 /* version */
	b = put32(b, 2);                     /* sections */
	b = put32(b, 1);                     /* header: n8, prime, nvars */
	b = put64(b, 8 + (uint64_t)n8);
	b = put32(b, n8);
	memcpy(b, p->prime, n8);
	b = put32(b + n8, p->nvars);
	b = put32(b, 2);                     /* the values */
	b = put64(b, (uint64_t)n8 * p->nvars);
	memcpy(b, w, (size_t)n8 * p->nvars);
}
