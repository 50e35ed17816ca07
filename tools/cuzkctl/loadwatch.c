/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzkctl/loadwatch.c — `cuzkctl load ... --wasm` of a large circuit
 * takes a minute on the daemon (translate, compile, link): while the load
 * request waits for its answer, a child process asks the daemon on a second
 * connection, once a second, for `circuits`'s "building" (the loads'
 * witness builds in flight and their stages) and prints this circuit's
 * stage to stderr when it changes, and every 10 s within a long one.  The
 * child ends when the answer comes (SIGTERM from the parent), when the
 * parent is gone, or after an hour; it never writes to the load's
 * connection.  That is the fallback for a daemon that predates load's
 * "progress": cuzkctl asks for it (cz_loadwatch_call), and the daemon then
 * pushes each stage on the load's own connection as it begins, before the
 * answer, which cuzkctl prints as it arrives.  After the answer, where the
 * time went ("witness_build").
 */
#define _GNU_SOURCE
#include "tools/cuzkctl/loadwatch.h"
#include "ctl/ctl.h"

#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void watch(const char *sock_path, const char *name, pid_t parent)
{
	char err[256], last[32] = "";
	int sock = cz_ctl_connect(sock_path, err, sizeof(err));
	time_t printed = 0;
	if (sock < 0)
		_exit(0);
	for (int i = 0; i < 3600 && getppid() == parent; i++) {
		sleep(1);
		json_object *q = json_object_new_object();
		json_object_object_add(q, "op", json_object_new_string("circuits"));
		json_object *r = cz_ctl_call(sock, q, NULL, 0, err, sizeof(err)), *b, *o;
		json_object_put(q);
		if (!r)
			break;
		if (json_object_object_get_ex(r, "building", &b))
			for (size_t k = 0; k < json_object_array_length(b); k++) {
				o = json_object_array_get_idx(b, k);
				const char *c = json_object_get_string(json_object_object_get(o, "circuit"));
				const char *s = json_object_get_string(json_object_object_get(o, "stage"));
				if (!c || !s || strcmp(c, name))
					continue;
				time_t now = time(NULL);
				json_object *pct = json_object_object_get(o, "progress_pct");
				if (pct && (strcmp(s, last) || now - printed >= 5)) {
					fprintf(stderr, "cuzkctl load: %s: fixed-base tables: %d%% (%.0f s)\n", name,
						json_object_get_int(pct),
						json_object_get_double(json_object_object_get(o, "stage_s")));
					snprintf(last, sizeof(last), "%s", s);
					printed = now;
				} else if (!pct && (strcmp(s, last) || now - printed >= 10)) {
					fprintf(stderr, "cuzkctl load: %s: witness program: %s (%.0f s in it, "
						"%.0f s in all)\n", name, s,
						json_object_get_double(json_object_object_get(o, "stage_s")),
						json_object_get_double(json_object_object_get(o, "elapsed_s")));
					snprintf(last, sizeof(last), "%s", s);
					printed = now;
				}
			}
		json_object_put(r);
	}
	close(sock);
	_exit(0);
}

pid_t cz_loadwatch_start(const char *sock_path, const char *name)
{
	pid_t parent = getpid();
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0)
		watch(sock_path, name, parent);
	return pid;
}

void cz_loadwatch_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

void cz_loadwatch_report(const char *name, json_object *r)
{
	json_object *b;
	if (!json_object_object_get_ex(r, "witness_build", &b))
		return;
	double t = json_object_get_double(json_object_object_get(b, "translate_s")),
	       c = json_object_get_double(json_object_object_get(b, "compile_s")),
	       l = json_object_get_double(json_object_object_get(b, "link_s"));
	if (json_object_get_boolean(json_object_object_get(b, "built")))
		fprintf(stderr, "cuzkctl load: %s: witness program built in %.2f s: translate %.2f s "
			"(%lld KiB of C), compile %.2f s, link %.2f s\n", name, t + c + l, t,
			(long long)json_object_get_int64(json_object_object_get(b, "c_bytes")) >> 10, c, l);
	else
		fprintf(stderr, "cuzkctl load: %s: witness program from the daemon's cache (built "
			"before), link %.2f s\n", name, l);
}

json_object *cz_loadwatch_call(int sock, json_object *q, const char *name, char *err, size_t cap)
{
	size_t len;
	const char *t = json_object_to_json_string_length(q, JSON_C_TO_STRING_PLAIN, &len);
	int rc = cz_ctl_send(sock, t, len, NULL, 0);
	if (rc) {
		snprintf(err, cap, "sending the request: %s", strerror(-rc));
		return NULL;
	}
	for (;;) {
		char *msg;
		int fds[4], nfd = 0;
		rc = cz_ctl_recv_ex(sock, CZ_CTL_MAX_REPLY, -1, &msg, &len, fds, &nfd, 4, err, cap);
		if (rc == 1)
			snprintf(err, cap, "the daemon closed the connection without answering");
		if (rc)
			return NULL;
		for (int i = 0; i < nfd; i++)
			close(fds[i]);
		json_object *r = json_tokener_parse(msg), *pr;
		free(msg);
		if (!r) {
			snprintf(err, cap, "the daemon's answer is not JSON");
			return NULL;
		}
		if (!json_object_object_get_ex(r, "progress", &pr) || !json_object_get_boolean(pr))
			return r;       /* the answer */
		fprintf(stderr, "cuzkctl load: %s: witness program: %s (at %.2f s)\n", name,
			json_object_get_string(json_object_object_get(r, "stage")),
			json_object_get_double(json_object_object_get(r, "elapsed_s")));
		json_object_put(r);
	}
}
