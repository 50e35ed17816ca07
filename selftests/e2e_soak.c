/* SPDX-License-Identifier: MIT */
/* Description: the issue 24 soak: 5 clients submit 300 two-partition jobs (own ids, mixed priorities, an unanswered submit retried with its id) to cuzkd (cpu backend, process isolation, watchdog, proofs/ on a small tmpfs) while a seeded fault loop (CZ_SOAK_SEED replays one) kills it with -9 and restarts it, SIGSTOPs its device child past the watchdog bound, stops it and flips a byte inside one journal submit record in the middle, and fills proofs/ then frees it; at the end every accepted job is done exactly once with verifying proofs, except exactly the jobs whose records were damaged, as the restarted daemon's log names them. */
#define NWTNS 4
#define CZ_DAEMON_WATCH_EXIT
#include "selftests/cz_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CLIENTS 5
#define PER 60
#define JOBS (CLIENTS * PER)
#define PARTS 2
#define NFAULT 9
#define MAXRUNS 32
#define UID0 65520      /* client c runs as uid and gid UID0 + c: unprivileged, none an admin */

enum fault { KILL, STOP, CORRUPT, FILL };
static const char *fault_name[] = { "kill -9", "SIGSTOP", "corrupt", "fill" };

static struct cz_groth16_key key;
static char state[2 * PATH_MAX], proofs[3 * PATH_MAX], filler[4 * PATH_MAX], journal[3 * PATH_MAX];
static pthread_mutex_t sock_lock = PTHREAD_MUTEX_INITIALIZER;
static char cur_sock[2 * PATH_MAX];
static _Atomic int accepted, retried, clients_done;
static int64_t seq_of[JOBS];            /* the seq of each job's last ok answer */
static int runs;

static const char *id_of(int n)
{
	return fmt("c%d-%d", n / PER, n % PER);
}

static int start(struct daemon *d)
{
	const char *args[] = { "--state-dir", state, "--backend", "cpu", "--device-threads", "1", "--devices", "1",
			       "--mem-budget", "256M", "--load", fmt("k=%s/k.zkey", dir), "--retain", "7d",
			       "--isolation", "process", "--watchdog-factor", "4", "--watchdog-floor-ms", "1000",
			       "--output-retry-max-ms", "300", "--socket-mode", "0666" /* the clients' uids */, NULL };
	int rc = daemon_start(d, fmt("soak%d", runs++), args);
	pthread_mutex_lock(&sock_lock);
	snprintf(cur_sock, sizeof(cur_sock), "%s", d->sock);
	pthread_mutex_unlock(&sock_lock);
	return rc;
}

static void kill9(struct daemon *d)
{
	int st;
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &st, 0);
	}
	d->pid = 0;
}

/* This thread only becomes uid (and gid) uid: the raw system calls, since
 * glibc's wrappers change every thread of the process (the test's main
 * thread stays root, to stop and corrupt).  The daemon takes a client's uid
 * from SO_PEERCRED, the connecting thread's own credentials. */
static int thread_become(uid_t uid)
{
	gid_t g = (gid_t)uid;
	return syscall(SYS_setgroups, 1, &g) || syscall(SYS_setresgid, g, g, g) || syscall(SYS_setresuid, uid, uid, uid) ||
	       geteuid() != uid;
}

static _Atomic int dropped;

static void *client_main(void *v)
{
	static const char *prio[] = { "low", "normal", "high", "critical" };
	int c = (int)(intptr_t)v;
	uint64_t s = 0x50a4 + (uint64_t)c;
	if (thread_become(UID0 + (uid_t)c)) {
		clients_done++;
		return NULL;
	}
	dropped++;
	for (int i = 0; i < PER; i++) {
		int n = c * PER + i;
		char sock[2 * PATH_MAX];
		const char *p = prio[ct_splitmix64(&s) % 4];
		/* opened as this uid (the kernel checks its right to read them)
		 * and passed as descriptors: only admins may name paths */
		int fds[PARTS];
		for (int k = 0; k < PARTS; k++)
			fds[k] = open(fmt("%s/w%d.wtns", dir, (n + k) % NWTNS), O_RDONLY | O_CLOEXEC);
		for (int tries = 0; tries < 6000 && fds[0] >= 0 && fds[PARTS - 1] >= 0; tries++) {
			pthread_mutex_lock(&sock_lock);
			snprintf(sock, sizeof(sock), "%s", cur_sock);
			pthread_mutex_unlock(&sock_lock);
			json_object *r = sock_req(sock, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\","
							    "\"priority\":\"%s\"}", id_of(n), p), fds, PARTS);
			int ok = ok_of(r);
			if (ok)
				seq_of[n] = int_of(r, "seq");
			else if (r && !tries && i < 2)
				ct_diag("client %d: %s refused: %s", c, id_of(n), err_of(r));
			json_object_put(r);
			if (ok) {
				accepted++;
				break;
			}
			retried++;
			usleep(20000);
		}
		for (int k = 0; k < PARTS; k++)
			if (fds[k] >= 0)
				close(fds[k]);
	}
	clients_done++;
	return NULL;
}

