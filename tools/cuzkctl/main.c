/* SPDX-License-Identifier: MIT */
/* cuzkctl — talks to cuzkd over its control socket.  See docs/cuzkctl.1.md. */
#define _GNU_SOURCE     /* pipe2 */
#include "ctl/ctl.h"
#include "tools/cuzkctl/loadwatch.h"
#include "tools/cuzkctl/top.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cuzkctl_fleet(const char *url, int argc, char **argv); /* tools/cuzkctl/fleet.c */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cuzkctl [--socket PATH] COMMAND\n"
		"       cuzkctl --fleet URL submit|await|status|cancel ...   on a fleet's database, no cuzkd here\n"
		"  load NAME ZKEY [--partitions N] [--wasm CIRCUIT.wasm | --witness-lib LIB]\n"
		"                 [--fixed-tables auto|off|SIZE]\n"
		"                                    read a proving key and keep it resident; with its\n"
		"                                    witness program, its jobs may carry inputs\n"
		"  unload NAME                       free a key no job uses\n"
		"  circuits                          list loaded keys\n"
		"  submit NAME [WTNS...] [--input INPUT.json]... [--priority critical|high|normal|low]\n"
		"         [--id ID] [--wait]         one partition per witness or input, in the order\n"
		"                                    given; prints the job id\n"
		"  await JOB [--timeout S] [--out DIR]  wait; prints the output directory (exit 0) or why not;\n"
		"                                    --out: the proofs delivered into DIR (files of this user)\n"
		"  cancel JOB                        drop a queued or running job\n"
		"  status [--json]                   devices (duty, idle by cause), jobs, consumers, budget, keys\n"
		"  status --fleet                    a fleet member's view: this node, the live nodes, the queue\n"
		"  device N enable|disable|restart   --isolation process: drain and stop, or (re)start device N\n"
		"  top [--once]                      jobs and devices live, each 0.5 s (q quits)\n"
		"  trace [--out FILE] [--chrome] [--job ID] [--since S] [--follow]\n"
		"                                    dump the pipeline's timing events (or one job's, the\n"
		"                                    last S s'; --follow streams them until interrupted)\n");
}

