/* SPDX-License-Identifier: MIT */
/*
 * Description: the fleet library (engine/fleet/) against a real PostgreSQL
 * server started for the test (selftests/cz_pg.h): schema create and
 * migrate, fleet-wide claim order across nodes, leases that expire and
 * move work to another node, first finish wins, cancel by owner only,
 * payloads inline and on a shared path checked by digest, a database
 * restart mid-run, and concurrent claimers that never share a partition.
 * The oracle is the table itself, read with plain SELECTs on a connection
 * of the test's own, and the expected order computed here by sorting.
 * Skips when the server binaries (postgresql) or libpq are missing.
 */
#include "selftests/cz_test.h"

#ifndef CZ_HAVE_LIBPQ
int main(void)
{
	ct_plan(1);
	ct_skip("built without libpq (libpq-dev)", "fleet");
	return ct_exit();
}
#else

#include "engine/fleet/fleet.h"
#include "lib/clock.h"
#include "selftests/cz_pg.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdbool.h>
#include <limits.h>
#include <sys/un.h>
#include <sys/socket.h>
#include <stdatomic.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <string.h>
#include <time.h>

static struct cz_pg pg;
static PGconn *oracle;

/* One number from a plain SELECT on the test's own connection (-1 on error). */
static long long ask(const char *sql)
{
	PGresult *r = PQexec(oracle, sql);
	long long v = -1;
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
		v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	else
		ct_diag("oracle: %s: %s", sql, PQresultErrorMessage(r));
	PQclear(r);
	return v;
}

/* A Unix-socket proxy in front of the server's socket that can turn into a
 * black hole: while `black` it forwards nothing and accepts nothing (a
 * connect still completes into the listen backlog, as one to a host behind
 * a network split would hang), so a client waits on silence, not on an
 * error.  `black` ends by itself after black_ms (every connection then
 * closed, the backlog's too), so a client that waits without a bound
 * returns, late, and the test can say how late. */
#define PX_MAX 32
struct bh_proxy {
	char dir[96], up[PATH_MAX + 32];
	int lfd, stop_fd;
	_Atomic int black;
	int black_ms;
	pthread_t t;
	int cli[PX_MAX], srv[PX_MAX];
};

/* A Unix stream socket at path: listening (do_listen) or connected; -1. */
static int unix_sock(const char *path, bool do_listen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof a.sun_path)
		return -1;
	memcpy(a.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && (do_listen ? bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 16)
				  : connect(fd, (struct sockaddr *)&a, sizeof a))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void px_close_all(struct bh_proxy *x)
{
	for (int i = 0; i < PX_MAX; i++) {
		if (x->cli[i] >= 0)
			close(x->cli[i]);
		if (x->srv[i] >= 0)
			close(x->srv[i]);
		x->cli[i] = x->srv[i] = -1;
	}
}

