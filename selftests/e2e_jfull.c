/* SPDX-License-Identifier: MIT */
/* Description: a full disk under the journal (issue 24): with the state directory on a small tmpfs filled to the last page (the spool on a tmpfs of its own, so witnesses still fit and the journal's own write is what fails), a submit is refused naming the journal and the errno (journal_refused, retry_after_ms), status (journal.refusing, error, refused_submits) and metrics (cuzk_journal_refusing, cuzk_journal_refused_submits_total) say so, jobs accepted before keep going, and a cancel meanwhile answers within its bound that its record waits (kept, written once space returns: the job is cancelled after a restart too); once space is freed the next submit is accepted with no restart, the refused id is free again; after a kill -9 and a restart every accepted job is done exactly once with its proofs verified, the journal replays with no damage and no torn tail, and no spool file is left. */
#define NWTNS 4
#define CZ_DAEMON_WATCH_EXIT
#include "selftests/cz_daemon.h"
#include "selftests/cz_net.h"

#include <errno.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define PARTS 2
#define STATE_TMPFS (4u << 20)
#define SPOOL_TMPFS (32u << 20)
#define MAXJ 48

static struct cz_groth16_key key;
static char state[3 * PATH_MAX], spool[4 * PATH_MAX], filler[4 * PATH_MAX];
static char acc[MAXJ][32];      /* the ids accepted */
static int64_t accseq[MAXJ];
static int nacc;
static char cancelled[32];      /* the job cancelled while the journal refused, or "" */

static int start(struct daemon *d)
{
	const char *args[] = { "--backend", "cpu", "--device-threads", "1", "--devices", "1", "--mem-budget", "512M",
			       "--isolation", "thread", "--output-retry-max-ms", "300", "--load", fmt("k=%s/k.zkey", dir),
			       "--metrics-listen", fmt("%s/jf-http.sock", dir), NULL };
	return daemon_start(d, "jf", args);
}

static json_object *submit_n(struct daemon *d, const char *id)
{
	return daemon_req(d, fmt("{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"witnesses\":%s}", id,
				 wlist(PARTS)), NULL, 0);
}

static void accepted(const char *id, json_object *r)
{
	if (nacc < MAXJ) {
		snprintf(acc[nacc], sizeof(acc[0]), "%s", id);
		accseq[nacc++] = int_of(r, "seq");
	}
}

static json_object *journal_status(struct daemon *d, json_object **all)
{
	json_object *jo = NULL;
	*all = daemon_req(d, "{\"op\":\"status\"}", NULL, 0);
	if (ok_of(*all))
		json_object_object_get_ex(*all, "journal", &jo);
	return jo;
}

static int jbool(json_object *o, const char *k)
{
	json_object *v;
	return o && json_object_object_get_ex(o, k, &v) && json_object_get_boolean(v);
}

/* GET /metrics from the HTTP listener's Unix socket; the value of metric name, or -1. */
static long long metric(const char *name)
{
	static char buf[1 << 20];
	if (http_unix_get(fmt("%.80s/jf-http.sock", dir), "/metrics", buf, sizeof(buf)) < 0)
		return -1;
	const char *p = strstr(buf, fmt("\n%s ", name));
	return p ? strtoll(p + strlen(name) + 2, NULL, 10) : -1;
}

/* The state directory full: submits until one is refused (those that fit
 * the journal's last page are accepted); it and a second one must name the
 * journal and ENOSPC. */
