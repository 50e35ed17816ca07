/* SPDX-License-Identifier: MIT */
/*
 * selftests/cz_net.h — the end-to-end tests' raw sockets: a free loopback
 * TCP port, and a control-socket connection that has sent all or part of
 * one request's frame (4-byte little-endian length, then the JSON text),
 * for tests that hold connections open or leave frames half sent; and one
 * HTTP/1.0 GET over the metrics listener's Unix socket.
 */
#ifndef CZ_NET_H
#define CZ_NET_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* A loopback TCP port free a moment ago, or -1. */
static inline int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t l = sizeof(a);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) && !getsockname(fd, (struct sockaddr *)&a, &l))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* A connection to sock that has sent the first `part` bytes of the frame
 * of json (all of it: part < 0); its descriptor, or -1. */
static inline int raw_conn(const char *sock, const char *json, long part)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 2 };    /* connect and send: a full backlog does not hang it */
	char b[4096];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t n = strlen(json);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	if (s < 0 || n + 4 > sizeof(b) || setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a))) {
		if (s >= 0)
			close(s);
		return -1;
	}
	b[0] = (char)n, b[1] = (char)(n >> 8), b[2] = (char)(n >> 16), b[3] = (char)(n >> 24);
	memcpy(b + 4, json, n);
	size_t k = part < 0 ? n + 4 : (size_t)part;
	if (send(s, b, k, MSG_NOSIGNAL) != (ssize_t)k) {
		close(s);
		return -1;
	}
	return s;
}

/* GET path over the HTTP listener's Unix socket sock into buf (cap bytes,
 * NUL-terminated), 10 s at most per read: the bytes read, or -1. */
static inline ssize_t http_unix_get(const char *sock, const char *path, char *buf, size_t cap)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 10 };
	char q[512];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int qn = snprintf(q, sizeof(q), "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", path);
	size_t at = 0;
	ssize_t k;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	if (s < 0 || cap < 1 || qn <= 0 || (size_t)qn >= sizeof(q) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)) || write(s, q, (size_t)qn) != (ssize_t)qn) {
		if (s >= 0)
			close(s);
		return -1;
	}
	while (at < cap - 1 && (k = read(s, buf + at, cap - 1 - at)) > 0)
		at += (size_t)k;
	buf[at] = 0;
	close(s);
	return (ssize_t)at;
}

#endif