/* A plain decimal (strtod would take "nan", "inf", hex), finite, in [0, max]. */
static int parse_num(const char *s, double max, double *out)
{
	char *end;
	if (!*s || strspn(s, "0123456789.eE+-") != strlen(s))
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static json_object *req_new(const char *op)
{
	json_object *r = json_object_new_object();
	json_object_object_add(r, "op", json_object_new_string(op));
	return r;
}

static int ok_of(json_object *r)
{
	json_object *v;
	return json_object_object_get_ex(r, "ok", &v) && json_object_get_boolean(v);
}

static const char *str_of(json_object *r, const char *k)
{
	json_object *v;
	return json_object_object_get_ex(r, k, &v) ? json_object_get_string(v) : "";
}

/* Sends req (consumed), prints the error if any; returns the response. */
static json_object *call(int sock, json_object *req, const int *fds, int nfds)
{
	char err[512];
	json_object *r = cz_ctl_call(sock, req, fds, nfds, err, sizeof(err));
	json_object_put(req);
	if (!r)
		fprintf(stderr, "cuzkctl: %s\n", err);
	else if (!ok_of(r))
		fprintf(stderr, "cuzkctl: %s\n", str_of(r, "error"));
	return r;
}

static int finish(json_object *r, int print_json)
{
	if (!r)
		return 2;
	int ok = ok_of(r);
	json_object *full;
	/* "queue full" is temporary: EX_TEMPFAIL, so a script can retry. */
	int busy = json_object_object_get_ex(r, "queue_full", &full) && json_object_get_boolean(full);
	/* So is a submit the journal refused (a full disk under the state directory). */
	busy = busy || (json_object_object_get_ex(r, "journal_refused", &full) && json_object_get_boolean(full));
	if (ok && print_json)
		printf("%s\n", json_object_to_json_string_ext(r, JSON_C_TO_STRING_PRETTY));
	json_object_put(r);
	return ok ? 0 : busy ? 75 : 1;
}

/* await --out DIR: the daemon wrote the job's files into fd as one JSON
 * document (docs/protocol.md, await); each one into DIR, as this user. */
static int unbundle(int fd, const char *dir)
{
	struct stat st;
	char *b = NULL;
	if (fstat(fd, &st) || !(b = malloc((size_t)st.st_size + 1)) ||
	    pread(fd, b, (size_t)st.st_size, 0) != st.st_size) {
		fprintf(stderr, "cuzkctl await: reading the delivered proofs back: %s\n", strerror(errno));
		free(b);
		return -1;
	}
	b[st.st_size] = 0;
	json_object *doc = json_tokener_parse(b), *files;
	free(b);
	int rc = doc && json_object_object_get_ex(doc, "files", &files) ? 0 : -1;
	for (size_t i = 0; !rc && i < json_object_array_length(files); i++) {
		json_object *f = json_object_array_get_idx(files, i), *v;
		const char *name = str_of(f, "name");
		if (!*name || strchr(name, '/') || name[0] == '.') {
			rc = -1;
			break;
		}
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		FILE *o = fopen(path, "wbx");
		if (!o) {
			fprintf(stderr, "cuzkctl await: %s/%s: %s\n", dir, name, strerror(errno));
			rc = -1;
			break;
		}
		if (json_object_object_get_ex(f, "text", &v)) {
			fwrite(json_object_get_string(v), 1, (size_t)json_object_get_string_len(v), o);
		} else if (json_object_object_get_ex(f, "hex", &v)) {
			const char *h = json_object_get_string(v);
			for (size_t k = 0; h[k] && h[k + 1]; k += 2) {
				unsigned x;
				if (sscanf(h + k, "%2x", &x) == 1)
					fputc((int)x, o);
			}
		}
		rc = fclose(o) ? -1 : 0;
	}
	if (rc)
		fprintf(stderr, "cuzkctl await: the delivered proofs are not as expected\n");
	json_object_put(doc);
	return rc;
}

static int await_job(int sock, const char *job, double timeout, const char *out)
{
	json_object *q = req_new("await");
	json_object_object_add(q, "job", json_object_new_string(job));
	if (timeout >= 0)
		json_object_object_add(q, "timeout", json_object_new_double(timeout));
	int fd = -1;
	if (out && (fd = open(out, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) < 0) {
		fprintf(stderr, "cuzkctl await: --out %s: %s\n", out, strerror(errno));
		json_object_put(q);
		return 2;
	}
	json_object *r = call(sock, q, &fd, fd >= 0);
	if (r && ok_of(r) && out && unbundle(fd, out)) {
		json_object_put(r);
		r = NULL;
	} else if (r && ok_of(r)) {
		printf("%s\n", out ? out : str_of(r, "dir"));
	}
	if (fd >= 0)
		close(fd);
	return finish(r, 0);
}

static int cmd_submit(int sock, int argc, char **argv)
{
	json_object *q = req_new("submit");
	int fds[CZ_CTL_MAX_FDS], nfds = 0, wait = 0, rc;
	json_object *inputs = NULL;     /* indices of the descriptors that are inputs */

	if (argc < 3) {
		usage(stderr);
		json_object_put(q);
		return 2;
	}
	json_object_object_add(q, "circuit", json_object_new_string(argv[1]));
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait = 1;
		else if ((!strcmp(argv[i], "--priority") || !strcmp(argv[i], "--id")) && i + 1 < argc) {
			json_object_object_add(q, argv[i] + 2, json_object_new_string(argv[i + 1]));
			i++;
		} else if (!strcmp(argv[i], "--input") && i + 1 < argc && nfds < CZ_CTL_MAX_FDS) {
			if ((fds[nfds] = open(argv[i + 1], O_RDONLY | O_CLOEXEC)) < 0) {
				fprintf(stderr, "cuzkctl submit: %s: %s\n", argv[i + 1], strerror(errno));
				rc = 2;
				goto out;
			}
			if (!inputs)
				json_object_object_add(q, "inputs", inputs = json_object_new_array());
			json_object_array_add(inputs, json_object_new_int(nfds++));
			i++;
		} else if (argv[i][0] == '-' && argv[i][1] == '-' && strcmp(argv[i], "--input")) {
			fprintf(stderr, "cuzkctl submit: unknown or incomplete option '%s'\n", argv[i]);
			rc = 2;
			goto out;
		} else if (nfds == CZ_CTL_MAX_FDS || !strcmp(argv[i], "--input")) {
			fprintf(stderr, "cuzkctl submit: %s\n", nfds == CZ_CTL_MAX_FDS ? "too many witnesses "
				"and inputs (at most 200 per job)" : "--input needs a file");
			rc = 2;
			goto out;
		} else if ((fds[nfds] = open(argv[i], O_RDONLY | O_CLOEXEC)) < 0) {
			fprintf(stderr, "cuzkctl submit: %s: %s\n", argv[i], strerror(errno));
			rc = 2;
			goto out;
		} else {
			nfds++;
		}
	}
	json_object *r = call(sock, q, fds, nfds);
	q = NULL;
	if (r && ok_of(r)) {
		const char *job = str_of(r, "job");
		printf("%s\n", job);
		if (wait) {
			char id[128];
			snprintf(id, sizeof(id), "%s", job);
			json_object_put(r);
			rc = await_job(sock, id, -1, NULL);
			goto out;
		}
	}
	rc = finish(r, 0);
out:
	json_object_put(q);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	return rc;
}

static long long jint(json_object *o, const char *k)
{
	json_object *v;
	return json_object_object_get_ex(o, k, &v) ? (long long)json_object_get_int64(v) : 0;
}

/* status --fleet: this node, the live nodes and the queue by priority (the database's view). */
static void print_fleet(json_object *f)
{
	json_object *me = json_object_object_get(f, "this"), *nodes = json_object_object_get(f, "nodes");
	json_object *qd = json_object_object_get(f, "queued"), *cl = json_object_object_get(f, "claimed");
	printf("this node %lld: holds %lld of %lld consumers, leases %s; claims %lld (%lld empty: no claimable "
	       "work; %.1f ms in all: claim latency), claimed %lld, finished %lld, duplicates %lld, failed %lld, "
	       "lost %lld, errors %lld\n", jint(me, "node"), jint(me, "held"), jint(me, "capacity"),
	       json_object_get_boolean(json_object_object_get(me, "leases_live")) ? "live" : "lapsed",
	       jint(me, "claims"), jint(me, "empty_claims"), json_object_get_double(json_object_object_get(me, "claim_ms")),
	       jint(me, "claimed"), jint(me, "finished"), jint(me, "duplicates"), jint(me, "failed"), jint(me, "lost"),
	       jint(me, "errors"));
	if (json_object_object_get(f, "error"))
		printf("the database: %s\n", json_object_get_string(json_object_object_get(f, "error")));
	printf("%-6s %-24s %-8s %-8s %-9s %-5s %-7s %-22s %s\n", "node", "host", "pid", "devices", "consumers", "held",
	       "duty", "idle mostly", "heartbeat");
	for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
		json_object *x = json_object_array_get_idx(nodes, i), *d = json_object_object_get(x, "duty_10s");
		const char *cause = json_object_get_string(json_object_object_get(x, "idle_cause"));
		char duty[16] = "-";    /* a node that reports none: an older build */
		if (d)
			snprintf(duty, sizeof duty, "%.1f%%", 100 * json_object_get_double(d));
		printf("%-6lld %-24s %-8lld %-8lld %-9lld %-5lld %-7s %-22s %lld ms ago\n", jint(x, "node"),
		       json_object_get_string(json_object_object_get(x, "host")), jint(x, "pid"), jint(x, "devices"),
		       jint(x, "capacity"), jint(x, "held"), duty, cause && *cause ? cause : "-",
		       jint(x, "heartbeat_age_ms"));
	}
	static const char *const pr[] = { "critical", "high", "normal", "low" };
	printf("queue:");
	for (int p = 0; p < 4; p++)
		printf(" %s %lld queued %lld claimed%s", pr[p], jint(qd, pr[p]), jint(cl, pr[p]), p < 3 ? ";" : "\n");
}

