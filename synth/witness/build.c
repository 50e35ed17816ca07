/* SPDX-License-Identifier: MIT */
/*
 * synth/witness/build.c — a circuit's .wasm into a loadable library:
 *
 *   1. hash   SHA-256 of the wasm's bytes names the library
 *             (CACHE/<sha256>.so); a library already there is used as is, so
 *             a second load builds nothing and a changed wasm builds anew.
 *   2. translate  wasm2c -n cz (wabt) writes c.c and c.h into a private
 *             directory CACHE/<sha256>.tmp.XXXXXX (from a copy of the bytes
 *             hashed, so the file cannot change between hash and build).
 *   3. glue   glue.c, written here: the module's exports listed by name with
 *             the C prototype wasm2c gave each (witness.c checks them), the
 *             wasm-rt.h functions forwarded to the host's (rt.c), the
 *             runtime imports (circom 2.x's and 0.5's) forwarded to the
 *             instance's dispatcher with their u32 arguments, and, for
 *             circom 0.5's imported env.memory, the memory made by the host
 *             (CZ_WENV_PAGES) in the instance's own block.
 *   4. compile  $CC (default cc) -O3 (CUZK_WITNESS_OPT picks another level)
 *             -fno-optimize-sibling-calls (runaway recursion stays a trap)
 *             -fPIC -shared: the library, renamed
 *             onto its name only when whole (rename is atomic, so builders
 *             racing on one circuit each write their own and one wins).
 *
 * Progress and where the time went (translate, compile) go to o->progress.
 * wasm2c and the compiler run as child processes with their output captured
 * in the build directory; a failure quotes the tail of it.
 */
#define _GNU_SOURCE
#include "synth/witness/witness_pvt.h"

#define CZ_STR_(x) #x
#define CZ_STR(x) CZ_STR_(x)

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* snprintf through a wrapper: a path or message cut at its buffer's end is
 * harmless here (a cut path fails to open and says so). */
static int bfmt(char *b, size_t cap, const char *f, ...) __attribute__((format(printf, 3, 4)));
static int bfmt(char *b, size_t cap, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(b, cap, f, ap);
	va_end(ap);
	return n;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int read_all(const char *path, uint8_t **buf, size_t *len, char *err, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		bfmt(err, cap, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size <= 0 || st.st_size > (1ll << 31)) {
		bfmt(err, cap, "%s: size %lld bytes is not a circuit's wasm", path,
			 (long long)st.st_size);
		close(fd);
		return -1;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len);
	size_t got = 0;
	while (*buf && got < *len) {
		ssize_t k = read(fd, *buf + got, *len - got);
		if (k <= 0) {
			bfmt(err, cap, "%s: read: %s", path, k ? strerror(errno) : "file shrank");
			free(*buf);
			*buf = NULL;
			close(fd);
			return -1;
		}
		got += (size_t)k;
	}
	close(fd);
	if (!*buf) {
		bfmt(err, cap, "%s: out of memory for %zu bytes", path, *len);
		return -1;
	}
	return 0;
}

static int write_file(const char *path, const void *b, size_t n, char *err, size_t cap)
{
	FILE *f = fopen(path, "wbe");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		bfmt(err, cap, "%s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

/* Runs argv with stdout and stderr into logpath; 0 when it exits 0. */
static int run(char *const argv[], const char *logpath, char *err, size_t cap)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		bfmt(err, cap, "cannot run %s: %s%s", argv[0], strerror(rc),
			 rc == ENOENT ? (strcmp(argv[0], "wasm2c") ? " (install a C compiler)"
							     : " (install wabt: tools/install-deps.sh)")
				      : "");
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			bfmt(err, cap, "waitpid %s: %s", argv[0], strerror(errno));
			return -1;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	char tail[600] = "";
	FILE *f = fopen(logpath, "re");
	if (f) {
		fseek(f, 0, SEEK_END);
		long sz = ftell(f);
		fseek(f, sz > (long)sizeof(tail) - 1 ? sz - (long)sizeof(tail) + 1 : 0, SEEK_SET);
		size_t k = fread(tail, 1, sizeof(tail) - 1, f);
		tail[k] = 0;
		fclose(f);
	}
	bfmt(err, cap, "%s failed (%s %d): %s", argv[0], WIFEXITED(st) ? "exit" : "signal",
		 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), tail);
	return -1;
}

static int mkdir_p(const char *dir, char *err, size_t cap)
{
	char p[4096];
	if (bfmt(p, sizeof(p), "%s", dir) >= (int)sizeof(p)) {
		bfmt(err, cap, "%s: path too long", dir);
		return -1;
	}
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) && errno != EEXIST)
				goto fail;
			*s = '/';
		}
	if (mkdir(p, 0755) && errno != EEXIST)
		goto fail;
	return 0;
fail:
	bfmt(err, cap, "cache directory %s: %s", p, strerror(errno));
	return -1;
}

static void cache_dir(const struct cz_witness_opts *o, char *d, size_t cap)
{
	const char *e;
	if (o && o->cache_dir)
		bfmt(d, cap, "%s", o->cache_dir);
	else if ((e = getenv("CUZK_WITNESS_CACHE")) && *e)
		bfmt(d, cap, "%s", e);
	else if ((e = getenv("XDG_CACHE_HOME")) && *e)
		bfmt(d, cap, "%s/cuzk/witness", e);
	else if ((e = getenv("HOME")) && *e)
		bfmt(d, cap, "%s/.cache/cuzk/witness", e);
	else
		bfmt(d, cap, "/tmp/cuzk-witness-%u", (unsigned)getuid());
}