static void *px_main(void *arg)
{
	struct bh_proxy *x = arg;
	char sock[PATH_MAX], buf[16384];
	snprintf(sock, sizeof sock, "%s/.s.PGSQL.5432", x->dir);
	for (;;) {
		if (atomic_load(&x->black)) {
			struct pollfd s = { .fd = x->stop_fd, .events = POLLIN };
			if (poll(&s, 1, x->black_ms) > 0)
				break;
			/* the black hole lapses: every connection dropped, the backlog with the listener */
			px_close_all(x);
			close(x->lfd);
			unlink(sock);
			x->lfd = unix_sock(sock, true);
			atomic_store(&x->black, 0);
			continue;
		}
		struct pollfd p[2 + 2 * PX_MAX];
		int n = 0;
		p[n++] = (struct pollfd){ .fd = x->stop_fd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = x->lfd, .events = POLLIN };
		for (int i = 0; i < PX_MAX; i++) {
			p[n++] = (struct pollfd){ .fd = x->cli[i], .events = POLLIN };
			p[n++] = (struct pollfd){ .fd = x->srv[i], .events = POLLIN };
		}
		if (poll(p, (nfds_t)n, 20) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if (atomic_load(&x->black))
			continue;
		if (p[1].revents & POLLIN) {
			int c = accept(x->lfd, NULL, NULL), u = c >= 0 ? unix_sock(x->up, false) : -1;
			int i = 0;
			while (i < PX_MAX && x->cli[i] >= 0)
				i++;
			if (c >= 0 && u >= 0 && i < PX_MAX) {
				x->cli[i] = c;
				x->srv[i] = u;
			} else {
				if (c >= 0)
					close(c);
				if (u >= 0)
					close(u);
			}
		}
		for (int i = 0; i < PX_MAX; i++) {
			for (int d = 0; d < 2; d++) {
				struct pollfd *q = &p[2 + 2 * i + d];
				if (q->fd < 0 || !(q->revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				ssize_t r = read(q->fd, buf, sizeof buf);
				int to = d ? x->cli[i] : x->srv[i];
				bool ok = r > 0;
				for (ssize_t off = 0; ok && off < r;) {
					ssize_t w = write(to, buf + off, (size_t)(r - off));
					ok = w > 0;
					off += w > 0 ? w : 0;
				}
				if (!ok) {
					close(x->cli[i]);
					close(x->srv[i]);
					x->cli[i] = x->srv[i] = -1;
					break;
				}
			}
		}
	}
	px_close_all(x);
	return NULL;
}

/* Starts the proxy in a new directory in front of pg's socket; 0 or -1. */
static int px_start(struct bh_proxy *x, int black_ms)
{
	char sock[PATH_MAX];
	memset(x, 0, sizeof *x);
	for (int i = 0; i < PX_MAX; i++)
		x->cli[i] = x->srv[i] = -1;
	x->black_ms = black_ms;
	snprintf(x->dir, sizeof x->dir, "/tmp/czpx-XXXXXX");
	snprintf(x->up, sizeof x->up, "%s/.s.PGSQL.5432", pg.dir);
	if (!mkdtemp(x->dir))
		return -1;
	snprintf(sock, sizeof sock, "%s/.s.PGSQL.5432", x->dir);
	x->lfd = unix_sock(sock, true);
	x->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (x->lfd < 0 || x->stop_fd < 0 || pthread_create(&x->t, NULL, px_main, x))
		return -1;
	return 0;
}

static void px_stop(struct bh_proxy *x)
{
	char sock[PATH_MAX];
	uint64_t one = 1;
	if (write(x->stop_fd, &one, sizeof one) != sizeof one)
		ct_diag("proxy: stop: %s", strerror(errno));
	pthread_join(x->t, NULL);
	close(x->stop_fd);
	if (x->lfd >= 0)
		close(x->lfd);
	snprintf(sock, sizeof sock, "%s/.s.PGSQL.5432", x->dir);
	unlink(sock);
	rmdir(x->dir);
}

/* A renew on another thread, for points 46-48: it waits in the hole. */
struct hole_renew {
	struct cz_fleet *f;
	int rc;
};

static void *hole_renew_main(void *arg)
{
	struct hole_renew *h = arg;
	h->rc = cz_fleet_renew(h->f);
	return NULL;
}

static struct cz_fleet *node(const char *conninfo, int lease_ms, int max_attempts, const char *host)
{
	struct cz_fleet_opts o = { .conninfo = conninfo, .timeout_ms = 10000, .lease_ms = lease_ms,
				   .max_attempts = max_attempts };
	char err[512];
	struct cz_fleet *f = NULL;
	int rc = cz_fleet_open(&o, &f, err, sizeof err);
	if (rc) {
		ct_diag("open: %s", err);
		return NULL;
	}
	struct cz_fleet_node_info info = { .host = host, .devices = 1, .capacity = 8, .circuits = "t" };
	if (cz_fleet_node_register(f, &info, NULL) != 0) {
		ct_diag("register: %s", cz_fleet_error(f));
		cz_fleet_close(f);
		return NULL;
	}
	return f;
}

/* Submits a job of n inline partitions whose input is "id/part". */
static uint64_t submit(struct cz_fleet *f, const char *id, uint32_t owner, unsigned prio, uint32_t n)
{
	struct cz_fleet_payload *p = calloc(n, sizeof *p);
	char (*in)[64] = calloc(n, sizeof *in);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(in[i], sizeof in[i], "%s/%" PRIu32, id, i);
		p[i].bytes = in[i];
		p[i].len = strlen(in[i]);
	}
	struct cz_fleet_job_spec s = { .owner = owner, .id = id, .prio = prio, .circuit = "t", .nparts = n, .parts = p };
	uint64_t seq = 0;
	if (cz_fleet_submit(f, &s, &seq) != 0)
		ct_diag("submit %s: %s", id, cz_fleet_error(f));
	free(p);
	free(in);
	return seq;
}

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static int key_cmp(const void *a, const void *b)
{
	return cz_key_cmp(a, b);
}

/* ------------------------------------------------- concurrent claimers */

#define NTHREADS 4
#define NCONC 240

struct claimer {
	struct cz_fleet *f;
	struct cz_key got[NCONC];
	int n, errors;
};

static void *claimer_main(void *arg)
{
	struct claimer *c = arg;
	struct cz_fleet_claim cl[3];
	for (;;) {
		int n = cz_fleet_claim(c->f, 3, cl);
		if (n < 0) {
			c->errors++;
			break;
		}
		if (n == 0)
			break;
		for (int i = 0; i < n; i++) {
			if (c->n < NCONC)
				c->got[c->n++] = cl[i].key;
			if (cz_fleet_finish(c->f, cl[i].key, "p", 1) != 0)
				c->errors++;
			cz_fleet_claim_free(&cl[i]);
		}
	}
	return NULL;
}

struct awaiter {
	struct cz_fleet *f;
	uint64_t seq;
	struct cz_fleet_status st;
	int rc;
};

static void *awaiter_main(void *arg)
{
	struct awaiter *w = arg;
	w->rc = cz_fleet_await(w->f, w->seq, 20000, &w->st);
	return NULL;
}


/* ------------------------------------------------- notifications off */

/* A database whose pg_notify raises (a function of that name in a schema
 * searched before pg_catalog, as a server without NOTIFY -- YugabyteDB's
 * YSQL has been one -- refuses it): with --fleet-notify on, submit fails
 * there; auto finds the refusal at open and every statement runs without
 * pg_notify; off, on a server with NOTIFY, sends none (a listener hears
 * nothing). */
static void notify_points(struct cz_fleet *listener_db_handle)
{
	char ci[PATH_MAX + 64], q[512];
	if (pg_createdb(&pg, "nonotify", ci, sizeof ci) != 0) {
		for (int i = 0; i < 3; i++)
			ct_skip("createdb nonotify failed", "notifications off, point %d", i + 1);
		return;
	}
	PGconn *o = PQconnectdb(ci);
	PQsetNoticeProcessor(o, quiet, NULL);
	PGresult *r = PQexec(o, CZ_PG_NO_NOTIFY_SQL("nonotify"));
	int made = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!made)
		ct_diag("fake pg_notify: %s", PQerrorMessage(o));
	PQclear(r);
	PQfinish(o);
	/* on: the emulation bites (a submit's statement calls pg_notify). */
	struct cz_fleet_opts oo = { .conninfo = ci, .timeout_ms = 5000, .lease_ms = 60000, .notify = CZ_FLEET_NOTIFY_ON };
	char err[512] = "";
	struct cz_fleet *on = NULL;
	const char in[] = "x";
	struct cz_fleet_payload p1 = { .bytes = in, .len = 1 };
	struct cz_fleet_job_spec sp = { .owner = 5, .id = "nn-on", .prio = 2, .circuit = "t", .nparts = 1, .parts = &p1 };
	uint64_t seq = 0;
	int orc = cz_fleet_open(&oo, &on, err, sizeof err);
	int src = orc == 0 ? cz_fleet_submit(on, &sp, &seq) : orc;
	ct_ok(made && orc == 0 && src == -EIO && strstr(cz_fleet_error(on), "not supported"),
	      "--fleet-notify on, against a database whose pg_notify is refused: the submit fails (%d: %.90s)", src,
	      on ? cz_fleet_error(on) : err);
	cz_fleet_close(on);
	/* auto: refused at open, then everything works without it. */
	oo.notify = CZ_FLEET_NOTIFY_AUTO;
	oo.lease_ms = 300;
	struct cz_fleet *f = NULL, *g = NULL;
	int arc = cz_fleet_open(&oo, &f, err, sizeof err), grc = cz_fleet_open(&oo, &g, err, sizeof err);
	struct cz_fleet_node_info info = { .host = "nn", .devices = 1, .capacity = 4, .circuits = "t" };
	arc = arc ? arc : cz_fleet_node_register(f, &info, NULL);
	grc = grc ? grc : cz_fleet_node_register(g, &info, NULL);
	const char *why = arc == 0 ? cz_fleet_notify_off(f) : NULL;
	struct cz_fleet_stats st = { 0 };
	if (arc == 0)
		cz_fleet_stats_get(f, &st);
	ct_diag("auto: notifications off: %s", why ? why : "(on)");
	int ok = arc == 0 && grc == 0 && why && strstr(why, "not supported") && st.notify_off == 1 &&
		 cz_fleet_listen(f, CZ_FLEET_CH_WORK) == -EIO;
	sp.id = "nn-auto";
	sp.nparts = 1;
	struct cz_fleet_payload p3[3] = { p1, p1, p1 };
	sp.parts = p3;
	sp.nparts = 3;
	int s1 = ok ? cz_fleet_submit(f, &sp, &seq) : -1;
	struct cz_fleet_claim cl[3];
	int n1 = s1 == 0 ? cz_fleet_claim(f, 3, cl) : -1;
	int fl = n1 == 3 ? cz_fleet_fail(f, cl[0].key, "again") : -1;      /* requeue: a notify there */
	for (int i = 1; i < n1; i++)
		cz_fleet_finish(f, cl[i].key, "p", 1);
	for (int i = 0; i < n1; i++)
		cz_fleet_claim_free(&cl[i]);
	int n2 = fl == 0 ? cz_fleet_claim(g, 1, cl) : -1;              /* g lets its lease lapse */
	if (n2 == 1)
		cz_fleet_claim_free(&cl[0]);
	sleep_ms(400);
	int rn = n2 == 1 ? cz_fleet_renew(f) : -1;                      /* the reaper: a notify there */
	int n3 = rn >= 0 ? cz_fleet_claim(f, 1, cl) : -1;
	int fin = n3 == 1 ? cz_fleet_finish(f, cl[0].key, "p", 1) : -1;
	if (n3 == 1)
		cz_fleet_claim_free(&cl[0]);
	struct cz_fleet_status js = { 0 };
	int aw = fin == 0 ? cz_fleet_await(f, seq, 5000, &js) : -1;
	sp.id = "nn-cancel";
	sp.nparts = 1;
	uint64_t s2 = 0;
	int cs = aw == 0 ? cz_fleet_submit(f, &sp, &s2) : -1;
	int cc = cs == 0 ? cz_fleet_cancel(f, s2, 5, false) : -1;
	ct_ok(ok && s1 == 0 && n1 == 3 && fl == 0 && n2 == 1 && rn >= 0 && n3 == 1 && fin == 0 && aw == 0 &&
		      js.state == CZ_FLEET_JOB_DONE && cc == 0,
	      "--fleet-notify auto there: refused at open, no LISTEN; submit %d, claim %d, fail/requeue %d, a lapsed lease "
	      "reaped (renew %d) and claimed again (%d), finish %d, await %d (done), cancel %d: nothing stops",
	      s1, n1, fl, rn, n3, fin, aw, cc);
	cz_fleet_close(f);
	cz_fleet_close(g);
	/* off, on a server with NOTIFY: a listener on the same database hears none of its statements. */
	struct cz_fleet_opts fo = { .conninfo = pg.conninfo, .timeout_ms = 5000, .lease_ms = 60000,
				    .notify = CZ_FLEET_NOTIFY_OFF };
	struct cz_fleet *off = NULL;
	int frc = cz_fleet_open(&fo, &off, err, sizeof err);
	int lrc = listener_db_handle ? cz_fleet_listen(listener_db_handle, CZ_FLEET_CH_WORK | CZ_FLEET_CH_DONE) : -1;
	int quiet0 = lrc == 0 ? cz_fleet_wait(listener_db_handle, -1, 50) : -1;  /* drain */
	(void)quiet0;
	uint64_t s3 = frc == 0 ? submit(off, "nn-off", 1000, CZ_PRIO_LOW, 1) : 0;
	struct cz_key k = { .prio = CZ_PRIO_LOW, .seq = s3, .part = 0 };
	int ofin = s3 ? cz_fleet_finish(off, k, "p", 1) : -1;
	int heard = lrc == 0 ? cz_fleet_wait(listener_db_handle, -1, 500) : -1;
	snprintf(q, sizeof q, "SELECT count(*) FROM cz_fleet_part WHERE seq = %" PRIu64 " AND state = 2", s3);
	ct_ok(frc == 0 && cz_fleet_notify_off(off) && s3 && ofin == 0 && ask(q) == 1 && heard == 0,
	      "--fleet-notify off on a server with NOTIFY: a submit and a finish are recorded, and a listener hears "
	      "neither (%d): no statement called pg_notify", heard);
	cz_fleet_close(off);
}

#define PLAN 50
int main(void)
{
	ct_plan(PLAN);
	if (pg_start(&pg) != 0) {
		for (int i = 0; i < PLAN; i++)
			ct_skip(pg.why, "fleet point %d", i + 1);
		pg_stop(&pg, 0);
		return ct_exit();
	}
	ct_diag("server %s, %s", pg.bin, pg.dir);
	oracle = PQconnectdb(pg.conninfo);
	PQsetNoticeProcessor(oracle, quiet, NULL);

	/* 1-3: schema created once, re-open migrates nothing, a newer schema refused. */
	struct cz_fleet *a = node(pg.conninfo, 60000, 2, "a");
	struct cz_fleet_stats st;
	if (a)
		cz_fleet_stats_get(a, &st);
	ct_ok(a && st.migrations == CZ_FLEET_SCHEMA_VERSION &&
		      ask("SELECT max(version) FROM cz_fleet_schema") == CZ_FLEET_SCHEMA_VERSION &&
		      ask("SELECT count(*) FROM cz_fleet_schema") == CZ_FLEET_SCHEMA_VERSION,
	      "open creates the schema: %d step(s) applied, the version table says %lld", a ? (int)st.migrations : -1,
	      ask("SELECT max(version) FROM cz_fleet_schema"));
	if (!a) {
		pg_stop(&pg, 1);
		return ct_exit();
	}
	struct cz_fleet *b = node(pg.conninfo, 60000, 2, "b"), *c = node(pg.conninfo, 60000, 2, "c");
	struct cz_fleet_stats stb = { 0 };
	if (b)
		cz_fleet_stats_get(b, &stb);
	ct_ok(b && c && stb.migrations == 0 && ask("SELECT count(*) FROM cz_fleet_schema") == CZ_FLEET_SCHEMA_VERSION,
	      "re-open migrates nothing (%d steps) and records no version twice", (int)stb.migrations);
	{
		char ci[PATH_MAX + 64], err[512] = "";
		struct cz_fleet *fu = NULL;
		int rc = -1;
		if (pg_createdb(&pg, "future", ci, sizeof ci) == 0) {
			struct cz_fleet_opts o = { .conninfo = ci, .timeout_ms = 5000 };
			rc = cz_fleet_open(&o, &fu, err, sizeof err);
			cz_fleet_close(fu);
			PGconn *x = PQconnectdb(ci);
			PQclear(PQexec(x, "INSERT INTO cz_fleet_schema VALUES (99)"));
			PQfinish(x);
			fu = NULL;
			rc = rc == 0 ? cz_fleet_open(&o, &fu, err, sizeof err) : -1;
		}
		ct_ok(rc == -EPROTO && !fu && strstr(err, "version 99"), "a newer schema (99) is refused: %s", err);
	}

	/* Upgrade: from schema 2 (as the previous release left it: step 3 undone on a database
	 * with rows), then each node's duty written by its heartbeat. */
	{
		char ci[PATH_MAX + 64];
		struct cz_fleet *o2 = NULL, *up = NULL;
		uint64_t js = 0, found = 0;
		if (pg_createdb(&pg, "upgrade", ci, sizeof ci) == 0 && (o2 = node(ci, 60000, 2, "old"))) {
			js = submit(o2, "up-1", 1000, CZ_PRIO_NORMAL, 2);
			cz_fleet_close(o2);
			PGconn *x = PQconnectdb(ci);
			PQclear(PQexec(x, "ALTER TABLE cz_fleet_node DROP COLUMN duty_10s, DROP COLUMN idle_cause;"
					  "DELETE FROM cz_fleet_schema WHERE version = 3"));
			PGresult *v = PQexec(x, "SELECT max(version) FROM cz_fleet_schema");
			int was = PQntuples(v) == 1 ? atoi(PQgetvalue(v, 0, 0)) : -1;
			PQclear(v);
			PQfinish(x);
			up = was == 2 ? node(ci, 60000, 2, "new") : NULL;
		}
		struct cz_fleet_stats us = { 0 };
		struct cz_fleet_node_row rows[4];
		int nr = up ? cz_fleet_nodes(up, 0, rows, 4) : -1;
		if (up)
			cz_fleet_stats_get(up, &us);
		bool old_unknown = false;
		for (int i = 0; i < nr; i++)
			old_unknown |= !strcmp(rows[i].host, "old") && rows[i].duty_10s < 0 && !rows[i].idle_cause[0];
		ct_ok(up && us.migrations == 1 && cz_fleet_schema_version(up) == CZ_FLEET_SCHEMA_VERSION &&
			      cz_fleet_find(up, "up-1", &found) == 0 && found == js && nr == 2 && old_unknown,
		      "a schema-2 database with rows is upgraded to %d (%d step applied): its job is there, the old "
		      "node's duty reads unknown", CZ_FLEET_SCHEMA_VERSION, (int)us.migrations);
		struct cz_fleet_stats s0, s1;
		int r1 = up ? cz_fleet_renew(up) : -1;  /* the renew prepared once */
		if (up) {
			cz_fleet_node_duty(up, 0.625, "no claimable work");
			cz_fleet_stats_get(up, &s0);
		}
		int r2 = up ? cz_fleet_renew(up) : -1;
		if (up)
			cz_fleet_stats_get(up, &s1);
		nr = up ? cz_fleet_nodes(up, 0, rows, 4) : -1;
		bool shown = false;
		for (int i = 0; i < nr; i++)
			shown |= !strcmp(rows[i].host, "new") && rows[i].duty_10s > 0.624 && rows[i].duty_10s < 0.626 &&
				 !strcmp(rows[i].idle_cause, "no claimable work");
		ct_ok(r1 == 0 && r2 == 0 && shown && s1.statements - s0.statements == 2 &&
			      s1.round_trips - s0.round_trips == 2,
		      "a node's duty (62.5%%) and main idle cause travel with its heartbeat: the renew's 2 statements "
		      "(%llu), listed per node", (unsigned long long)(s1.statements - s0.statements));
		cz_fleet_close(up);
	}

	/* 4-6: mixed priorities, three nodes claiming in turn: the fleet-wide (prio, seq, part) order. */
	struct { const char *id; unsigned prio; uint32_t n; } jobs[] = {
		{ "j-normal-1", CZ_PRIO_NORMAL, 3 }, { "j-high-1", CZ_PRIO_HIGH, 2 }, { "j-low-1", CZ_PRIO_LOW, 2 },
		{ "j-normal-2", CZ_PRIO_NORMAL, 2 }, { "j-crit-1", CZ_PRIO_CRITICAL, 1 }, { "j-high-2", CZ_PRIO_HIGH, 3 },
	};
	struct cz_key want[32];
	int nwant = 0, seqs_rise = 1;
	uint64_t last = 0;
	for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
		uint64_t s = submit(a, jobs[j].id, 1000, jobs[j].prio, jobs[j].n);
		seqs_rise &= s > last;
		last = s;
		for (uint32_t p = 0; p < jobs[j].n; p++)
			want[nwant++] = (struct cz_key){ .seq = s, .part = p, .prio = jobs[j].prio };
	}
	ct_ok(seqs_rise && ask("SELECT count(*) FROM cz_fleet_part") == nwant,
	      "sequence numbers come from the database, rising; %d partition rows", nwant);
	qsort(want, (size_t)nwant, sizeof want[0], key_cmp);
	struct cz_fleet *nodes[3] = { a, b, c };
	struct cz_key got[32];
	int ngot = 0, batches = 0, by[32];
	struct cz_fleet_claim cl[8];
	for (int turn = 0; ngot < nwant && turn < 30; turn++) {
		int n = cz_fleet_claim(nodes[turn % 3], 2, cl);
		if (n <= 0)
			break;
		batches++;
		for (int i = 0; i < n; i++) {
			by[ngot] = turn % 3;
			got[ngot++] = cl[i].key;
			cz_fleet_claim_free(&cl[i]);
		}
	}
	int order_ok = ngot == nwant;
	for (int i = 0; order_ok && i < nwant; i++)
		order_ok = cz_key_cmp(&got[i], &want[i]) == 0;
	ct_ok(order_ok && cz_fleet_claim(a, 2, cl) == 0,
	      "%d claims of up to 2 by 3 nodes in turn come out in (prio, seq, part) order (%d of %d), then none",
	      batches, ngot, nwant);
	cz_fleet_stats_get(a, &st);
	ct_ok(st.claimed > 0 && cz_fleet_held(a) + cz_fleet_held(b) + cz_fleet_held(c) == (uint32_t)nwant,
	      "each node holds what it claimed: %u + %u + %u", cz_fleet_held(a), cz_fleet_held(b), cz_fleet_held(c));
	/* The fleet as `status --fleet` would show it: each node's held count from the table
	 * against the library's held set, the queue by priority against the submissions. */
	{
		struct cz_fleet_node_row rows[16];
		int nr = cz_fleet_nodes(c, 60000, rows, 16), match = 0;
		const char *hosts[3] = { "a", "b", "c" };
		for (int i = 0; i < nr; i++)
			for (int k = 0; k < 3; k++)
				match += !strcmp(rows[i].host, hosts[k]) && rows[i].held == cz_fleet_held(nodes[k]) &&
					 rows[i].capacity == 8 && rows[i].heartbeat_age_ms >= 0 && rows[i].heartbeat_age_ms < 60000;
		struct cz_fleet_queue qq;
		int qrc = cz_fleet_queue_get(c, &qq);
		uint64_t want_claimed[CZ_PRIO__COUNT] = { 0 };
		for (int i = 0; i < nwant; i++)
			want_claimed[want[i].prio]++;
		int qok = qrc == 0;
		for (int k = 0; k < CZ_PRIO__COUNT; k++)
			qok &= qq.queued[k] == 0 && qq.claimed[k] == want_claimed[k];
		ct_ok(nr == 3 && match == 3 && qok,
		      "the node list (%d live) shows each node's held partitions as it holds them; the queue by priority: "
		      "claimed %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 ", none queued",
		      nr, qq.claimed[0], qq.claimed[1], qq.claimed[2], qq.claimed[3]);
	}
	/* Clear the table for what follows: every held partition finished by its holder. */
	for (int i = 0; i < ngot; i++)
		cz_fleet_finish(nodes[by[i]], got[i], "x", 1);

	/* 7: claim costs one statement and one round trip. */
	{
		uint64_t s = submit(a, "cost", 1000, CZ_PRIO_NORMAL, 4);
		struct cz_fleet_stats s0, s1;
		cz_fleet_stats_get(b, &s0);
		int n = cz_fleet_claim(b, 4, cl);
		cz_fleet_stats_get(b, &s1);
		for (int i = 0; i < n; i++) {
			cz_fleet_finish(b, cl[i].key, "x", 1);
			cz_fleet_claim_free(&cl[i]);
		}
		ct_ok(s && n == 4 && s1.statements - s0.statements == 1 && s1.round_trips - s0.round_trips == 1,
		      "a claim of 4 partitions is %" PRIu64 " statement(s), %" PRIu64 " round trip(s)",
		      s1.statements - s0.statements, s1.round_trips - s0.round_trips);
	}

	/* 8-12: leases.  A node with a 1.5 s lease that stops renewing loses its claims; one
	 * that renews (every 250 ms: a renew may take up to 1.25 s on a loaded machine) keeps them. */
	struct cz_fleet *dying = node(pg.conninfo, 1500, 2, "dying"), *keeper = node(pg.conninfo, 1500, 2, "keeper");
	uint64_t ls = submit(a, "lease", 1000, CZ_PRIO_NORMAL, 4);
	int nd = dying ? cz_fleet_claim(dying, 2, cl) : -1;
	struct cz_key dk[2] = { 0 };
	for (int i = 0; i < nd && i < 2; i++) {
		dk[i] = cl[i].key;
		cz_fleet_claim_free(&cl[i]);
	}
	int nk = keeper ? cz_fleet_claim(keeper, 2, cl) : -1;
	for (int i = 0; i < nk; i++)
		cz_fleet_claim_free(&cl[i]);
	ct_ok(nd == 2 && nk == 2 && dk[0].seq == ls && cz_fleet_claim(b, 4, cl) == 0,
	      "two nodes hold 2 partitions each under a 1.5 s lease; a third finds nothing to claim");
	ct_ok(cz_fleet_leases_live(dying), "the holder sees its leases live");
	int renewed_ok = 1;
	for (int i = 0; i < 13; i++) { /* 13 x 250 ms: over two leases' worth */
		sleep_ms(250);
		renewed_ok &= cz_fleet_renew(keeper) == 2;
	}
	ct_ok(!cz_fleet_leases_live(dying) && cz_fleet_leases_live(keeper) && renewed_ok,
	      "after 3.25 s the node that stopped renewing sees its leases lost; the one renewing (every 250 ms) does not");
	int nb = cz_fleet_claim(b, 4, cl);
	struct cz_key bk[4] = { 0 };
	int att2 = 1;
	for (int i = 0; i < nb; i++) {
		bk[i] = cl[i].key;
		att2 &= cl[i].attempt == 2;
		cz_fleet_claim_free(&cl[i]);
	}
	ct_ok(nb == 2 && cz_key_cmp(&bk[0], &dk[0]) == 0 && cz_key_cmp(&bk[1], &dk[1]) == 0 && att2,
	      "another node claims exactly the expired partitions (%d), as their second attempt", nb);
	ct_ok(cz_fleet_renew(dying) == 0 && cz_fleet_held(dying) == 0,
	      "a late renew by the dead node renews nothing and drops them from its held set");

	/* 13-14: finished twice, recorded once: the late node finishes first and wins. */
	int r1 = cz_fleet_finish(dying, dk[0], "proof-from-dying", 16);
	int r2 = cz_fleet_finish(b, dk[0], "proof-from-b", 12);
	char q[512];
	snprintf(q, sizeof q,
		 "SELECT count(*) FROM cz_fleet_part WHERE seq = %" PRIu64 " AND part = %u AND state = 2"
		 " AND proof = 'proof-from-dying'::bytea AND duplicates = 1",
		 dk[0].seq, dk[0].part);
	ct_ok(r1 == 0 && r2 == 1 && ask(q) == 1,
	      "a partition finished twice is recorded once: the first proof kept, the second counted a duplicate (%d, %d)",
	      r1, r2);
	struct cz_fleet_status js;
	int src = cz_fleet_status(c, ls, &js);
	ct_ok(src == 0 && js.done == 1 && js.claimed == 3 && js.duplicates == 1 &&
		      js.state == CZ_FLEET_JOB_LIVE,
	      "status from any node: %u done, %u claimed, %" PRIu64 " duplicate, %s", js.done, js.claimed, js.duplicates,
	      cz_fleet_job_state_name(js.state));

	/* 15-18: cancel: refused for another uid, done by the owner; its partitions stop. */
	int rc_other = cz_fleet_cancel(c, ls, 2000, false);
	int rc_owner = cz_fleet_cancel(c, ls, 1000, false);
	ct_ok(rc_other == -EPERM && rc_owner == 0, "cancel by uid 2000 refused (%d), by the owner 1000 done (%d)",
	      rc_other, rc_owner);
	snprintf(q, sizeof q, "SELECT count(*) FROM cz_fleet_part WHERE seq = %" PRIu64 " AND state IN (0, 1)", ls);
	int late = cz_fleet_finish(b, bk[1], "k", 1);
	ct_ok(ask(q) == 0 && late == -ECANCELED,
	      "its queued and claimed partitions stop: no row left to claim, a late finish refused (%d)", late);
	ct_ok(cz_fleet_renew(keeper) == 0 && cz_fleet_held(keeper) == 0 && cz_fleet_cancel(a, ls, 1000, false) == -EALREADY,
	      "the node proving them loses them at its next renew; a second cancel says it has ended");
	{
		uint64_t s = submit(a, "admin", 1000, CZ_PRIO_NORMAL, 1);
		int arc = cz_fleet_cancel(b, s, 0, true);
		src = cz_fleet_status(a, s, &js);
		ct_ok(arc == 0 && src == 0 && js.state == CZ_FLEET_JOB_CANCELLED,
		      "an admin cancels another owner's job: %s", cz_fleet_job_state_name(js.state));
	}
	cz_fleet_close(dying);
	cz_fleet_close(keeper);

	/* 19-21: payloads: inline over the cap refused, a shared path checked by its digest. */
	{
		char one = 0;
		struct cz_fleet_payload big = { .bytes = &one, .len = (size_t)CZ_FLEET_INLINE_MAX + 1 };
		struct cz_fleet_job_spec s = { .owner = 1, .id = "big", .prio = 2, .circuit = "t", .nparts = 1, .parts = &big };
		uint64_t seq;
		int rc = cz_fleet_submit(a, &s, &seq);
		ct_ok(rc == -E2BIG && strstr(cz_fleet_error(a), "shared directory") &&
			      ask("SELECT count(*) FROM cz_fleet_job WHERE id = 'big'") == 0,
		      "an inline input over %u bytes is refused before anything is written: %s", CZ_FLEET_INLINE_MAX,
		      cz_fleet_error(a));
		char path[PATH_MAX + 16];
		snprintf(path, sizeof path, "%s/w0.wtns", pg.dir);
		const char body[] = "a witness on the shared directory";
		FILE *w = fopen(path, "w");
		fwrite(body, 1, sizeof body - 1, w);
		fclose(w);
		struct cz_fleet_payload sp = { .path = path };
		unsigned mdlen;
		EVP_Digest(body, sizeof body - 1, sp.sha256, &mdlen, EVP_sha256(), NULL);
		s = (struct cz_fleet_job_spec){ .owner = 1, .id = "shared", .prio = 0, .circuit = "t", .nparts = 1, .parts = &sp };
		rc = cz_fleet_submit(a, &s, &seq);
		int n = rc == 0 ? cz_fleet_claim(c, 1, cl) : -1;
		void *buf = NULL;
		size_t len = 0;
		int lrc = n == 1 ? cz_fleet_payload_load(&cl[0], 1 << 20, &buf, &len) : -1;
		ct_ok(lrc == 0 && len == sizeof body - 1 && !memcmp(buf, body, len) && !cl[0].input,
		      "a shared-path input travels as its path and digest, and loads checked");
		free(buf);
		w = fopen(path, "r+");
		fputc('A', w);
		fclose(w);
		lrc = n == 1 ? cz_fleet_payload_load(&cl[0], 1 << 20, &buf, &len) : -1;
		ct_ok(lrc == -EBADMSG, "the same file changed on the shared directory: refused by its digest (%d)", lrc);
		if (n == 1) {
			cz_fleet_finish(c, cl[0].key, "x", 1);
			cz_fleet_claim_free(&cl[0]);
		}
	}

	/* Submit's two paths: a job whose inline inputs total <= 16 MiB in one statement (mixed
	 * with a shared path: NULL array elements), a larger one as a transaction; every input
	 * comes back as it went in. */
	{
		static const char sp_path[] = "/shared/w.wtns";
		struct cz_fleet_payload mix[3] = { { .bytes = "first", .len = 5 }, { .path = sp_path }, { .bytes = "", .len = 0 } };
		for (int i = 0; i < 32; i++)
			mix[1].sha256[i] = (uint8_t)(i * 7 + 1);
		struct cz_fleet_job_spec js1 = { .owner = 1, .id = "mixed", .prio = 0, .circuit = "t", .nparts = 3, .parts = mix };
		struct cz_fleet_stats m0, m1;
		uint64_t seq = 0;
		cz_fleet_stats_get(a, &m0);
		int rc = cz_fleet_submit(a, &js1, &seq);
		cz_fleet_stats_get(a, &m1);
		int n = rc == 0 ? cz_fleet_claim(b, 3, cl) : -1, same = n == 3;
		for (int i = 0; i < n; i++) {
			same &= cl[i].key.seq == seq && cl[i].key.part == (uint32_t)i;
			if (i == 1)
				same &= !cl[i].input && cl[i].input_path && !strcmp(cl[i].input_path, sp_path) &&
					!memcmp(cl[i].sha256, mix[1].sha256, 32);
			else
				same &= cl[i].input && !cl[i].input_path && cl[i].input_len == mix[i].len &&
					!memcmp(cl[i].input, mix[i].bytes, mix[i].len);
			cz_fleet_finish(b, cl[i].key, "m", 1);
			cz_fleet_claim_free(&cl[i]);
		}
		ct_ok(rc == 0 && same && m1.statements - m0.statements == 1,
		      "a 3-partition job (inline, shared path, empty) is %" PRIu64 " statement; its inputs come back as sent",
		      m1.statements - m0.statements);
		size_t big = 9u << 20;
		char *b0 = malloc(big), *b1 = malloc(big);
		for (size_t i = 0; i < big; i++) {
			b0[i] = (char)(i * 31);
			b1[i] = (char)(i * 17 + 3);
		}
		struct cz_fleet_payload two[2] = { { .bytes = b0, .len = big }, { .bytes = b1, .len = big } };
		struct cz_fleet_job_spec js2 = { .owner = 1, .id = "big2", .prio = 0, .circuit = "t", .nparts = 2, .parts = two };
		cz_fleet_stats_get(a, &m0);
		rc = cz_fleet_submit(a, &js2, &seq);
		cz_fleet_stats_get(a, &m1);
		n = rc == 0 ? cz_fleet_claim(b, 2, cl) : -1;
		same = n == 2;
		for (int i = 0; i < n; i++) {
			same &= cl[i].key.seq == seq && cl[i].input_len == big && !memcmp(cl[i].input, i ? b1 : b0, big);
			cz_fleet_finish(b, cl[i].key, "m", 1);
			cz_fleet_claim_free(&cl[i]);
		}
		ct_ok(rc == 0 && same && m1.statements - m0.statements == 3 + 2,
		      "a job of 2 x 9 MiB inline goes as a transaction (%" PRIu64 " statements); both inputs intact",
		      m1.statements - m0.statements);
		free(b0);
		free(b1);
	}

	/* 22-23: fail: requeued, then (max_attempts = 2) the job fails; await returns. */
	{
		uint64_t s = submit(a, "failing", 7, CZ_PRIO_CRITICAL, 2);
		int x1 = -9, x2 = -9;
		if (cz_fleet_claim(b, 1, cl) == 1) {
			x1 = cz_fleet_fail(b, cl[0].key, "device error");
			cz_fleet_claim_free(&cl[0]);
		}
		if (cz_fleet_claim(b, 1, cl) == 1) {
			x2 = cl[0].attempt == 2 ? cz_fleet_fail(b, cl[0].key, "device error again") : -8;
			cz_fleet_claim_free(&cl[0]);
		}
		snprintf(q, sizeof q, "SELECT count(*) FROM cz_fleet_part WHERE seq = %" PRIu64 " AND state IN (0, 1)", s);
		ct_ok(x1 == 0 && x2 == 1 && ask(q) == 0,
		      "a failed partition is requeued (%d), its second failure fails the job (%d) and stops the rest", x1, x2);
		int rc = cz_fleet_await(a, s, 2000, &js);
		ct_ok(rc == 0 && js.state == CZ_FLEET_JOB_FAILED && js.failed == 1, "await returns the ended job: %s",
		      cz_fleet_job_state_name(js.state));
	}
	/* Drain what is left (the j-* claims finished above; the shared job failed once). */
	for (int n; (n = cz_fleet_claim(a, 8, cl)) > 0;)
		for (int i = 0; i < n; i++) {
			cz_fleet_finish(a, cl[i].key, "d", 1);
			cz_fleet_claim_free(&cl[i]);
		}

	/* 24-25: the database restarted mid-run: claims held, proofs land after, nothing lost. */
	{
		uint64_t s = submit(a, "restart", 1000, CZ_PRIO_NORMAL, 6);
		int n1 = cz_fleet_claim(b, 3, cl);
		struct cz_key held[3];
		for (int i = 0; i < n1; i++) {
			held[i] = cl[i].key;
			cz_fleet_claim_free(&cl[i]);
		}
		cz_fleet_stats_get(b, &st);
		uint64_t rec0 = st.reconnects;
		int rrc = pg_restart(&pg);
		PQreset(oracle);
		int fin = 0;
		for (int i = 0; i < n1; i++)
			fin += cz_fleet_finish(b, held[i], "after-restart", 13) == 0;
		int n2 = cz_fleet_claim(c, 8, cl);
		for (int i = 0; i < n2; i++) {
			fin += cz_fleet_finish(c, cl[i].key, "after-restart", 13) == 0;
			cz_fleet_claim_free(&cl[i]);
		}
		cz_fleet_stats_get(b, &st);
		ct_ok(rrc == 0 && n1 == 3 && n2 == 3 && fin == 6 && st.reconnects > rec0,
		      "pg_ctl restart between claim and finish: the library reconnected (%" PRIu64 " time(s)), %d of 6 finished",
		      st.reconnects - rec0, fin);
		snprintf(q, sizeof q,
			 "SELECT count(*) FROM cz_fleet_part WHERE seq = %" PRIu64 " AND state = 2 AND proof = 'after-restart'::bytea",
			 s);
		ct_ok(ask(q) == 6 && cz_fleet_await(a, s, 2000, &js) == 0 && js.state == CZ_FLEET_JOB_DONE,
		      "every partition's proof is in the table after the restart; the job is done");
	}

	/* The database gone (pg_ctl stop): a node's calls fail within its bound, its leases
	 * lapse by its own clock; back (pg_ctl start): its proof is recorded, first wins. */
	{
		struct cz_fleet_opts o = { .conninfo = pg.conninfo, .timeout_ms = 1000, .lease_ms = 1500 };
		char err[512];
		struct cz_fleet *z = NULL;
		struct cz_fleet_node_info info = { .host = "z", .devices = 1, .capacity = 1, .circuits = "t" };
		int zrc = cz_fleet_open(&o, &z, err, sizeof err);
		zrc = zrc ? zrc : cz_fleet_node_register(z, &info, NULL);
		uint64_t s = submit(a, "cutoff", 1000, CZ_PRIO_NORMAL, 1);
		int nz = zrc == 0 ? cz_fleet_claim(z, 1, cl) : -1;
		struct cz_key zk = nz == 1 ? cl[0].key : (struct cz_key){ 0 };
		if (nz == 1)
			cz_fleet_claim_free(&cl[0]);
		int stop = pg_ctl(&pg, "stop");
		int64_t t0 = cz_clock_ns(CLOCK_MONOTONIC);
		int r1 = zrc == 0 ? cz_fleet_renew(z) : zrc;
		int64_t t1 = cz_clock_ns(CLOCK_MONOTONIC);
		int r2 = zrc == 0 ? cz_fleet_claim(z, 1, cl) : zrc;
		int64_t t2 = cz_clock_ns(CLOCK_MONOTONIC);
		sleep_ms(1600);
		int lapsed = zrc == 0 && !cz_fleet_leases_live(z);
		ct_ok(stop == 0 && nz == 1 && (r1 == -ENOTCONN || r1 == -ETIMEDOUT) && (r2 == -ENOTCONN || r2 == -ETIMEDOUT) &&
			      (t1 - t0) / 1000000 <= 2000 && (t2 - t1) / 1000000 <= 2000 && lapsed,
		      "database stopped: renew %d and claim %d fail in %" PRId64 " and %" PRId64 " ms (bound 1000 ms), "
		      "its leases lapse by its own clock (%d)",
		      r1, r2, (t1 - t0) / 1000000, (t2 - t1) / 1000000, lapsed);
		int start = pg_ctl(&pg, "start");
		PQreset(oracle);
		int r3 = zrc == 0 ? cz_fleet_finish(z, zk, "while-cut-off", 13) : zrc;
		snprintf(q, sizeof q,
			 "SELECT count(*) FROM cz_fleet_part WHERE seq = %" PRIu64 " AND state = 2 AND proof = 'while-cut-off'::bytea",
			 s);
		ct_ok(start == 0 && r3 == 0 && ask(q) == 1,
		      "database back: the proof made while cut off is recorded (%d), first wins", r3);
		cz_fleet_close(z);
	}

	/* 26: a statement that fails inside submit's transaction (a lock held past the bound)
	 * leaves the handle usable and nothing written. */
	{
		struct cz_fleet_opts o = { .conninfo = pg.conninfo, .timeout_ms = 1000 };
		char err[512];
		struct cz_fleet *t = NULL;
		int orc = cz_fleet_open(&o, &t, err, sizeof err);
		PQclear(PQexec(oracle, "BEGIN; LOCK TABLE cz_fleet_part IN ACCESS EXCLUSIVE MODE"));
		const char in[] = "x";
		struct cz_fleet_payload p1 = { .bytes = in, .len = 1 };
		struct cz_fleet_job_spec sp = { .owner = 5, .id = "locked", .prio = 2, .circuit = "t", .nparts = 1, .parts = &p1 };
		uint64_t seq = 0;
		int r1 = orc == 0 ? cz_fleet_submit(t, &sp, &seq) : orc;
		PQclear(PQexec(oracle, "ROLLBACK"));
		long long rows = ask("SELECT count(*) FROM cz_fleet_job WHERE id = 'locked'");
		int r2 = orc == 0 ? cz_fleet_submit(t, &sp, &seq) : orc;
		int r3 = orc == 0 ? cz_fleet_status(t, seq, &js) : orc;
		ct_ok(r1 == -ETIMEDOUT && rows == 0 && r2 == 0 && r3 == 0 && js.nparts == 1,
		      "submit against a locked table: %d (timed out), no job row (%lld), then the same handle submits (%d) "
		      "and reads its status (%d)", r1, rows, r2, r3);
		if (r2 == 0)
			cz_fleet_cancel(t, seq, 5, false); /* out of the way of the claimers below */
		cz_fleet_close(t);
	}

	/* 27: nobody renews: a claim that finds the queue short reaps the expired lease itself. */
	{
		struct cz_fleet *x = node(pg.conninfo, 200, 2, "x");
		uint64_t s = submit(a, "reap", 1000, CZ_PRIO_NORMAL, 1);
		int nx = x ? cz_fleet_claim(x, 1, cl) : -1;
		if (nx == 1)
			cz_fleet_claim_free(&cl[0]);
		sleep_ms(600); /* three leases */
		struct cz_fleet_stats r0, r1;
		cz_fleet_stats_get(c, &r0);
		int ny = cz_fleet_claim(c, 1, cl);
		cz_fleet_stats_get(c, &r1);
		int same = ny == 1 && cl[0].key.seq == s && cl[0].attempt == 2;
		if (ny == 1) {
			cz_fleet_finish(c, cl[0].key, "r", 1);
			cz_fleet_claim_free(&cl[0]);
		}
		ct_ok(nx == 1 && same && r1.reaped - r0.reaped == 1,
		      "with no node renewing, the next claim reaps the expired lease (%" PRIu64 ") and takes it (attempt 2)",
		      r1.reaped - r0.reaped);
		cz_fleet_close(x);
	}

	/* 28-29: 4 threads (4 connections) claim 240 partitions at once. */
	{
		uint64_t s1 = submit(a, "conc-1", 1000, CZ_PRIO_NORMAL, NCONC / 2);
		uint64_t s2 = submit(a, "conc-2", 1000, CZ_PRIO_HIGH, NCONC / 2);
		static struct claimer cs[NTHREADS];
		pthread_t th[NTHREADS];
		int made = 0;
		for (int i = 0; i < NTHREADS; i++) {
			char h[16];
			snprintf(h, sizeof h, "t%d", i);
			cs[i].f = node(pg.conninfo, 60000, 2, h);
			if (cs[i].f && pthread_create(&th[i], NULL, claimer_main, &cs[i]) == 0)
				made++;
		}
		for (int i = 0; i < made; i++)
			pthread_join(th[i], NULL);
		static struct cz_key all[NTHREADS * NCONC];
		int total = 0, errors = 0, busy = 0;
		for (int i = 0; i < NTHREADS; i++) {
			memcpy(all + total, cs[i].got, (size_t)cs[i].n * sizeof all[0]);
			total += cs[i].n;
			errors += cs[i].errors;
			busy += cs[i].n > 0;
			cz_fleet_close(cs[i].f);
		}
		qsort(all, (size_t)total, sizeof all[0], key_cmp);
		int dup = 0;
		for (int i = 1; i < total; i++)
			dup += cz_key_cmp(&all[i - 1], &all[i]) == 0;
		ct_ok(made == NTHREADS && total == NCONC && dup == 0 && errors == 0,
		      "%d threads claimed %d partitions in all (%d each took some), %d claimed twice, %d errors", made, total,
		      busy, dup, errors);
		snprintf(q, sizeof q,
			 "SELECT count(*) FROM cz_fleet_part WHERE seq IN (%" PRIu64 ", %" PRIu64 ") AND state = 2"
			 " AND attempts = 1 AND duplicates = 0",
			 s1, s2);
		ct_ok(ask(q) == NCONC, "the table (plain SELECT) agrees: %lld rows done, each claimed once, no duplicate",
		      ask(q));
	}

	/* 35-38: LISTEN/NOTIFY: new work and a job's end wake a waiter; the fallback is bounded. */
	{
		struct cz_fleet *l = node(pg.conninfo, 60000, 5, "listener");
		int lrc = l ? cz_fleet_listen(l, CZ_FLEET_CH_WORK) : -1;
		int idle = l ? cz_fleet_wait(l, -1, 100) : -1;
		submit(a, "notify-1", 1000, CZ_PRIO_LOW, 1);
		int woke = l ? cz_fleet_wait(l, -1, 10000) : -1;
		ct_ok(lrc == 0 && idle == 0 && woke > 0 && (woke & CZ_FLEET_CH_WORK),
		      "a listener waits out 100 ms with nothing sent (%d), and a submit's NOTIFY cz_fleet_work wakes it (%d)",
		      idle, woke);
		int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		uint64_t one = 1;
		int fdw = l && efd >= 0 && write(efd, &one, sizeof one) == 8 ? cz_fleet_wait(l, efd, 10000) : -1;
		ct_ok(fdw == (int)CZ_FLEET_CH__FD, "the caller's own descriptor wakes the same wait (%d)", fdw);
		if (efd >= 0)
			close(efd);
		cz_fleet_close(l);
	}
	{
		uint64_t s1 = submit(a, "notify-2", 1000, CZ_PRIO_LOW, 1);
		struct awaiter aw = { .f = node(pg.conninfo, 60000, 5, "awaiter"), .seq = s1 };
		pthread_t th;
		int made = aw.f && pthread_create(&th, NULL, awaiter_main, &aw) == 0;
		sleep_ms(300);
		struct cz_key k = { .prio = CZ_PRIO_LOW, .seq = s1, .part = 0 };
		int frc = cz_fleet_finish(b, k, "proof", 5);
		if (made)
			pthread_join(th, NULL);
		struct cz_fleet_stats ws = { 0 };
		if (aw.f)
			cz_fleet_stats_get(aw.f, &ws);
		ct_ok(made && frc == 0 && aw.rc == 0 && aw.st.state == CZ_FLEET_JOB_DONE,
		      "await returns done once another node finishes the job (finish %d, await %d)", frc, aw.rc);
		ct_ok(ws.await_notified >= 1 && ws.await_fallback == 0,
		      "it read the status again because a NOTIFY cz_fleet_done named the job (%" PRIu64 " notified, %" PRIu64
		      " fallback polls of %d ms)", ws.await_notified, ws.await_fallback, CZ_FLEET_AWAIT_POLL_MS);
		cz_fleet_close(aw.f);
	}

	/* 39: an input (JSON) partition claimed as one. */
	{
		struct cz_fleet_payload p[2] = { { .bytes = "{\"a\":1}", .len = 7, .is_input = true },
						 { .bytes = "wtns", .len = 4 } };
		struct cz_fleet_job_spec sp = { .owner = 1000, .id = "input-1", .prio = CZ_PRIO_CRITICAL, .circuit = "t",
						.nparts = 2, .parts = p };
		uint64_t sq = 0;
		int src = cz_fleet_submit(a, &sp, &sq);
		struct cz_fleet_claim cl[2];
		int n = src == 0 ? cz_fleet_claim(b, 2, cl) : -1;
		int good = n == 2 && cl[0].key.seq == sq && cl[0].is_input && cl[0].input_len == 7 &&
			   !memcmp(cl[0].input, "{\"a\":1}", 7) && cl[1].key.seq == sq && !cl[1].is_input;
		for (int i = 0; i < n; i++) {
			cz_fleet_finish(b, cl[i].key, "p", 1);
			cz_fleet_claim_free(&cl[i]);
		}
		ct_ok(good, "a partition submitted as an input (JSON) is claimed as one, its bytes intact; a witness as a witness");
	}

	/* 40: a restarted node's release: its own claim queued again at once, a claim made since left alone. */
	{
		uint64_t rs = submit(a, "release-1", 1000, CZ_PRIO_CRITICAL, 2);
		struct cz_fleet_claim cl[2];
		int n = cz_fleet_claim(b, 2, cl);
		struct cz_fleet_stale k[2] = { { .key = cl[0].key, .attempt = cl[0].attempt },
					       { .key = cl[1].key, .attempt = cl[1].attempt + 1 } };
		int rel = n == 2 && cl[0].key.seq == rs && cl[1].key.seq == rs ? cz_fleet_release(c, k, 2) : -1;
		snprintf(q, sizeof q, "SELECT count(*) FROM cz_fleet_part WHERE seq = %" PRIu64 " AND part = %u AND state = 0"
			 " AND node IS NULL AND lease_until IS NULL", rs, n == 2 ? cl[0].key.part : 0);
		long long queued = ask(q);
		snprintf(q, sizeof q, "SELECT count(*) FROM cz_fleet_part WHERE seq = %" PRIu64 " AND part = %u AND state = 1",
			 rs, n == 2 ? cl[1].key.part : 0);
		long long kept = ask(q);
		struct cz_fleet_claim again;
		int n2 = cz_fleet_claim(c, 1, &again);
		bool same = n2 == 1 && again.key.seq == rs && again.key.part == cl[0].key.part &&
			    again.attempt == cl[0].attempt + 1;
		if (n2 == 1) {
			cz_fleet_finish(c, again.key, "p", 1);
			cz_fleet_claim_free(&again);
		}
		for (int i = 0; i < n; i++) {
			if (i == 1)
				cz_fleet_finish(b, cl[i].key, "p", 1);
			cz_fleet_claim_free(&cl[i]);
		}
		ct_ok(rel == 1 && queued == 1 && kept == 1 && same && cz_fleet_release(c, k, 0) == 0,
		      "release queues again the partition its claim still holds (%d released), leaves one whose attempt "
		      "differs (%lld still claimed); the next claim takes it at once, attempt %u", rel, kept,
		      n2 == 1 ? again.attempt : 0);
	}

	/* 43-45: notifications off (--fleet-notify). */
	{
		struct cz_fleet *l = node(pg.conninfo, 60000, 5, "nn-listener");
		notify_points(l);
		cz_fleet_close(l);
	}

	/* 46-48: the database behind a black hole (a network split: no error, only silence).
	 * A statement past the bound is given up in the bound, and the cancel request for it
	 * (PQcancel waits for the server's answer without a bound) does not hold the handle:
	 * a second call on it returns in its own bound too; what status and /metrics read
	 * (stats, leases_live) does not wait for the call in flight.  The hole lapses after
	 * 6 s; the handle then works again. */
	{
		struct bh_proxy x;
		int prc = px_start(&x, 6000);
		char ci[256];
		snprintf(ci, sizeof ci, "host=%s port=5432 user=cz dbname=postgres", x.dir);
		struct cz_fleet *h = prc == 0 ? node(ci, 60000, 2, "hole") : NULL;
		struct cz_fleet_opts o = { .conninfo = ci, .timeout_ms = 1000 };
		char err[512];
		struct cz_fleet *g = NULL;
		int grc = h ? cz_fleet_open(&o, &g, err, sizeof err) : -1;
		struct cz_fleet_node_info info = { .host = "hole", .devices = 1, .capacity = 1, .circuits = "t" };
		grc = grc ? grc : cz_fleet_node_register(g, &info, NULL);
		int r0 = grc == 0 ? cz_fleet_renew(g) : grc;
		atomic_store(&x.black, 1);
		int64_t t0 = cz_clock_ns(CLOCK_MONOTONIC);
		struct hole_renew hr = { .f = g, .rc = grc };
		pthread_t rt;
		bool rt_up = grc == 0 && pthread_create(&rt, NULL, hole_renew_main, &hr) == 0;
		sleep_ms(200);          /* the renew is in the hole now, holding the handle */
		int64_t s0 = cz_clock_ns(CLOCK_MONOTONIC);
		struct cz_fleet_stats hs = { 0 };
		bool live = false;
		if (g) {
			cz_fleet_stats_get(g, &hs);
			live = cz_fleet_leases_live(g);
		}
		int64_t s_us = (cz_clock_ns(CLOCK_MONOTONIC) - s0) / 1000;
		if (rt_up)
			pthread_join(rt, NULL);
		int r1 = hr.rc;
		int64_t t1 = cz_clock_ns(CLOCK_MONOTONIC);
		ct_ok(rt_up && s_us < 100000 && hs.statements > 0,
		      "while a renew waits in the hole, stats and leases_live answer in %" PRId64 " us (bound 100 ms; "
		      "%" PRIu64 " statements, leases %s)", s_us, hs.statements, live ? "live" : "lapsed");
		int r2 = grc == 0 ? cz_fleet_claim(g, 1, cl) : grc;
		int64_t t2 = cz_clock_ns(CLOCK_MONOTONIC);
		int64_t ms1 = (t1 - t0) / 1000000, ms2 = (t2 - t1) / 1000000;
		for (int i = 0; i < r2; i++)
			cz_fleet_claim_free(&cl[i]);
		ct_ok(prc == 0 && r0 == 0 && r1 < 0 && r2 < 0 && ms1 <= 2500 && ms2 <= 2500,
		      "database behind a black hole: renew %d in %" PRId64 " ms and then claim %d in %" PRId64 " ms "
		      "(bound 1000 ms each, no wait on a cancel request)", r1, ms1, r2, ms2);
		for (int k = 0; k < 800 && atomic_load(&x.black); k++)
			sleep_ms(10);
		int r3 = grc == 0 ? cz_fleet_renew(g) : grc;
		ct_ok(grc == 0 && !atomic_load(&x.black) && r3 >= 0,
		      "the hole gone: the same handle renews again (%d)", r3);
		if (g)
			cz_fleet_close(g);
		if (h)
			cz_fleet_close(h);
		if (prc == 0)
			px_stop(&x);
	}

	/* 49-50: pruning after the retention. */
	{
		long long before = ask("SELECT count(*) FROM cz_fleet_job");
		uint64_t live = submit(a, "prune-live", 1000, CZ_PRIO_LOW, 2);
		struct cz_key k0 = { .prio = CZ_PRIO_LOW, .seq = live, .part = 0 };
		cz_fleet_finish(b, k0, "p", 1);         /* one of two done: live */
		int nn = -1, kept = cz_fleet_prune(a, 3600 * 1000, &nn);
		long long after_keep = ask("SELECT count(*) FROM cz_fleet_job");
		sleep_ms(20);
		int gone = cz_fleet_prune(a, 10, &nn);
		snprintf(q, sizeof q, "SELECT count(*) FROM cz_fleet_job WHERE seq = %" PRIu64, live);
		long long live_left = ask(q);
		long long left = ask("SELECT count(*) FROM cz_fleet_job");
		long long parts_left = ask("SELECT count(*) FROM cz_fleet_part p WHERE NOT EXISTS"
					   " (SELECT 1 FROM cz_fleet_job j WHERE j.seq = p.seq)");
		long long ended_left = ask("SELECT count(*) FROM cz_fleet_job j WHERE j.state <> 0 OR NOT EXISTS"
					   " (SELECT 1 FROM cz_fleet_part p WHERE p.seq = j.seq AND p.state <> 2)");
		ct_ok(kept == 0 && after_keep == before + 1, "a retention of an hour prunes none of the jobs just ended (%lld jobs, %d pruned)",
		      before, kept);
		ct_ok(gone > 0 && live_left == 1 && ended_left == 0 && parts_left == 0,
		      "a retention of 10 ms prunes the %d ended jobs with their partitions; the live one stays (%lld left, "
		      "%lld dead nodes pruned)", gone, left, (long long)nn);
	}

	cz_fleet_close(a);
	cz_fleet_close(b);
	cz_fleet_close(c);
	PQfinish(oracle);
	int failed = ct_fail;
	pg_stop(&pg, failed);
	if (failed)
		ct_diag("kept %s for a look", pg.dir);
	return ct_exit();
}
#endif
