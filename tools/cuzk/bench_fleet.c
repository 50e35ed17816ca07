/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/bench_fleet.c — `cuzk bench fleet CONNINFO`: what the fleet's
 * job table (engine/fleet/) costs per partition on a real PostgreSQL
 * (docs/BENCHMARKS.md, "Fleet"; tools/bench-fleet.sh starts a scratch
 * server and runs it).
 *
 * For 1, 2 and 3 claiming nodes (threads, each its own handle and
 * connection, as separate cuzkd would be): --iters jobs (default 100) of
 * 10 partitions each are submitted, then every node loops claim(1) →
 * finish(a 192-byte proof) until the queue is empty, as a node whose one
 * free consumer asks for work.  Reported: claim and finish latency p50 and
 * p99 (each call timed on the monotonic clock), partitions per second
 * (the whole drain, wall), and statements and round trips per partition
 * from the library's own counters (claim + finish; submit separately).
 * A last run holds 800 partitions claimed by another node first (100
 * nodes x 8 GPUs busy), so the claim walks past them as it would in that
 * fleet.  A node renews every 50 claims (its lease: 30 s).
 *
 * Each run first empties the fleet tables (TRUNCATE): point it at a
 * scratch database, never a fleet's.
 */
#include "engine/fleet/fleet.h"
#include "lib/clock.h"
#include "tools/cuzk/cmd.h"

#ifndef CZ_HAVE_LIBPQ
#include <stdio.h>
int cz_bench_fleet(const struct cz_bench_opts *o)
{
	(void)o;
	fprintf(stderr, "cuzk bench fleet: built without libpq (libpq-dev)\n");
	return 2;
}
#else

#include <inttypes.h>
#include <libpq-fe.h>
#include "engine/fleet/pq.h"        /* loaded by the first cz_fleet_open (open_node) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PARTS 10
#define PROOF 192

struct bnode {
	struct cz_fleet *f;
	double *claim_ms, *finish_ms;   /* one entry a call */
	int nclaim, nfinish, cap, errors;
	struct cz_fleet_stats s0, s1;
	double db_cpu_ms, cli_cpu_ms;   /* the server process's CPU (from /proc) and this thread's, over the drain */
};

/* CPU time (user + system) of process pid, ms; -1 if unreadable (another machine). */
static double proc_cpu_ms(int pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = pid > 0 ? fopen(path, "r") : NULL;
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	unsigned long ut = 0, st = 0;
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, (size_t)n, sizeof *v, dcmp);
	int i = (int)(p * (n - 1) + 0.5);
	return v[i];
}

