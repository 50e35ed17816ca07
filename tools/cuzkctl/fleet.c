/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzkctl/fleet.c — `cuzkctl --fleet URL COMMAND`: submit, await,
 * status and cancel on a fleet's database directly, with no cuzkd on this
 * machine (docs/cuzkctl.1.md, docs/deploy.md "A fleet").  The same
 * library the daemons use (engine/fleet/): a job and its partitions in one
 * transaction; await on the job's NOTIFY (bounded fallback poll); the
 * proofs written as a local job's directory (K.proof.json, K.public.json).
 *
 * Payloads as a member's submit: a witness up to CZ_FLEET_WITNESS_INLINE_MAX
 * bytes travels in the database; a larger one travels as its absolute path
 * and SHA-256 (it must lie on a directory every node shares: the claimer
 * reads it there and checks the digest); an input (--input) always inline.
 *
 * Ownership: the job's owner is this process's uid (getuid), as a
 * member's socket records its peer's; cancel by the owner, or by root.  The
 * database's own access control (its roles and passwords) is what stands
 * between a user and the job table: give submitters a role that may only
 * do what cuzkctl does (docs/deploy.md).
 */
#include "engine/fleet/fleet.h"
#include "lib/key.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int cuzkctl_fleet(const char *url, int argc, char **argv);

#define MAX_PARTS 200

static struct cz_fleet *fleet_open(const char *url)
{
	struct cz_fleet_opts o = { .conninfo = url };
	struct cz_fleet *f = NULL;
	char err[512];
	if (cz_fleet_open(&o, &f, err, sizeof err)) {
		fprintf(stderr, "cuzkctl --fleet: %s\n", err);
		return NULL;
	}
	return f;
}

/* A whole file into memory (at most max bytes): 0, or -errno (-E2BIG). */
static int slurp(const char *path, size_t max, unsigned char **buf, size_t *len, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st->st_size > max) {
		close(fd);
		return -E2BIG;
	}
	size_t n = (size_t)st->st_size, got = 0;
	unsigned char *b = malloc(n ? n : 1);
	while (b && got < n) {
		ssize_t r = read(fd, b + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (!b || got != n) {
		free(b);
		return b ? -EIO : -ENOMEM;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* SHA-256 of a file, streamed. */
static int digest_file(const char *path, uint8_t out[32])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char buf[1 << 16];
	int rc = fd < 0 ? -errno : !md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) ? -ENOMEM : 0;
	for (ssize_t r; !rc && (r = read(fd, buf, sizeof buf)) != 0;) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			rc = -errno;
		else
			EVP_DigestUpdate(md, buf, (size_t)r);
	}
	if (!rc)
		EVP_DigestFinal_ex(md, out, NULL);
	EVP_MD_CTX_free(md);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* One witness or input: inline when it fits, else (a witness) its path and digest. */
static int payload_of(const char *arg, bool input, struct cz_fleet_payload *p, char **keep)
{
	unsigned char *b = NULL;
	size_t len = 0;
	struct stat st;
	int rc = slurp(arg, input ? CZ_FLEET_INLINE_MAX : CZ_FLEET_WITNESS_INLINE_MAX, &b, &len, &st);
	if (rc == 0) {
		*p = (struct cz_fleet_payload){ .bytes = b, .len = len, .is_input = input };
		return 0;
	}
	if (rc != -E2BIG || input) {
		fprintf(stderr, "cuzkctl submit: %s: %s\n", arg, rc == -EINVAL ? "not a regular file" : strerror(-rc));
		return -1;
	}
	char full[PATH_MAX];
	if (!realpath(arg, full) || !(*keep = strdup(full)) || digest_file(full, p->sha256)) {
		fprintf(stderr, "cuzkctl submit: %s: %s\n", arg, strerror(errno));
		return -1;
	}
	p->path = *keep;
	fprintf(stderr, "cuzkctl submit: %s: %lld bytes, over the %u the database carries: sent as its path %s "
		"(it must be on a directory every node shares) and SHA-256\n", arg, (long long)st.st_size,
		CZ_FLEET_WITNESS_INLINE_MAX, full);
	return 0;
}

static const char *const prio_names[] = { "critical", "high", "normal", "low" };

static int prio_of(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, prio_names[i]))
			return i;
	return -1;
}

static int fleet_await(struct cz_fleet *f, const char *id, double timeout, const char *out);

