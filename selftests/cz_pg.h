/* SPDX-License-Identifier: MIT */
/*
 * cz_pg.h — a real PostgreSQL server for a selftest: initdb a cluster in a
 * scratch directory, start it listening on a unix socket in that directory
 * only (no TCP: tests on one machine never share a port; a test may name
 * an address of its own in pg->listen before a restart), restart it, stop
 * it, remove it.  The server refuses to run as root, so when the test runs
 * as root the cluster belongs to "nobody" and every server command runs as
 * that user.
 *
 * pg_start() returns 0 and fills pg->conninfo, or -1 with pg->why set (no
 * server binaries under /usr/lib/postgresql/<version>/bin, or the start
 * failed: its log's tail is in pg->why): the test skips with that reason.
 * Every wait is bounded: pg_ctl -w -t CZ_PG_WAIT_S.
 */
#ifndef CZ_PG_H
#define CZ_PG_H

#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CZ_PG_WAIT_S
#define CZ_PG_WAIT_S 60
#endif

struct cz_pg {
	char bin[PATH_MAX];     /* /usr/lib/postgresql/N/bin */
	char dir[PATH_MAX];     /* scratch: data/, the socket, log */
	char conninfo[PATH_MAX + 64];
	char why[PATH_MAX + 1024];
	char listen[64];        /* listen_addresses at the next (re)start: "" none (the socket only) */
	uid_t uid;              /* the server's user */
	gid_t gid;
	int running;
};

/* Runs argv (argv[0] a program in pg->bin) as the server's user, output to
 * dir/log; returns its exit status (-1 if it could not run). */