/* The C prototype of export NAME in wasm2c's header, reduced to
 * "RESULT (PARAM, ...)" without the instance parameter. */
static void proto_of(const char *line, char *out, size_t cap)
{
	/* line: "u32 Z_czZ_getWitnessSize(Z_cz_instance_t*);" */
	const char *sp = strchr(line, ' '), *lp = strchr(line, '('), *rp = strrchr(line, ')');
	if (!sp || !lp || !rp || sp > lp) {
		bfmt(out, cap, "?");
		return;
	}
	const char *args = strchr(lp, ',');
	int n = bfmt(out, cap, "%.*s (", (int)(sp - line), line);
	if (args && args < rp) {
		args++;
		while (*args == ' ')
			args++;
		n += bfmt(out + n, cap > (size_t)n ? cap - (size_t)n : 0, "%.*s", (int)(rp - args),
			      args);
	}
	bfmt(out + n, cap > (size_t)n ? cap - (size_t)n : 0, ")");
}

static const char glue_head[] =
	"/* generated by cuzk (synth/witness/build.c): the glue of one circuit */\n"
	"#include <stdarg.h>\n#include <stdlib.h>\n#include <string.h>\n#include \"c.h\"\n"
	"struct cz_wglue_host {\n"
	"  void (*trap)(wasm_rt_trap_t) __attribute__((noreturn));\n"
	"  void (*mem_alloc)(wasm_rt_memory_t *, uint32_t, uint32_t);\n"
	"  uint32_t (*mem_grow)(wasm_rt_memory_t *, uint32_t);\n"
	"  void (*mem_free)(wasm_rt_memory_t *);\n"
	"  void (*imp)(void *, int, const uint32_t *);\n};\n"
	"struct Z_runtime_instance_t { void *host; };\n"
	"struct Z_env_instance_t { wasm_rt_memory_t m; };\n"
	"static const struct cz_wglue_host *H;\n"
	"void wasm_rt_trap(wasm_rt_trap_t c) { H->trap(c); }\n"
	"bool wasm_rt_is_initialized(void) { return H != 0; }\n"
	"void wasm_rt_allocate_memory(wasm_rt_memory_t *m, uint32_t i, uint32_t x) "
	"{ H->mem_alloc(m, i, x); }\n"
	"uint32_t wasm_rt_grow_memory(wasm_rt_memory_t *m, uint32_t d) { return H->mem_grow(m, d); }\n"
	"void wasm_rt_free_memory(wasm_rt_memory_t *m) { H->mem_free(m); }\n"
	"void wasm_rt_allocate_funcref_table(wasm_rt_funcref_table_t *t, uint32_t e, uint32_t x) {\n"
	"  t->data = calloc(e ? e : 1, sizeof(*t->data)); if (!t->data) H->trap(WASM_RT_TRAP_EXHAUSTION);\n"
	"  t->size = e; t->max_size = x; }\n"
	"void wasm_rt_free_funcref_table(wasm_rt_funcref_table_t *t) { free(t->data); t->data = 0; }\n"
	"void wasm_rt_allocate_externref_table(wasm_rt_externref_table_t *t, uint32_t e, uint32_t x) {\n"
	"  t->data = calloc(e ? e : 1, sizeof(*t->data)); if (!t->data) H->trap(WASM_RT_TRAP_EXHAUSTION);\n"
	"  t->size = e; t->max_size = x; }\n"
	"void wasm_rt_free_externref_table(wasm_rt_externref_table_t *t) { free(t->data); t->data = 0; }\n"
	"uint32_t wasm_rt_grow_funcref_table(wasm_rt_funcref_table_t *t, uint32_t d, wasm_rt_funcref_t v)"
	" { (void)t; (void)d; (void)v; return (uint32_t)-1; }\n"
	"uint32_t wasm_rt_grow_externref_table(wasm_rt_externref_table_t *t, uint32_t d, "
	"wasm_rt_externref_t v) { (void)t; (void)d; (void)v; return (uint32_t)-1; }\n"
	/* the type registry: written once, by init_module under the host's once */
	"#define NT 4096\nstatic struct { uint32_t np, nr; wasm_rt_type_t t[16]; } T[NT]; static uint32_t NTs;\n"
	"uint32_t wasm_rt_register_func_type(uint32_t np, uint32_t nr, ...) {\n"
	"  va_list ap; wasm_rt_type_t t[16] = {0}; uint32_t i;\n"
	"  if (np + nr > 16) H->trap(WASM_RT_TRAP_EXHAUSTION);\n"
	"  va_start(ap, nr); for (i = 0; i < np + nr; i++) t[i] = (wasm_rt_type_t)va_arg(ap, int); va_end(ap);\n"
	"  for (i = 0; i < NTs; i++) if (T[i].np == np && T[i].nr == nr && !memcmp(T[i].t, t, sizeof(t)))"
	" return i;\n"
	"  if (NTs == NT) H->trap(WASM_RT_TRAP_EXHAUSTION);\n"
	"  T[NTs].np = np; T[NTs].nr = nr; memcpy(T[NTs].t, t, sizeof(t)); return NTs++; }\n"
	"static void g_init(const struct cz_wglue_host *h) { H = h; Z_cz_init_module(); }\n"
	"static void g_free(void *i) { Z_cz_free((Z_cz_instance_t *)i); }\n"
	/* the instance: the module's, then the runtime's, then env's memory */
	"#define RT(i) ((struct Z_runtime_instance_t *)((char *)(i) + sizeof(Z_cz_instance_t)))\n"
	"#define ENV(i) ((struct Z_env_instance_t *)((char *)RT(i) + "
	"sizeof(struct Z_runtime_instance_t)))\n";