static json_object *status(struct daemon *d)
{
	return daemon_req(d, "{\"op\":\"status\"}", NULL, 0);
}

static int64_t dev0(struct daemon *d, const char *k, char *st, size_t cap)
{
	json_object *r = status(d), *devs;
	int64_t v = -1;
	if (ok_of(r) && json_object_object_get_ex(r, "devices", &devs) && json_object_array_length(devs) > 0) {
		json_object *o = json_object_array_get_idx(devs, 0);
		v = int_of(o, k);
		if (st)
			snprintf(st, cap, "%s", str_of(o, "state"));
	}
	json_object_put(r);
	return v;
}

static int busy0(struct daemon *d)
{
	json_object *r = status(d), *cons;
	int busy = 0;
	if (ok_of(r) && json_object_object_get_ex(r, "consumers", &cons))
		for (size_t k = 0; k < json_object_array_length(cons); k++)
			busy |= !strcmp(str_of(json_object_array_get_idx(cons, k), "state"), "busy");
	json_object_put(r);
	return busy;
}

/* The device child stopped while busy until the watchdog finds it hung
 * (status hangs grows), then continued and its successor awaited: 1 when
 * found; 0 when never busy (nothing to hang) or never found. */
static int fault_stop(struct daemon *d, int *idle)
{
	int64_t h0 = dev0(d, "hangs", NULL, 0);
	int pid = (int)dev0(d, "pid", NULL, 0), busy = 0;
	/* as e2e_devproc's stop_busy: stopped while status (frozen with the
	 * child) still says busy, else continued and tried again */
	for (int k = 0; k < 50 && pid > 0 && !busy; k++) {
		for (int i = 0; i < 2000 && !busy0(d); i++)
			usleep(1000);
		if (kill(pid, SIGSTOP))
			break;
		usleep(20000);
		if (!(busy = busy0(d)))
			kill(pid, SIGCONT);
	}
	if (!busy) {
		*idle = 1;
		return 0;
	}
	int64_t h = h0;
	for (int i = 0; i < 3000 && h <= h0; i++) {
		usleep(10000);
		h = dev0(d, "hangs", NULL, 0);
	}
	kill(pid, SIGCONT);
	char st[32] = "";
	for (int i = 0; i < 3000; i++) {
		int np = (int)dev0(d, "pid", st, sizeof(st));
		if (np > 0 && np != pid && !strcmp(st, "ready"))
			break;
		usleep(10000);
	}
	if (h <= h0)
		ct_diag("device child %d stopped while busy: not found hung (hangs %lld)", pid, (long long)h);
	return h > h0;
}

/* The seqs of the journal's submit records, in order (the documented
 * framing after an 8-byte header: u32 length, u32 CRC, JSON payload). */
static char rec_id[4 * JOBS][64];       /* the id of each record sub_records found */

static int sub_records(int64_t *seqs, long *offs, int cap)
{
	static uint8_t b[4 << 20];
	FILE *f = fopen(journal, "rb");
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
	int k = 0;
	if (f)
		fclose(f);
	for (size_t off = 8; off + 8 <= n && k < cap;) {
		uint32_t len = (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
			       (uint32_t)b[off + 3] << 24;
		if (off + 8 + len > n)
			break;
		char *txt = strndup((const char *)b + off + 8, len), *p;
		if (txt && strstr(txt, "\"t\":\"sub\"") && (p = strstr(txt, "\"seq\":"))) {
			seqs[k] = strtoll(p + 6, NULL, 10);
			char *q = strstr(txt, "\"id\":\"");
			snprintf(rec_id[k], sizeof(rec_id[k]), "%.*s", q ? (int)strcspn(q + 6, "\"") : 0, q ? q + 6 : "");
			offs[k++] = (long)(off + 8 + len / 2);
		}
		free(txt);
		off += 8 + len;
	}
	return k;
}

/* The sequence numbers the log reports lost ("sequence numbers from A to
 * B have no submit record left"), added to lost[]. */
static int log_lost(const char *log, int64_t *lost, int nl, int cap)
{
	FILE *f = fopen(log, "r");
	char line[4096];
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "sequence numbers from ");
		long long a, b;
		if (p && strstr(p, "have no submit record left") && sscanf(p, "sequence numbers from %lld to %lld", &a, &b) == 2)
			for (long long s = a; s <= b && nl < cap; s++)
				lost[nl++] = s;
	}
	if (f)
		fclose(f);
	return nl;
}

