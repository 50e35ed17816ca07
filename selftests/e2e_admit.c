/* SPDX-License-Identifier: MIT */
/* Description: admission against the spool's filesystem and under concurrent submits (issue 12, Admission): on a small tmpfs as the state directory, submits that fill it are refused "queue full" naming the bytes needed and free, the spool path and a retry hint, before the journal or proofs run out of room, and every accepted job still completes; a copy that meets a real ENOSPC midway (the free space misreported by a preloaded shim) leaves no spool file and no journal record and is answered clearly; with space freed a good job proves; 8 concurrent clients against --max-queued-partitions 6 on slow null devices: the daemon's open-partition count (status, and the trace's submits less finished partitions) never exceeds 6, accepted + refused = submitted, every accepted job completes; a retry of an accepted id while the queue is full gets its job back. */
#define _GNU_SOURCE
#define NWTNS 4
static const char *child_preload;       /* LD_PRELOAD for the next daemon_start(), NULL: none */
static void child_setup(void);
#define CZ_DAEMON_CHILD child_setup
#include "selftests/cz_daemon.h"
#include "zk/groth16/groth16.h"
#include "zk/io/snarkjs_json.h"

#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1     /* a sanitizer's runtime must be the first library: no shim */
#else
#define SANITIZED 0
#endif

#define TMPFS_SIZE (16u << 20)
#define MAXQ 6          /* --max-queued-partitions of the concurrency test */
#define CLIENTS 8
#define PER 12          /* submits per client, of 2 partitions each */

static struct cz_groth16_key key;
static uint64_t wsize;  /* a witness file's bytes */

static void child_setup(void)
{
	if (child_preload) {
		setenv("LD_PRELOAD", child_preload, 1);
		setenv("CZ_SPOOLFREE_BYTES", "1099511627776", 1);       /* 1 TiB "free" */
	}
}

static json_object *submit_n(struct daemon *d, const char *id, int n)
{
	char q[70 * 1024];
	snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"witnesses\":%s}", id, wlist(n));
	return daemon_req(d, q, NULL, 0);
}

/* Done within 120 s (a hung job fails its point rather than the run). */
static int await_ok(struct daemon *d, const char *id)
{
	json_object *r = daemon_await(d, id, 120);
	int ok = ok_of(r) && !strcmp(str_of(r, "state"), "done");
	if (!ok)
		ct_diag("await %s: %s", id, err_of(r));
	json_object_put(r);
	return ok;
}

static uint64_t fs_free(const char *p)
{
	struct statvfs v;
	return statvfs(p, &v) ? 0 : (uint64_t)v.f_bavail * v.f_frsize;
}

static uint64_t fs_block(const char *p)
{
	struct statvfs v;
	return statvfs(p, &v) ? 4096 : v.f_frsize;
}

static int files_gone(const char *p)
{
	for (int i = 0; i < 1500; i++) {        /* an ended job's spool files go after its end commits */
		if (files_in(p) == 0)
			return 1;
		usleep(10000);
	}
	return 0;
}

static int ballast(const char *path, uint64_t bytes)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	static char blk[1 << 16];
	memset(blk, 0x5a, sizeof(blk));
	uint64_t done = 0;
	while (done < bytes) {
		size_t k = bytes - done < sizeof(blk) ? (size_t)(bytes - done) : sizeof(blk);
		ssize_t w = write(fd, blk, k);
		if (w <= 0)
			break;
		done += (uint64_t)w;
	}
	close(fd);
	return done == bytes ? 0 : -1;
}

static json_object *status_admission(struct daemon *d, json_object **all)
{
	json_object *r = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *a = NULL;
	if (r)
		json_object_object_get_ex(r, "admission", &a);
	*all = r;
	return a;
}

static int64_t spool_field(struct daemon *d, const char *k)
{
	json_object *all, *a = status_admission(d, &all), *sp = NULL;
	if (a)
		json_object_object_get_ex(a, "spool", &sp);
	int64_t v = int_of(sp, k);
	json_object_put(all);
	return v;
}

/* A tmpfs of size bytes at path; 0, or -errno (the caller skips). */
static int tmpfs_at(const char *path, unsigned size)
{
	if (mkdir(path, 0750) && errno != EEXIST)
		return -errno;
	return mount("cuzk-e2e-admit", path, "tmpfs", 0, fmt("size=%u,mode=0750", size)) ? -errno : 0;
}

