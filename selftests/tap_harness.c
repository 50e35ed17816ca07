/* SPDX-License-Identifier: MIT */
/*
 * selftests/tap_harness.c — the harness itself must be able to fail.
 *
 * Children built on cz_test.h stop short of their plan, overrun it, or pass;
 * their exit status and TAP output are checked here.  Then selftests/run.sh
 * (the runner `make check` uses) is given scripts that stop early, print no
 * plan, or pass, and its closing line is checked.  The oracle is the TAP
 * text each case is known to produce, not the code under test.
 */
#include "selftests/cz_test.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs body in a child with stdout to a pipe; returns its exit status and output. */
static int child_run(void (*body)(void), char *out, size_t cap)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		ct_n = ct_pass = ct_fail = ct_skipped = 0;
		ct_planned = -1;
		body();
		int r = ct_exit();
		fflush(stdout);
		_exit(r);
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < cap && (r = read(fds[0], out + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = 0;
	close(fds[0]);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void short_run(void) { ct_plan(3); ct_ok(1, "one"); }
static void over_run(void) { ct_plan(1); ct_ok(1, "one"); ct_ok(1, "two"); }
static void full_run(void) { ct_plan(2); ct_ok(1, "one"); ct_ok(1, "two"); }
static void no_plan(void) { ct_ok(1, "one"); }

/* Runs selftests/run.sh on a script whose body is `text`; returns run.sh's last line. */
static int runner(const char *dir, const char *name, const char *text, char *last, size_t cap)
{
	char path[512], cmd[1200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "#!/bin/sh\n%s", text);
	fclose(f);
	chmod(path, 0755);
	snprintf(cmd, sizeof(cmd), "B='%s' selftests/run.sh '%s' 2>&1", dir, path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char line[512];
	last[0] = 0;
	while (fgets(line, sizeof(line), p))
		snprintf(last, cap, "%s", line);
	int st = pclose(p);
	last[strcspn(last, "\n")] = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	char out[4096], last[512];
	char dir[] = "/tmp/cz_tap.XXXXXX";

	ct_plan(10);
	int rc = child_run(short_run, out, sizeof(out));
	ct_ok(rc == 1, "a program that stops after 1 of 3 points exits 1 (got %d)", rc);
	ct_ok(strstr(out, "not ok 2 - plan: 1 test points ran, 3 planned") != NULL,
	      "and says so in a \"not ok\" point");
	rc = child_run(over_run, out, sizeof(out));
	ct_ok(rc == 1, "a program that runs 2 points on a plan of 1 exits 1 (got %d)", rc);
	rc = child_run(no_plan, out, sizeof(out));
	ct_ok(rc == 1, "a program without a plan exits 1 (got %d)", rc);
	rc = child_run(full_run, out, sizeof(out));
	ct_ok(rc == 0 && !strstr(out, "not ok"), "a program that runs its plan exits 0 (got %d)", rc);

	if (!mkdtemp(dir)) {
		for (int i = 0; i < 5; i++)
			ct_ok(0, "mkdtemp for the runner cases");
		return ct_exit();
	}
	rc = runner(dir, "early", "echo 1..3; echo 'ok 1 - a'; exit 0\n", last, sizeof(last));
	ct_ok(rc == 1 && !strcmp(last, "1 passed, 1 failed, 0 skipped"),
	      "run.sh fails a script that exits 0 after 1 of 3 points (rc %d, \"%s\")", rc, last);
	rc = runner(dir, "noplan", "echo 'ok 1 - a'; exit 0\n", last, sizeof(last));
	ct_ok(rc == 1 && !strcmp(last, "1 passed, 1 failed, 0 skipped"),
	      "run.sh fails a script with no plan (rc %d, \"%s\")", rc, last);
	rc = runner(dir, "crash", "echo 1..2; echo 'ok 1 - a'; kill -SEGV $$\n", last, sizeof(last));
	ct_ok(rc == 1 && !strcmp(last, "1 passed, 1 failed, 0 skipped"),
	      "run.sh counts a crash after 1 of 2 points once (rc %d, \"%s\")", rc, last);
	rc = runner(dir, "good", "echo 1..2; echo 'ok 1 - a'; echo 'ok 2 - b # SKIP why'\n", last, sizeof(last));
	ct_ok(rc == 0 && !strcmp(last, "1 passed, 0 failed, 1 skipped"),
	      "run.sh passes a full plan with a skip (rc %d, \"%s\")", rc, last);
	rc = runner(dir, "notok", "echo 1..2; echo 'ok 1 - a'; echo 'not ok 2 - b'\n", last, sizeof(last));
	ct_ok(rc == 1 && !strcmp(last, "1 passed, 1 failed, 0 skipped"),
	      "run.sh counts a \"not ok\" from a program that exits 0 (rc %d, \"%s\")", rc, last);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		ct_diag("could not remove %s", dir);
	return ct_exit();
}