/* An import the glue forwards: module, name, its import number, the number
 * of u32 parameters (all return nothing). */
static const struct {
	const char *mod, *name;
	int which, nargs;
} imports[] = {
	/* circom 2.x */
	{ "runtime", "exceptionHandler", CZ_WIMP_EXCEPTION, 1 },
	{ "runtime", "printErrorMessage", CZ_WIMP_PRINT_ERROR, 0 },
	{ "runtime", "writeBufferMessage", CZ_WIMP_WRITE_BUFFER, 0 },
	{ "runtime", "showSharedRWMemory", CZ_WIMP_SHOW_SHARED, 0 },
	/* circom 0.5 */
	{ "runtime", "error", CZ_WIMP_ERROR, 6 },
	{ "runtime", "log", CZ_WIMP_LOG, 1 },
	{ "runtime", "logSetSignal", CZ_WIMP_TRACE, 2 },
	{ "runtime", "logGetSignal", CZ_WIMP_TRACE, 2 },
	{ "runtime", "logStartComponent", CZ_WIMP_TRACE, 1 },
	{ "runtime", "logFinishComponent", CZ_WIMP_TRACE, 1 },
	{ "runtime", "printDebug", CZ_WIMP_TRACE, 1 },
};

/* What write_glue reads from wasm2c's header. */
struct hdr {
	char exp_name[256][128], exp_c[256][160], exp_proto[256][160];
	int nexp;
	char imp_names[64][160];
	int nimp;
	char mem_export[160];   /* the C name of the exported memory, or "" */
	int env_mem;            /* the memory is imported as env.memory (circom 0.5) */
	int inst_env, inst_rt;  /* Z_cz_instantiate takes env's, the runtime's instance */
};

/* The identifier just before the first '(' of a declaration. */
static void decl_name(const char *line, char *out, size_t cap)
{
	const char *lp = strchr(line, '('), *s = lp;
	if (!lp) {
		bfmt(out, cap, "?");
		return;
	}
	while (s > line && (s[-1] == '_' || (s[-1] >= '0' && s[-1] <= '9') ||
			    ((s[-1] | 32) >= 'a' && (s[-1] | 32) <= 'z')))
		s--;
	bfmt(out, cap, "%.*s", (int)(lp - s), s);
}

/* A forwarded import's definition: its parameters named, passed as an array. */
static void emit_import(FILE *g, const char *line, int i)
{
	char name[160];
	decl_name(line, name, sizeof(name));
	fprintf(g, "void %s(struct Z_runtime_instance_t *r", name);
	for (int k = 0; k < imports[i].nargs; k++)
		fprintf(g, ", u32 a%d", k);
	fputs(") { const uint32_t a[8] = { 0", g);
	for (int k = 0; k < imports[i].nargs; k++)
		fprintf(g, ", a%d", k);
	fprintf(g, " }; H->imp(r->host, %d, a + 1); }\n", imports[i].which);
}

/* An import's declaration: forwarded when known and of the known shape,
 * else declared weak (the library links; witness.c names the import). */
static void on_import(FILE *g, struct hdr *h, const char *m, const char *n, const char *decl)
{
	int known = -1;
	for (size_t i = 0; i < sizeof(imports) / sizeof(imports[0]); i++)
		if (!strcmp(m, imports[i].mod) && !strcmp(n, imports[i].name))
			known = (int)i;
	if (known >= 0) {
		/* "void Z_runtimeZ_error(struct Z_runtime_instance_t*, u32, ...);" */
		int nu = 0;
		for (const char *s = strchr(decl, ','); s; s = strchr(s + 1, ','))
			nu++;
		if (strncmp(decl, "void ", 5) || nu != imports[known].nargs)
			known = -1;
	}
	if (h->nimp < 64)
		bfmt(h->imp_names[h->nimp++], sizeof(h->imp_names[0]), "%s.%s", m, n);
	if (known >= 0)
		emit_import(g, decl, known);
	else {
		char name[160];
		decl_name(decl, name, sizeof(name));
		fprintf(g, "#pragma weak %s\n", name);
	}
}

/* Reads c.h: exports (name, C name, prototype), imports (forwarded into g
 * as they come), the memory, instantiate's parameters. */