static void test_refused(struct daemon *d)
{
	json_object *r = NULL;
	char why[1024] = "";
	int refusals = 0, tmp = 0;
	for (int i = 0; i < 40 && !refusals; i++) {
		char id[32];
		snprintf(id, sizeof(id), "f%d", i);
		r = submit_n(d, id);
		if (ok_of(r)) {
			accepted(id, r);
		} else {
			snprintf(why, sizeof(why), "%s", err_of(r));
			refusals++;
			tmp = jbool(r, "journal_refused") && int_of(r, "retry_after_ms") > 0;
		}
		json_object_put(r);
	}
	const char *want = fmt("journal: No space left on device (%s/journal)", state);
	ct_ok(refusals == 1 && strstr(why, want) && strstr(why, "not accepted") && strstr(why, "retry later") && tmp,
	      "with the state directory full a submit is refused, temporary (journal_refused, retry_after_ms), "
	      "naming the journal and the errno (after %d accepted in the journal's last page): %s", nacc, why);

	r = submit_n(d, "r1");
	int again = !ok_of(r) && strstr(err_of(r), want) != NULL;
	ct_diag("second: %s", err_of(r));
	json_object_put(r);
	json_object *all, *jo = journal_status(d, &all);
	int64_t nref = jo ? int_of(jo, "refused_submits") : -1;
	const char *err = jo ? str_of(jo, "error") : "";
	int refusing = jbool(jo, "refusing");
	long long mref = -1, mon = -1;
	for (int t = 0; t < 200 && mref != nref; t++) {  /* the metrics' copy follows the commit */
		if (t)
			usleep(10000);
		mref = metric("cuzk_journal_refused_submits_total");
		mon = metric("cuzk_journal_refusing");
	}
	ct_ok(again && refusing && strstr(err, "No space left") && nref >= 2 && mref == nref && mon == 1,
	      "so is the next (\"r1\"); status journal.refusing %d, error \"%s\", refused_submits %lld; metrics "
	      "cuzk_journal_refusing %lld, cuzk_journal_refused_submits_total %lld", refusing, err, (long long)nref,
	      mon, mref);
	json_object_put(all);

	/* A job accepted in the last page waits in output-retry (proofs/ is
	 * full too); cancelled now, its end record cannot be written: the
	 * cancel says so within its bound, and the record is kept. */
	int at = -1;
	for (int t = 0; t < 3000 && at < 0; t++) {
		json_object *st = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *jobs;
		for (size_t i = 0; ok_of(st) && json_object_object_get_ex(st, "jobs", &jobs) &&
		     i < json_object_array_length(jobs) && at < 0; i++) {
			json_object *jj = json_object_array_get_idx(jobs, i);
			if (!strcmp(str_of(jj, "state"), "output-retry"))
				for (int k = 0; k < nacc; k++)
					if (!strcmp(acc[k], str_of(jj, "job")))
						at = k;
		}
		json_object_put(st);
		if (at < 0)
			usleep(10000);
	}
	json_object *c = at >= 0 ? daemon_req(d, fmt("{\"op\":\"cancel\",\"job\":\"%s\"}", acc[at]), NULL, 0) : NULL;
	const char *cw = c ? err_of(c) : "no job in output-retry";
	int told = c && !ok_of(c) && strstr(cw, "cancelled, but journal: No space left on device") &&
		   strstr(cw, "not written yet");
	jo = journal_status(d, &all);
	int64_t kept = jo ? int_of(jo, "retry_records") : -1;
	ct_ok(told && kept >= 1, "a job in output-retry cancelled meanwhile: the cancel answers within its bound "
	      "that its record waits (%s); journal.retry_records %lld", cw, (long long)kept);
	if (at >= 0) {
		snprintf(cancelled, sizeof(cancelled), "%s", acc[at]);
		memmove(&acc[at], &acc[at + 1], (size_t)(nacc - at - 1) * sizeof(acc[0]));
		memmove(&accseq[at], &accseq[at + 1], (size_t)(nacc - at - 1) * sizeof(accseq[0]));
		nacc--;
	}
	json_object_put(c);
	json_object_put(all);
}

/* Space back: the next submit (the refused id) is accepted, no restart. */
static void test_back(struct daemon *d)
{
	unlink(filler);
	json_object *r = submit_n(d, "r1");
	int ok = ok_of(r);
	if (ok)
		accepted("r1", r);
	else
		ct_diag("r1: %s", err_of(r));
	json_object_put(r);
	json_object *all, *jo = journal_status(d, &all);
	int refusing = jbool(jo, "refusing");
	const char *last = jo ? str_of(jo, "last_error") : "";
	int said = cz_log_count(d->log, "No space left on device: submits are refused until it can be written again");
	int back = cz_log_count(d->log, ": written again after ");
	long long mon = -1;
	for (int t = 0; t < 200 && mon != 0; t++) {
		if (t)
			usleep(10000);
		mon = metric("cuzk_journal_refusing");
	}
	ct_ok(ok && !refusing && strstr(last, "No space left") && mon == 0 && said >= 1 &&
	      back >= 1,
	      "with the filler removed the next submit (the refused id r1) is accepted at once, no restart; "
	      "journal.refusing false, last_error \"%s\"; the log said both (%d, %d)", last, said, back);
	json_object_put(all);
	int good = 1;
	for (int i = 0; i < nacc; i++) {
		char out[PATH_MAX];
		if (!(await_done(d, acc[i], out, sizeof(out)) && proofs_verify(&key, out, PARTS))) {
			ct_diag("job %s not done and verified", acc[i]);
			good = 0;
		}
	}
	json_object *ca = *cancelled ? daemon_await(d, cancelled, 30) : NULL;
	int cx = ca && !strcmp(str_of(ca, "state"), "cancelled");
	json_object_put(ca);
	ct_ok(good && nacc >= 3 && cx, "every one of the %d other accepted jobs (before, during and after the full "
	      "disk) completes, its %d proofs verified; the cancelled one (%s) ends cancelled", nacc, PARTS,
	      cancelled);
}

static int64_t counter(struct daemon *d, const char *k)
{
	json_object *r = daemon_req(d, "{\"op\":\"status\"}", NULL, 0), *c;
	int64_t v = ok_of(r) && json_object_object_get_ex(r, "counters", &c) ? int_of(c, k) : -1;
	json_object_put(r);
	return v;
}

