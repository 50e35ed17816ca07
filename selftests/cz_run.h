/* SPDX-License-Identifier: MIT */
/*
 * selftests/cz_run.h — the end-to-end tests' way to run a program: its
 * stdout and stderr into out (on one line, for TAP), its exit status back.
 * A test includes it once; OUTCAP may be set before.
 */
#ifndef CZ_RUN_H
#define CZ_RUN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef OUTCAP
#define OUTCAP 65536
#endif

static char out[OUTCAP];         /* the last command's stdout and stderr */

/* Runs argv (NULL-terminated), its stdout and stderr into out; returns the
 * exit status, or 128 + signal. */
static int run(const char *const *argv)
{
	int fd[2], st;
	size_t len = 0;
	pid_t pid;

	out[0] = 0;
	if (pipe(fd))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		char buf[4096];
		ssize_t k = read(fd[0], buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		size_t c = (size_t)k < OUTCAP - 1 - len ? (size_t)k : OUTCAP - 1 - len;
		memcpy(out + len, buf, c);
		len += c;
	}
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		len--;
	out[len] = 0;
	for (char *c = out; (c = strchr(c, '\n')); )
		*c = ' ';               /* so messages print on one TAP line */
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define RUN(...) run((const char *const[]){ __VA_ARGS__, NULL })

#endif
