/* SPDX-License-Identifier: MIT */
/* Description: 32 clients × 30 jobs at once on the null backend (issue 12): every submit accepted, every job answered done exactly once with its own directory and complete, parseable files; the daemon's counters agree. */
#define NWTNS 4
#include "selftests/cz_daemon.h"
#include "zk/io/snarkjs_json.h"

#include <libgen.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>

#define CLIENTS 32
#define JOBS 30
#define PARTS 2
#define WINDOW 4        /* jobs each client has submitted and not yet awaited */

static struct daemon d;
static struct cz_groth16_key key;
static char state[3 * PATH_MAX];

struct client {
	int idx;
	pthread_t tid;
	int submitted, done, files_ok;
	int64_t seq[JOBS];
	char why[512];
};

/* Each job's directory: PARTS proof.json + public.json that parse (with
 * the key's npub values) and a non-empty proof.bin (its layout is
 * docs/formats.md's, not checked here). */
static int job_files_ok(const char *jdir, char *why, size_t cap)
{
	char p[5 * PATH_MAX], err[256];
	for (int k = 0; k < PARTS; k++) {
		struct cz_groth16_proof pr;
		cz_fr *pub = NULL;
		size_t np = 0;
		snprintf(p, sizeof(p), "%s/%d.proof.json", jdir, k);
		if (cz_proof_json_read(p, &pr, err)) {
			snprintf(why, cap, "%s", err);
			return 0;
		}
		snprintf(p, sizeof(p), "%s/%d.public.json", jdir, k);
		int rc = cz_public_json_read(p, &pub, &np, err);
		free(pub);
		if (rc || np != key.npub) {
			snprintf(why, cap, "%.200s: %.200s (%zu values)", p, rc ? err : "wrong count", np);
			return 0;
		}
	}
	struct stat sb;
	snprintf(p, sizeof(p), "%s/proof.bin", jdir);
	if (stat(p, &sb) || sb.st_size == 0) {
		snprintf(why, cap, "%.400s missing or empty", p);
		return 0;
	}
	return 1;
}

static void await_one(struct client *c, int j, int s);

static void *client_main(void *v)
{
	struct client *c = v;
	char err[256], q[PATH_MAX + 128];
	int s = cz_ctl_connect(d.sock, err, sizeof(err));
	if (s < 0) {
		snprintf(c->why, sizeof(c->why), "connect: %s", err);
		return NULL;
	}
	/* Each job's witnesses as descriptors; WINDOW jobs in flight per
	 * client (so at most 32 × WINDOW finished jobs wait for their await:
	 * fewer than the 256 finished jobs the daemon keeps). */
	for (int j = 0; j < JOBS + WINDOW; j++) {
		if (j >= WINDOW)
			await_one(c, j - WINDOW, s);
		if (j >= JOBS)
			continue;
		int fds[PARTS];
		for (int k = 0; k < PARTS; k++) {
			snprintf(q, sizeof(q), "%s/w%d.wtns", dir, (c->idx + j + k) % NWTNS);
			fds[k] = open(q, O_RDONLY | O_CLOEXEC);
		}
		snprintf(q, sizeof(q), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"c%02d-j%02d\"}", c->idx, j);
		json_object *rq = json_tokener_parse(q), *r = cz_ctl_call(s, rq, fds, PARTS, err, sizeof(err));
		json_object_put(rq);
		for (int k = 0; k < PARTS; k++)
			close(fds[k]);
		if (ok_of(r) && int_of(r, "partitions") == PARTS) {
			c->seq[c->submitted++] = int_of(r, "seq");
		} else if (!*c->why) {
			snprintf(c->why, sizeof(c->why), "submit %d: %s", j, r ? str_of(r, "error") : err);
		}
		json_object_put(r);
	}
	close(s);
	return NULL;
}