/*
 * Submits of 3 witnesses into a 16 MiB tmpfs state directory, a ballast
 * leaving room for about 2.5 of them beyond the reserve, the null devices
 * slow enough (1 s a partition) that none ends meanwhile: some are
 * accepted, then one is refused before the filesystem is full.
 */
static void test_spool_full(void)
{
	const int T = 8;
	char state[3 * PATH_MAX], spool[4 * PATH_MAX], bal[4 * PATH_MAX];
	snprintf(state, sizeof(state), "%s/sp-state", dir);
	snprintf(spool, sizeof(spool), "%s/spool", state);
	snprintf(bal, sizeof(bal), "%s/ballast", state);
	int m = tmpfs_at(state, TMPFS_SIZE);
	if (m) {
		ct_skip(fmt("cannot mount a tmpfs (%s): needs CAP_SYS_ADMIN", strerror(-m)), "spool full");
		skip_n(T - 1, "no tmpfs");
		return;
	}
	struct daemon d;
	const char *nul[] = { "--backend", "null", "--devices", "1", "--null-delay-ms", "1000", NULL };
	if (!ct_ok(daemon_start(&d, "sp", nul) == 0 && load_key(&d),
		   "cuzkd (null devices, 1 s a partition) on a %u MiB tmpfs state directory", TMPFS_SIZE >> 20)) {
		skip_n(T - 1, "no daemon");
		daemon_stop(&d);
		umount2(state, MNT_DETACH);
		return;
	}
	uint64_t blk = fs_block(state), need = 3 * ((wsize + blk - 1) / blk * blk);
	int64_t freeb = spool_field(&d, "free_bytes"), res = spool_field(&d, "reserve_bytes");
	uint64_t room = need * 5 / 2 + 3 * (64 << 10);
	int bal_ok = freeb > 0 && res > 0 && (uint64_t)freeb > (uint64_t)res + room &&
		     ballast(bal, (uint64_t)freeb - (uint64_t)res - room) == 0;
	int accepted = 0, refusals = 0;
	uint64_t f_before = 0, f_after = 0;
	char text[600] = "";
	json_object *r = NULL;
	for (int i = 0; bal_ok && i < 20 && !refusals; i++) {
		f_before = fs_free(state);
		r = submit_n(&d, fmt("s%d", i), 3);
		f_after = fs_free(state);
		if (ok_of(r))
			accepted++;
		else {
			refusals++;
			snprintf(text, sizeof(text), "%s", str_of(r, "error"));
			break;
		}
		json_object_put(r);
		r = NULL;
	}
	ct_diag("witness %llu bytes, block %llu; status said %lld free, %lld reserved; %d accepted; \"%s\"",
		(unsigned long long)wsize, (unsigned long long)blk, (long long)freeb, (long long)res, accepted, text);
	json_object *v;
	int qf = r && json_object_object_get_ex(r, "queue_full", &v) && json_object_get_boolean(v);
	int sf = r && json_object_object_get_ex(r, "spool_full", &v) && json_object_get_boolean(v);
	ct_ok(bal_ok && accepted >= 1 && accepted <= 4 && refusals == 1 && qf && sf && int_of(r, "retry_after_ms") > 0,
	      "a ballast leaving room for ~2.5 jobs: %d accepted, then one refused with queue_full, spool_full "
	      "and retry_after_ms %lld", accepted, (long long)int_of(r, "retry_after_ms"));
	/* The text names the bytes needed (computed here: 3 witnesses rounded
	 * up to the block), the spool path, the free bytes (between this
	 * side's statvfs before and after the submit) and a retry hint. */
	unsigned long long t_need = 0, t_free = 0;
	const char *pn = strstr(text, "they need "), *pf = strstr(text, "which has ");
	if (pn)
		t_need = strtoull(pn + 10, NULL, 10);
	if (pf)
		t_free = strtoull(pf + 10, NULL, 10);
	ct_ok(strstr(text, "queue full") && strstr(text, spool) && strstr(text, "retry in about") &&
	      t_need == need && t_free >= f_after && t_free <= f_before,
	      "the refusal names %llu bytes needed (%llu computed here), %llu free (%llu..%llu measured here), "
	      "the spool %s and a retry hint", t_need, (unsigned long long)need, t_free,
	      (unsigned long long)f_after, (unsigned long long)f_before, spool);
	json_object_put(r);
	json_object *all, *a = status_admission(&d, &all), *jo = NULL;
	if (all)
		json_object_object_get_ex(all, "journal", &jo);
	int jerr = jo && json_object_object_get_ex(jo, "error", &v);
	int64_t refused_sp = a ? int_of(json_object_object_get(a, "spool"), "refused") : -1;
	int64_t open = int_of(a, "open_partitions");
	json_object_put(all);
	ct_ok(all && !jerr && refused_sp == 1 && open >= 0 && open <= 3 * accepted && fs_free(state) >= (1u << 20),
	      "the daemon still answers: journal without error, spool.refused %lld, open_partitions %lld "
	      "(the refused job's places given back), %llu bytes still free on the filesystem",
	      (long long)refused_sp, (long long)open, (unsigned long long)fs_free(state));
	/* Every accepted job completes on that full filesystem: its proofs and
	 * end record had the room kept for them. */
	int done = 0;
	for (int i = 0; i < accepted; i++)
		done += await_ok(&d, fmt("s%d", i));
	ct_ok(done == accepted && files_gone(spool), "all %d accepted jobs complete (their proofs written on the "
	      "full tmpfs), and their spool files are removed", accepted);
	/* Space freed: a job is accepted again. */
	unlink(bal);
	r = submit_n(&d, "after", 3);
	int ok = ok_of(r);
	json_object_put(r);
	ct_ok(ok && await_ok(&d, "after"), "with the ballast removed, a job is accepted and completes");
	ct_ok(daemon_stop(&d) == 0, "cuzkd (null) stops cleanly");
	/* And the same state directory proves on the cpu backend. */
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "1", "--mem-budget", "1G", NULL };
	ok = daemon_start(&d, "sp", cpu) == 0 && load_key(&d);
	r = ok ? submit_n(&d, "good", 2) : NULL;
	ok = ok && ok_of(r) && await_ok(&d, "good") && proofs_verify(&key, fmt("%s/proofs/good", state), 2);
	json_object_put(r);
	ct_ok(ok, "restarted on the cpu backend over the same tmpfs, a good job of 2 partitions proves and verifies");
	daemon_stop(&d);
	umount2(state, MNT_DETACH);
}

