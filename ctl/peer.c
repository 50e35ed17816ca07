/* SPDX-License-Identifier: MIT */
/*
 * ctl/peer.c — writing to a descriptor a client passed, without ever
 * blocking on the client.  A blocking write to a pipe nobody reads would
 * hold its connection thread for ever, and cz_ctl_server_stop() joins that
 * thread: one stalled `cuzkctl trace | ...` would stop the daemon from
 * stopping.  So every write is made only after poll() says there is room,
 * on a descriptor that cannot block:
 * - a pipe, FIFO or terminal is reopened through /proc/self/fd with
 *   O_NONBLOCK: a new open file description of our own, so the client's
 *   own flags (its stdout) are left as they were;
 * - a socket is written with MSG_DONTWAIT;
 * - a regular file never blocks for long, and is written as it is.
 * The poll also watches the client's connection (it hung up) and the
 * server's stop pipe (the daemon is stopping); a reader that takes nothing
 * for the idle timeout is given up on.
 */
#define _GNU_SOURCE  /* POLLRDHUP */
#include "ctl/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int cz_ctl_peer_write(struct cz_ctl_peer *peer, int fd, const void *buf, size_t len, char *err,
		      size_t errcap)
{
	const char *p = buf;
	struct stat st;
	int out = fd, owned = -1, rc = 0;

	if (fstat(fd, &st)) {
		snprintf(err, errcap, "the passed descriptor: %s", strerror(errno));
		return -errno;
	}
	bool sock = S_ISSOCK(st.st_mode);
	if (!sock && !S_ISREG(st.st_mode)) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		owned = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (owned < 0) {
			rc = -errno;
			snprintf(err, errcap, "cannot open the passed %s for writing without blocking: %s",
				 S_ISFIFO(st.st_mode) ? "pipe" : "file", strerror(errno));
			return rc;
		}
		out = owned;
	}
	while (len) {
		struct pollfd pf[3] = { { .fd = out, .events = POLLOUT } };
		nfds_t n = 1;
		if (peer) {
			pf[1] = (struct pollfd){ .fd = peer->sock, .events = POLLRDHUP };
			pf[2] = (struct pollfd){ .fd = peer->stop_fd, .events = POLLIN };
			n = 3;
		}
		int k = poll(pf, n, peer ? peer->idle_ms : -1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			snprintf(err, errcap, "poll: %s", strerror(errno));
			break;
		}
		if (k == 0) {
			rc = -ETIMEDOUT;
			snprintf(err, errcap, "the reader took nothing for %.3g s (idle timeout); gave up with %zu bytes unwritten",
				 peer->idle_ms / 1e3, len);
			break;
		}
		if (peer && pf[2].revents) {
			rc = -ECANCELED;
			snprintf(err, errcap, "the daemon is stopping; gave up with %zu bytes unwritten", len);
			break;
		}
		if (peer && pf[1].revents) {
			atomic_store(&peer->gone, true);
			rc = -ECONNRESET;
			snprintf(err, errcap, "the client hung up");
			break;
		}
		/* At most a page at a time: after POLLOUT a pipe has room for one. */
		size_t chunk = len < 4096 ? len : 4096;
		ssize_t w = sock ? send(out, p, chunk, MSG_DONTWAIT | MSG_NOSIGNAL) : write(out, p, chunk);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (w < 0) {
			rc = -errno;
			snprintf(err, errcap, "write failed: %s", strerror(errno));
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	if (owned >= 0)
		close(owned);
	return rc;
}
