/* SPDX-License-Identifier: MIT */
/*
 * ctl/server.c — the control socket's server.  A malformed or oversize
 * request gets an error response naming what was wrong; an oversize one also
 * ends that connection (its unread bytes would be misread as the next
 * frame).  A client that disconnects mid-request costs only its own thread.
 */
#define _GNU_SOURCE  /* accept4, pipe2 */
#include "ctl/ctl.h"
#include "lib/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONN 64

struct conn {
	struct cz_ctl_server *s;
	int fd;
	pthread_t tid;
	int used;
};

struct cz_ctl_server {
	int lfd;
	int stopfd[2];          /* a pipe: writing to it ends the accept loop */
	cz_ctl_fn fn;
	void *ctx;
	pthread_t tid;
	pthread_mutex_t lock;   /* guards conns */
	struct conn conns[MAX_CONN];
};

static void reply(int fd, json_object *r)
{
	size_t len;
	const char *s = json_object_to_json_string_length(r, JSON_C_TO_STRING_PLAIN, &len);
	cz_ctl_send(fd, s, len, NULL, 0);
}

static void *conn_main(void *v)
{
	struct conn *c = v;
	int fds[CZ_CTL_MAX_FDS], nfds;
	char err[256], *msg;
	size_t len;

	cz_thread_name("cz-ctl%d", (int)(c - c->s->conns));

	for (;;) {
		err[0] = 0;
		int rc = cz_ctl_recv(c->fd, &msg, &len, fds, &nfds, CZ_CTL_MAX_FDS, err, sizeof(err));
		if (rc == 1)
			break;
		if (rc < 0) {
			if (rc != -EPIPE && rc != -ECONNRESET) {
				json_object *r = json_object_new_object();
				json_object_object_add(r, "ok", json_object_new_boolean(0));
				json_object_object_add(r, "error", json_object_new_string(err));
				reply(c->fd, r);
				json_object_put(r);
			}
			break;
		}
		enum json_tokener_error jerr;
		json_object *req = json_tokener_parse_verbose(msg, &jerr);
		free(msg);
		json_object *r;
		if (!req || !json_object_is_type(req, json_type_object)) {
			char why[160];
			snprintf(why, sizeof(why), "malformed request: %s",
				 req ? "not a JSON object" : json_tokener_error_desc(jerr));
			r = json_object_new_object();
			json_object_object_add(r, "ok", json_object_new_boolean(0));
			json_object_object_add(r, "error", json_object_new_string(why));
			for (int i = 0; i < nfds; i++)
				close(fds[i]);
		} else {
			r = c->s->fn(c->s->ctx, req, fds, nfds);
		}
		json_object_put(req);
		reply(c->fd, r);
		json_object_put(r);
	}
	pthread_mutex_lock(&c->s->lock);
	close(c->fd);
	c->fd = -1;
	pthread_mutex_unlock(&c->s->lock);
	return NULL;
}

static void accept_one(struct cz_ctl_server *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	pthread_mutex_lock(&s->lock);
	struct conn *c = NULL;
	/* Reap every finished connection thread now, so their stacks go back to
	 * the thread library's cache instead of piling up until slots run out. */
	for (int i = 0; i < MAX_CONN; i++) {
		if (s->conns[i].used && s->conns[i].fd < 0) {
			pthread_join(s->conns[i].tid, NULL);
			s->conns[i].used = 0;
		}
		if (!s->conns[i].used && !c)
			c = &s->conns[i];
	}
	if (c) {
		c->s = s;
		c->fd = fd;
		c->used = 1;
		if (pthread_create(&c->tid, NULL, conn_main, c)) {
			c->used = 0;
			c = NULL;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (!c) {
		json_object *r = json_object_new_object();
		json_object_object_add(r, "ok", json_object_new_boolean(0));
		json_object_object_add(r, "error", json_object_new_string("too many connections"));
		reply(fd, r);
		json_object_put(r);
		close(fd);
	}
}

static void *accept_main(void *v)
{
	struct cz_ctl_server *s = v;
	struct pollfd p[2] = { { .fd = s->lfd, .events = POLLIN }, { .fd = s->stopfd[0], .events = POLLIN } };

	cz_thread_name("cz-ctl-accept");

	while (poll(p, 2, -1) >= 0 || errno == EINTR) {
		if (p[1].revents)
			break;
		if (p[0].revents & POLLIN)
			accept_one(s);
	}
	return NULL;
}

struct cz_ctl_server *cz_ctl_server_start(const char *path, cz_ctl_fn fn, void *ctx, char *err,
					  size_t errcap)
{
	struct cz_ctl_server *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	s->fn = fn;
	s->ctx = ctx;
	pthread_mutex_init(&s->lock, NULL);
	for (int i = 0; i < MAX_CONN; i++)
		s->conns[i].fd = -1;
	s->lfd = cz_ctl_listen(path, err, errcap);
	if (s->lfd < 0 || pipe2(s->stopfd, O_CLOEXEC) || pthread_create(&s->tid, NULL, accept_main, s)) {
		if (s->lfd >= 0) {
			snprintf(err, errcap, "cannot start the control server: %s", strerror(errno));
			close(s->lfd);
		}
		free(s);
		return NULL;
	}
	return s;
}

void cz_ctl_server_stop(struct cz_ctl_server *s)
{
	if (!s)
		return;
	if (write(s->stopfd[1], "x", 1) < 0)
		perror("cuzkd: stopping the control server");
	pthread_join(s->tid, NULL);
	close(s->lfd);
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < MAX_CONN; i++)
		if (s->conns[i].used && s->conns[i].fd >= 0)
			shutdown(s->conns[i].fd, SHUT_RDWR);
	pthread_mutex_unlock(&s->lock);
	for (int i = 0; i < MAX_CONN; i++)
		if (s->conns[i].used)
			pthread_join(s->conns[i].tid, NULL);
	close(s->stopfd[0]);
	close(s->stopfd[1]);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