static void *drain(void *arg)
{
	struct bnode *b = arg;
	static const unsigned char proof[PROOF];
	struct cz_fleet_claim c;
	cz_fleet_stats_get(b->f, &b->s0);
	int pid = cz_fleet_backend_pid(b->f);
	double db0 = proc_cpu_ms(pid);
	int64_t cpu0 = cz_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (int k = 0;; k++) {
		int64_t t0 = cz_clock_ns(CLOCK_MONOTONIC);
		int n = cz_fleet_claim(b->f, 1, &c);
		int64_t t1 = cz_clock_ns(CLOCK_MONOTONIC);
		if (n < 0) {
			b->errors++;
			break;
		}
		if (n == 0)
			break;
		if (b->nclaim < b->cap)
			b->claim_ms[b->nclaim++] = (double)(t1 - t0) / 1e6;
		int r = cz_fleet_finish(b->f, c.key, proof, sizeof proof);
		int64_t t2 = cz_clock_ns(CLOCK_MONOTONIC);
		if (r != 0)
			b->errors++;
		if (b->nfinish < b->cap)
			b->finish_ms[b->nfinish++] = (double)(t2 - t1) / 1e6;
		cz_fleet_claim_free(&c);
		if (k % 50 == 49 && cz_fleet_renew(b->f) < 0)
			b->errors++;
	}
	cz_fleet_stats_get(b->f, &b->s1);
	double db1 = cz_fleet_backend_pid(b->f) == pid ? proc_cpu_ms(pid) : -1;
	b->db_cpu_ms = db0 >= 0 && db1 >= 0 ? db1 - db0 : -1;
	b->cli_cpu_ms = (double)(cz_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1e6;
	return NULL;
}

static struct cz_fleet *open_node(const char *ci, const char *host)
{
	struct cz_fleet_opts o = { .conninfo = ci, .timeout_ms = 10000 };
	char err[512];
	struct cz_fleet *f;
	if (cz_fleet_open(&o, &f, err, sizeof err) != 0) {
		fprintf(stderr, "cuzk bench fleet: %s\n", err);
		return NULL;
	}
	struct cz_fleet_node_info info = { .host = host, .devices = 8, .capacity = 8, .circuits = "bench" };
	if (cz_fleet_node_register(f, &info, NULL) != 0) {
		fprintf(stderr, "cuzk bench fleet: %s\n", cz_fleet_error(f));
		cz_fleet_close(f);
		return NULL;
	}
	return f;
}

/* count jobs of PARTS partitions each, ids "r<round>-<tag><j>". */
static int submit_jobs(struct cz_fleet *sub, int round, const char *tag, int count,
		       const struct cz_fleet_payload *pl)
{
	char id[64];
	uint64_t seq;

	for (int j = 0; j < count; j++) {
		snprintf(id, sizeof id, "r%d-%s%d", round, tag, j);
		struct cz_fleet_job_spec s = { .owner = 1, .id = id, .prio = CZ_PRIO_NORMAL, .circuit = "bench",
					       .nparts = PARTS, .parts = pl };
		if (cz_fleet_submit(sub, &s, &seq) != 0)
			return fprintf(stderr, "cuzk bench fleet: %s\n", cz_fleet_error(sub)), 1;
	}
	return 0;
}

static int run(const struct cz_bench_opts *o, const char *ci, int nodes, int held, int jobs, int round)
{
	struct cz_fleet *sub = open_node(ci, "submitter");
	if (!sub)
		return 1;
	/* The held partitions: submitted first, so they are the lowest keys, claimed by a node that keeps them. */
	struct cz_fleet *holder = NULL;
	struct cz_fleet_payload pl[PARTS];
	unsigned char input[256];
	memset(input, 7, sizeof input);
	for (int i = 0; i < PARTS; i++)
		pl[i] = (struct cz_fleet_payload){ .bytes = input, .len = sizeof input };
	struct cz_fleet_stats ss0, ss1;
	if (submit_jobs(sub, round, "held-", held / PARTS, pl))
		return 1;
	if (held) {
		holder = open_node(ci, "holder");
		struct cz_fleet_claim *c = calloc((size_t)held, sizeof *c);
		int n = holder && c ? cz_fleet_claim(holder, (uint32_t)held, c) : -1;
		for (int i = 0; i < n; i++)
			cz_fleet_claim_free(&c[i]);
		free(c);
		if (n != held)
			return fprintf(stderr, "cuzk bench fleet: holder claimed %d of %d\n", n, held), 1;
	}
	cz_fleet_stats_get(sub, &ss0);
	int64_t ts0 = cz_clock_ns(CLOCK_MONOTONIC);
	if (submit_jobs(sub, round, "", jobs, pl))
		return 1;
	int64_t ts1 = cz_clock_ns(CLOCK_MONOTONIC);
	cz_fleet_stats_get(sub, &ss1);
	int total = jobs * PARTS;
	struct bnode b[3] = { 0 };
	pthread_t th[3];
	for (int i = 0; i < nodes; i++) {
		char h[16];
		snprintf(h, sizeof h, "node%d", i);
		b[i].f = open_node(ci, h);
		b[i].cap = total + 1;
		b[i].claim_ms = calloc((size_t)b[i].cap, sizeof(double));
		b[i].finish_ms = calloc((size_t)b[i].cap, sizeof(double));
		if (!b[i].f || !b[i].claim_ms || !b[i].finish_ms)
			return 1;
	}
	int64_t t0 = cz_clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < nodes; i++)
		pthread_create(&th[i], NULL, drain, &b[i]);
	for (int i = 0; i < nodes; i++)
		pthread_join(th[i], NULL);
	double wall_s = (double)(cz_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	double *cl = calloc((size_t)total + 1, sizeof(double)), *fi = calloc((size_t)total + 1, sizeof(double));
	int ncl = 0, nfi = 0, errors = 0, done = 0;
	double db_ms = 0, cli_ms = 0;
	uint64_t stm = 0, rt = 0;
	for (int i = 0; i < nodes; i++) {
		memcpy(cl + ncl, b[i].claim_ms, (size_t)b[i].nclaim * sizeof(double));
		ncl += b[i].nclaim;
		memcpy(fi + nfi, b[i].finish_ms, (size_t)b[i].nfinish * sizeof(double));
		nfi += b[i].nfinish;
		errors += b[i].errors;
		db_ms = db_ms < 0 || b[i].db_cpu_ms < 0 ? -1 : db_ms + b[i].db_cpu_ms;
		cli_ms += b[i].cli_cpu_ms;
		done += (int)(b[i].s1.finished - b[i].s0.finished);
		stm += b[i].s1.statements - b[i].s0.statements;
		rt += b[i].s1.round_trips - b[i].s0.round_trips;
		cz_fleet_close(b[i].f);
		free(b[i].claim_ms);
		free(b[i].finish_ms);
	}
	char extra[640];
	double c50 = pct(cl, ncl, 0.5), c99 = pct(cl, ncl, 0.99), f50 = pct(fi, nfi, 0.5), f99 = pct(fi, nfi, 0.99);
	snprintf(extra, sizeof extra,
		 o->json ? "\"nodes\": %d, \"held\": %d, \"partitions\": %d, \"errors\": %d, \"claim_p50_ms\": %.3f, "
			   "\"claim_p99_ms\": %.3f, \"finish_p50_ms\": %.3f, \"finish_p99_ms\": %.3f, \"parts_per_s\": %.0f, "
			   "\"statements_per_part\": %.3f, \"round_trips_per_part\": %.3f, \"submit_ms_per_part\": %.3f, "
			   "\"submit_statements_per_part\": %.3f, \"db_cpu_ms_per_part\": %.3f, \"client_cpu_ms_per_part\": %.3f"
			 : "nodes=%d held=%d parts=%d errors=%d claim p50 %.3f p99 %.3f ms, finish p50 %.3f p99 %.3f ms, "
			   "%.0f parts/s, %.3f statements %.3f round trips /part; submit %.3f ms %.3f statements /part; "
			   "CPU /part: server %.3f ms, client %.3f ms",
		 nodes, held, done, errors, c50, c99, f50, f99, done / wall_s, (double)stm / (done ? done : 1),
		 (double)rt / (done ? done : 1), (double)(ts1 - ts0) / 1e6 / total,
		 (double)(ss1.statements - ss0.statements) / total, db_ms < 0 ? -1.0 : db_ms / (done ? done : 1),
		 cli_ms / (done ? done : 1));
	cz_bench_report(o, "fleet", (uint64_t)done, (unsigned)nodes, wall_s * 1e3, extra);
	free(cl);
	free(fi);
	cz_fleet_close(holder); /* its claims stay: the next run truncates */
	cz_fleet_close(sub);
	return errors || done != total;
}

int cz_bench_fleet(const struct cz_bench_opts *o)
{
	const char *ci = o->npos > 0 ? o->pos[0] : getenv("CZ_FLEET_DB");
	if (!ci) {
		fprintf(stderr, "usage: cuzk bench fleet CONNINFO [--iters JOBS] (a scratch database: its fleet tables are emptied)\n");
		return 2;
	}
	int jobs = o->iters > 0 ? o->iters : 100, rc = 0;
	struct { int nodes, held; } runs[] = { { 1, 0 }, { 2, 0 }, { 3, 0 }, { 3, 800 } };
	for (size_t r = 0; r < sizeof runs / sizeof runs[0] && !rc; r++) {
		/* A fresh queue each run: the schema once (open), then empty tables. */
		struct cz_fleet *f = open_node(ci, "setup");
		if (!f)
			return 1;
		cz_fleet_close(f);
		PGconn *pg = PQconnectdb(ci);
		PGresult *res = PQexec(pg, "TRUNCATE cz_fleet_part, cz_fleet_job, cz_fleet_node");
		PQclear(res);
		res = PQexec(pg, "VACUUM ANALYZE cz_fleet_part");
		PQclear(res);
		PQfinish(pg);
		rc = run(o, ci, runs[r].nodes, runs[r].held, jobs, (int)r);
	}
	return rc;
}
#endif