/*
 * A 6 MiB tmpfs: a job of one witness fits, one of 200 can never (the
 * journal's and its proofs' reserve alone are most of the filesystem).
 */
static void test_never_fits(void)
{
	const int T = 3;
	char state[3 * PATH_MAX];
	snprintf(state, sizeof(state), "%s/tn-state", dir);
	int m = tmpfs_at(state, 6u << 20);
	if (m) {
		skip_n(T, fmt("cannot mount a tmpfs (%s): needs CAP_SYS_ADMIN", strerror(-m)));
		return;
	}
	struct daemon d;
	const char *nul[] = { "--backend", "null", "--devices", "1", NULL };
	json_object *r = NULL;
	int up = daemon_start(&d, "tn", nul) == 0 && load_key(&d) && ok_of(r = submit_n(&d, "one", 1)) &&
		 await_ok(&d, "one");
	json_object_put(r);
	ct_ok(up, "cuzkd on a 6 MiB tmpfs: a job of one witness is accepted and completes");
	r = up ? submit_n(&d, "huge", 200) : NULL;
	json_object *v;
	const char *e = str_of(r, "error");
	ct_ok(r && !ok_of(r) && strstr(e, "can never be spooled") && strstr(e, fmt("%s/spool", state)) &&
	      strstr(e, "holds ") && !json_object_object_get_ex(r, "retry_after_ms", &v),
	      "a job of 200 witnesses is refused as never fitting, naming the spool, without a retry hint: %s", e);
	json_object_put(r);
	r = up ? submit_n(&d, "two", 1) : NULL;
	ct_ok(ok_of(r) && await_ok(&d, "two") && daemon_stop(&d) == 0,
	      "the next job of one witness completes; cuzkd stops cleanly");
	json_object_put(r);
	if (!up)
		daemon_stop(&d);
	umount2(state, MNT_DETACH);
}