static const char *g_sock_path;    /* for load's progress child */

/* load NAME ZKEY [--partitions N] [--wasm CIRCUIT.wasm | --witness-lib LIB]
 *      [--fixed-tables auto|off|SIZE] (checked by the daemon) */
static int cmd_load(int sock, int argc, char **argv)
{
	int wasm = 0;   /* a witness program or tables: progress worth watching */
	char full[4096];
	json_object *q = req_new("load");
	json_object_object_add(q, "name", json_object_new_string(argv[1]));
	/* The daemon resolves paths from its own directory: send absolute ones. */
	json_object_object_add(q, "zkey", json_object_new_string(realpath(argv[2], full) ? full : argv[2]));
	for (int i = 3; i < argc; i++) {
		double parts;
		if (!strcmp(argv[i], "--partitions") && i + 1 < argc) {
			if (parse_num(argv[i + 1], 200, &parts) || parts != (int)parts) {
				fprintf(stderr, "cuzkctl load: --partitions '%s': expected a whole number from 0 "
					"to 200\n", argv[i + 1]);
				json_object_put(q);
				return 2;
			}
			json_object_object_add(q, "partitions", json_object_new_int((int)parts));
		} else if (!strcmp(argv[i], "--fixed-tables") && i + 1 < argc) {
			json_object_object_add(q, "fixed_tables", json_object_new_string(argv[i + 1]));
			wasm |= strcmp(argv[i + 1], "off") != 0;
		} else if ((!strcmp(argv[i], "--wasm") || !strcmp(argv[i], "--witness-lib")) && i + 1 < argc) {
			wasm |= argv[i][2] == 'w' && argv[i][3] == 'a';
			json_object_object_add(q, argv[i][2] == 'w' && argv[i][3] == 'a' ? "wasm" : "witness_lib",
					       json_object_new_string(realpath(argv[i + 1], full) ? full
								      : argv[i + 1]));
		} else {
			fprintf(stderr, "cuzkctl load: unknown or incomplete option '%s'\n", argv[i]);
			usage(stderr);
			json_object_put(q);
			return 2;
		}
		i++;
	}
	json_object *r = NULL;
	if (wasm) {             /* the daemon pushes the build's stages on this connection */
		char err[512];
		json_object_object_add(q, "progress", json_object_new_boolean(1));
		r = cz_loadwatch_call(sock, q, argv[1], err, sizeof(err));
		json_object_object_del(q, "progress");
		if (!r) {
			fprintf(stderr, "cuzkctl: %s\n", err);
			json_object_put(q);
			return 2;
		}
		if (!ok_of(r) && strstr(str_of(r, "error"), "unknown field \"progress\"")) {
			json_object_put(r);     /* an older daemon: poll its "building" instead */
			r = NULL;
		} else {
			json_object_put(q);
			if (!ok_of(r))
				fprintf(stderr, "cuzkctl: %s\n", str_of(r, "error"));
		}
	}
	if (!r) {
		pid_t watch = wasm && g_sock_path ? cz_loadwatch_start(g_sock_path, argv[1]) : -1;
		r = call(sock, q, NULL, 0);
		cz_loadwatch_stop(watch);
	}
	if (r && ok_of(r) && json_object_object_get_ex(r, "witness_lib", NULL)) {
		cz_loadwatch_report(argv[1], r);
		fprintf(stderr, "cuzkctl load: %s takes inputs (witness program %s)\n", argv[1],
			str_of(r, "witness_lib"));
	}
	return finish(r, 0);
}

