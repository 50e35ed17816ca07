/* SPDX-License-Identifier: MIT */
/* Description: the real cuzkd under a heap-call counter (selftests/shim/heapcount.c), in cuzkd and in each device child (--isolation process, the default; CZ_ISOLATION=thread for threads): no engine thread makes a heap or mapping call over 100 partitions after the daemon's own warm-up, with no job before them (null and cpu backends); every engine thread is named cz-*; a witness truncated after submit fails its partition, not the daemon; an output error names its cause. */
#define _GNU_SOURCE     /* pthread_setname_np */
#include "ctl/ctl.h"
#include "zk/groth16/builtin.h"
#include "zk/io/groth16_io.h"
#include "selftests/cz_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1     /* a sanitizer's runtime must be the first library: no shim */
#else
#define SANITIZED 0
#endif

#define NWIT 16         /* witnesses 0-7 warm up, 8-15 are measured: new values */
#define JOBS 25
#define PARTS 4         /* JOBS × PARTS = 100 measured partitions */

static char shim[3 * PATH_MAX];
static uint64_t one_part_budget;
static int child_noxfsz;           /* the next daemon ignores SIGXFSZ */   /* the key and 1.5 partitions: one partition in flight */
static const char *child_count;    /* CZ_HEAPCOUNT for the next daemon; NULL: no shim */

static void daemon_child(void)
{
	if (child_count) {
		setenv("LD_PRELOAD", shim, 1);
		setenv("CZ_HEAPCOUNT", child_count, 1);
	}
	if (child_noxfsz)   /* past RLIMIT_FSIZE: a short write, then EFBIG, no signal */
		signal(SIGXFSZ, SIG_IGN);
}

#define CZ_DAEMON_CHILD daemon_child
#define CZ_DAEMON_ENV_ISOLATION
#include "selftests/cz_daemon.h"

static int make_fixtures(void)
{
	struct cz_cs cs;
	struct cz_groth16_key key;
	cz_fr *w = NULL;
	char err[256], p[2 * PATH_MAX];

	if (cz_builtin_build("merkle", 8, 1, &cs, &w, err) || cz_groth16_devsetup(&cs, 9, &key, NULL))
		return -1;
	snprintf(p, sizeof(p), "%s/k.zkey", dir);
	int rc = cz_groth16_key_save(&key, p, err, sizeof(err));
	uint64_t n = 1ull << key.log2n;
	uint64_t part = (uint64_t)key.nvars * 32 + 4 * n * 32;
	uint64_t kb = (key.npub + 1 + 3ull * key.nvars + n) * sizeof(cz_g1_affine) +
		      key.nvars * sizeof(cz_g2_affine) + key.ncoefs * sizeof(struct cz_groth16_coef) +
		      n * 2 * sizeof(cz_fr);
	one_part_budget = kb + part * 3 / 2;
	for (int i = 0; !rc && i < NWIT + 1; i++) {
		free(w);
		cz_cs_free(&cs);
		if (cz_builtin_build("merkle", 8, 300 + (uint64_t)i, &cs, &w, err))
			return -1;
		snprintf(p, sizeof(p), "%s/w%d.wtns", dir, i);
		rc = cz_wtns_save(p, w, cs.nvars, err, sizeof(err));
	}
	free(w);
	cz_cs_free(&cs);
	cz_groth16_key_free(&key);
	return rc;
}

/* ---- the shim's control files ---- */

static void touch(const char *base, const char *suffix)
{
	char p[4 * PATH_MAX];
	snprintf(p, sizeof(p), "%s%s", base, suffix);
	close(open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644));
}

/* Waits until base+suffix exists (want 1) or is gone (want 0); 10 s at most. */
static int wait_file(const char *base, const char *suffix, int want)
{
	char p[4 * PATH_MAX];
	snprintf(p, sizeof(p), "%s%s", base, suffix);
	for (int i = 0; i < 2000; i++) {
		if ((access(p, F_OK) == 0) == want)
			return 0;
		usleep(5000);
	}
	return -1;
}

static int arm(const char *base)
{
	char p[4 * PATH_MAX];
	snprintf(p, sizeof(p), "%s", base);
	unlink(p);
	touch(base, ".arm");
	return wait_file(base, ".arm", 0);
}

