/* SPDX-License-Identifier: MIT */
/*
 * ctl/ctl.h — cuzk's control protocol (docs/protocol.md): one request, one
 * response, each a JSON object framed by a 4-byte little-endian length, over
 * a Unix stream socket.  Open files (witnesses) travel beside a request as
 * SCM_RIGHTS descriptors attached to its first byte.
 */
#ifndef CZ_CTL_H
#define CZ_CTL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define CZ_CTL_MAX_MSG (1u << 20)     /* bytes of JSON in one request */
#define CZ_CTL_MAX_REPLY (64u << 20)  /* bytes of JSON in one response (status grows with keys) */
#define CZ_CTL_MAX_FDS 200            /* descriptors with one message (< SCM_MAX_FD) */
#define CZ_CTL_MAX_CONN 64            /* connections the server serves at once */
#define CZ_CTL_ADMIN_SLOTS 8          /* of them, kept for admins (root, cuzkd's uid, --admin-group) */
#define CZ_CTL_UID_CONNS 16           /* a non-admin uid's, without --max-conns-per-uid */

/* The default socket: $XDG_RUNTIME_DIR/cuzk.sock, else /run/cuzk/cuzk.sock. */
const char *cz_ctl_default_path(char *buf, size_t cap);

/* Sends one framed message (at most CZ_CTL_MAX_REPLY bytes) with nfds
 * descriptors.  0 or -errno. */
int cz_ctl_send(int sock, const char *json, size_t len, const int *fds, int nfds);
/* Receives one message of at most CZ_CTL_MAX_MSG bytes into *msg (malloc'd,
 * NUL-terminated) and up to maxfds descriptors.  0; 1 on a clean end of
 * stream before any byte; -errno with a reason in err (oversize, truncated,
 * too many fds). */
int cz_ctl_recv(int sock, char **msg, size_t *len, int *fds, int *nfds, int maxfds,
		char *err, size_t errcap);
/* The same with the length limit given, and a deadline: the whole frame must
 * arrive within timeout_ms of its first byte (< 0: no limit), else
 * -ETIMEDOUT.  The wait for the first byte is the caller's. */
int cz_ctl_recv_ex(int sock, size_t maxlen, int timeout_ms, char **msg, size_t *len, int *fds,
		   int *nfds, int maxfds, char *err, size_t errcap);

int cz_ctl_connect(const char *path, char *err, size_t errcap);
/* Binds and listens on path.  Replaces a stale socket; refuses a live one,
 * and anything at path that is not a socket (it is never unlinked). */
int cz_ctl_listen(const char *path, char *err, size_t errcap);
/* The same with the socket's mode (0: 0660) and group (gid < 0: the
 * daemon's), set on the path after bind and before listen, so no client
 * can connect while it still has the umask's mode. */
int cz_ctl_listen_ex(const char *path, unsigned mode, long gid, char *err, size_t errcap);

/* What the server tells a handler about the connection a request came on,
 * so a request that waits can stop waiting when nobody is left to answer. */
struct cz_ctl_peer {
	int sock;               /* the client's connection: poll it, never read it */
	int stop_fd;            /* readable once the server is stopping */
	int idle_ms;            /* the server's idle timeout: a reader stalled this long is gone */
	_Atomic bool gone;      /* the client hung up (POLLRDHUP) while its request ran */
	/* Who it is (SO_PEERCRED at accept, and SO_PEERGROUPS for admin):
	 * the kernel's word, not the client's. */
	long uid, gid, pid;
	bool admin;             /* root, the daemon's own uid, or in --admin-group */
};

/* The server: a listening thread and one thread per connection (requests
 * such as `await` block).  fn gets each parsed request and returns the
 * response; it owns the passed descriptors.  peer is never NULL. */
struct json_object;
typedef struct json_object *(*cz_ctl_fn)(void *ctx, struct json_object *req, int *fds, int nfds,
					 struct cz_ctl_peer *peer);
struct cz_ctl_server_opts {
	double idle_timeout_s;  /* a connection with no request this long is closed (0: 300) */
	double read_timeout_s;  /* a started request must be complete this soon (0: 10) */
	unsigned max_conns_per_uid;  /* connections one uid may hold (0 or >= CZ_CTL_MAX_CONN: no cap) */
	bool max_conns_per_uid_default;  /* none given: CZ_CTL_UID_CONNS for each non-admin uid */
	bool admin_group;       /* --admin-group given: members of admin_gid are admins */
	unsigned admin_gid;
	bool socket_group;      /* --socket-group given: the socket's group is socket_gid */
	unsigned socket_gid;
	unsigned socket_mode;   /* --socket-mode (0: 0660) */
	/* Called (no lock held) when a client whose request is running hangs
	 * up, after its peer->gone is set: wake whatever it may be waiting on. */
	void (*hangup)(void *ctx);
};
struct cz_ctl_server;
/* From a handler, before its response: one more frame on the request's
 * connection (an op's progress, docs/protocol.md: only to a client that
 * asked for it), sent without ever blocking on the client, as responses
 * are (room polled for at most the idle timeout; the server's stop ends
 * the wait).  0, or -errno: then the connection is shut down (a frame may
 * have gone in part) and peer->gone set. */
int cz_ctl_peer_push(struct cz_ctl_peer *peer, struct json_object *msg);
struct cz_ctl_server *cz_ctl_server_start(const char *path, cz_ctl_fn fn, void *ctx,
					  const struct cz_ctl_server_opts *o, char *err,
					  size_t errcap);
/* Stops accepting, disconnects every client, joins its threads. */
void cz_ctl_server_stop(struct cz_ctl_server *s);

/* Writes len bytes to a descriptor a client passed (trace output) without
 * ever blocking on it: a pipe is written through a non-blocking open of its
 * own, a socket with MSG_DONTWAIT, each after poll.  Gives up when the
 * server stops, the client hangs up, or the reader takes nothing for
 * peer->idle_ms.  0, or -errno with the reason in err. */
int cz_ctl_peer_write(struct cz_ctl_peer *peer, int fd, const void *buf, size_t len, char *err,
		      size_t errcap);

/* Client side: one request, one response (NULL with err set on failure). */
struct json_object *cz_ctl_call(int sock, struct json_object *req, const int *fds, int nfds,
				char *err, size_t errcap);

/* A reply (ctl/reply.c): {"ok": false, "error": <fmt...>} (at most 511
 * bytes of text), and {"ok": true}, to which the caller adds its fields. */
struct json_object *cz_ctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct json_object *cz_ctl_ok(void);

#endif