static int fleet_submit(struct cz_fleet *f, int argc, char **argv)
{
	static struct cz_fleet_payload parts[MAX_PARTS];
	static char *keep[MAX_PARTS];
	const char *id = NULL;
	char auto_id[40];
	int prio = 2, wait = 0, rc = 2;
	uint32_t n = 0;
	if (argc < 3) {
		fprintf(stderr, "cuzkctl --fleet submit NAME WTNS... [--input F]... [--priority P] [--id ID] [--wait]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		bool input = !strcmp(argv[i], "--input");
		if (!strcmp(argv[i], "--wait"))
			wait = 1;
		else if (!strcmp(argv[i], "--priority") && i + 1 < argc) {
			if ((prio = prio_of(argv[++i])) < 0) {
				fprintf(stderr, "cuzkctl submit: unknown priority '%s' (critical, high, normal, low)\n", argv[i]);
				goto out;
			}
		} else if (!strcmp(argv[i], "--id") && i + 1 < argc)
			id = argv[++i];
		else if ((input && i + 1 >= argc) || (argv[i][0] == '-' && argv[i][1] == '-' && !input)) {
			fprintf(stderr, "cuzkctl submit: unknown or incomplete option '%s'\n", argv[i]);
			goto out;
		} else if (n == MAX_PARTS) {
			fprintf(stderr, "cuzkctl submit: too many witnesses and inputs (at most %d per job)\n", MAX_PARTS);
			goto out;
		} else if (payload_of(argv[input ? ++i : i], input, &parts[n], &keep[n]))
			goto out;
		else
			n++;
	}
	if (id && (!*id || strlen(id) >= 64 || strchr(id, '/') || id[0] == '.' || id[0] == '@')) {
		fprintf(stderr, "cuzkctl submit: job id '%s': 1 to 63 characters, no '/', not starting with '.' or '@'\n", id);
		goto out;
	}
	if (!id) {              /* the daemon's own form for ids it makes: '@', never a caller's */
		uint64_t r = 0;
		if (getrandom(&r, sizeof r, 0) != sizeof r)
			r = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
		snprintf(auto_id, sizeof auto_id, "@c%016" PRIx64, r);
		id = auto_id;
	}
	struct cz_fleet_job_spec spec = { .owner = (uint32_t)getuid(), .id = id, .prio = (unsigned)prio,
					  .circuit = argv[1], .nparts = n, .parts = parts };
	uint64_t seq = 0;
	int src = n ? cz_fleet_submit(f, &spec, &seq) : -EINVAL;
	if (src) {
		fprintf(stderr, "cuzkctl submit: %s\n", n ? cz_fleet_error(f) : "a job needs a witness or an input");
		rc = src == -EEXIST ? 1 : 2;
		goto out;
	}
	printf("%s\n", id);
	fflush(stdout);
	rc = wait ? fleet_await(f, id, -1, NULL) : 0;
out:
	for (uint32_t i = 0; i < n; i++) {
		free((void *)parts[i].bytes);
		free(keep[i]);
	}
	return rc;
}

/* The done job's proofs into dir (K.proof.json, K.public.json). */
static int proofs_write(struct cz_fleet *f, const struct cz_fleet_status *st, const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "cuzkctl await: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	char why[PATH_MAX + 256];
	if (cz_fleet_proofs_write(f, st, dir, why, sizeof why)) {
		fprintf(stderr, "cuzkctl await: %s\n", why);
		return -1;
	}
	return 0;
}

static int fleet_await(struct cz_fleet *f, const char *id, double timeout, const char *out)
{
	uint64_t seq;
	struct cz_fleet_status st = { 0 };
	int rc = cz_fleet_find(f, id, &seq);
	if (rc) {
		fprintf(stderr, "cuzkctl await: %s\n", rc == -ENOENT ? "unknown job" : cz_fleet_error(f));
		return rc == -ENOENT ? 1 : 2;
	}
	/* In slices, so an await of a year is one bounded wait after another. */
	double left = timeout < 0 ? 366.0 * 86400 : timeout;
	do {
		int ms = left > 60 ? 60000 : (int)(left * 1000);
		rc = cz_fleet_await(f, seq, ms, &st);
		left -= ms / 1000.0;
	} while (rc == -ETIMEDOUT && left > 0);
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, "cuzkctl await: job %s: still running after %.1f s\n", id, timeout);
		return 1;
	}
	if (rc) {
		fprintf(stderr, "cuzkctl await: %s\n", cz_fleet_error(f));
		return 2;
	}
	if (st.state != CZ_FLEET_JOB_DONE) {
		fprintf(stderr, "cuzkctl await: job %s %s\n", id, cz_fleet_job_state_name(st.state));
		return 1;
	}
	char dir[PATH_MAX];
	if (out)
		snprintf(dir, sizeof dir, "%s", out);
	else
		snprintf(dir, sizeof dir, "%s", id);
	if (proofs_write(f, &st, dir))
		return 2;
	char full[PATH_MAX];
	printf("%s\n", realpath(dir, full) ? full : dir);
	return 0;
}