/*
 * A real ENOSPC midway: the daemon under spoolfree.so believes the spool
 * has 1 TiB free; the tmpfs has room for about 1.5 witnesses, so a job of
 * 3 fails at its second copy.
 */
static void test_enospc(const char *shim)
{
	const int T = 5;
	char state[3 * PATH_MAX], spool[4 * PATH_MAX], bal[4 * PATH_MAX], jpath[4 * PATH_MAX];
	snprintf(state, sizeof(state), "%s/ns-state", dir);
	snprintf(spool, sizeof(spool), "%s/spool", state);
	snprintf(bal, sizeof(bal), "%s/ballast", state);
	snprintf(jpath, sizeof(jpath), "%s/journal", state);
	if (SANITIZED || access(shim, R_OK)) {
		skip_n(T, SANITIZED ? "sanitizer build: the statvfs shim cannot be preloaded"
				    : "no spoolfree.so next to this test (make builds it)");
		return;
	}
	int m = tmpfs_at(state, TMPFS_SIZE);
	if (m) {
		skip_n(T, fmt("cannot mount a tmpfs (%s): needs CAP_SYS_ADMIN", strerror(-m)));
		return;
	}
	struct daemon d;
	const char *nul[] = { "--backend", "null", "--devices", "1", NULL };
	child_preload = shim;
	int up = daemon_start(&d, "ns", nul) == 0 && load_key(&d);
	child_preload = NULL;
	json_object *r = up ? submit_n(&d, "warm", 1) : NULL;
	up = up && ok_of(r) && await_ok(&d, "warm");
	json_object_put(r);
	int64_t seen = up ? spool_field(&d, "free_bytes") : -1;
	if (!ct_ok(up && seen >= (1ll << 40) - (1ll << 20), "cuzkd under spoolfree.so on a tmpfs: a first job "
		   "completes; status says the spool has %lld bytes free (the shim's lie)", (long long)seen)) {
		skip_n(T - 1, "no daemon");
		daemon_stop(&d);
		umount2(state, MNT_DETACH);
		return;
	}
	uint64_t blk = fs_block(state), fr = fs_free(state), keep = wsize + wsize / 2;
	int bal_ok = fr > keep && ballast(bal, (fr - keep) / blk * blk) == 0;
	struct stat j0, j1;
	json_object *all, *jo = NULL;
	status_admission(&d, &all);
	if (all)
		json_object_object_get_ex(all, "journal", &jo);
	int64_t rec0 = int_of(jo, "records");
	json_object_put(all);
	int st0 = stat(jpath, &j0), st1;
	r = submit_n(&d, "midway", 3);
	json_object *v;
	int sf = r && json_object_object_get_ex(r, "spool_full", &v) && json_object_get_boolean(v);
	const char *e = str_of(r, "error");
	ct_ok(bal_ok && !ok_of(r) && sf && int_of(r, "retry_after_ms") > 0 && strstr(e, "queue full") &&
	      strstr(e, "ran out of space at witness 1") && strstr(e, "No space left on device") && strstr(e, spool),
	      "with room for 1.5 witnesses, a job of 3 meets ENOSPC at its second copy and is refused: %s", e);
	json_object_put(r);
	usleep(200000);         /* a record, if one were appended, would be committed by now */
	status_admission(&d, &all);
	jo = NULL;
	if (all)
		json_object_object_get_ex(all, "journal", &jo);
	int64_t rec1 = int_of(jo, "records");
	json_object_put(all);
	st1 = stat(jpath, &j1);
	ct_ok(files_in(spool) == 0 && !st0 && !st1 && j1.st_size == j0.st_size && rec1 == rec0,
	      "no spool file is left and nothing was journaled (journal %lld -> %lld bytes, %lld -> %lld records)",
	      (long long)j0.st_size, (long long)j1.st_size, (long long)rec0, (long long)rec1);
	r = daemon_req(&d, "{\"op\":\"await\",\"job\":\"midway\",\"timeout\":1}", NULL, 0);
	ct_ok(r && !ok_of(r) && strstr(str_of(r, "error"), "unknown job"),
	      "the refused job is unknown to await: %s", str_of(r, "error"));
	json_object_put(r);
	unlink(bal);
	r = submit_n(&d, "after", 3);
	int ok = ok_of(r);
	json_object_put(r);
	ct_ok(ok && await_ok(&d, "after") && daemon_stop(&d) == 0,
	      "with the ballast removed the daemon accepts and completes a job of 3, and stops cleanly");
	umount2(state, MNT_DETACH);
}

