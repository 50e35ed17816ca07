/* SPDX-License-Identifier: MIT */
/*
 * ctl/msg.c — framing: [u32 little-endian length][length bytes of JSON].
 * The length is checked against the receiver's limit (CZ_CTL_MAX_MSG for
 * requests) before anything is allocated, so a hostile or broken client
 * costs at most one 1 MiB buffer; a deadline on the whole frame keeps one
 * that stops mid-frame from holding its connection for ever.
 */
#include "ctl/ctl.h"
#include "lib/clock.h"

#include <errno.h>
#include <poll.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

const char *cz_ctl_default_path(char *buf, size_t cap)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	if (x && *x)
		snprintf(buf, cap, "%s/cuzk.sock", x);
	else
		snprintf(buf, cap, "/run/cuzk/cuzk.sock");
	return buf;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Reads n bytes by deadline (CLOCK_MONOTONIC ms; < 0: none): -ETIMEDOUT
 * once it passes, -EPIPE at end of stream. */
static int read_all(int fd, void *p, size_t n, int64_t deadline)
{
	char *c = p;
	while (n) {
		if (deadline >= 0) {
			int64_t left = deadline - cz_now_whole_ms();
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			/* Past the deadline, bytes already here still count. */
			int k = poll(&pf, 1, left <= 0 ? 0 : (int)(left > INT32_MAX ? INT32_MAX : left));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return -errno;
			if (k == 0)
				return -ETIMEDOUT;
		}
		ssize_t k = recv(fd, c, n, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EPIPE;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int cz_ctl_send(int sock, const char *json, size_t len, const int *fds, int nfds)
{
	uint8_t hdr[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24) };
	union {
		char buf[CMSG_SPACE(sizeof(int) * CZ_CTL_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { hdr, sizeof(hdr) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (len > CZ_CTL_MAX_REPLY || nfds < 0 || nfds > CZ_CTL_MAX_FDS)
		return -EMSGSIZE;
	if (nfds) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	ssize_t k;
	do
		k = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	if (k < 4) {
		int rc = write_all(sock, hdr + k, 4 - (size_t)k);
		if (rc)
			return rc;
	}
	return write_all(sock, json, len);
}

int cz_ctl_recv(int sock, char **msg, size_t *len, int *fds, int *nfds, int maxfds,
		char *err, size_t errcap)
{
	return cz_ctl_recv_ex(sock, CZ_CTL_MAX_MSG, -1, msg, len, fds, nfds, maxfds, err, errcap);
}

int cz_ctl_recv_ex(int sock, size_t maxlen, int timeout_ms, char **msg, size_t *len, int *fds,
		   int *nfds, int maxfds, char *err, size_t errcap)
{
	uint8_t hdr[4];
	union {
		char buf[CMSG_SPACE(sizeof(int) * CZ_CTL_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { hdr, sizeof(hdr) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	ssize_t k;
	int got = 0, rc;
	int64_t deadline = -1;

	*msg = NULL;
	*nfds = 0;
	do
		k = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (k < 0 && errno == EINTR);
	if (k == 0)
		return 1;
	/* The clock starts at the frame's first byte: waiting for a request
	 * is the caller's idle time, not this frame's. */
	if (timeout_ms >= 0)
		deadline = cz_now_whole_ms() + timeout_ms;
	if (k < 0) {
		snprintf(err, errcap, "receive failed: %s", strerror(errno));
		return -errno;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		int *in = (int *)CMSG_DATA(c);
		for (int i = 0; i < n; i++) {
			if (got < maxfds)
				fds[got++] = in[i];
			else
				close(in[i]);
		}
	}
	*nfds = got;
	if (mh.msg_flags & MSG_CTRUNC) {
		/* Truncated below the buffer's room: the kernel could not install
		 * them all here (EMFILE), which is not the client's fault. */
		if (got < maxfds && got < CZ_CTL_MAX_FDS)
			snprintf(err, errcap, "the daemon is out of file descriptors (RLIMIT_NOFILE): it received "
				 "only %d of the message's descriptors; retry later", got);
		else
			snprintf(err, errcap, "too many descriptors with one message (limit %d)", maxfds);
		rc = -E2BIG;
		goto fail;
	}
	if (k < 4 && (rc = read_all(sock, hdr + k, 4 - (size_t)k, deadline))) {
		if (rc == -ETIMEDOUT)
			snprintf(err, errcap, "message header incomplete after %.3g s (read timeout)",
				 timeout_ms / 1e3);
		else
			snprintf(err, errcap, "message header truncated");
		goto fail;
	}
	*len = (size_t)hdr[0] | (size_t)hdr[1] << 8 | (size_t)hdr[2] << 16 | (size_t)hdr[3] << 24;
	if (*len > maxlen) {
		snprintf(err, errcap, "message of %zu bytes exceeds the %zu-byte limit", *len, maxlen);
		rc = -EMSGSIZE;
		goto fail;
	}
	*msg = malloc(*len + 1);
	if (!*msg) {
		snprintf(err, errcap, "out of memory for a %zu-byte message", *len);
		rc = -ENOMEM;
		goto fail;
	}
	if ((rc = read_all(sock, *msg, *len, deadline))) {
		if (rc == -ETIMEDOUT)
			snprintf(err, errcap, "message incomplete after %.3g s (read timeout): %zu-byte frame",
				 timeout_ms / 1e3, *len);
		else
			snprintf(err, errcap, "message truncated: connection closed mid-message");
		goto fail;
	}
	(*msg)[*len] = 0;
	return 0;
fail:
	free(*msg);
	*msg = NULL;
	for (int i = 0; i < got; i++)
		close(fds[i]);
	*nfds = 0;
	return rc;
}

static int sock_addr(struct sockaddr_un *a, const char *path, char *err, size_t errcap)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path)) {
		snprintf(err, errcap, "socket path too long (%zu bytes, limit %zu): %s", strlen(path),
			 sizeof(a->sun_path) - 1, path);
		return -ENAMETOOLONG;
	}
	strcpy(a->sun_path, path);
	return 0;
}

int cz_ctl_connect(const char *path, char *err, size_t errcap)
{
	struct sockaddr_un a;
	int rc = sock_addr(&a, path, err, errcap);
	if (rc)
		return rc;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rc = -errno;
		snprintf(err, errcap, "cannot connect to %s: %s (is cuzkd running?)", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}

int cz_ctl_listen(const char *path, char *err, size_t errcap)
{
	return cz_ctl_listen_ex(path, 0, -1, err, errcap);
}

int cz_ctl_listen_ex(const char *path, unsigned mode, long gid, char *err, size_t errcap)
{
	struct sockaddr_un a;
	int rc = sock_addr(&a, path, err, errcap);
	if (rc)
		return rc;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errcap, "socket: %s", strerror(errno));
		return rc;
	}
	/* A stale socket from a dead daemon is replaced; a live one is not, and
	 * anything that is not a socket (a mistyped path naming a file) is never
	 * unlinked. */
	struct stat st;
	if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		close(fd);
		snprintf(err, errcap, "%s exists and is not a socket: refusing to replace it", path);
		return -EEXIST;
	}
	int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0) {
		close(probe);
		close(fd);
		snprintf(err, errcap, "%s: another daemon is already listening there", path);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	unlink(path);
	/* Mode and group before listen(): until then a connect is refused,
	 * so nobody gets in under the umask's mode. */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rc = -errno;
		snprintf(err, errcap, "cannot listen on %s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	if ((gid >= 0 && chown(path, (uid_t)-1, (gid_t)gid) < 0) || chmod(path, mode ? mode : 0660) < 0) {
		rc = -errno;
		snprintf(err, errcap, "cannot set %s's %s: %s", path,
			 gid >= 0 && errno == EPERM ? "group (--socket-group)" : "mode or group", strerror(errno));
		unlink(path);
		close(fd);
		return rc;
	}
	if (listen(fd, 64) < 0) {
		rc = -errno;
		snprintf(err, errcap, "cannot listen on %s: %s", path, strerror(errno));
		unlink(path);
		close(fd);
		return rc;
	}
	return fd;
}
