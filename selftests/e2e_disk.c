/* SPDX-License-Identifier: MIT */
/* Description: a full disk while proofs are written (issue 24 item 4): with proofs/ on a small tmpfs filled to the last page, a proved job waits in output-retry (status: its state, tries, the ENOSPC cause and the next attempt; an await with a timeout says so; counters and metrics count the attempts; the log says so per attempt) with its witnesses kept in the spool; one cancelled meanwhile ends cancelled at once; once space is freed the job is written exactly once and its proofs verify; one left in output-retry across a SIGTERM and one across a kill -9 are resumed from their spooled witnesses by the next start and complete, verified. */
#define NWTNS 4
#define CZ_DAEMON_WATCH_EXIT
#include "selftests/cz_daemon.h"
#include "selftests/cz_net.h"

#include <dirent.h>
#include <errno.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>

#define PARTS 2
#define TMPFS_SIZE (256u << 10)

static struct cz_groth16_key key;
static char state[3 * PATH_MAX], proofs[4 * PATH_MAX], spool[4 * PATH_MAX], filler[5 * PATH_MAX];

static int start(struct daemon *d)
{
	const char *args[] = { "--backend", "cpu", "--device-threads", "1", "--devices", "1", "--mem-budget", "512M",
			       "--isolation", "thread", "--output-retry-max-ms", "300", "--load", fmt("k=%s/k.zkey", dir),
			       "--metrics-listen", fmt("%s/dk-http.sock", dir), NULL };
	return daemon_start(d, "dk", args);
}

static int fill(void)
{
	return fill_fs(filler);
}

/* The number of spool files of job seq (spool/<seq>.<k>.wtns). */
static int spooled(int64_t seq)
{
	DIR *d = opendir(spool);
	struct dirent *de;
	int n = 0;
	char pre[32];
	snprintf(pre, sizeof(pre), "%lld.", (long long)seq);
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, pre, strlen(pre));
	if (d)
		closedir(d);
	return n;
}

static json_object *status_job(struct daemon *d, const char *id, json_object **all)
{
	json_object *r = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *jobs;
	*all = r;
	if (!ok_of(r) || !json_object_object_get_ex(r, "jobs", &jobs))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		if (!strcmp(str_of(j, "job"), id))
			return j;
	}
	return NULL;
}

/* Waits (at most 60 s) for job id to show output-retry in status; its
 * seq, or -1.  tries, error and next_attempt_ms from its output_retry. */
static int64_t wait_retry(struct daemon *d, const char *id, int64_t *tries, char *why, size_t cap, int64_t *next)
{
	for (int i = 0; i < 6000; i++) {
		json_object *all, *j = status_job(d, id, &all), *o;
		if (j && !strcmp(str_of(j, "state"), "output-retry") && json_object_object_get_ex(j, "output_retry", &o)) {
			int64_t seq = int_of(j, "seq");
			*tries = int_of(o, "tries");
			*next = int_of(o, "next_attempt_ms");
			snprintf(why, cap, "%s", str_of(o, "error"));
			json_object_put(all);
			return seq;
		}
		int ended = j && strcmp(str_of(j, "state"), "active");
		if (ended)
			ct_diag("job %s: %s %s", id, str_of(j, "state"), str_of(j, "error"));
		json_object_put(all);
		if (ended)
			return -1;
		usleep(10000);
	}
	return -1;
}

static json_object *submit_n(struct daemon *d, const char *id, int n)
{
	return daemon_req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"witnesses\":%s}", id, wlist(n)),
			  NULL, 0);
}

static int64_t counter(struct daemon *d, const char *k)
{
	json_object *r = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *c;
	int64_t v = ok_of(r) && json_object_object_get_ex(r, "counters", &c) ? int_of(c, k) : -1;
	json_object_put(r);
	return v;
}

/* GET /metrics from the HTTP listener's Unix socket; the bytes read. */
static ssize_t metrics(char *buf, size_t cap)
{
	return http_unix_get(fmt("%.80s/dk-http.sock", dir), "/metrics", buf, cap);
}

static int done_verified(struct daemon *d, const char *id)
{
	char out[PATH_MAX];
	return await_done(d, id, out, sizeof(out)) && proofs_verify(&key, out, PARTS);
}

/* A job proved while the disk is full waits, is written once space comes
 * back, and verifies; another is cancelled while it waits. */