/* ---- concurrent submits against a small bound ---- */

static struct daemon cd;
static _Atomic int n_acc, n_ref, n_other, clients_left;
static _Atomic int64_t max_open, min_open = INT64_MAX;
static char acc_ids[CLIENTS * PER][32];
static _Atomic int n_ids;

static void *client_main(void *v)
{
	int c = (int)(intptr_t)v;
	for (int i = 0; i < PER; i++) {
		const char *id = fmt("c%d-%d", c, i);
		json_object *r = submit_n(&cd, id, 2);
		if (ok_of(r)) {
			atomic_fetch_add(&n_acc, 1);
			snprintf(acc_ids[atomic_fetch_add(&n_ids, 1)], 32, "%s", id);
		} else if (r && strstr(str_of(r, "error"), "queue full") && int_of(r, "retry_after_ms") > 0) {
			atomic_fetch_add(&n_ref, 1);
			usleep(10000 + 2000 * (useconds_t)c);   /* the next one a little later: churn */
		} else {
			ct_diag("submit %s: %s", id, r ? str_of(r, "error") : "(no answer)");
			atomic_fetch_add(&n_other, 1);
		}
		json_object_put(r);
	}
	atomic_fetch_sub(&clients_left, 1);
	return NULL;
}

static void *poller_main(void *v)
{
	(void)v;
	while (atomic_load(&clients_left) > 0) {
		json_object *all, *a = status_admission(&cd, &all);
		int64_t o = int_of(a, "open_partitions");
		if (a && o > atomic_load(&max_open))
			atomic_store(&max_open, o);
		if (a && o < atomic_load(&min_open))
			atomic_store(&min_open, o);
		json_object_put(all);
		usleep(1000);
	}
	return NULL;
}

struct tev {
	int64_t ns;
	int d;
};

static int tev_cmp(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;
	return x->ns < y->ns ? -1 : x->ns > y->ns ? 1 : x->d < y->d ? -1 : x->d > y->d;   /* ends first at a tie */
}

