/* SPDX-License-Identifier: MIT */
/*
 * ctl/ctl.h — cuzk's control protocol (docs/protocol.md): one request, one
 * response, each a JSON object framed by a 4-byte little-endian length, over
 * a Unix stream socket.  Open files (witnesses) travel beside a request as
 * SCM_RIGHTS descriptors attached to its first byte.
 */
#ifndef CZ_CTL_H
#define CZ_CTL_H

#include <stddef.h>

#define CZ_CTL_MAX_MSG (1u << 20)   /* bytes of JSON in one message */
#define CZ_CTL_MAX_FDS 200          /* descriptors with one message (< SCM_MAX_FD) */

/* The default socket: $XDG_RUNTIME_DIR/cuzk.sock, else /run/cuzk/cuzk.sock. */
const char *cz_ctl_default_path(char *buf, size_t cap);

/* Sends one framed message with nfds descriptors.  0 or -errno. */
int cz_ctl_send(int sock, const char *json, size_t len, const int *fds, int nfds);
/* Receives one message into *msg (malloc'd, NUL-terminated) and up to
 * maxfds descriptors.  0; 1 on a clean end of stream before any byte;
 * -errno with a reason in err (oversize, truncated, too many fds). */
int cz_ctl_recv(int sock, char **msg, size_t *len, int *fds, int *nfds, int maxfds,
		char *err, size_t errcap);

int cz_ctl_connect(const char *path, char *err, size_t errcap);
int cz_ctl_listen(const char *path, char *err, size_t errcap);

/* The server: a listening thread and one thread per connection (requests
 * such as `await` block).  fn gets each parsed request and returns the
 * response; it owns the passed descriptors. */
struct json_object;
typedef struct json_object *(*cz_ctl_fn)(void *ctx, struct json_object *req, int *fds, int nfds);
struct cz_ctl_server;
struct cz_ctl_server *cz_ctl_server_start(const char *path, cz_ctl_fn fn, void *ctx, char *err,
					  size_t errcap);
/* Stops accepting, disconnects every client, joins its threads. */
void cz_ctl_server_stop(struct cz_ctl_server *s);

/* Client side: one request, one response (NULL with err set on failure). */
struct json_object *cz_ctl_call(int sock, struct json_object *req, const int *fds, int nfds,
				char *err, size_t errcap);

#endif