static void scan_header(FILE *hf, FILE *g, struct hdr *h)
{
	char line[1024], pend[128] = "", m[64], n[96];
	int pending_export = 0, pending_import = 0;
	char pm[64] = "", pn[96] = "";
	while (fgets(line, sizeof(line), hf)) {
		if (sscanf(line, "/* export: '%95[^']' */", n) == 1) {
			bfmt(pend, sizeof(pend), "%s", n);
			pending_export = 1;
			continue;
		}
		if (sscanf(line, "/* import: '%63[^']' '%95[^']' */", m, n) == 2) {
			bfmt(pm, sizeof(pm), "%s", m);
			bfmt(pn, sizeof(pn), "%s", n);
			pending_import = 1;
			continue;
		}
		if (!strncmp(line, "extern wasm_rt_memory_t* ", 25) &&
		    strstr(line, "(struct Z_env_instance_t*)")) {
			char nm[160];
			decl_name(line, nm, sizeof(nm));
			if (!strcmp(nm, "Z_envZ_memory")) {
				h->env_mem = 1;
				if (h->nimp < 64)
					bfmt(h->imp_names[h->nimp++], sizeof(h->imp_names[0]), "env.memory");
			}
			continue;
		}
		if (!strncmp(line, "void Z_cz_instantiate(", 22)) {
			h->inst_env = strstr(line, "Z_env_instance_t") != NULL;
			h->inst_rt = strstr(line, "Z_runtime_instance_t") != NULL;
			continue;
		}
		if (pending_export) {
			pending_export = 0;
			char *semi = strrchr(line, ';');
			if (semi)
				*semi = 0;
			if (strstr(line, "wasm_rt_memory_t*")) {
				decl_name(line, h->mem_export, sizeof(h->mem_export));
				continue;
			}
			if (strstr(line, "wasm_rt_funcref_table_t*") || h->nexp == 256)
				continue;
			proto_of(line, h->exp_proto[h->nexp], sizeof(h->exp_proto[0]));
			decl_name(line, h->exp_c[h->nexp], sizeof(h->exp_c[0]));
			bfmt(h->exp_name[h->nexp], sizeof(h->exp_name[0]), "%s", pend);
			h->nexp++;
			continue;
		}
		if (pending_import) {
			pending_import = 0;
			char *semi = strrchr(line, ';');
			if (semi)
				*semi = 0;
			on_import(g, h, pm, pn, line);
		}
	}
}

/* circom 0.5's memory is the host's: as many pages as snarkjs gives it
 * (its stack starts at the top, so a circuit that runs there runs here). */
#define CZ_WENV_PAGES 32767

/* Writes glue.c from c.h: the exports, the imports, the instance. */
static int write_glue(const char *dir, const char *sha, char *err, size_t cap)
{
	char hp[4200], gp[4200];
	bfmt(hp, sizeof(hp), "%s/c.h", dir);
	bfmt(gp, sizeof(gp), "%s/glue.c", dir);
	FILE *hf = fopen(hp, "re"), *g = fopen(gp, "we");
	struct hdr *h = calloc(1, sizeof(*h));
	if (!hf || !g || !h) {
		bfmt(err, cap, "%s: %s", hf ? gp : hp, h ? strerror(errno) : "out of memory");
		if (hf)
			fclose(hf);
		if (g)
			fclose(g);
		free(h);
		return -1;
	}
	fputs(glue_head, g);
	scan_header(hf, g, h);
	fclose(hf);
	fputs("static const struct { const char *n, *p; void (*f)(void); } X[] = {\n", g);
	for (int i = 0; i < h->nexp; i++)
		fprintf(g, "  { \"%s\", \"%s\", (void (*)(void))%s },\n", h->exp_name[i],
			h->exp_proto[i], h->exp_c[i]);
	fputs("  { 0, 0, 0 } };\n", g);
	fputs("static const char *const I[] = {\n", g);
	for (int i = 0; i < h->nimp; i++)
		fprintf(g, "  \"%s\",\n", h->imp_names[i]);
	fputs("  0 };\n", g);
	if (h->env_mem)
		fputs("wasm_rt_memory_t *Z_envZ_memory(struct Z_env_instance_t *e) { return &e->m; }\n", g);
	fprintf(g, "static void g_inst(void *i, void *host) {\n  RT(i)->host = host;\n%s"
		   "  Z_cz_instantiate((Z_cz_instance_t *)i%s%s); }\n",
		h->env_mem ? "  H->mem_alloc(&ENV(i)->m, " CZ_STR(CZ_WENV_PAGES) ", 65536);\n" : "",
		h->inst_env ? ", ENV(i)" : "", h->inst_rt ? ", RT(i)" : "");
	if (h->mem_export[0])
		fprintf(g, "static wasm_rt_memory_t *g_mem(void *i) { return %s((Z_cz_instance_t *)i); }\n",
			h->mem_export);
	else if (h->env_mem)
		fputs("static wasm_rt_memory_t *g_mem(void *i) { return &ENV(i)->m; }\n", g);
	else
		fputs("static wasm_rt_memory_t *g_mem(void *i) { (void)i; return 0; }\n", g);
	fprintf(g,
		"struct { uint32_t abi; const char *sha; size_t size; void (*init)(const struct "
		"cz_wglue_host *);\n  void (*inst)(void *, void *); void (*rel)(void *); "
		"wasm_rt_memory_t *(*mem)(void *);\n  const void *x; const char *const *imports; }\n"
		"cz_wglue = { %d, \"%s\", sizeof(Z_cz_instance_t) + sizeof(struct Z_runtime_instance_t) "
		"+ sizeof(struct Z_env_instance_t), g_init, g_inst, g_free, g_mem, X, I };\n",
		CZ_WGLUE_ABI, sha);
	free(h);
	if (fclose(g)) {
		bfmt(err, cap, "%s: %s", gp, strerror(errno));
		return -1;
	}
	return 0;
}