static void test_concurrent(void)
{
	const int T = 6;
	struct daemon *d = &cd;
	const char *nul[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "20",
			      "--max-queued-partitions", "6", NULL };
	/* Warm first (each device's warm-up proof, the first partitions'
	 * setup), so the clients meet a queue that drains while they submit. */
	json_object *w = NULL;
	int up = daemon_start(d, "cc", nul) == 0 && load_key(d) && ok_of(w = submit_n(d, "warm", 2)) &&
		 await_ok(d, "warm");
	json_object_put(w);
	if (!ct_ok(up, "cuzkd: 2 null devices of 20 ms, --max-queued-partitions %d; a first job completes", MAXQ)) {
		skip_n(T - 1, "no daemon");
		return;
	}
	pthread_t cl[CLIENTS], po;
	atomic_store(&clients_left, CLIENTS);
	for (int c = 0; c < CLIENTS; c++)
		pthread_create(&cl[c], NULL, client_main, (void *)(intptr_t)c);
	pthread_create(&po, NULL, poller_main, NULL);
	for (int c = 0; c < CLIENTS; c++)
		pthread_join(cl[c], NULL);
	pthread_join(po, NULL);
	int acc = atomic_load(&n_acc), ref = atomic_load(&n_ref), oth = atomic_load(&n_other);
	ct_ok(acc + ref == CLIENTS * PER && oth == 0 && acc >= MAXQ / 2 && ref >= 1,
	      "%d clients x %d submits of 2 partitions: %d accepted + %d refused \"queue full\" = %d, no other answer",
	      CLIENTS, PER, acc, ref, acc + ref);
	ct_ok(atomic_load(&max_open) <= MAXQ && atomic_load(&min_open) >= 0,
	      "status's open_partitions, polled meanwhile, stayed within 0..%d (max seen %lld)", MAXQ,
	      (long long)atomic_load(&max_open));
	int done = 0;
	for (int i = 0; i < atomic_load(&n_ids); i++)
		done += await_ok(d, acc_ids[i]);
	json_object *all, *a = status_admission(d, &all);
	int64_t rf = int_of(a, "refused_full"), op = int_of(a, "open_partitions");
	json_object_put(all);
	ct_ok(done == acc && rf == ref && op == 0,
	      "every accepted job completes (%d of %d); refused_full %lld = the refusals; open_partitions back to %lld",
	      done, acc, (long long)rf, (long long)op);
	/* The trace's own count: a submit's partitions from its submit event
	 * (recorded once the job is durable) until each one's final_end. */
	char line[1024];
	static struct tev ev[4 * CLIENTS * PER * 2];
	int nev = 0, sub_parts = 0, ends = 0;
	FILE *f = daemon_trace_file(d, "cc-trace.jsonl");
	while (f && fgets(line, sizeof(line), f) && nev < (int)(sizeof(ev) / sizeof(ev[0])) - 1) {
		json_object *e = json_tokener_parse(line);
		const char *n = str_of(e, "ev");
		if (!strcmp(n, "submit")) {
			ev[nev++] = (struct tev){ int_of(e, "ns"), (int)int_of(e, "part") };
			sub_parts += (int)int_of(e, "part");
		} else if (!strcmp(n, "final_end") || !strcmp(n, "drop")) {
			ev[nev++] = (struct tev){ int_of(e, "ns"), -1 };
			ends++;
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
	qsort(ev, (size_t)nev, sizeof(ev[0]), tev_cmp);
	int cur = 0, peak = 0;
	for (int i = 0; i < nev; i++) {
		cur += ev[i].d;
		peak = cur > peak ? cur : peak;
	}
	ct_ok(sub_parts == 2 * acc + 2 && ends == 2 * acc + 2 && peak <= MAXQ && peak >= 2,
	      "the trace: %d partitions submitted and %d ended (2 x %d accepted, and the first job's 2), at most "
	      "%d open at once (bound %d)",
	      sub_parts, ends, acc, peak, MAXQ);
	ct_ok(daemon_stop(d) == 0, "cuzkd stops cleanly");
}

/* A retry of an accepted id while the queue is full gets its job back,
 * not "queue full" (it needs no place); a different job under the id is
 * still refused, and a new job is refused "queue full". */
static void test_retry_full(void)
{
	struct daemon *d = &cd;
	const char *nul[] = { "--backend", "null", "--devices", "1", "--null-delay-ms", "300",
			      "--max-queued-partitions", "2", NULL };
	json_object *a = NULL, *b = NULL, *a2 = NULL, *a3 = NULL;
	int up = daemon_start(d, "rf", nul) == 0 && load_key(d);
	if (up) {
		a = submit_n(d, "ra", 2);
		b = submit_n(d, "rb", 2);
		a2 = submit_n(d, "ra", 2);
		a3 = submit_n(d, "ra", 1);
	}
	ct_ok(up && ok_of(a) && !ok_of(b) && strstr(str_of(b, "error"), "queue full") && ok_of(a2) &&
	      !strcmp(str_of(a2, "existing"), "true") && int_of(a2, "seq") == int_of(a, "seq") && !ok_of(a3) &&
	      strstr(str_of(a3, "error"), "in use by a different job"),
	      "queue full (bound 2, a 2-partition job held): a retry of its id gets the job back (existing: %s), "
	      "a new job is refused (%s), a different job under the id is refused (%s)",
	      str_of(a2, "existing"), str_of(b, "error"), str_of(a3, "error"));
	ct_ok(up && await_ok(d, "ra") && daemon_stop(d) == 0, "retry: the job completes once; cuzkd stops cleanly");
	json_object_put(a);
	json_object_put(b);
	json_object_put(a2);
	json_object_put(a3);
}

int main(int argc, char **argv)
{
	char shim[2 * PATH_MAX + 32];
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-admit"))
		return 1;
	snprintf(shim, sizeof(shim), "%s/../selftests/spoolfree.so", bindir);
	ct_plan(25);
	struct stat st;
	if (!ct_ok(mkdtemp(dir) && fixtures_make(&key) == 0 && stat(fmt("%s/w0.wtns", dir), &st) == 0,
		   "fixtures: a 2^8 key and %d witnesses", NWTNS))
		return ct_exit();
	wsize = (uint64_t)st.st_size;
	test_spool_full();
	test_never_fits();
	test_enospc(shim);
	test_concurrent();
	test_retry_full();
	cz_groth16_key_free(&key);
	return e2e_end();
}