static void await_one(struct client *c, int j, int s)
{
	char err[256], id[64], q[PATH_MAX + 128];
	{
		snprintf(id, sizeof(id), "c%02d-j%02d", c->idx, j);
		snprintf(q, sizeof(q), "{\"op\":\"await\",\"job\":\"%s\",\"timeout\":120}", id);
		json_object *rq = json_tokener_parse(q), *r = cz_ctl_call(s, rq, NULL, 0, err, sizeof(err));
		json_object_put(rq);
		char want[4 * PATH_MAX];
		snprintf(want, sizeof(want), "%s/proofs/%s", state, id);
		if (ok_of(r) && !strcmp(str_of(r, "state"), "done") && !strcmp(str_of(r, "job"), id) &&
		    !strcmp(str_of(r, "dir"), want)) {
			c->done++;
			char why[512] = "";
			if (job_files_ok(want, why, sizeof(why)))
				c->files_ok++;
			else if (!*c->why)
				snprintf(c->why, sizeof(c->why), "%.60s: %.400s", id, why);
		} else if (!*c->why) {
			snprintf(c->why, sizeof(c->why), "await %s: %s (dir %s)", id, r ? str_of(r, "error") : err,
				 str_of(r, "dir"));
		}
		json_object_put(r);
	}
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-load"))
		return 1;
	ct_plan(7);
	if (!ct_ok(mkdtemp(dir) && fixtures_make(&key) == 0, "fixtures: a 2^8 key and 4 witnesses"))
		return ct_exit();
	snprintf(state, sizeof(state), "%s/load-state", dir);
	const char *a[] = { "--backend", "null", "--null-delay-ms", "1", "--synth-workers", "2", NULL };
	if (!ct_ok(daemon_start(&d, "load", a) == 0 && load_key(&d), "cuzkd (null backend, 1 ms a partition) with the key"))
		return ct_exit();
	static struct client c[CLIENTS];
	for (int i = 0; i < CLIENTS; i++) {
		c[i].idx = i;
		pthread_create(&c[i].tid, NULL, client_main, &c[i]);
	}
	int sub = 0, done = 0, files = 0;
	const char *why = NULL;
	static int64_t seqs[CLIENTS * JOBS];
	int ns = 0;
	for (int i = 0; i < CLIENTS; i++) {
		pthread_join(c[i].tid, NULL);
		sub += c[i].submitted;
		done += c[i].done;
		files += c[i].files_ok;
		if (*c[i].why && !why)
			why = c[i].why;
		for (int j = 0; j < c[i].submitted; j++)
			seqs[ns++] = c[i].seq[j];
	}
	ct_ok(sub == CLIENTS * JOBS, "%d clients × %d jobs of %d witness descriptors: %d submits accepted%s%s", CLIENTS,
	      JOBS, PARTS, sub, why ? ": " : "", why ? why : "");
	qsort(seqs, (size_t)ns, sizeof(*seqs), cmp64);
	int distinct = ns > 0;
	for (int i = 1; i < ns; i++)
		distinct &= seqs[i] != seqs[i - 1];
	ct_ok(distinct && ns == CLIENTS * JOBS, "every accepted job got its own sequence number");
	ct_ok(done == CLIENTS * JOBS, "every job answered done, with its own id and directory: %d", done);
	ct_ok(files == CLIENTS * JOBS, "every job's directory holds its %d proofs and public inputs, parseable, and proof.bin: %d",
	      PARTS, files);
	json_object *r = daemon_req(&d, "{\"op\":\"status\"}", NULL, 0);
	json_object *cnt = json_object_object_get(r, "counters");
	ct_ok(int_of(cnt, "jobs_submitted") == CLIENTS * JOBS && int_of(cnt, "jobs_done") == CLIENTS * JOBS &&
	      int_of(cnt, "jobs_failed") == 0 && int_of(cnt, "partitions_done") == CLIENTS * JOBS * PARTS &&
	      int_of(cnt, "queued") == 0 && daemon_stop(&d) == 0,
	      "the daemon counts %lld submitted, %lld done, %lld failed, %lld partitions done, and exits cleanly",
	      (long long)int_of(cnt, "jobs_submitted"), (long long)int_of(cnt, "jobs_done"),
	      (long long)int_of(cnt, "jobs_failed"), (long long)int_of(cnt, "partitions_done"));
	json_object_put(r);
	cz_groth16_key_free(&key);
	return e2e_end();
}