static int pg_run(struct cz_pg *pg, const char *const *argv)
{
	char prog[PATH_MAX + 32], log[PATH_MAX + 8];
	snprintf(prog, sizeof prog, "%s/%s", pg->bin, argv[0]);
	snprintf(log, sizeof log, "%s/log", pg->dir);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *l = fopen(log, "a");
		if (l) {
			dup2(fileno(l), 1);
			dup2(fileno(l), 2);
		}
		if (geteuid() == 0 && (setgid(pg->gid) != 0 || setuid(pg->uid) != 0))
			_exit(126);
		if (chdir(pg->dir) != 0)
			_exit(126);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void pg_log_tail(struct cz_pg *pg, const char *what)
{
	char log[PATH_MAX + 8], buf[700] = "";
	snprintf(log, sizeof log, "%s/log", pg->dir);
	FILE *l = fopen(log, "r");
	if (l) {
		fseek(l, 0, SEEK_END);
		long n = ftell(l);
		fseek(l, n > (long)sizeof buf - 1 ? n - (long)sizeof buf + 1 : 0, SEEK_SET);
		size_t k = fread(buf, 1, sizeof buf - 1, l);
		buf[k] = 0;
		fclose(l);
		for (char *p = buf; *p; p++)
			if (*p == '\n')
				*p = ' ';
	}
	snprintf(pg->why, sizeof pg->why, "%s (log: %s)", what, buf);
}

static int pg_ctl(struct cz_pg *pg, const char *verb)
{
	char data[PATH_MAX + 8], lg[PATH_MAX + 16], opts[PATH_MAX + 192], t[16];
	snprintf(data, sizeof data, "%s/data", pg->dir);
	snprintf(lg, sizeof lg, "%s/server.log", pg->dir);
	snprintf(opts, sizeof opts, "-k %s -c listen_addresses=%s -c fsync=off -c max_connections=60", pg->dir, pg->listen);
	snprintf(t, sizeof t, "%d", CZ_PG_WAIT_S);
	const char *const argv[] = { "pg_ctl", "-D", data, "-l", lg, "-w", "-t", t, "-m", "fast", "-o", opts, verb, NULL };
	return pg_run(pg, argv);
}

static int pg_start(struct cz_pg *pg)
{
	memset(pg, 0, sizeof *pg);
	glob_t g;
	if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		snprintf(pg->why, sizeof pg->why, "no PostgreSQL server (/usr/lib/postgresql/*/bin/initdb; apt install postgresql)");
		return -1;
	}
	snprintf(pg->bin, sizeof pg->bin, "%s", g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	*strrchr(pg->bin, '/') = 0;
	char tmpl[] = "/tmp/czpg.XXXXXX";
	if (!mkdtemp(tmpl)) {
		snprintf(pg->why, sizeof pg->why, "mkdtemp: %m");
		return -1;
	}
	snprintf(pg->dir, sizeof pg->dir, "%s", tmpl);
	pg->uid = getuid();
	pg->gid = getgid();
	if (geteuid() == 0) {
		struct passwd *pw = getpwnam("nobody");
		if (!pw) {
			snprintf(pg->why, sizeof pg->why, "running as root and there is no user 'nobody' to run the server as");
			return -1;
		}
		pg->uid = pw->pw_uid;
		pg->gid = pw->pw_gid;
		if (chown(pg->dir, pg->uid, pg->gid) != 0) {
			snprintf(pg->why, sizeof pg->why, "chown %s: %m", pg->dir);
			return -1;
		}
	}
	char data[PATH_MAX + 8];
	snprintf(data, sizeof data, "%s/data", pg->dir);
	const char *const init[] = { "initdb", "-D", data, "-A", "trust", "-U", "cz", "-E", "UTF8", "--no-sync", NULL };
	if (pg_run(pg, init) != 0) {
		pg_log_tail(pg, "initdb failed");
		return -1;
	}
	if (pg_ctl(pg, "start") != 0) {
		pg_log_tail(pg, "pg_ctl start failed");
		return -1;
	}
	pg->running = 1;
	snprintf(pg->conninfo, sizeof pg->conninfo, "host=%s port=5432 user=cz dbname=postgres", pg->dir);
	return 0;
}

/* The same server, another database (created with createdb). */
static int pg_createdb(struct cz_pg *pg, const char *name, char *conninfo, size_t cap)
{
	const char *const argv[] = { "createdb", "-h", pg->dir, "-U", "cz", name, NULL };
	if (pg_run(pg, argv) != 0)
		return -1;
	snprintf(conninfo, cap, "host=%s port=5432 user=cz dbname=%s", pg->dir, name);
	return 0;
}

static int pg_restart(struct cz_pg *pg)
{
	return pg_ctl(pg, "restart");
}

/* Stops the server (bounded) and removes the directory when keep is 0. */
static void pg_stop(struct cz_pg *pg, int keep)
{
	if (pg->running) {
		char data[PATH_MAX + 8], t[16];
		snprintf(data, sizeof data, "%s/data", pg->dir);
		snprintf(t, sizeof t, "%d", CZ_PG_WAIT_S);
		const char *const argv[] = { "pg_ctl", "-D", data, "-w", "-t", t, "-m", "immediate", "stop", NULL };
		pg_run(pg, argv);
		pg->running = 0;
	}
	if (!keep && pg->dir[0]) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", pg->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cz_pg: could not remove %s\n", pg->dir);
	}
}

/* SQL, run in database db (a string literal), that makes it refuse
 * pg_notify as a server without NOTIFY does: a fake.pg_notify raising
 * feature_not_supported, ahead of pg_catalog on db's search_path (new
 * sessions). */
#define CZ_PG_NO_NOTIFY_SQL(db)                                                                        \
	"CREATE SCHEMA fake;"                                                                          \
	"CREATE FUNCTION fake.pg_notify(text, text) RETURNS void LANGUAGE plpgsql AS $$ BEGIN"          \
	" RAISE EXCEPTION 'NOTIFY is not supported yet (emulated)' USING ERRCODE = 'feature_not_supported';" \
	" END $$;"                                                                                     \
	"ALTER DATABASE " db " SET search_path = public, fake, pg_catalog"

#endif /* CZ_PG_H */