static int in(const int64_t *a, int n, int64_t v)
{
	for (int i = 0; i < n; i++)
		if (a[i] == v)
			return 1;
	return 0;
}

static int64_t damaged[NFAULT], lost[64];
static char damaged_id[NFAULT][64];
static int ndamaged, nlost, corrupt_ok = 1;

static int fault_corrupt(struct daemon *d, uint64_t *seed)
{
	static int64_t seqs[4 * JOBS];
	static long offs[4 * JOBS];
	/* one in the middle needs 3: early in a slow run (a sanitizer's) the
	 * journal may not have them yet */
	for (int i = 0; i < 3000 && sub_records(seqs, offs, 4 * JOBS) < 3; i++)
		usleep(10000);
	if (daemon_stop(d) != 0)
		return 0;
	int n = sub_records(seqs, offs, 4 * JOBS), rc = -1;
	if (n >= 3) {   /* one in the middle: a valid record before and after it */
		int k = 1 + (int)(ct_splitmix64(seed) % (uint64_t)(n - 2));
		FILE *f = fopen(journal, "r+b");
		uint8_t c;
		if (f && !fseek(f, offs[k], SEEK_SET) && fread(&c, 1, 1, f) == 1) {
			c ^= 0x01;
			rc = fseek(f, offs[k], SEEK_SET) || fwrite(&c, 1, 1, f) != 1;
		}
		if (f)
			fclose(f);
		if (!rc) {
			snprintf(damaged_id[ndamaged], sizeof(damaged_id[0]), "%s", rec_id[k]);
			damaged[ndamaged++] = seqs[k];
		}
	}
	if (start(d))
		return 0;
	int before = nlost;
	nlost = log_lost(d->log, lost, nlost, 64);
	json_object *r = status(d);
	json_object *jo = r ? json_object_object_get(r, "journal") : NULL;
	int64_t ranges = int_of(jo, "damaged_ranges");
	json_object_put(r);
	/* The damaged record's seq reported lost, one range.  The range may
	 * also name numbers that no submit record had before the flip: a
	 * submit refused after its number was taken (a stop mid-submit) uses
	 * one up, and nothing tells its gap from a lost record's (seen: 272
	 * damaged, 273 used up, named "272 to 273").  Any other number named
	 * would be a recorded job called lost: wrong. */
	int named = 0, other = 0;
	for (int i = before; i < nlost; i++) {
		if (!rc && lost[i] == damaged[ndamaged - 1])
			named++;
		else if (in(seqs, n, lost[i]))
			other++, ct_diag("corrupt: seq %lld reported lost, but its record was not damaged", (long long)lost[i]);
		else
			ct_diag("corrupt: seq %lld reported lost too: no record had it (a number a refused submit used up)",
				(long long)lost[i]);
	}
	int exact = rc ? nlost == before : named == 1 && !other && ranges == 1;
	if (!exact)
		ct_diag("corrupt: damaged seq %lld (rc %d, %d submit records); the log reports %d lost (first %lld), "
			"damaged_ranges %lld", rc ? -1LL : (long long)damaged[ndamaged - 1], rc, n, nlost - before,
			nlost > before ? (long long)lost[before] : -1LL, (long long)ranges);
	corrupt_ok &= exact;
	return 1;
}

static int fill(void)
{
	return fill_fs(filler);
}

static int retry_seen;