static void test_full(struct daemon *d)
{
	json_object *r = submit_n(d, "full", PARTS);
	int sub = ok_of(r);
	json_object_put(r);
	int64_t tries = 0, next = -1;
	char why[400] = "";
	int64_t seq = sub ? wait_retry(d, "full", &tries, why, sizeof(why), &next) : -1;
	ct_ok(seq > 0 && tries >= 1 && strstr(why, "No space left on device") && strstr(why, "proofs/.") &&
	      next >= 0 && next <= 300,
	      "a job proved on a full disk waits in output-retry: tries %lld, next attempt in %lld ms "
	      "(--output-retry-max-ms 300), the cause \"%s\"", (long long)tries, (long long)next, why);
	/* Its witnesses stay; attempts go on, each counted and logged. */
	usleep(1000000);
	int64_t t2 = 0;
	wait_retry(d, "full", &t2, why, sizeof(why), &next);
	int sp = seq > 0 ? spooled(seq) : -1;
	int64_t nret = counter(d, "output_retries"), nwait = counter(d, "jobs_output_retry");
	int logged = cz_log_count(d->log, "job=full output-retry: attempt ");
	static char met[1 << 20];
	int64_t mret = -1;
	const char *mp = metrics(met, sizeof(met)) > 0 ? strstr(met, "\ncuzk_output_retries_total ") : NULL;
	if (mp)
		mret = strtoll(mp + 27, NULL, 10);
	ct_ok(sp == PARTS && t2 > tries && nret >= t2 && nwait == 1 && logged >= (int)t2 && mret >= t2,
	      "it keeps its %d spooled witnesses (%d), is tried again (%lld tries after 1 s), counted (status "
	      "output_retries %lld, jobs_output_retry %lld; cuzk_output_retries_total %lld) and logged per attempt (%d)",
	      PARTS, sp, (long long)t2, (long long)nret, (long long)nwait, (long long)mret, logged);
	r = daemon_await(d, "full", 1);
	ct_ok(!ok_of(r) && !strcmp(str_of(r, "state"), "output-retry") && strstr(err_of(r), "No space left"),
	      "an await with a timeout says output-retry (%s)", err_of(r));
	json_object_put(r);

	/* A second one, cancelled while it waits: it ends at once, cancelled. */
	r = submit_n(d, "cx", PARTS);
	int64_t cseq = ok_of(r) ? wait_retry(d, "cx", &tries, why, sizeof(why), &next) : -1;
	json_object_put(r);
	json_object *c = cseq > 0 ? daemon_req(d, "{\"op\":\"cancel\",\"job\":\"cx\"}", NULL, 0) : NULL;
	json_object *a = ok_of(c) ? daemon_await(d, "cx", 10) : NULL;
	int gone = 0;
	for (int i = 0; a && i < 500 && !(gone = spooled(cseq) == 0); i++)
		usleep(10000);
	ct_ok(cseq > 0 && ok_of(c) && !ok_of(a) && !strcmp(str_of(a, "state"), "cancelled") && gone &&
	      counter(d, "jobs_output_retry") == 1,
	      "a job cancelled in output-retry ends cancelled at once (%s), its witnesses then removed",
	      a ? err_of(a) : "no answer");
	json_object_put(c);
	json_object_put(a);

	/* Space comes back: written once, verified, its witnesses removed. */
	unlink(filler);
	int ok = done_verified(d, "full");
	for (int i = 0; ok && i < 500 && spooled(seq); i++)
		usleep(10000);
	int written = cz_log_count(d->log, "job=full output-retry: its proofs are written");
	ct_ok(ok && written == 1 && spooled(seq) == 0 && counter(d, "jobs_output_retry") == 0 &&
	      counter(d, "jobs_done") == 1 && counter(d, "jobs_failed") == 0,
	      "with the filler removed the job completes, written once (logged %d), its %d proofs verify, its "
	      "witnesses are then removed; jobs_done 1, jobs_failed 0", written, PARTS);
}

/* Left in output-retry by a stop (SIGTERM, then kill -9): the next start
 * resumes it from the spool and completes it. */
static void test_restart(struct daemon *d, int hard)
{
	const char *id = hard ? "rk" : "rt";
	int up = fill() == 0;
	json_object *r = up ? submit_n(d, id, PARTS) : NULL;
	int64_t tries = 0, next = 0;
	char why[400] = "";
	int64_t seq = ok_of(r) ? wait_retry(d, id, &tries, why, sizeof(why), &next) : -1;
	json_object_put(r);
	int st = -1;
	if (hard && d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &st, 0);
		d->pid = 0;
		st = 0;
	} else {
		st = daemon_stop(d);
	}
	int kept = seq > 0 ? spooled(seq) : -1;
	unlink(filler);
	up = seq > 0 && st == 0 && start(d) == 0;
	int ok = up && done_verified(d, id);
	for (int i = 0; ok && i < 500 && spooled(seq); i++)     /* removed once its end is durable */
		usleep(10000);
	ct_ok(ok && kept == PARTS && spooled(seq) == 0,
	      "a job in output-retry across %s keeps its %d witnesses (%d) and the next start completes it, verified",
	      hard ? "a kill -9" : "a clean stop", PARTS, kept);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-disk"))
		return 1;
	ct_plan(1 + 1 + 5 + 2 + 1);
	if (!ct_ok(mkdtemp(dir) && fixtures_make(&key) == 0, "fixtures: a 2^8 dev key and %d witnesses", NWTNS))
		return ct_exit();
	snprintf(state, sizeof(state), "%s/dk-state", dir);
	snprintf(proofs, sizeof(proofs), "%s/proofs", state);
	snprintf(spool, sizeof(spool), "%s/spool", state);
	snprintf(filler, sizeof(filler), "%s/.filler", proofs);
	int m = mkdir(state, 0750) || mkdir(proofs, 0750) ? -errno : 0;
	if (!m && mount("cuzk-e2e-disk", proofs, "tmpfs", 0, fmt("size=%u,mode=0750", TMPFS_SIZE)))
		m = -errno;
	if (m) {
		skip_n(1 + 5 + 2 + 1, fmt("cannot mount a tmpfs on proofs/ (%s): needs CAP_SYS_ADMIN", strerror(-m)));
		return e2e_end();
	}
	struct daemon d;
	int up = start(&d) == 0 && daemon_wait_warm(&d) && fill() == 0;
	if (ct_ok(up, "cuzkd (cpu, thread isolation) with proofs/ on a %u KiB tmpfs, filled to ENOSPC",
		  TMPFS_SIZE >> 10))
		test_full(&d);
	else
		skip_n(5, "no daemon");
	test_restart(&d, 0);
	test_restart(&d, 1);
	ct_ok(d.pid > 0 && daemon_stop(&d) == 0, "cuzkd stops cleanly");
	umount2(proofs, MNT_DETACH);
	cz_groth16_key_free(&key);
	return e2e_end();
}
