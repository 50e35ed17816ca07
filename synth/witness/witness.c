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
 * field (getFieldNumLen32, getRawPrime: BN254's or BLS12-381's r, else an
 * error naming the prime) and the witness size, and is then read-only.  An
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
#include <json-c/json.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
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

static void imp_dispatch(void *host, int which, uint32_t arg)
{
	struct cz_witness_inst *in = host;
	const struct cz_wexports *x = &in->p->x;

	switch (which) {
	case CZ_WIMP_EXCEPTION:
		in->exc_code = arg;
		cz_wrt_throw(in, CZ_WTRAP_EXC);
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
			if (in->p->log) {
				cz_wrt_timer_block(1);
				fprintf(in->p->log, "%s\n", in->logline);
				fflush(in->p->log);
				cz_wrt_timer_block(0);
			}
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

static const struct {
	const char *name, *proto;
	size_t off;
	int optional;
} wanted[] = {
#define W(n, p, o) { #n, p, offsetof(struct cz_wexports, n), o }
	W(getVersion, "u32 ()", 1),
	W(getFieldNumLen32, "u32 ()", 0),
	W(getRawPrime, "void ()", 0),
	W(readSharedRWMemory, "u32 (u32)", 0),
	W(writeSharedRWMemory, "void (u32, u32)", 0),
	W(init, "void (u32)", 0),
	W(getInputSignalSize, "u32 (u32, u32)", 0),
	W(setInputSignal, "void (u32, u32, u32)", 0),
	W(getWitnessSize, "u32 ()", 0),
	W(getWitness, "void (u32)", 0),
	W(getInputSize, "u32 ()", 1),
	W(getMessageChar, "u32 ()", 1),
#undef W
};

static const struct cz_wglue_export *find_export(const struct cz_wglue *g, const char *name)
{
	for (const struct cz_wglue_export *e = g->exports; e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

static void probe_run(struct cz_witness_inst *in)
{
	struct cz_witness_prog *p = (struct cz_witness_prog *)in->p;
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

/* The imports are circom 2.x's runtime's, the exports its protocol's, each
 * with circom's prototype. */
static int bind_exports(struct cz_witness_prog *p, const char *path, char *err, size_t cap)
{
	for (const char *const *i = p->g->imports; *i; i++)
		if (strcmp(*i, "runtime.exceptionHandler") && strcmp(*i, "runtime.printErrorMessage") &&
		    strcmp(*i, "runtime.writeBufferMessage") && strcmp(*i, "runtime.showSharedRWMemory")) {
			errf(err, cap, "%s: imports %s, which circom 2.x's runtime does not provide: "
				       "not a circom 2 witness program", path, *i);
			return -1;
		}
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		const struct cz_wglue_export *e = find_export(p->g, wanted[i].name);
		if (!e) {
			if (wanted[i].optional)
				continue;
			if (find_export(p->g, "getFrLen") || find_export(p->g, "getPWitness"))
				errf(err, cap, "%s: a circom 0.5-era wasm (exports getFrLen/getPWitness, "
					       "no %s): only circom 2.x's protocol is supported; "
					       "recompile with circom 2", path, wanted[i].name);
			else
				errf(err, cap, "%s: no export '%s': not a circom 2.x witness program",
				     path, wanted[i].name);
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

/* The glue's init, then a probe run that reads the field: its prime picks
 * the curve. */
static int probe_field(struct cz_witness_prog *p, const char *path, char *err, size_t cap)
{
	char e2[1024];

	static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&init_lock);   /* the glue's type registry is written here only */
	p->g->init(&host_table);
	pthread_mutex_unlock(&init_lock);

	struct cz_witness_inst *in = cz_witness_inst_create(p, e2, sizeof(e2));
	if (!in) {
		errf(err, cap, "%s: %s", path, e2);
		return -1;
	}
	in->err = e2;
	in->cap = sizeof(e2);
	int t = cz_wrt_run(in, probe_run, 10000);
	int rc = in->rc;
	cz_witness_inst_free(in);
	if (t || rc) {
		errf(err, cap, "%s: reading the field: %s", path,
		     t ? cz_wrt_trap_name(t) : "getFieldNumLen32 is 0 or over 16 words");
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
	if (open_lib(p, path, o, prebuilt, err, cap)) {
		free(p);
		return NULL;
	}
	if (prebuilt)
		snprintf(p->sha, sizeof(p->sha), "%s", p->g->sha256);
	if (bind_exports(p, path, err, cap) || probe_field(p, path, err, cap)) {
		cz_witness_prog_free(p);
		return NULL;
	}
	return p;
}

enum cz_curve cz_witness_prog_curve(const struct cz_witness_prog *p) { return p->curve; }
uint32_t cz_witness_prog_nvars(const struct cz_witness_prog *p) { return p->nvars; }
uint32_t cz_witness_prog_n8(const struct cz_witness_prog *p) { return p->n32 * 4; }
uint32_t cz_witness_prog_version(const struct cz_witness_prog *p) { return p->version; }
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
	if (in->mod && in->snap)
		in->p->g->release(in->mod);
	free(in->mod);
	free(in->snap);
	free(in->img);
	cz_wrt_inst_unmap(in);
	free(in);
}

struct cz_witness_inst *cz_witness_inst_create(const struct cz_witness_prog *p, char *err,
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
	in->mem = p->g->memory(in->mod);
	in->img_size = in->mem->size;
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

/* Back to the state right after instantiate. */
static void inst_reset(struct cz_witness_inst *in)
{
	size_t grown = in->mem->size > in->img_size ? in->mem->size - in->img_size : 0;
	if (grown) {
		madvise(in->mem_base + in->img_size, grown, MADV_DONTNEED);
		mprotect(in->mem_base + in->img_size, grown, PROT_NONE);
	}
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

static void count_flat(struct json_object *v, uint32_t *n, int *type, int *mixed)
{
	if (json_object_is_type(v, json_type_array)) {
		size_t k = json_object_array_length(v);
		for (size_t i = 0; i < k; i++)
			count_flat(json_object_array_get_idx(v, i), n, type, mixed);
		return;
	}
	int t = json_object_get_type(v);
	if (t == json_type_int || t == json_type_double)
		t = json_type_int;
	if (*n && *type != t)
		*mixed = 1;
	*type = t;
	(*n)++;
}

static int set_one(struct walk *w, struct json_object *v, uint32_t msb, uint32_t lsb, uint32_t *idx)
{
	struct cz_witness_inst *in = w->in;
	const struct cz_wexports *x = &in->p->x;
	if (json_object_is_type(v, json_type_array)) {
		size_t k = json_object_array_length(v);
		for (size_t i = 0; i < k; i++)
			if (set_one(w, json_object_array_get_idx(v, i), msb, lsb, idx))
				return -1;
		return 0;
	}
	const char *s, *why = NULL;
	char num[32];
	int t = json_object_get_type(v);
	/* No heap call here (the time limit may unwind at any instruction, and
	 * json-c's printer allocates): numbers are formatted on the stack. */
	if (t == json_type_string)
		s = json_object_get_string(v);
	else if (t == json_type_int) {
		int64_t i = json_object_get_int64(v);
		if (i == INT64_MAX) {
			uint64_t u = json_object_get_uint64(v);
			if (u == UINT64_MAX) {
				errf(in->err, in->cap, "input signal '%s' value %u: a JSON number too large "
						       "to be exact: write it as a string", w->name, *idx);
				return -1;
			}
			snprintf(num, sizeof(num), "%llu", (unsigned long long)u);
		} else
			snprintf(num, sizeof(num), "%lld", (long long)i);
		s = num;
	} else if (t == json_type_double) {
		double d = json_object_get_double(v);
		if (d != d || d != (double)(int64_t)d) {
			errf(in->err, in->cap, "input signal '%s' value %u: %g is not an integer", w->name,
			     *idx, d);
			return -1;
		}
		if (d >= 9007199254740992.0 || d <= -9007199254740992.0) {
			errf(in->err, in->cap, "input signal '%s' value %u: %g is past 2^53, not exact in "
					       "JSON: write it as a string", w->name, *idx, d);
			return -1;
		}
		snprintf(num, sizeof(num), "%lld", (long long)(int64_t)d);
		s = num;
	} else {
		errf(in->err, in->cap, "input signal '%s' value %u: %s is not a number or a string",
		     w->name, *idx, json_type_to_name((enum json_type)t));
		return -1;
	}
	uint32_t val[16];
	if (parse_value(s, in->p->prime, in->p->n32, val, &why)) {
		errf(in->err, in->cap, "input signal '%s' value %u: \"%.80s\" %s", w->name, *idx, s, why);
		return -1;
	}
	for (uint32_t j = 0; j < in->p->n32; j++)
		x->writeSharedRWMemory(in->mod, j, val[j]);
	x->setInputSignal(in->mod, msb, lsb, *idx);
	(*idx)++;
	w->set++;
	return 0;
}

static int leaf(struct walk *w, struct json_object *v)
{
	struct cz_witness_inst *in = w->in;
	uint64_t h = fnv1a(w->name);
	uint32_t msb = (uint32_t)(h >> 32), lsb = (uint32_t)h;
	int32_t size = (int32_t)in->p->x.getInputSignalSize(in->mod, msb, lsb);
	uint32_t n = 0, idx = 0;
	int type = 0, mixed = 0;
	count_flat(v, &n, &type, &mixed);
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

static int qualify(struct walk *w, struct json_object *v);

/* An array of objects: each element under NAME[i]. */
static int qualify_list(struct walk *w, struct json_object *v)
{
	if (!json_object_is_type(v, json_type_array))
		return qualify(w, v);
	size_t base = strlen(w->name), k = json_object_array_length(v);
	for (size_t i = 0; i < k; i++) {
		if (snprintf(w->name + base, sizeof(w->name) - base, "[%zu]", i) >=
		    (int)(sizeof(w->name) - base)) {
			errf(w->in->err, w->in->cap, "input signal name '%.60s...' is too long", w->name);
			return -1;
		}
		if (qualify_list(w, json_object_array_get_idx(v, i)))
			return -1;
	}
	w->name[base] = 0;
	return 0;
}

static int first_leaf_type(struct json_object *v)
{
	while (json_object_is_type(v, json_type_array)) {
		if (!json_object_array_length(v))
			return json_type_null;
		v = json_object_array_get_idx(v, 0);
	}
	return json_object_get_type(v);
}

static int qualify(struct walk *w, struct json_object *v)
{
	if (json_object_is_type(v, json_type_array) && first_leaf_type(v) == json_type_object)
		return qualify_list(w, v);
	if (json_object_is_type(v, json_type_object)) {
		size_t base = strlen(w->name);
		json_object_object_foreach(v, key, val) {
			if (snprintf(w->name + base, sizeof(w->name) - base, "%s%s", base ? "." : "",
				     key) >= (int)(sizeof(w->name) - base)) {
				errf(w->in->err, w->in->cap, "input signal name '%.60s...' is too long",
				     w->name);
				return -1;
			}
			if (qualify(w, val))
				return -1;
			w->name[base] = 0;
		}
		return 0;
	}
	return leaf(w, v);
}

static void calc_run(struct cz_witness_inst *in)
{
	const struct cz_witness_prog *p = in->p;
	struct json_object *root = (struct json_object *)in->json;
	struct walk w = { .in = in };

	in->rc = -1;
	p->x.init(in->mod, 1);
	if (qualify(&w, root))
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
	struct json_tokener *tok = json_tokener_new();
	if (!tok) {
		errf(err, cap, "witness: out of memory");
		return -1;
	}
	struct json_object *root = json_tokener_parse_ex(tok, json, (int)len);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t off = tok->char_offset;
	json_tokener_free(tok);
	if (je != json_tokener_success || !root) {
		errf(err, cap, "input JSON: %s at byte %zu",
		     je == json_tokener_continue ? "ends early" : json_tokener_error_desc(je), off);
		json_object_put(root);
		return -1;
	}
	if (!json_object_is_type(root, json_type_object)) {
		errf(err, cap, "input JSON: the top level is %s, not an object of signal names",
		     json_type_to_name(json_object_get_type(root)));
		json_object_put(root);
		return -1;
	}
	if (!in->fresh)
		inst_reset(in);
	in->fresh = 0;
	in->json = (const char *)root;
	in->out = out;
	in->err = err;
	in->cap = cap;
	in->rc = -1;
	err[0] = 0;
	int t = cz_wrt_run(in, calc_run, timeout_ms);
	json_object_put(root);
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