static int fault_fill(struct daemon *d)
{
	int ok = fill() == 0;
	for (int i = 0; ok && i < 150; i++) {   /* up to 1.5 s: a job's output meets the full disk */
		json_object *r = status(d), *c;
		int64_t w = ok_of(r) && json_object_object_get_ex(r, "counters", &c) ? int_of(c, "output_retries") : 0;
		json_object_put(r);
		if (w > 0) {
			retry_seen++;
			break;
		}
		usleep(10000);
	}
	unlink(filler);
	return ok;
}

/* Job directory out holds exactly its 2n + 1 files and every proof verifies. */
static int dir_ok(const char *out, int n)
{
	return files_in(out) == 2 * n + 1 && proofs_verify(&key, out, n);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-soak"))
		return 1;
	ct_plan(6);
	struct timespec t0;
	clock_gettime(CLOCK_REALTIME, &t0);
	uint64_t seed = getenv("CZ_SOAK_SEED") ? strtoull(getenv("CZ_SOAK_SEED"), NULL, 0)
					       : (uint64_t)t0.tv_sec * 1000003u ^ (uint64_t)t0.tv_nsec;
	ct_diag("seed %llu (CZ_SOAK_SEED=%llu replays it)", (unsigned long long)seed, (unsigned long long)seed);
	if (!ct_ok(mkdtemp(dir) && chmod(dir, 0755) == 0 && fixtures_make(&key) == 0 &&
		   system(fmt("%s/cuzk vk %s/k.zkey %s/vk.json >/dev/null 2>&1", bindir, dir, dir)) == 0,
		   "fixtures: a 2^8 dev key, its vk.json and %d witnesses", NWTNS))
		return ct_exit();
	snprintf(state, sizeof(state), "%s/soak-state", dir);
	snprintf(proofs, sizeof(proofs), "%s/proofs", state);
	snprintf(filler, sizeof(filler), "%s/.filler", proofs);
	snprintf(journal, sizeof(journal), "%s/journal", state);
	int mounted = !mkdir(state, 0750) && !mkdir(proofs, 0750) &&
		      !mount("cuzk-e2e-soak", proofs, "tmpfs", 0, "size=32m,mode=0750");
	if (!mounted)
		ct_diag("no tmpfs on proofs/ (%s): the fill faults become kills", strerror(errno));

	/* The schedule: 3 kills, 2 stops (a third hang in 60 s would fail the
	 * device), 2 corruptions, 2 fills, shuffled by the seed. */
	enum fault sched[NFAULT] = { KILL, KILL, KILL, STOP, STOP, CORRUPT, CORRUPT, FILL, FILL };
	for (int i = NFAULT - 1; i > 0; i--) {
		int j = (int)(ct_splitmix64(&seed) % (uint64_t)(i + 1));
		enum fault t = sched[i];
		sched[i] = sched[j], sched[j] = t;
	}
	struct daemon d;
	int up = start(&d) == 0;
	pthread_t t[CLIENTS];
	for (int c = 0; c < CLIENTS; c++)
		pthread_create(&t[c], NULL, client_main, (void *)(intptr_t)c);
	int done_f[4] = { 0 }, hung = 0, idle = 0;
	char order[256] = "";
	for (int k = 0; up && k < NFAULT; k++) {
		usleep((useconds_t)(200 + ct_splitmix64(&seed) % 800) * 1000);
		enum fault f = sched[k] == FILL && !mounted ? KILL : sched[k];
		snprintf(order + strlen(order), sizeof(order) - strlen(order), "%s%s", k ? ", " : "", fault_name[f]);
		if (f == KILL) {
			kill9(&d);
			up = start(&d) == 0;
			done_f[f] += up;
		} else if (f == STOP) {
			hung += fault_stop(&d, &idle);
			done_f[f]++;
		} else if (f == CORRUPT) {
			up = fault_corrupt(&d, &seed);
			done_f[f] += up;
		} else {
			done_f[f] += fault_fill(&d);
		}
	}
	for (int c = 0; c < CLIENTS; c++)
		pthread_join(t[c], NULL);
	ct_ok(up && dropped == CLIENTS && accepted == JOBS && done_f[KILL] + done_f[STOP] + done_f[CORRUPT] + done_f[FILL] == NFAULT &&
	      hung + idle == done_f[STOP] && corrupt_ok && ndamaged == done_f[CORRUPT],
	      "soak: %d jobs accepted from %d clients, uids %d to %d (%d submits retried) through %s; %d of %d stops found hung by the watchdog "
	      "(%d found the device idle), %d records damaged, each reported lost alone; %d fills met by an "
	      "output retry", (int)accepted, (int)dropped, UID0, UID0 + CLIENTS - 1, (int)retried, order, hung, done_f[STOP], idle, ndamaged, retry_seen);

	/* Every accepted job: done with verifying proofs, or unknown when its
	 * last accepted submit's record was one of those damaged (and named). */
	int done = 0, whole = 0, gone = 0, wrong = 0, distinct = 1, sample = -1;
	char sdir[PATH_MAX] = "";
	for (int n = 0; up && n < JOBS; n++) {
		json_object *r = sock_await(d.sock, id_of(n), 120);
		int expect_lost = in(damaged, ndamaged, seq_of[n]);
		for (int m = 0; m < n; m++)
			distinct &= seq_of[m] != seq_of[n];
		if (expect_lost && refused(r, "unknown job") && in(lost, nlost, seq_of[n])) {
			gone++;
		} else if (!expect_lost && ok_of(r) && !strcmp(str_of(r, "state"), "done")) {
			done++;
			whole += dir_ok(str_of(r, "dir"), PARTS);
			if (sample < 0)
				sample = n, snprintf(sdir, sizeof(sdir), "%s", str_of(r, "dir"));
		} else {
			wrong++;
			ct_diag("%s (seq %lld%s): %s %s", id_of(n), (long long)seq_of[n], expect_lost ? ", damaged" : "",
				str_of(r, "state"), err_of(r));
		}
		json_object_put(r);
	}
	/* A damaged record whose job's client was never answered with its seq
	 * (the stop came between the record's commit and the answer; its
	 * retry was a new job, done above under its new seq) takes nothing
	 * accepted with it: every other damaged record's job is unknown. */
	int unanswered = 0;
	for (int k = 0; k < ndamaged; k++)
		for (int n = 0; n < JOBS; n++)
			if (!strcmp(damaged_id[k], id_of(n)) && seq_of[n] != damaged[k]) {
				unanswered++;
				ct_diag("damaged seq %lld was %s's, whose client was never answered with it (accepted as "
					"seq %lld)", (long long)damaged[k], id_of(n), (long long)seq_of[n]);
			}
	ct_ok(up && done + gone == JOBS && !wrong && whole == done && gone + unanswered == ndamaged && distinct,
	      "soak: %d jobs done, each directory whole and every one of its %d proofs verifies with cuzk's "
	      "verifier (%d); %d unknown, exactly the %d whose acknowledged submit records were damaged "
	      "(%d damaged records never acknowledged); seqs distinct",
	      done, PARTS, whole, gone, ndamaged - unanswered, unanswered);
	int sj = *sdir ? snarkjs_verify(sdir, 1) : -1;
	if (sj < 0)
		ct_skip("snarkjs not installed (tools/install-deps.sh installs it)", "soak: snarkjs accepts a sample");
	else
		ct_ok(sj == 1, "soak: snarkjs groth16 verify accepts %s's partition 1", id_of(sample));

	/* Exactly once: no job logged done twice over every run. */
	static int seen[JOBS];
	int twice = 0;
	for (int k = 0; k < runs; k++) {
		FILE *f = fopen(fmt("%s/soak%d.log", dir, k), "r");
		char line[1024];
		while (f && fgets(line, sizeof(line), f)) {
			int c, i;
			char *p = strstr(line, "job=c");
			if (p && strstr(line, "state=done") && sscanf(p, "job=c%d-%d", &c, &i) == 2 && c >= 0 &&
			    c < CLIENTS && i >= 0 && i < PER)
				twice += ++seen[c * PER + i] == 2;
		}
		if (f)
			fclose(f);
	}
	json_object *r = up ? status(&d) : NULL, *c = NULL;
	int64_t failed = r && json_object_object_get_ex(r, "counters", &c) ? int_of(c, "jobs_failed") : -1;
	int64_t retrying = c ? int_of(c, "jobs_output_retry") : -1;
	json_object_put(r);
	ct_ok(twice == 0 && failed == 0 && retrying == 0,
	      "soak: no job logged done twice over %d runs; the last run's status: jobs_failed %lld, "
	      "jobs_output_retry %lld", runs, (long long)failed, (long long)retrying);
	ct_ok(up && daemon_stop(&d) == 0, "soak: cuzkd stops on SIGTERM with status 0");
	if (mounted)
		umount2(proofs, MNT_DETACH);
	cz_groth16_key_free(&key);
	return e2e_end();
}
