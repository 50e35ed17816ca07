/* SPDX-License-Identifier: MIT */
/* ctl/client.c — one request, one response. */
#include "ctl/ctl.h"

#include <json-c/json.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

json_object *cz_ctl_call(int sock, json_object *req, const int *fds, int nfds, char *err,
			 size_t errcap)
{
	size_t len;
	const char *s = json_object_to_json_string_length(req, JSON_C_TO_STRING_PLAIN, &len);
	int rc = cz_ctl_send(sock, s, len, fds, nfds);
	if (rc && rc != -EPIPE && rc != -ECONNRESET) {
		snprintf(err, errcap, "sending the request: %s", strerror(-rc));
		return NULL;
	}
	/* EPIPE: the daemon may have answered and closed before reading the
	 * request (a refusal: "too many connections"); that answer is still
	 * queued here, and is the one to report. */
	int sent = rc;
	char *msg;
	int rfds[4], nr;
	/* A response may be larger than a request (status lists every key). */
	rc = cz_ctl_recv_ex(sock, CZ_CTL_MAX_REPLY, -1, &msg, &len, rfds, &nr, 4, err, errcap);
	if (rc && sent)
		snprintf(err, errcap, "sending the request: %s", strerror(-sent));
	else if (rc == 1)
		snprintf(err, errcap, "the daemon closed the connection without answering");
	if (rc)
		return NULL;
	for (int i = 0; i < nr; i++)
		close(rfds[i]);
	json_object *r = json_tokener_parse(msg);
	free(msg);
	if (!r)
		snprintf(err, errcap, "the daemon's answer is not JSON");
	return r;
}