static int dump(const char *base)
{
	touch(base, ".dump");
	return wait_file(base, ".dump", 0) || wait_file(base, "", 1) ? -1 : 0;
}

struct tcount {
	char name[32];
	unsigned long long n[9];   /* malloc calloc realloc free memalign trim mmap munmap ring */
};

static int report_read(const char *base, struct tcount *t, int cap)
{
	FILE *f = fopen(base, "r");
	int n = 0, tid;
	if (!f)
		return -1;
	while (n < cap && fscanf(f, "%31s %d %llu %llu %llu %llu %llu %llu %llu %llu %llu", t[n].name, &tid,
				 &t[n].n[0], &t[n].n[1], &t[n].n[2], &t[n].n[3], &t[n].n[4], &t[n].n[5],
				 &t[n].n[6], &t[n].n[7], &t[n].n[8]) == 11)
		n++;
	fclose(f);
	return n;
}

static unsigned long long total(const struct tcount *t)
{
	unsigned long long s = 0;
	for (int i = 0; i < 9; i++)
		s += t->n[i];
	return s;
}

/* Engine threads (issue 9's names); cz-ctl* is the control plane, which
 * parses requests with json-c and may allocate per request. */
static int is_engine(const char *name)
{
	return !strncmp(name, "cz-", 3) && strncmp(name, "cz-ctl", 6);
}

/* ---- the planted check: the shim must see a cz- thread's heap calls ---- */

static void *planted(void *v)
{
	(void)v;
	pthread_setname_np(pthread_self(), "cz-final-x");
	for (int i = 0; i < 3; i++) {
		void *volatile p = malloc(100 + (size_t)i);
		free(p);
	}
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(m, 4096);
	return NULL;
}

static int plant_child(const char *base)
{
	pthread_t t;
	if (arm(base))
		return 2;
	pthread_create(&t, NULL, planted, NULL);
	pthread_join(t, NULL);
	return dump(base) ? 3 : 0;
}

/* The same in a descendant that exec'd with the shim's environment (as
 * cuzkd's device children do): its files are base.pid<its pid>. */