static void print_status(json_object *r)
{
	json_object *b = json_object_object_get(r, "budget");
	printf("backend %s; budget %s reserved of %s bytes (high water %s, %s waits)\n",
	       str_of(r, "backend"), str_of(b, "reserved"), str_of(b, "budget"), str_of(b, "high_water"),
	       str_of(b, "waits"));
	json_object *a = json_object_object_get(r, "circuits");
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *c = json_object_array_get_idx(a, i);
		printf("circuit %-16s %s, 2^%s, %s signals, %s active jobs\n", str_of(c, "name"),
		       str_of(c, "curve"), str_of(c, "log2n"), str_of(c, "signals"), str_of(c, "active_jobs"));
	}
	a = json_object_object_get(r, "devices");
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *d = json_object_array_get_idx(a, i);
		static const char *const win[] = { "last_10s", "since_start" };
		for (int w = 0; w < 2; w++) {
			json_object *o = json_object_object_get(d, win[w]);
			printf("device %-3s %-11s duty %5.1f%% busy %.1f ms idle %.1f ms", str_of(d, "device"),
			       w ? "since start" : "last 10 s",
			       100 * json_object_get_double(json_object_object_get(o, "duty")),
			       json_object_get_double(json_object_object_get(o, "busy_ms")),
			       json_object_get_double(json_object_object_get(o, "idle_ms")));
			json_object *by = json_object_object_get(o, "idle_by_cause_ms");
			const char *sep = ":";
			json_object_object_foreach(by, cause, ms) {
				printf("%s %s %.1f", sep, cause, json_object_get_double(ms));
				sep = ",";
			}
			double un = json_object_get_double(json_object_object_get(o, "unattributed_ms"));
			if (un > 0)
				printf("%s unattributed %.1f", sep, un);
			printf("\n");
		}
	}
	a = json_object_object_get(r, "consumers");
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *c = json_object_array_get_idx(a, i);
		printf("consumer %-3s device %-3s %-5s proved %-6s busy %s ms\n", str_of(c, "consumer"),
		       str_of(c, "device"), str_of(c, "state"), str_of(c, "proved"), str_of(c, "busy_ms"));
	}
	a = json_object_object_get(r, "jobs");
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *j = json_object_array_get_idx(a, i), *p = json_object_object_get(j, "partitions");
		printf("job %-12s %-8s %-9s %-10s", str_of(j, "job"), str_of(j, "priority"), str_of(j, "state"),
		       str_of(j, "circuit"));
		json_object *cnt = json_object_object_get(j, "counts");
		const char *sep = "";
		json_object_object_foreach(cnt, st, n) {
			printf("%s %s %d", sep, st, json_object_get_int(n));
			sep = ",";
		}
		if (*str_of(j, "error"))
			printf("  (%s)", str_of(j, "error"));
		printf("\n");
		printf("    partitions:");
		for (size_t k = 0; p && k < json_object_array_length(p); k++)
			printf(" %s", json_object_get_string(json_object_array_get_idx(p, k)));
		printf("\n");
		json_object *pl = json_object_object_get(j, "placed");
		for (size_t k = 0; pl && k < json_object_array_length(pl); k++) {
			json_object *w = json_object_array_get_idx(pl, k);
			if (strcmp(str_of(w, "state"), "proving") && strcmp(str_of(w, "state"), "finalizing"))
				continue;
			printf("    partition %s %s on device %s consumer %s\n", str_of(w, "partition"),
			       str_of(w, "state"), str_of(w, "device"), str_of(w, "consumer"));
		}
	}
}

