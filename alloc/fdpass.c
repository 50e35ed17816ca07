/* SPDX-License-Identifier: MIT */
/*
 * alloc/fdpass.c — handing a region to another process: its memfd travels
 * as SCM_RIGHTS ancillary data over a Unix socket, with a small header that
 * says what the receiver is mapping.  The receiver maps it wherever its own
 * address space has room; both sides then name objects by offset.
 */
#define _GNU_SOURCE
#include "alloc/region.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int cz_region_fd_send(int sock, int fd, const void *data, size_t len)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!len)
		return -EINVAL; /* a message needs one byte of data to carry rights */
	memset(&ctl, 0, sizeof(ctl));
	if (fd >= 0) {
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	for (;;) {
		ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
		if (n >= 0)
			return (size_t)n == len ? 0 : -EMSGSIZE;
		if (errno != EINTR)
			return -errno;
	}
}

long cz_region_fd_recv(int sock, int *fd, void *data, size_t len)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = data, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (msg.msg_flags & MSG_CTRUNC) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EMSGSIZE;
	}
	return n;
}

/* What travels with the fd: enough to check that the receiver maps what the
 * sender meant (fstat gives size and page size again, independently). */
struct region_hdr {
	char magic[8];       /* "cuzkreg1" */
	uint64_t size;       /* bytes */
	uint64_t page_size;  /* bytes */
	int32_t node;        /* NUMA node the pages were bound to */
	int32_t kind;        /* enum cz_region_kind */
};

int cz_region_send(int sock, const struct cz_region *r)
{
	struct region_hdr h = { .size = r->size, .page_size = r->page_size, .node = r->node,
				.kind = (int32_t)r->kind };

	if (r->fd < 0)
		return -EBADF; /* a PRIVATE region has nothing to share */
	memcpy(h.magic, "cuzkreg1", 8);
	return cz_region_fd_send(sock, r->fd, &h, sizeof(h));
}

int cz_region_recv(int sock, struct cz_region *r, unsigned flags)
{
	struct region_hdr h;
	int fd, rc;
	long n = cz_region_fd_recv(sock, &fd, &h, sizeof(h));

	*r = (struct cz_region){ .fd = -1 };
	if (n < 0)
		return (int)n;
	if (n != (long)sizeof(h) || memcmp(h.magic, "cuzkreg1", 8) || fd < 0) {
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	rc = cz_region_map_fd(r, fd, flags);
	if (rc) {
		close(fd);
		return rc;
	}
	if (r->size != h.size) {
		cz_region_destroy(r);
		return -EPROTO;
	}
	r->node = h.node; /* the kind is this side's: THP depends on its own settings */
	return 0;
}