static int plant_desc(const char *self, const char *base)
{
	pid_t pid = fork();
	if (pid == 0) {
		char mine[4 * PATH_MAX];
		snprintf(mine, sizeof(mine), "%s.pid%d", base, (int)getpid());
		execl(self, self, "--plant", mine, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 4;
	return rc ? rc : plant_child(base);
}

static void test_plant(const char *self)
{
	char base[3 * PATH_MAX];
	struct tcount t[64];

	snprintf(base, sizeof(base), "%s/plant.count", dir);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("LD_PRELOAD", shim, 1);
		setenv("CZ_HEAPCOUNT", base, 1);
		execl(self, self, "--plant-desc", base, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	int n = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? report_read(base, t, 64) : -1;
	int found = 0, found_desc = 0, nd = -1;
	for (int i = 0; i < n; i++)
		if (!strcmp(t[i].name, "cz-final-x"))
			found = t[i].n[0] == 3 && t[i].n[3] == 3 && t[i].n[6] == 1 && t[i].n[7] == 1;
	/* the descendant's report: the one plant.count.pid<N> */
	DIR *dd = opendir(dir);
	for (struct dirent *e; dd && (e = readdir(dd));) {
		if (strncmp(e->d_name, "plant.count.pid", 15) || strchr(e->d_name + 15, '.'))
			continue;
		char p[3 * PATH_MAX];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		nd = report_read(p, t, 64);
		for (int i = 0; i < nd; i++)
			if (!strcmp(t[i].name, "cz-final-x"))
				found_desc = t[i].n[0] == 3 && t[i].n[3] == 3 && t[i].n[6] == 1 && t[i].n[7] == 1;
	}
	if (dd)
		closedir(dd);
	ct_ok(found && found_desc, "the shim catches a planted malloc: a thread named cz-final-x shows its 3 "
	      "mallocs, 3 frees, 1 mmap and 1 munmap, in the process (%d threads reported) and in its exec'd "
	      "descendant's own report (%d)", n, nd);
}

/* ---- the daemon ---- */

/* cuzkd under the counting shim when count is not NULL (its report base). */
static int daemon_start_counted(struct daemon *d, const char *name, const char *const *extra, const char *count)
{
	child_count = count;
	return daemon_start(d, name, extra);
}

static json_object *req(struct daemon *d, const char *json, int *fds, int nfds)
{
	return daemon_req(d, json, fds, nfds);
}

/* Input mode (issue 25): the key is circom's arith (compiled in the run),
 * loaded with its wasm, and each partition is an inline input whose
 * witness the synthesis worker computes. */
static int inputs_mode;

static int load_key(struct daemon *d)
{
	char q[3 * PATH_MAX];
	if (inputs_mode)
		snprintf(q, sizeof(q), "{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/arith.zkey\","
			 "\"wasm\":\"%s/arith_js/arith.wasm\"}", dir, dir);
	else
		snprintf(q, sizeof(q), "{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir);
	json_object *r = req(d, q, NULL, 0);
	int ok = ok_of(r);
	json_object_put(r);
	return ok ? 0 : -1;
}

/* Submits a job of PARTS witnesses first, first+1, ... (mod the range);
 * returns its id (static storage per call site) or NULL. */
static int submit_inputs(struct daemon *d, const char *id, int first, int range, int lo)
{
	char q[2048];
	int n = snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"inputs\":[", id);
	for (int i = 0; i < PARTS; i++) {
		int v = lo + (first + i) % range;
		n += snprintf(q + n, sizeof(q) - (size_t)n, "%s{\"a\": \"%d\", \"b\": %d, \"m\": [[\"1\", \"2\", \"0x%x\"], "
			      "[\"-%d\", \"5\", \"6\"]]}", i ? "," : "", 3 + v, 11 + v, v, v + 1);
	}
	snprintf(q + n, sizeof(q) - (size_t)n, "]}");
	json_object *r = req(d, q, NULL, 0);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("submit %s: %s", id, str_of(r, "error"));
	json_object_put(r);
	return ok ? 0 : -1;
}

static int submit(struct daemon *d, const char *id, int first, int range, int lo)
{
	char q[256], p[2 * PATH_MAX];
	int fds[PARTS];
	if (inputs_mode)
		return submit_inputs(d, id, first, range, lo);
	for (int i = 0; i < PARTS; i++) {
		snprintf(p, sizeof(p), "%s/w%d.wtns", dir, lo + (first + i) % range);
		fds[i] = open(p, O_RDONLY);
	}
	snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\"}", id);
	json_object *r = req(d, q, fds, PARTS);
	int ok = ok_of(r);
	if (!ok)
		ct_diag("submit %s: %s", id, str_of(r, "error"));
	json_object_put(r);
	for (int i = 0; i < PARTS; i++)
		close(fds[i]);
	return ok ? 0 : -1;
}

static int await_job(struct daemon *d, const char *id, char *why, size_t cap)
{
	json_object *r = daemon_await(d, id, 120);
	int ok = ok_of(r);
	if (why)
		snprintf(why, cap, "%s", ok ? "" : str_of(r, "error"));
	json_object_put(r);
	return ok ? 0 : -1;
}

/* The processes of the daemon: cuzkd, then its device children (status
 * devices[].pid, --isolation process: the default); their number. */
static int daemon_pids(struct daemon *d, int *pids, int cap)
{
	json_object *r = req(d, "{\"op\":\"status\"}", NULL, 0), *devs;
	int n = 0;
	pids[n++] = (int)d->pid;
	if (r && json_object_object_get_ex(r, "devices", &devs))
		for (size_t i = 0; i < json_object_array_length(devs) && n < cap; i++) {
			int pid = (int)int_of(json_object_array_get_idx(devs, i), "pid");
			if (pid > 0 && pid != (int)d->pid)
				pids[n++] = pid;
		}
	json_object_put(r);
	return n;
}

/* The shim's base for process k of daemon_pids (0: cuzkd's own). */
static void pid_base(char *out, size_t cap, const char *base, const int *pids, int k)
{
	if (k)
		snprintf(out, cap, "%s.pid%d", base, pids[k]);
	else
		snprintf(out, cap, "%s", base);
}

/* Every thread of the daemon's processes but their main ones is named
 * cz-*; the named roles are there (in cuzkd or a device child). */
static void test_names(struct daemon *d, const char *backend, const char *const *want)
{
	char p[64], comm[32], bad[256] = "", seen[1024] = "";
	int pids[1 + 32], np = daemon_pids(d, pids, 1 + 32);
	int n = 0, nbad = 0;

	for (int k = 0; k < np; k++) {
	snprintf(p, sizeof(p), "/proc/%d/task", pids[k]);
	DIR *dd = opendir(p);
	struct dirent *de;
	while (dd && (de = readdir(dd))) {
		if (de->d_name[0] == '.')
			continue;
		char cp[320];
		snprintf(cp, sizeof(cp), "/proc/%d/task/%s/comm", pids[k], de->d_name);
		FILE *f = fopen(cp, "r");
		if (!f || !fgets(comm, sizeof(comm), f)) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		n++;
		size_t l = strlen(seen);
		snprintf(seen + l, sizeof(seen) - l, " %s", comm);
		if (atoi(de->d_name) == pids[k] || !strcmp(comm, "heapcount") ||
		    !strncmp(comm, "iou-", 4))
			continue;       /* the process keeps its name; the shim's; the kernel's io_uring workers */
		if (strncmp(comm, "cz-", 3)) {
			l = strlen(bad);
			snprintf(bad + l, sizeof(bad) - l, " %s", comm);
			nbad++;
		}
	}
	if (dd)
		closedir(dd);
	}
	int missing = 0;
	for (; *want; want++) {
		char pat[40];
		snprintf(pat, sizeof(pat), " %s", *want);
		size_t l = strlen(pat);
		const char *s = seen;
		int hit = 0;
		while ((s = strstr(s, pat))) {
			hit |= s[l] == ' ' || s[l] == 0;
			s += l;
		}
		if (!hit) {
			ct_diag("%s: no thread named %s", backend, *want);
			missing++;
		}
	}
	ct_ok(n > 0 && !nbad && !missing, "%s: every engine thread is named cz-* and each role is there "
	      "(%d threads in %d process(es):%s)%s%s", backend, n, np, seen, nbad ? "; unnamed:" : "", bad);
}

/* Each consumer's "proved" from status, into out[]; how many consumers,
 * or -1. */
static int cons_proved(struct daemon *d, int64_t *out, int cap)
{
	json_object *r = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *cons;
	int n = -1;
	if (r && json_object_object_get_ex(r, "consumers", &cons)) {
		n = (int)json_object_array_length(cons);
		for (int i = 0; i < n && i < cap; i++)
			out[i] = int_of(json_object_array_get_idx(cons, i), "proved");
		n = n <= cap ? n : -1;
	}
	json_object_put(r);
	return n;
}

static void test_backend(const char *backend, const char *const *args, const char *const *names)
{
	struct daemon d;
	char base[3 * PATH_MAX], id[32], why[512];
	struct tcount t[256];

	snprintf(base, sizeof(base), "%s/%s.count", dir, backend);
	int started = daemon_start_counted(&d, backend, args, base) == 0;
	if (!ct_ok(started && load_key(&d) == 0,
		   "%s: cuzkd starts under the heap counter and loads a 2^8 key", backend)) {
		if (started)
			daemon_stop(&d);
		for (int i = 0; i < 5; i++)
			ct_skip("no daemon", "%s: test %d", backend, i + 2);
		return;
	}
	/* Only the daemon's own warm-up (issue 24: a consumer's first
	 * partitions after it used to make heap calls, and this test covered
	 * that by proving jobs until every consumer had one): no job before
	 * the measured window, which must then reach every consumer. */
	int bad = !daemon_wait_warm(&d);
	/* Input jobs: a worker makes its wasm instance (and the witness
	 * scratch the null backend computes into) at its first input
	 * partition: that is their warm-up, 4 jobs before the window (values
	 * 16-23: inputs no shorter than the measured ones, so the input
	 * buffer does not grow in it). */
	for (int k = 0; inputs_mode && !bad && k < 4; k++) {
		snprintf(id, sizeof(id), "w%d", k);
		bad |= submit(&d, id, k * PARTS, 8, 16) || await_job(&d, id, why, sizeof(why));
	}
	int64_t before[64];
	int ncons = cons_proved(&d, before, 64);
	/* cuzkd and, in process isolation, each device child: counted apart */
	int pids[1 + 32], np = daemon_pids(&d, pids, 1 + 32);
	char pb[3 * PATH_MAX + 32];
	int armed = !bad;
	for (int k = 0; k < np; k++) {
		pid_base(pb, sizeof(pb), base, pids, k);
		armed &= arm(pb) == 0;
	}
	/* Measured: witnesses 8-15 (values the warm-up never saw). */
	for (int k = 0; armed && k < JOBS; k++) {
		snprintf(id, sizeof(id), "m%d", k);
		bad |= submit(&d, id, k * PARTS, 8, 8);
	}
	for (int k = 0; armed && k < JOBS; k++) {
		snprintf(id, sizeof(id), "m%d", k);
		if (await_job(&d, id, why, sizeof(why))) {
			ct_diag("%s: job %s: %s", backend, id, why);
			bad = 1;
		}
	}
	int n = 0;
	for (int k = 0; k < np && n >= 0; k++) {
		pid_base(pb, sizeof(pb), base, pids, k);
		int m = armed && !bad && dump(pb) == 0 ? report_read(pb, t + n, 256 - n) : -1;
		n = m < 0 ? -1 : n + m;
	}
	int64_t after[64];
	/* Which consumers the window reached is the order thread's choice
	 * (a consumer may keep its device); each one reached had its first
	 * partitions of this key inside it. */
	int reached = 0;
	if (ncons > 0 && cons_proved(&d, after, 64) == ncons)
		for (int k = 0; k < ncons; k++)
			reached += after[k] > before[k];
	ct_ok(armed && !bad && n > 0 && reached > 0, "%s: after the daemon's warm-up alone, %d measured "
	      "partitions, all proved, %d of its %d consumers proving some (%d threads of %d process(es) "
	      "reported heap calls)", backend, JOBS * PARTS, reached, ncons, n, np);
	unsigned long long ctl = 0, eng = 0;
	for (int i = 0; i < n; i++) {
		unsigned long long s = total(&t[i]);
		if (is_engine(t[i].name)) {
			eng += s;
			ct_diag("%s: %s: malloc %llu calloc %llu realloc %llu free %llu memalign %llu trim %llu "
				"mmap %llu munmap %llu ring %llu", backend, t[i].name, t[i].n[0], t[i].n[1],
				t[i].n[2], t[i].n[3], t[i].n[4], t[i].n[5], t[i].n[6], t[i].n[7], t[i].n[8]);
		} else if (!strncmp(t[i].name, "cz-ctl", 6)) {
			ctl += s;
		}
	}
	ct_ok(n > 0 && ctl > 0, "%s: the counter is live in the daemon: the control plane made %llu heap "
	      "calls for %d requests", backend, ctl, 2 * JOBS);
	ct_ok(n > 0 && eng == 0, "%s: engine threads (cz-disp, cz-synth*, cz-order, cz-cons*, cz-pool*, "
	      "cz-final*) made %llu heap or mapping calls over %d partitions (%.2f per partition)", backend,
	      eng, JOBS * PARTS, (double)eng / (JOBS * PARTS));
	test_names(&d, backend, names);
	ct_ok(daemon_stop(&d) == 0, "%s: cuzkd stops on SIGTERM with status 0", backend);
}

/* ---- input jobs: the witness computed in the synthesis workers ---- */

/* The null backend with input partitions: after warm-up, the synthesis
 * workers compute 100 witnesses from inputs (the input's JSON read in
 * place, the wasm instance reset between runs) with no heap or mapping
 * call (the null backend computes an input's witness too, into a worker's
 * scratch; its inputs were once all refused and the count was of nothing).  Needs node, the fixtures' circom2 and wasm2c (else skipped). */
static void test_inputs(void)
{
	const char *why = NULL;
	static char cmd[12 * PATH_MAX];
	if (SANITIZED || access(shim, R_OK))
		why = SANITIZED ? "sanitizer build: the heap counter cannot be preloaded" : "no heapcount.so";
	else if (system("command -v node >/dev/null 2>&1 && command -v wasm2c >/dev/null 2>&1") ||
		 access("tools/fixtures/node_modules/circom2/cli.js", R_OK))
		why = "node, wasm2c or tools/fixtures/node_modules (circom2) missing";
	if (!why) {
		snprintf(cmd, sizeof(cmd), "node tools/fixtures/node_modules/circom2/cli.js "
			 "selftests/data/witness/arith.circom --r1cs --wasm --prime bls12381 -l "
			 "tools/fixtures/node_modules -o %s >%s/arith.log 2>&1 && %s/cuzk devsetup --r1cs "
			 "%s/arith.r1cs --out-zkey %s/arith.zkey --out-vk %s/arith_vk.json >>%s/arith.log 2>&1",
			 dir, dir, bindir, dir, dir, dir, dir);
		if (system(cmd))
			why = "circom2 or devsetup failed on arith (see its log)";
	}
	if (why) {
		for (int i = 0; i < 6; i++)
			ct_skip(why, "input jobs: heap count %d", i + 1);
		return;
	}
	inputs_mode = 1;
	const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "1",
			      "--synth-workers", "2", "--mem-budget", "64M", NULL };
	const char *names[] = { "cz-disp", "cz-synth0", "cz-synth1", "cz-order", "cz-final", NULL };
	test_backend("null-inputs", nul, names);
	inputs_mode = 0;
}

/* ---- a witness truncated after submit (issue 12, defect 2) ---- */

static void test_truncate(void)
{
	struct daemon d;
	char budget[32];
	snprintf(budget, sizeof(budget), "%llu", (unsigned long long)one_part_budget);
	const char *args[] = { "--backend", "cpu", "--device-threads", "1", "--synth-workers", "1",
			       "--mem-budget", budget, NULL };
	char p[2 * PATH_MAX], src[2 * PATH_MAX], why[512];

	int started = daemon_start_counted(&d, "trunc", args, NULL) == 0;
	if (!ct_ok(started && load_key(&d) == 0, "truncate: cuzkd (cpu) starts and loads the key")) {
		if (started)
			daemon_stop(&d);
		for (int i = 0; i < 4; i++)
			ct_skip("no daemon", "truncate: test %d", i + 2);
		return;
	}
	/* A backlog ahead of it, so the victim's witness is read well after
	 * it is cut: the budget lets one partition in flight at a time, and
	 * the victim is low priority, so 24 proofs come first. */
	int bad = 0;
	for (int k = 0; k < 6; k++) {
		char id[16];
		snprintf(id, sizeof(id), "b%d", k);
		bad |= submit(&d, id, k, 8, 0);
	}
	snprintf(src, sizeof(src), "%s/w%d.wtns", dir, NWIT);
	snprintf(p, sizeof(p), "%s/victim.wtns", dir);
	char cmd[5 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "cp %s %s", src, p);
	bad |= system(cmd) != 0;
	int fd = open(p, O_RDONLY);
	json_object *r = req(&d, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"victim\",\"priority\":\"low\"}",
			     &fd, 1);
	int sub = ok_of(r);
	if (!sub)
		ct_diag("truncate: submit: %s", str_of(r, "error"));
	json_object_put(r);
	close(fd);
	bad |= truncate(p, 100) != 0;   /* the client cuts its file after submit */
	/* The daemon proves its own spooled copy (engine/durable/spool.c), made
	 * before submit answered: what the client does to its file after
	 * that cannot reach the job. */
	int proved = sub && await_job(&d, "victim", why, sizeof(why)) == 0;
	ct_ok(!bad && proved, "truncate: a witness cut to 100 bytes after submit does not touch the job: "
	      "it is proved from the spool's copy, the daemon is not killed (SIGBUS)%s%s",
	      proved ? "" : ": ", proved ? "" : why);
	/* An output error names its step, file and cause (not "out of memory"):
	 * the job's directory is taken by a plain file. */
	char blk[3 * PATH_MAX];
	snprintf(blk, sizeof(blk), "%s/trunc-state/proofs/blocked", dir);
	close(open(blk, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	int berr = submit(&d, "blocked", 0, 8, 0) == 0 && await_job(&d, "blocked", why, sizeof(why)) != 0;
	ct_ok(berr && strstr(why, "writing proofs: open ") && strstr(why, "blocked: Not a directory"),
	      "output: a job whose directory cannot be made fails with the step, path and cause (%s)", why);
	int alive = 1;
	for (int k = 0; k < 6; k++) {
		char id[16];
		snprintf(id, sizeof(id), "b%d", k);
		alive &= await_job(&d, id, NULL, 0) == 0;
	}
	alive &= submit(&d, "after", 0, 8, 0) == 0 && await_job(&d, "after", why, sizeof(why)) == 0;
	ct_ok(alive, "truncate: the jobs around it and a job submitted afterwards are proved");
	ct_ok(daemon_stop(&d) == 0, "truncate: cuzkd stops on SIGTERM with status 0");
}

/* A write the kernel cuts short is resubmitted for the rest, not reported
 * as a failure: with RLIMIT_FSIZE set to 1000 bytes once the daemon runs
 * (its buffer region, a memfd, is made at start), a proof.json (~1.1 kB)
 * gets a short write of 1000 bytes, the rest is resubmitted and fails with
 * EFBIG, and the job's error names that (the old writer said "short
 * write"). */
static void test_short_write(void)
{
	struct daemon d;
	const char *args[] = { "--backend", "cpu", "--device-threads", "1", "--mem-budget", "64M", NULL };
	char why[512];

	child_noxfsz = 1;
	int started = daemon_start_counted(&d, "fsize", args, NULL) == 0;
	child_noxfsz = 0;
	struct rlimit rl = { 1000, 1000 };
	/* The limit once the job is accepted (its witnesses, ~20 kB each, are
	 * spooled before submit answers), long before its 8 proofs are
	 * written; the journal stays below 1000 bytes meanwhile. */
	int failed = started && load_key(&d) == 0 && submit(&d, "short", 0, 8, 0) == 0 &&
		     prlimit(d.pid, RLIMIT_FSIZE, &rl, NULL) == 0 && await_job(&d, "short", why, sizeof(why)) != 0;
	ct_ok(failed && strstr(why, "writing proofs: write ") && strstr(why, ".proof.json: File too large"),
	      "output: a short write is resubmitted; its rest's error is the job's (%s)", failed ? why : "");
	if (started)
		daemon_stop(&d);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];

	if (argc == 3 && !strcmp(argv[1], "--plant"))
		return plant_child(argv[2]);
	if (!realpath(argv[0], self))
		return 1;
	if (argc == 3 && !strcmp(argv[1], "--plant-desc"))
		return plant_desc(self, argv[2]);
	char sd[PATH_MAX];
	snprintf(sd, sizeof(sd), "%s", self);
	char *sdir = dirname(sd);
	snprintf(bindir, sizeof(bindir), "%s/../bin", sdir);
	snprintf(shim, sizeof(shim), "%s/heapcount.so", sdir);
	snprintf(dir, sizeof(dir), "/tmp/cuzk-heap-XXXXXX");
	signal(SIGPIPE, SIG_IGN);
	ct_plan(1 + 1 + 2 * 6 + 6 + 5 + 1);
	if (!ct_ok(mkdtemp(dir) && make_fixtures() == 0, "fixtures: a 2^8 dev key and %d witnesses", NWIT + 1))
		return ct_exit();
	if (SANITIZED || access(shim, R_OK)) {
		for (int i = 0; i < 1 + 2 * 6; i++)
			ct_skip(SANITIZED ? "sanitizer build: the heap counter cannot be preloaded"
					  : "no heapcount.so next to this test", "heap count %d", i + 1);
	} else {
		test_plant(self);
		const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "1",
				      "--synth-workers", "2", "--mem-budget", "64M", NULL };
		const char *nul_names[] = { "cz-disp", "cz-synth0", "cz-synth1", "cz-order", "cz-cons0.0",
					    "cz-cons1.0", "cz-cons0.1", "cz-cons1.1", "cz-final", "cz-final1",
					    "cz-final-io", "cz-ctl-accept", NULL };
		test_backend("null", nul, nul_names);
		const char *cpu[] = { "--backend", "cpu", "--device-threads", "2", "--synth-workers", "1",
				      "--mem-budget", "64M", NULL };
		const char *cpu_names[] = { "cz-disp", "cz-synth0", "cz-order", "cz-cons0.0", "cz-cons0.1",
					    "cz-pool0.1", "cz-final", "cz-final1", "cz-final-io", "cz-ctl-accept", NULL };
		test_backend("cpu", cpu, cpu_names);
	}
	test_inputs();
	test_truncate();
	test_short_write();
	return e2e_end();
}