static void rm_dir(const char *dir)
{
	static const char *files[] = { "c.wasm", "c.c", "c.h", "glue.c", "lib.so", "wasm2c.log",
				       "cc.log" };
	char p[4200];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		bfmt(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
}

/* The module's bytes and their SHA-256 (hex); the magic checked. */
static int read_wasm(const char *wasm_path, uint8_t **wasm, size_t *len, char *sha_hex, char *err,
		     size_t cap)
{
	uint8_t md[32];
	unsigned mdlen = 0;

	if (read_all(wasm_path, wasm, len, err, cap))
		return -1;
	if (*len < 8 || memcmp(*wasm, "\0asm", 4)) {
		bfmt(err, cap, "%s: not a WebAssembly module (no \\0asm magic)", wasm_path);
		free(*wasm);
		return -1;
	}
	if (!EVP_Digest(*wasm, *len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) {
		bfmt(err, cap, "%s: SHA-256 failed", wasm_path);
		free(*wasm);
		return -1;
	}
	for (int i = 0; i < 32; i++)
		sprintf(sha_hex + 2 * i, "%02x", md[i]);
	return 0;
}

/*
 * The field multiplication natively.  circom's runtime multiplies in its
 * own wasm: Fr_F1m_mul(x, y, r), a Montgomery product (R = 2^256) of the
 * 8 x 32-bit limbs at x and y into r, by 32-bit product scanning (64
 * limb products and 64 for the reduction, each an i64 multiplication of
 * the translated code), then one subtraction of q if the 257-bit result is
 * >= q.  It is half of a SHA-256 witness's time.  The same product by
 * 64-bit limbs (CIOS, unsigned __int128) is one tenth of that and gives
 * the same bits: for x, y < q the Montgomery quotient m < R with
 * x·y + m·q = 0 mod R is unique whatever the limb size, so t = (x·y + m·q)/R
 * < 2q is the same number, and both subtract q once iff t >= q.
 *
 * So the translated function is renamed ..._wasm and a new one put in its
 * place that takes the native path only when it is exactly that product:
 * the 32 bytes at the address the function compares against (q, read from
 * its own final Fr_int_gte call) hold BN254's or BLS12-381's scalar prime,
 * x < q and y < q, and all four operands lie inside the memory (so a
 * broken or hostile circuit takes the wasm's own path, bounds and traps
 * included); otherwise it calls ..._wasm.  A module without that function,
 * or whose text is not shaped as expected, is left as it is.
 */
static const char fmul_native[] =
	"\n/* cuzk: Fr_F1m_mul natively (synth/witness/build.c, patch_fmul) */\n"
	"static const u64 cz_fq[2][5] = {\n"
	"  { 0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull,\n"
	"    0x30644e72e131a029ull, 0xc2e1f593efffffffull },\n"
	"  { 0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,\n"
	"    0x73eda753299d7d48ull, 0xfffffffeffffffffull } };\n"
	"static int cz_lt4(const u64 *a, const u64 *b) {\n"
	"  for (int i = 3; i >= 0; i--) if (a[i] != b[i]) return a[i] < b[i];\n"
	"  return 0; }\n"
	/* the prime the module keeps at qa, if it is one of the two, in bounds */
	"static const u64 *cz_q_at(const wasm_rt_memory_t *M, u64 qa) {\n"
	"  u64 qm[4];\n"
	"  if (qa + 32 > M->size) return 0;\n"
	"  memcpy(qm, M->data + qa, 32);\n"
	"  for (int k = 0; k < 2; k++)\n"
	"    if (qm[0] == cz_fq[k][0] && qm[1] == cz_fq[k][1] && qm[2] == cz_fq[k][2] &&\n"
	"        qm[3] == cz_fq[k][3]) return cz_fq[k];\n"
	"  return 0; }\n"
	"static void w2c_Fr_F1m_mul(Z_cz_instance_t* instance, u32 x, u32 y, u32 r) {\n"
	"#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__\n"
	"  wasm_rt_memory_t *M = (@MEM@);\n"
	"  u64 a[4], b[4], t[4];\n"
	"  const u64 *q;\n"
	"  if ((u64)x + 32 > M->size || (u64)y + 32 > M->size || (u64)r + 32 > M->size ||\n"
	"      !(q = cz_q_at(M, @Q@u))) goto slow;\n"
	"  memcpy(a, M->data + x, 32);\n"
	"  memcpy(b, M->data + y, 32);\n"
	"  if (!cz_lt4(a, q) || !cz_lt4(b, q)) goto slow;\n"
	"  {\n"
	"    u64 t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5, c, m, q0 = q[0], q1 = q[1],\n"
	"        q2 = q[2], q3 = q[3], qi = q[4];\n"
	"    unsigned __int128 z;\n"
	"#define CZ_MA(d, s, u, v) (z = (unsigned __int128)(u) * (v) + (s) + c, d = (u64)z, c = (u64)(z >> 64))\n"
	"#define CZ_ROW(bi) do { \\\n"
	"    c = 0; CZ_MA(t0, t0, a[0], bi); CZ_MA(t1, t1, a[1], bi); \\\n"
	"    CZ_MA(t2, t2, a[2], bi); CZ_MA(t3, t3, a[3], bi); \\\n"
	"    z = (unsigned __int128)t4 + c; t4 = (u64)z; t5 = (u64)(z >> 64); \\\n"
	"    m = t0 * qi; c = 0; CZ_MA(t0, t0, m, q0); \\\n"
	"    CZ_MA(t0, t1, m, q1); CZ_MA(t1, t2, m, q2); CZ_MA(t2, t3, m, q3); \\\n"
	"    z = (unsigned __int128)t4 + c; t3 = (u64)z; t4 = t5 + (u64)(z >> 64); } while (0)\n"
	"    CZ_ROW(b[0]); CZ_ROW(b[1]); CZ_ROW(b[2]); CZ_ROW(b[3]);\n"
	"#undef CZ_ROW\n"
	"#undef CZ_MA\n"
	"    t[0] = t0; t[1] = t1; t[2] = t2; t[3] = t3;\n"
	"    if (t4 || !cz_lt4(t, q)) {\n"
	"      unsigned __int128 d = 0;\n"
	"      for (int j = 0; j < 4; j++) {\n"
	"        d = (unsigned __int128)t[j] - q[j] - (u64)(d >> 127); t[j] = (u64)d; }\n"
	"    }\n"
	"  }\n"
	"  memcpy(M->data + r, t, 32);\n"
	"  return;\n"
	"slow:\n"
	"#endif\n"
	"  w2c_Fr_F1m_mul_wasm(instance, x, y, r);\n"
	"}\n";

/*
 * And Fr_F1m_fromMontgomery(x, r) = x / R mod q, the step every comparison,
 * sign test and conversion to an integer takes (a SHA-256 witness spends 7%
 * in it): the wasm copies x to a scratch pair (x, 0), Montgomery-reduces it
 * with Fr_F1m_mReduct (writing only its own scratch) and adds the high half
 * (0) mod q.  For any x < 2^256 that is the unique u = (x + m·q)/R <= q,
 * then u - q if u = q: natively, four 64-bit reduction steps and the same
 * test.  Replaced only when its body is exactly that sequence (the scratch
 * pair's address T, T + 32) and the same q check as the product's passes;
 * the scratch is then left unwritten (no other function reads it).
 */
static const char fmont_native[] =
	"\n/* cuzk: Fr_F1m_fromMontgomery natively (synth/witness/build.c, patch_fmul) */\n"
	"static void w2c_Fr_F1m_fromMontgomery(Z_cz_instance_t* instance, u32 x, u32 r) {\n"
	"#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__\n"
	"  wasm_rt_memory_t *M = (@MEM@);\n"
	"  u64 a[4];\n"
	"  const u64 *q;\n"
	"  if ((u64)x + 32 > M->size || (u64)r + 32 > M->size || !(q = cz_q_at(M, @Q@u)))\n"
	"    goto slow;\n"
	"  memcpy(a, M->data + x, 32);\n"
	"  for (int i = 0; i < 4; i++) {\n"
	"    u64 m = a[0] * q[4], c;\n"
	"    unsigned __int128 z = (unsigned __int128)m * q[0] + a[0];\n"
	"    c = (u64)(z >> 64);\n"
	"    for (int j = 1; j < 4; j++) {\n"
	"      z = (unsigned __int128)m * q[j] + a[j] + c; a[j - 1] = (u64)z; c = (u64)(z >> 64); }\n"
	"    a[3] = c;\n"
	"  }\n"
	"  if (!cz_lt4(a, q))\n"
	"    memset(a, 0, sizeof(a));         /* u = q: the only u >= q */\n"
	"  memcpy(M->data + r, a, 32);\n"
	"  return;\n"
	"slow:\n"
	"#endif\n"
	"  w2c_Fr_F1m_fromMontgomery_wasm(instance, x, r);\n"
	"}\n";

/* The body fromMontgomery must have, word for word, for its scratch T. */
static int fmont_shape(const char *body, size_t n)
{
	unsigned long t = 0;
	const char *p = strstr(body, "  w2c_i1 = ");
	if (!p || (size_t)(p - body) >= n || sscanf(p, "  w2c_i1 = %luu;", &t) != 1 ||
	    t > 0xffffffbful)
		return 0;
	char want[640];
	int k = bfmt(want, sizeof(want),
		     " {\n  FUNC_PROLOGUE;\n  u32 w2c_i0, w2c_i1;\n  w2c_i0 = w2c_x;\n"
		     "  w2c_i1 = %luu;\n  w2c_Fr_int_copy(instance, w2c_i0, w2c_i1);\n"
		     "  w2c_i0 = %luu;\n  w2c_Fr_int_zero(instance, w2c_i0);\n"
		     "  w2c_i0 = %luu;\n  w2c_i1 = w2c_r;\n"
		     "  w2c_Fr_F1m_mReduct(instance, w2c_i0, w2c_i1);\n  FUNC_EPILOGUE;",
		     t, t + 32, t);
	return k > 0 && (size_t)k == n && !memcmp(body, want, n);
}

/* c.c (wasm2c's output at path) with Fr_F1m_mul replaced as above: 1, 2
 * with Fr_F1m_fromMontgomery as well, or 0 when the module has nothing to
 * replace (the file left as it is), -1 on an error. */
static int patch_fmul(const char *path, char *err, size_t cap)
{
	static const char head[] =
		"\nstatic void w2c_Fr_F1m_mul(Z_cz_instance_t* instance, u32 w2c_x, u32 w2c_y, "
		"u32 w2c_r) {\n";
	static const char ld[] = "i64_load32_u(";
	static const char gte[] = "w2c_i0 = w2c_Fr_int_gte(instance, w2c_i0, w2c_i1);";
	static const char mhead[] =
		"\nstatic void w2c_Fr_F1m_fromMontgomery(Z_cz_instance_t* instance, u32 w2c_x, "
		"u32 w2c_r)";
	uint8_t *buf;
	size_t len;
	int rc = 0;

	if (read_all(path, &buf, &len, err, cap))
		return -1;
	char *c = realloc(buf, len + 1);
	if (!c) {
		free(buf);
		bfmt(err, cap, "%s: out of memory", path);
		return -1;
	}
	c[len] = 0;
	char *f = strstr(c, head), *end = f ? strstr(f, "\n}\n") : NULL;
	if (!f || !end || strstr(end, head))
		goto out;                         /* none, or not one */
	/* the memory as the function addresses it, and q's address */
	char mem[128] = "", *l = strstr(f, ld), *g = NULL, *e;
	if (l && l < end && (e = strstr(l, ", (u64)")) && e < end &&
	    (size_t)(e - l) - (sizeof(ld) - 1) < sizeof(mem))
		bfmt(mem, sizeof(mem), "%.*s", (int)(e - l - (sizeof(ld) - 1)), l + sizeof(ld) - 1);
	for (char *s = f; (s = strstr(s, gte)) && s < end; s++)
		g = s;
	unsigned long qa = 0;
	char *n = g ? g - 1 : NULL;
	while (n && n > f && *n != '=')
		n--;                              /* "w2c_i1 = 608u;\n    " before it */
	if (!mem[0] || !n || n - 7 <= f || memcmp(n - 7, "w2c_i1 ", 7) ||
	    sscanf(n + 1, " %lu", &qa) != 1 || qa > 0xffffffe0ul)
		goto out;
	for (const char *s = mem; *s; s++)
		if (!strchr("&->_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", *s))
			goto out;
	FILE *o = fopen(path, "we");
	if (!o) {
		bfmt(err, cap, "%s: %s", path, strerror(errno));
		rc = -1;
		goto out;
	}
	char q[16];
	bfmt(q, sizeof(q), "%lu", qa);
	/* fromMontgomery too, where its body is the expected one */
	char *fm = strstr(c, mhead), *fme = fm ? strstr(fm, "\n}\n") : NULL;
	size_t mb = fm ? (size_t)(fm - c) + sizeof(mhead) - 1 : 0;
	if (!fm || !fme || strstr(fme, mhead) || !fmont_shape(c + mb, (size_t)(fme - (c + mb))))
		fm = NULL;
	/* everything up to each name's end, "_wasm", the rest, then the native ones */
	size_t cut[2] = { (size_t)(f - c) + strlen("\nstatic void w2c_Fr_F1m_mul"),
			  fm ? (size_t)(fm - c) + strlen("\nstatic void w2c_Fr_F1m_fromMontgomery")
			     : len };
	size_t lo = cut[0] < cut[1] ? cut[0] : cut[1], hi = cut[0] < cut[1] ? cut[1] : cut[0];
	fwrite(c, 1, lo, o);
	fputs("_wasm", o);
	fwrite(c + lo, 1, hi - lo, o);
	if (hi < len) {
		fputs("_wasm", o);
		fwrite(c + hi, 1, len - hi, o);
	}
	const char *nat[2] = { fmul_native, fm ? fmont_native : "" };
	for (int i = 0; i < 2; i++)
		for (const char *s = nat[i]; *s; s++) {
			if (!strncmp(s, "@MEM@", 5)) {
				fputs(mem, o);
				s += 4;
			} else if (!strncmp(s, "@Q@", 3)) {
				fputs(q, o);
				s += 2;
			} else
				fputc(*s, o);
		}
	rc = fm ? 2 : 1;
	if (ferror(o) | fclose(o)) {
		bfmt(err, cap, "%s: %s", path, strerror(errno));
		rc = -1;
	}
out:
	free(c);
	return rc;
}

/* Translate, glue and compile in the private directory tmp, then rename the
 * library onto lib; progress and where the time went on pr. */
static void stage(const struct cz_witness_opts *o, const char *s)
{
	if (o && o->stage)
		o->stage(o->stage_arg, s);
}

static int build_in(const char *tmp, const char *wasm_path, const uint8_t *wasm, size_t len,
		    const char *sha_hex, const char *lib, const struct cz_witness_opts *o, char *err,
		    size_t cap)
{
	FILE *pr = o ? o->progress : NULL;
	struct cz_witness_build_report *rep = o ? o->report : NULL;
	char p1[4300], p2[4300], p3[4300], e2[1024];

	bfmt(p1, sizeof(p1), "%s/c.wasm", tmp);
	if (write_file(p1, wasm, len, err, cap))
		return -1;
	if (pr)
		fprintf(pr, "witness: building %s (%zu KiB, sha256 %.16s...) into %s\n", wasm_path,
			len >> 10, sha_hex, lib);
	stage(o, "translate");
	double t0 = now_s();
	bfmt(p2, sizeof(p2), "%s/c.c", tmp);
	bfmt(p3, sizeof(p3), "%s/wasm2c.log", tmp);
	{
		char *argv[] = { "wasm2c", "-n", "cz", p1, "-o", p2, NULL };
		if (run(argv, p3, e2, sizeof(e2))) {
			bfmt(err, cap, "%s: %s", wasm_path, e2);
			return -1;
		}
	}
	int native = patch_fmul(p2, e2, sizeof(e2));
	if (native < 0) {
		bfmt(err, cap, "%s: %s", wasm_path, e2);
		return -1;
	}
	double t1 = now_s();
	if (pr && native)
		fprintf(pr, "witness: the field multiplication (Fr_F1m_mul)%s native, not "
			"translated\n", native > 1 ? " and Fr_F1m_fromMontgomery" : "");
	struct stat st;
	int have_st = !stat(p2, &st);
	if (pr && have_st)
		fprintf(pr, "witness: translate (wasm2c): %.2f s, %lld KiB of C\n", t1 - t0,
			(long long)st.st_size >> 10);
	if (rep) {
		rep->translate_s = t1 - t0;
		rep->c_bytes = have_st ? (uint64_t)st.st_size : 0;
	}
	stage(o, "compile");
	if (write_glue(tmp, sha_hex, e2, sizeof(e2))) {
		bfmt(err, cap, "%s: %s", wasm_path, e2);
		return -1;
	}
	const char *cc = getenv("CC"), *ol = getenv("CUZK_WITNESS_OPT");
	/* -O3 by default: circomlib SHA-256's witness runs ~15% faster than at -O2
	 * (and -O2 13% faster than -O1), a Poseidon Merkle proof's no slower, for a
	 * one-time compile 1.3-1.6x -O2's (docs/BENCHMARKS.md); CUZK_WITNESS_OPT=0..3
	 * (or s) picks another level for the next build, e.g. 1 for a huge circuit. */
	char opt[8] = "-O3";
	if (ol && (ol[0] == 's' || (ol[0] >= '0' && ol[0] <= '3')) && !ol[1])
		snprintf(opt, sizeof(opt), "-O%c", ol[0]);
	else if (ol && *ol && pr)
		fprintf(pr, "witness: CUZK_WITNESS_OPT=%s is not 0, 1, 2, 3 or s: -O3\n", ol);
	char g[4300], so[4300], lg[4300];
	bfmt(g, sizeof(g), "%s/glue.c", tmp);
	bfmt(so, sizeof(so), "%s/lib.so", tmp);
	bfmt(lg, sizeof(lg), "%s/cc.log", tmp);
	/* -fno-optimize-sibling-calls: a circuit's runaway recursion must reach the
	 * stack's guard page (a trap), not become a loop that never ends. */
	char *argv[] = { (char *)(cc && *cc ? cc : "cc"), "-std=gnu17", opt, "-fPIC",
			 "-shared", "-w", "-fno-strict-aliasing", "-fno-optimize-sibling-calls", "-I",
			 (char *)tmp, "-o", so, p2, g, NULL };
	if (pr) {
		fprintf(pr, "witness: compile (%s %s): ...\n", argv[0], opt);
		fflush(pr);
	}
	if (run(argv, lg, e2, sizeof(e2))) {
		bfmt(err, cap, "%s: %s", wasm_path, e2);
		return -1;
	}
	double t2 = now_s();
	if (rep) {
		rep->built = 1;
		rep->compile_s = t2 - t1;
	}
	if (pr)
		fprintf(pr, "witness: compile (%s %s): %.2f s; total %.2f s\n", argv[0], opt, t2 - t1,
			t2 - t0);
	if (rename(so, lib)) {
		bfmt(err, cap, "%s: rename onto %s: %s", so, lib, strerror(errno));
		return -1;
	}
	return 0;
}

int cz_wbuild(const char *wasm_path, const struct cz_witness_opts *o, char *lib, size_t libcap,
	      char *sha_hex, char *err, size_t cap)
{
	uint8_t *wasm = NULL;
	size_t len;
	char dir[4096], tmp[4200];

	if (read_wasm(wasm_path, &wasm, &len, sha_hex, err, cap))
		return -1;
	cache_dir(o, dir, sizeof(dir));
	if (o && o->out_lib)
		bfmt(lib, libcap, "%s", o->out_lib);
	else
		bfmt(lib, libcap, "%s/%s.so", dir, sha_hex);
	if (!(o && (o->rebuild || o->out_lib)) && access(lib, R_OK) == 0) {
		free(wasm);
		return 0;       /* built before */
	}
	if (o && o->out_lib) {
		/* build next to LIB: the rename stays within one file system */
		const char *sl = strrchr(o->out_lib, '/');
		if (sl)
			bfmt(dir, sizeof(dir), "%.*s", (int)(sl - o->out_lib), o->out_lib);
		else
			bfmt(dir, sizeof(dir), ".");
		if (!dir[0])
			bfmt(dir, sizeof(dir), "/");
	}
	if (mkdir_p(dir, err, cap)) {
		free(wasm);
		return -1;
	}
	/* a private directory: builders racing on one circuit (threads or
	 * processes) each write their own, and the rename picks one */
	bfmt(tmp, sizeof(tmp), "%s/%s.tmp.XXXXXX", dir, sha_hex);
	if (!mkdtemp(tmp)) {
		bfmt(err, cap, "%s: %s", tmp, strerror(errno));
		free(wasm);
		return -1;
	}
	int ret = build_in(tmp, wasm_path, wasm, len, sha_hex, lib, o, err, cap);
	rm_dir(tmp);
	free(wasm);
	return ret;
}