/* --follow: the daemon writes into a pipe of ours until we close it (or it
 * stops); we copy the pipe to the output, so a reader that goes away (^C,
 * a closed pager) ends the stream with EPIPE on the daemon's side. */
static int trace_follow(int sock, json_object *q, int out)
{
	int p[2], rc = 0;
	char err[256], buf[65536];

	if (pipe2(p, O_CLOEXEC)) {
		fprintf(stderr, "cuzkctl trace: pipe: %s\n", strerror(errno));
		json_object_put(q);
		return 2;
	}
	const char *s = json_object_to_json_string_ext(q, JSON_C_TO_STRING_PLAIN);
	int src = cz_ctl_send(sock, s, strlen(s), &p[1], 1);
	json_object_put(q);
	close(p[1]);
	if (src) {
		fprintf(stderr, "cuzkctl trace: %s\n", strerror(-src));
		close(p[0]);
		return 2;
	}
	for (;;) {
		ssize_t k = read(p[0], buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (ssize_t o = 0; o < k;) {
			ssize_t w = write(out, buf + o, (size_t)(k - o));
			if (w <= 0) {
				close(p[0]);
				return 0;       /* our reader went away: so do we */
			}
			o += w;
		}
	}
	close(p[0]);
	char *msg;
	size_t len;
	int fds[1], nfds;
	if (cz_ctl_recv(sock, &msg, &len, fds, &nfds, 0, err, sizeof(err)) == 0) {
		json_object *r = json_tokener_parse(msg);
		free(msg);
		rc = finish(r, 0);
	}
	return rc;
}

static int cmd_trace(int sock, int argc, char **argv)
{
	json_object *q = req_new("trace");
	int fd = STDOUT_FILENO, follow = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--chrome"))
			json_object_object_add(q, "chrome", json_object_new_boolean(1));
		else if (!strcmp(argv[i], "--follow"))
			follow = 1;
		else if (!strcmp(argv[i], "--job") && i + 1 < argc)
			json_object_object_add(q, "job", json_object_new_string(argv[++i]));
		else if (!strcmp(argv[i], "--since") && i + 1 < argc) {
			char *end;
			double v = strtod(argv[++i], &end);
			if (*end || end == argv[i] || v < 0) {
				fprintf(stderr, "cuzkctl trace: --since %s: a number of seconds, 0 or more\n", argv[i]);
				json_object_put(q);
				return 2;
			}
			json_object_object_add(q, "since", json_object_new_double(v));
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			fd = open(argv[++i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0) {
				fprintf(stderr, "cuzkctl trace: %s: %s\n", argv[i], strerror(errno));
				json_object_put(q);
				return 2;
			}
		} else {
			usage(stderr);
			json_object_put(q);
			return 2;
		}
	}
	fflush(stdout);
	int rc;
	if (follow) {
		json_object_object_add(q, "follow", json_object_new_boolean(1));
		signal(SIGPIPE, SIG_IGN);
		rc = trace_follow(sock, q, fd);
	} else {
		rc = finish(call(sock, q, &fd, 1), 0);
	}
	if (fd != STDOUT_FILENO)
		close(fd);
	return rc;
}

static int run(int sock, int argc, char **argv)
{
	const char *c = argv[0];
	json_object *q;

	if (!strcmp(c, "submit"))
		return cmd_submit(sock, argc, argv);
	if (!strcmp(c, "trace"))
		return cmd_trace(sock, argc, argv);
	if (!strcmp(c, "top"))
		return cuzkctl_top(sock, argc, argv);
	if (!strcmp(c, "load") && argc >= 3)
		return cmd_load(sock, argc, argv);
	if (!strcmp(c, "unload") && argc == 2) {
		q = req_new("unload");
		json_object_object_add(q, "name", json_object_new_string(argv[1]));
		return finish(call(sock, q, NULL, 0), 0);
	}
	if (!strcmp(c, "circuits") && argc == 1)
		return finish(call(sock, req_new("circuits"), NULL, 0), 1);
	if (!strcmp(c, "await") && argc >= 2 && argc % 2 == 0) {
		double t = -1;
		const char *out = NULL;
		for (int i = 2; i + 1 < argc; i += 2) {
			if (!strcmp(argv[i], "--out")) {
				out = argv[i + 1];
				continue;
			}
			/* The daemon checks too; a year is its limit. */
			if (strcmp(argv[i], "--timeout") || parse_num(argv[i + 1], 366.0 * 86400, &t)) {
				fprintf(stderr, "cuzkctl await: %s '%s': expected seconds from 0 to 31622400 "
					"(fractions allowed) after --timeout, or a directory after --out\n", argv[i],
					argv[i + 1]);
				return 2;
			}
		}
		return await_job(sock, argv[1], t, out);
	}
	if (!strcmp(c, "cancel") && argc == 2) {
		q = req_new("cancel");
		json_object_object_add(q, "job", json_object_new_string(argv[1]));
		return finish(call(sock, q, NULL, 0), 0);
	}
	if (!strcmp(c, "device") && argc == 3) {
		char *end;
		long n = strtol(argv[1], &end, 10);
		if (*end || end == argv[1] || n < 0 || n > 1000) {
			fprintf(stderr, "cuzkctl device: '%s': expected a device number\n", argv[1]);
			return 2;
		}
		q = req_new("device");
		json_object_object_add(q, "device", json_object_new_int((int)n));
		json_object_object_add(q, "action", json_object_new_string(argv[2]));
		return finish(call(sock, q, NULL, 0), 0);
	}
	if (!strcmp(c, "status") && argc == 2 && !strcmp(argv[1], "--fleet")) {
		json_object *r = call(sock, req_new("status"), NULL, 0), *f;
		if (r && ok_of(r) && !json_object_object_get_ex(r, "fleet", &f)) {
			fprintf(stderr, "cuzkctl status --fleet: this cuzkd is not a fleet member (started without --fleet)\n");
			json_object_put(r);
			return 1;
		}
		if (r && ok_of(r))
			print_fleet(f);
		return finish(r, 0);
	}
	if (!strcmp(c, "status") && (argc == 1 || (argc == 2 && !strcmp(argv[1], "--json")))) {
		json_object *r = call(sock, req_new("status"), NULL, 0);
		if (r && ok_of(r) && argc == 1)
			print_status(r);
		return finish(r, argc == 2);
	}
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	char path[256], err[512];
	const char *sock_path = cz_ctl_default_path(path, sizeof(path));
	int i = 1;

	if (argc > 3 && !strcmp(argv[1], "--fleet"))
		return cuzkctl_fleet(argv[2], argc - 3, argv + 3);
	if (argc > 2 && !strcmp(argv[1], "--socket")) {
		sock_path = argv[2];
		i = 3;
	}
	if (i >= argc || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
		usage(i >= argc ? stderr : stdout);
		return i >= argc ? 2 : 0;
	}
	int sock = cz_ctl_connect(sock_path, err, sizeof(err));
	if (sock < 0) {
		fprintf(stderr, "cuzkctl: %s\n", err);
		return 2;
	}
	g_sock_path = sock_path;
	int rc = run(sock, argc - i, argv + i);
	close(sock);
	return rc;
}