static int fleet_status(struct cz_fleet *f, int argc, char **argv)
{
	if (argc == 2) {        /* status JOB */
		uint64_t seq;
		struct cz_fleet_status st;
		if (cz_fleet_find(f, argv[1], &seq) || cz_fleet_status(f, seq, &st)) {
			fprintf(stderr, "cuzkctl status: %s\n", cz_fleet_error(f));
			return 1;
		}
		printf("job %s (seq %" PRIu64 ", %s, owner %u): %s; %u partitions: %u queued, %u claimed, %u done, %u failed; "
		       "%" PRIu64 " duplicate finishes\n", st.id, st.seq, st.prio < 4 ? prio_names[st.prio] : "low", st.owner,
		       cz_fleet_job_state_name(st.state), st.nparts, st.queued, st.claimed, st.done, st.failed,
		       st.duplicates);
		return 0;
	}
	static struct cz_fleet_node_row rows[256];
	struct cz_fleet_queue q;
	int n = cz_fleet_nodes(f, CZ_FLEET_LEASE_MS, rows, 256);
	if (n < 0 || cz_fleet_queue_get(f, &q)) {
		fprintf(stderr, "cuzkctl status: %s\n", cz_fleet_error(f));
		return 2;
	}
	printf("%-6s %-24s %-8s %-8s %-9s %-5s %-7s %-22s %s\n", "node", "host", "pid", "devices", "consumers", "held",
	       "duty", "idle mostly", "heartbeat");
	for (int i = 0; i < n; i++) {
		char duty[16] = "-";    /* a node that reports none: an older build */
		if (rows[i].duty_10s >= 0)
			snprintf(duty, sizeof duty, "%.1f%%", 100 * rows[i].duty_10s);
		printf("%-6" PRId64 " %-24s %-8d %-8u %-9u %-5u %-7s %-22s %" PRId64 " ms ago\n", rows[i].id, rows[i].host,
		       rows[i].pid, rows[i].devices, rows[i].capacity, rows[i].held, duty,
		       rows[i].idle_cause[0] ? rows[i].idle_cause : "-", rows[i].heartbeat_age_ms);
	}
	printf("queue:");
	for (int p = 0; p < 4; p++)
		printf(" %s %" PRIu64 " queued %" PRIu64 " claimed%s", prio_names[p], q.queued[p], q.claimed[p],
		       p < 3 ? ";" : "\n");
	return 0;
}

static int fleet_cancel(struct cz_fleet *f, const char *id)
{
	uint64_t seq;
	uid_t uid = getuid();
	int rc = cz_fleet_find(f, id, &seq);
	if (!rc)
		rc = cz_fleet_cancel(f, seq, (uint32_t)uid, uid == 0);
	if (rc) {
		fprintf(stderr, "cuzkctl cancel: %s\n", rc == -EPERM ? "the job belongs to another user: permission denied"
						 : rc == -EALREADY ? "the job already ended" : cz_fleet_error(f));
		return rc == -ENOTCONN || rc == -ETIMEDOUT ? 2 : 1;
	}
	return 0;
}

int cuzkctl_fleet(const char *url, int argc, char **argv)
{
	const char *c = argv[0];
	bool known = !strcmp(c, "submit") || (!strcmp(c, "status") && argc <= 2) || (!strcmp(c, "cancel") && argc == 2) ||
		     (!strcmp(c, "await") && argc >= 2);
	if (!known) {
		fprintf(stderr, "cuzkctl --fleet URL: submit, await JOB [--timeout S] [--out DIR], status [JOB], cancel JOB\n");
		return 2;
	}
	struct cz_fleet *f = fleet_open(url);
	if (!f)
		return 2;
	int rc = 2;
	if (!strcmp(c, "submit"))
		rc = fleet_submit(f, argc, argv);
	else if (!strcmp(c, "status"))
		rc = fleet_status(f, argc, argv);
	else if (!strcmp(c, "cancel"))
		rc = fleet_cancel(f, argv[1]);
	else {
		double t = -1;
		const char *out = NULL;
		for (int i = 2; i + 1 < argc; i += 2) {
			char *end;
			if (!strcmp(argv[i], "--timeout"))
				t = strtod(argv[i + 1], &end);
			else if (!strcmp(argv[i], "--out"))
				out = argv[i + 1];
		}
		rc = fleet_await(f, argv[1], t, out);
	}
	cz_fleet_close(f);
	return rc;
}