/* kill -9 and a restart: every accepted job done once (the first run
 * proved each, the second proves none again and answers each from the
 * journal), verified; the journal clean; sequence numbers distinct; the
 * spool empty. */
static void test_restart(struct daemon *d)
{
	int once = 1;
	int64_t done1 = counter(d, "jobs_done");
	if (system(fmt("cp %s %s.1", d->log, d->log)))  /* the first run's log, to look at */
		ct_diag("could not keep %s", d->log);
	if (d->pid > 0) {
		int st;
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &st, 0);
		d->pid = 0;
	}
	int up = start(d) == 0 && daemon_wait_warm(d);
	for (int i = 0; up && i < nacc; i++) {
		char out[PATH_MAX];
		int ok = await_done(d, acc[i], out, sizeof(out)) && proofs_verify(&key, out, PARTS);
		for (int k = 0; k < i; k++)
			if (accseq[k] == accseq[i])
				ok = 0;
		if (!ok) {
			ct_diag("job %s (seq %lld): not done and verified, or its number repeats", acc[i],
				(long long)accseq[i]);
			once = 0;
		}
	}
	json_object *ca = up && *cancelled ? daemon_await(d, cancelled, 30) : NULL;
	if (!ca || strcmp(str_of(ca, "state"), "cancelled")) {
		ct_diag("the cancelled job %s after the restart: %s", cancelled, ca ? err_of(ca) : "no answer");
		once = 0;
	}
	json_object_put(ca);
	int64_t done2 = up ? counter(d, "jobs_done") : -1, parts2 = up ? counter(d, "partitions_done") : -1;
	json_object *all, *jo = up ? journal_status(d, &all) : NULL;
	int64_t dmg = jo ? int_of(jo, "damaged_ranges") : -1, torn = jo ? int_of(jo, "torn_bytes") : -1;
	int left = files_in(spool);
	ct_ok(up && once && done1 == nacc && done2 == 0 && parts2 == 0 && dmg == 0 && torn == 0 && left == 0 &&
	      !cz_log_count(d->log, "do not check"),
	      "after a kill -9 and a restart each of the %d accepted jobs is done exactly once (%lld done before, "
	      "%lld jobs and %lld partitions proved again after; distinct sequence numbers, proofs verified); the "
	      "journal replays with damaged_ranges %lld, torn_bytes %lld; %d spool files left", nacc,
	      (long long)done1, (long long)done2, (long long)parts2, (long long)dmg, (long long)torn, left);
	if (up)
		json_object_put(all);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-jfull"))
		return 1;
	ct_plan(1 + 1 + 3 + 2 + 1 + 1);
	if (!ct_ok(mkdtemp(dir) && fixtures_make(&key) == 0, "fixtures: a 2^8 dev key and %d witnesses", NWTNS))
		return ct_exit();
	snprintf(state, sizeof(state), "%s/jf-state", dir);
	snprintf(spool, sizeof(spool), "%s/spool", state);
	snprintf(filler, sizeof(filler), "%s/.filler", state);
	int m = mkdir(state, 0750) ? -errno : 0;
	if (!m && mount("cuzk-e2e-jfull", state, "tmpfs", 0, fmt("size=%u,mode=0750", STATE_TMPFS)))
		m = -errno;
	if (!m && mkdir(spool, 0750))
		m = -errno;
	if (!m && mount("cuzk-e2e-jfull-spool", spool, "tmpfs", 0, fmt("size=%u,mode=0750", SPOOL_TMPFS)))
		m = -errno;
	if (m) {
		umount2(state, MNT_DETACH);
		skip_n(1 + 3 + 2 + 1 + 1, fmt("cannot mount a tmpfs on the state directory (%s): needs CAP_SYS_ADMIN",
					      strerror(-m)));
		return e2e_end();
	}
	struct daemon d;
	json_object *r = NULL;
	int up = start(&d) == 0 && daemon_wait_warm(&d) && (r = submit_n(&d, "a0")) && ok_of(r);
	if (up)
		accepted("a0", r);
	json_object_put(r);
	char out[PATH_MAX];
	up = up && await_done(&d, "a0", out, sizeof(out)) && proofs_verify(&key, out, PARTS) && fill_fs(filler) == 0;
	if (ct_ok(up, "cuzkd (cpu, thread isolation) on a state directory on a %u KiB tmpfs (spool/ on a %u MiB "
		  "one): a job done, verified; the state tmpfs then filled to ENOSPC", STATE_TMPFS >> 10,
		  SPOOL_TMPFS >> 20)) {
		test_refused(&d);
		test_back(&d);
		test_restart(&d);
	} else {
		skip_n(3 + 2 + 1, "no daemon");
	}
	ct_ok(d.pid > 0 && daemon_stop(&d) == 0, "cuzkd stops cleanly");
	umount2(spool, MNT_DETACH);
	umount2(state, MNT_DETACH);
	cz_groth16_key_free(&key);
	return e2e_end();
}
