/* SPDX-License-Identifier: MIT */
/*
 * engine/control/tracesel.c — `trace` with a selection: one job's events (`job`),
 * the last S seconds (`since`), and `follow`, which keeps streaming events
 * as they happen until the reader goes away or the daemon stops.
 * docs/trace.md.
 *
 * It reads the trace through a cursor of its own (cz_trace_scan: lock-free
 * against the writers, as the live accounting does), so a follower costs
 * the pipeline nothing and holds no lock while it writes; its writes go
 * through cz_ctl_peer_write, which never blocks on the reader.  The per-thread
 * trace buffers are the bounded buffer: a reader slower than the events
 * loses the ones overwritten before it got to them, and is told how many
 * in a `lost` record.  Follow reads up to 5 ms in the past (as engine/evidence/stat.c
 * does), so an event whose writer was preempted mid-publish is not skipped.
 */
#define _GNU_SOURCE
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FOLLOW_PERIOD_NS (100 * 1000 * 1000L)
#define FOLLOW_HORIZON_NS (5 * 1000 * 1000ull)
#define OUTBUF 65536

struct sel {
	struct cz_engine *e;
	struct cz_ctl_peer *peer;
	char why[256];          /* why writing stopped */
	int fd;
	bool follow, dead;
	bool by_job;
	uint64_t job, since, n;
	size_t len;
	char buf[OUTBUF];
};

static bool stopping(struct cz_engine *e)
{
	pthread_mutex_lock(&e->lock);
	bool st = e->stopping;
	pthread_mutex_unlock(&e->lock);
	return st;
}

/* Writes the buffer out through the control plane's writer, which never
 * blocks on the reader: it gives up when the daemon stops, the client hangs
 * up, or the reader takes nothing for the idle timeout (ctl/ctl.h).  While
 * it waits on a slow reader, events the trace overwrites meanwhile are the
 * follower's loss, counted by the cursor. */
static void flush(struct sel *s)
{
	if (!s->dead && s->len) {
		int rc;
		if (s->peer) {
			rc = cz_ctl_peer_write(s->peer, s->fd, s->buf, s->len, s->why, sizeof(s->why));
		} else {        /* no client connection (not from the socket): plain writes */
			size_t off = 0;
			ssize_t k = 0;
			while (off < s->len && (k = write(s->fd, s->buf + off, s->len - off)) > 0)
				off += (size_t)k;
			rc = off < s->len ? -1 : 0;
			if (rc)
				snprintf(s->why, sizeof(s->why), "write: %s", strerror(errno));
		}
		s->dead = rc != 0;
	}
	s->len = 0;
}

static void out(struct sel *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct sel *s, const char *fmt, ...)
{
	va_list ap;
	if (s->len > OUTBUF - 512)
		flush(s);
	va_start(ap, fmt);
	int k = vsnprintf(s->buf + s->len, OUTBUF - s->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		s->len += (size_t)k < OUTBUF - s->len ? (size_t)k : OUTBUF - s->len - 1;
}

static void put(void *v, const struct cz_trace_ev *e)
{
	struct sel *s = v;
	if ((s->by_job && e->job != s->job) || e->ns < s->since || s->dead)
		return;
	out(s, "{\"ns\": %llu, \"ev\": \"%s\", \"job\": %llu, \"part\": %u, \"thread\": \"%s\", "
	    "\"unit\": %u, \"arg\": %u}\n", (unsigned long long)e->ns, cz_trace_name(e->type),
	    (unsigned long long)e->job, e->part, cz_trace_role(e->thread), e->unit, e->arg);
	s->n++;
}

json_object *cz_req_trace_select(struct cz_engine *e, json_object *req, int fd, struct cz_ctl_peer *peer)
{
	json_object *v, *r;
	struct sel *s = calloc(1, sizeof(*s));
	struct cz_trace_cursor *cur = calloc(1, sizeof(*cur));
	double since;

	if (!s || !cur) {
		r = cz_ctl_err("trace: out of memory");
		goto out;
	}
	s->e = e;
	s->peer = peer;
	s->fd = fd;
	s->follow = json_object_object_get_ex(req, "follow", &v) && json_object_get_boolean(v);
	if (json_object_object_get_ex(req, "chrome", &v) && json_object_get_boolean(v)) {
		r = cz_ctl_err("trace: \"chrome\" takes the whole trace (not with \"job\", \"since\" or \"follow\")");
		goto out;
	}
	if (json_object_object_get_ex(req, "since", &v)) {
		since = json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int) ?
			json_object_get_double(v) : -1;
		if (!(since >= 0)) {
			r = cz_ctl_err("trace: \"since\" must be a number of seconds, 0 or more");
			goto out;
		}
		uint64_t now = cz_trace_now(), back = (uint64_t)(since * 1e9);
		s->since = back < now ? now - back : 0;
	}
	if (json_object_object_get_ex(req, "job", &v)) {
		const char *id = json_object_get_string(v);
		pthread_mutex_lock(&e->lock);
		for (struct cz_job *j = e->jobs; j && id; j = j->next)
			if (!strcmp(j->id, id)) {
				s->job = j->seq;
				s->by_job = true;
				break;
			}
		pthread_mutex_unlock(&e->lock);
		if (!s->by_job) {
			r = cz_ctl_err("trace: unknown job '%s'", id ? id : "");
			goto out;
		}
	}
	char *hdr = NULL;
	size_t hl = 0;
	FILE *m = open_memstream(&hdr, &hl);
	if (m) {
		cz_trace_dump_threads(m);
		fclose(m);
		for (size_t o = 0; o < hl; o += 1024)
			out(s, "%.*s", (int)(hl - o < 1024 ? hl - o : 1024), hdr + o);
	}
	free(hdr);
	/* What the buffers hold now; what they overwrote before this request
	 * is history, not this reader's loss. */
	cz_trace_scan(cur, s->follow ? cz_trace_now() - FOLLOW_HORIZON_NS : UINT64_MAX, put, s);
	cur->lost = 0;
	flush(s);
	uint64_t lost = 0;
	while (s->follow && !s->dead && !stopping(e)) {
		struct timespec ts = { 0, FOLLOW_PERIOD_NS };
		nanosleep(&ts, NULL);
		cz_trace_scan(cur, cz_trace_now() - FOLLOW_HORIZON_NS, put, s);
		if (cur->lost > lost) {
			out(s, "{\"ns\": %llu, \"ev\": \"lost\", \"job\": 0, \"part\": 0, \"thread\": \"\", "
			    "\"unit\": 0, \"arg\": %llu}\n", (unsigned long long)cz_trace_now(),
			    (unsigned long long)(cur->lost - lost));
			lost = cur->lost;
		}
		flush(s);
	}
	/* A follower ends when its reader closes (EPIPE) or the daemon stops. */
	if (s->dead && !s->follow) {
		r = cz_ctl_err("trace: %s", s->why);
		goto out;
	}
	r = cz_ctl_ok();
	json_object_object_add(r, "events", json_object_new_int64((int64_t)s->n));
	json_object_object_add(r, "lost", json_object_new_int64((int64_t)lost));
out:
	close(fd);
	free(cur);
	free(s);
	return r;
}
