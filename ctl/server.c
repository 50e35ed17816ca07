/* SPDX-License-Identifier: MIT */
/*
 * ctl/server.c — the control socket's server.
 *
 * One thread accepts and watches; one thread per connection reads a request,
 * runs the handler (which may wait: `await`) and replies.  A connection is
 * always in one of three states, changed under the server lock:
 *
 *   IDLE ──first byte──► READING ──frame complete──► BUSY ──reply sent──► IDLE
 *
 * No state can hold a slot for ever, because each has its own bound:
 * - IDLE: the idle timeout closes it; and when every slot is taken, a new
 *   connection closes the one idle the longest (it is told why) instead of
 *   being refused, so idle clients can never lock everyone out.  With a
 *   per-uid cap, a uid at its cap recycles its own idle connection the
 *   same way, or is refused: one user cannot take every slot.  Without
 *   --max-conns-per-uid a non-admin uid's cap is CZ_CTL_UID_CONNS, and
 *   CZ_CTL_ADMIN_SLOTS slots are never given to a non-admin: whatever other
 *   uids hold (awaits, half frames, replies they never read), root and the
 *   admins are served.
 * - READING: the whole frame must arrive within the read timeout of its
 *   first byte (ctl/msg.c); a frame cut off mid-way is answered with an
 *   error and the connection closed.  And when a newcomer finds every slot
 *   it may use taken and none idle, a frame still incomplete after STALL_MS
 *   (1 s, or the read timeout when shorter) loses its slot to it, the
 *   oldest first: half frames renewed before each read timeout cannot
 *   hold the slots either.
 * - BUSY: the accept thread polls every busy connection for POLLRDHUP; a
 *   client that hangs up while its request waits has peer->gone set and the
 *   owner's hangup hook called, so the wait ends and the slot comes back.
 * - and the reply: sent without blocking, after poll() says there is room;
 *   a client that takes none of it for the idle timeout, or while the
 *   server stops, loses its connection.
 * A malformed or oversize request gets an error response naming what was
 * wrong; an oversize one also ends that connection (its unread bytes would
 * be misread as the next frame).  A response too large to send is replaced
 * by an error saying so: a client always gets an answer.
 */
#define _GNU_SOURCE  /* accept4, pipe2, POLLRDHUP */
#include "ctl/ctl.h"
#include "lib/clock.h"
#include "lib/lock.h"
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
#include <time.h>
#include <unistd.h>

#define MAX_CONN CZ_CTL_MAX_CONN
#define EVICT_NONADMIN (-2)     /* evict_idle_locked: any non-admin uid's */
/* A frame still incomplete this long after its first byte (or the read
 * timeout, when shorter) is stalled: its slot may go to a newcomer. */
#define STALL_MS 1000

enum conn_state { CONN_IDLE, CONN_READING, CONN_BUSY };

struct conn {
	struct cz_ctl_server *s;
	int fd;                 /* -1 once the thread has closed it (reap, then reuse) */
	pthread_t tid;
	int used;
	enum conn_state state;
	bool evicted;           /* closed to make room: leave at the next state change */
	long uid;               /* the client's (SO_PEERCRED), -1 if unknown */
	int64_t idle_since;     /* CLOCK_MONOTONIC ms, while IDLE */
	int64_t reading_since;  /* CLOCK_MONOTONIC ms, while READING: its frame's first byte */
	uint64_t idle_seq;      /* order of going IDLE: the longest idle has the lowest
				 * (two in the same ms are not a tie) */
	struct cz_ctl_peer peer;
};

struct cz_ctl_server {
	int lfd;
	int stopfd[2];          /* a pipe: writing to it ends the accept loop and every wait */
	int wakefd[2];          /* a pipe: a connection became BUSY, rebuild the poll set */
	cz_ctl_fn fn;
	void *ctx;
	void (*hangup)(void *ctx);
	int idle_ms, read_ms;
	int max_per_uid;        /* 0: no cap below MAX_CONN */
	bool uid_default;       /* no --max-conns-per-uid: CZ_CTL_UID_CONNS for non-admins */
	bool admin_group;       /* members of admin_gid are admins */
	gid_t admin_gid;
	pthread_t tid;
	pthread_mutex_t lock;   /* guards conns and idle_seq */
	uint64_t idle_seq;
	struct conn conns[MAX_CONN];
};

static json_object *err_obj(const char *why)
{
	json_object *r = json_object_new_object();
	json_object_object_add(r, "ok", json_object_new_boolean(0));
	json_object_object_add(r, "error", json_object_new_string(why));
	return r;
}

/* Sends one frame without ever blocking on the client: MSG_DONTWAIT, and
 * poll() for room in between, which also watches the stop pipe.  0, or
 * -errno when it could not be sent whole (the client took nothing for the
 * idle timeout, or the server is stopping and the client's socket is
 * full): the stream is then out of frame and the connection must end. */
static int send_frame_on(int fd, int stopfd, int idle_ms, const char *json, size_t len)
{
	uint8_t hdr[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24) };
	size_t off = 0, total = 4 + len;

	while (off < total) {
		struct iovec iov[2];
		int n = 0;
		if (off < 4)
			iov[n++] = (struct iovec){ hdr + off, 4 - off };
		iov[n++] = (struct iovec){ (char *)json + (off > 4 ? off - 4 : 0), len - (off > 4 ? off - 4 : 0) };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		ssize_t k = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k >= 0) {
			off += (size_t)k;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		struct pollfd p[2] = { { .fd = fd, .events = POLLOUT }, { .fd = stopfd, .events = POLLIN } };
		int w = poll(p, 2, idle_ms);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w ? -errno : -ETIMEDOUT;
		if (p[0].revents & POLLOUT)
			continue;
		return p[1].revents ? -ECANCELED : -EPIPE;
	}
	return 0;
}

static int send_frame(struct cz_ctl_server *s, int fd, const char *json, size_t len)
{
	return send_frame_on(fd, s->stopfd[0], s->idle_ms, json, len);
}

int cz_ctl_peer_push(struct cz_ctl_peer *peer, json_object *msg)
{
	size_t len;
	const char *t = json_object_to_json_string_length(msg, JSON_C_TO_STRING_PLAIN, &len);
	if (atomic_load(&peer->gone))
		return -EPIPE;
	if (len > CZ_CTL_MAX_MSG)
		return -EMSGSIZE;
	int rc = send_frame_on(peer->sock, peer->stop_fd, peer->idle_ms, t, len);
	if (rc) {
		/* maybe part of a frame went: the stream is out of frame, end it */
		shutdown(peer->sock, SHUT_RDWR);
		atomic_store(&peer->gone, true);
	}
	return rc;
}

static int reply(struct cz_ctl_server *s, int fd, json_object *r)
{
	size_t len;
	const char *t = json_object_to_json_string_length(r, JSON_C_TO_STRING_PLAIN, &len);
	if (len > CZ_CTL_MAX_REPLY) {
		char why[200];
		snprintf(why, sizeof(why), "the response (%zu bytes) exceeds the %u-byte limit of one message",
			 len, CZ_CTL_MAX_REPLY);
		json_object *e = err_obj(why);
		t = json_object_to_json_string_length(e, JSON_C_TO_STRING_PLAIN, &len);
		int rc = send_frame(s, fd, t, len);
		json_object_put(e);
		return rc;
	}
	return send_frame(s, fd, t, len);
}

static void reply_err(struct cz_ctl_server *s, int fd, const char *why)
{
	json_object *r = err_obj(why);
	reply(s, fd, r);
	json_object_put(r);
}

/* -1 when the connection was evicted meanwhile: its thread must end. */
static int conn_set(struct conn *c, enum conn_state st)
{
	pthread_mutex_lock(&c->s->lock);
	bool ev = c->evicted;
	c->state = st;
	if (st == CONN_IDLE) {
		c->idle_since = cz_now_whole_ms();
		c->idle_seq = ++c->s->idle_seq;
	} else if (st == CONN_READING) {
		c->reading_since = cz_now_whole_ms();
	}
	pthread_mutex_unlock(&c->s->lock);
	if (ev)
		return -1;
	if (st == CONN_BUSY && write(c->s->wakefd[1], "b", 1) < 0) {
		/* The pipe is full: the accept thread has wakeups pending anyway. */
	}
	return 0;
}

/* Waits for a request's first byte: 1 readable, 0 idle timeout, -1 the
 * client hung up or the server shut the connection down. */
static int conn_wait_request(struct conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN | POLLRDHUP };
	int k;
	do
		k = poll(&p, 1, c->s->idle_ms);
	while (k < 0 && errno == EINTR);
	if (k == 0)
		return 0;
	if (k < 0 || (p.revents & (POLLERR | POLLHUP | POLLNVAL)))
		return -1;
	/* POLLRDHUP with POLLIN: a last request may still be queued before the
	 * end of stream; recv sees it, then the clean end. */
	return 1;
}

static void *conn_main(void *v)
{
	struct conn *c = v;
	int fds[CZ_CTL_MAX_FDS], nfds;
	char err[256], *msg;
	size_t len;

	cz_thread_name("cz-ctl%d", (int)(c - c->s->conns));
	/* A request's work is throughput work (a submit spools its witnesses:
	 * 4.4 ms of CPU at a time with 200 files), and the devices' threads
	 * go first when the CPUs are taken (lib/thread.h). */
	cz_thread_batch(CZ_THREAD_BULK_NICE);

	for (;;) {
		int w = conn_wait_request(c);
		if (w == 0) {
			snprintf(err, sizeof(err), "closing the connection: no request for %.3g s (idle timeout)",
				 c->s->idle_ms / 1e3);
			reply_err(c->s, c->fd, err);
			break;
		}
		if (w < 0 || conn_set(c, CONN_READING))
			break;
		err[0] = 0;
		int rc = cz_ctl_recv_ex(c->fd, CZ_CTL_MAX_MSG, c->s->read_ms, &msg, &len, fds, &nfds,
					CZ_CTL_MAX_FDS, err, sizeof(err));
		if (rc == 1)
			break;
		if (rc < 0) {
			if (rc != -EPIPE && rc != -ECONNRESET) {
				char why[320];
				snprintf(why, sizeof(why), "%s%s", err,
					 rc == -ETIMEDOUT ? ": closing the connection" : "");
				reply_err(c->s, c->fd, why);
			}
			break;
		}
		atomic_store(&c->peer.gone, false);
		if (conn_set(c, CONN_BUSY)) {
			free(msg);
			for (int i = 0; i < nfds; i++)
				close(fds[i]);
			break;
		}
		enum json_tokener_error jerr;
		json_object *req = json_tokener_parse_verbose(msg, &jerr);
		free(msg);
		json_object *r;
		if (!req || !json_object_is_type(req, json_type_object)) {
			char why[160];
			/* "null" parses, to NULL with no error: not "success". */
			snprintf(why, sizeof(why), "malformed request: %s",
				 req ? "not a JSON object" : jerr == json_tokener_success
				 ? "not a JSON object (null)" : json_tokener_error_desc(jerr));
			r = err_obj(why);
			for (int i = 0; i < nfds; i++)
				close(fds[i]);
		} else {
			r = c->s->fn(c->s->ctx, req, fds, nfds, &c->peer);
		}
		json_object_put(req);
		bool lost = atomic_load(&c->peer.gone) || reply(c->s, c->fd, r);
		json_object_put(r);
		if (lost || conn_set(c, CONN_IDLE))
			break;
	}
	pthread_mutex_lock(&c->s->lock);
	close(c->fd);
	c->fd = -1;
	pthread_mutex_unlock(&c->s->lock);
	return NULL;
}

/* The connection (of uid, as evict_idle_locked) whose request has been
 * arriving the longest, if that is past STALL_MS (or the read timeout):
 * a client that sends half a frame and renews it before the read timeout
 * ends it would otherwise hold its slot for ever (issue 24).  why says so. */
static struct conn *stalled_locked(struct cz_ctl_server *s, long uid, char *why, size_t cap)
{
	int64_t now = cz_now_whole_ms(), grace = s->read_ms < STALL_MS ? s->read_ms : STALL_MS;
	struct conn *old = NULL;
	cz_mutex_assert_held(&s->lock);
	for (int i = 0; i < MAX_CONN; i++) {
		struct conn *c = &s->conns[i];
		if (!c->used || c->fd < 0 || c->state != CONN_READING || c->evicted || (uid >= 0 && c->uid != uid) ||
		    (uid == EVICT_NONADMIN && c->peer.admin) || now - c->reading_since < grace)
			continue;
		if (!old || c->reading_since < old->reading_since)
			old = c;
	}
	if (old)
		snprintf(why, cap, "closing the connection: its request has not arrived whole after %.1f s and "
			 "every slot it may use is taken", (double)(now - old->reading_since) / 1e3);
	return old;
}

/* Called with s->lock held: picks the connection idle the longest (of uid
 * only, unless uid is -1), tells it why and shuts it down; with none idle,
 * one whose request has stalled (stalled_locked).  Its thread then ends
 * on its own; the caller joins it.  NULL when none is idle or stalled. */
static struct conn *evict_idle_locked(struct cz_ctl_server *s, long uid, const char *why)
{
	cz_mutex_assert_held(&s->lock);
	char stall[160];
	struct conn *old = NULL;
	for (int i = 0; i < MAX_CONN; i++) {
		struct conn *c = &s->conns[i];
		if (!c->used || c->fd < 0 || c->state != CONN_IDLE || (uid >= 0 && c->uid != uid) ||
		    (uid == EVICT_NONADMIN && c->peer.admin))
			continue;
		/* Idle means nothing sent: bytes waiting are a request its
		 * thread has not got to yet.  The end of the stream is a client
		 * that has left and a thread about to end: that one goes first,
		 * and needs no message. */
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		if (poll(&p, 1, 0) > 0) {
			char b;
			if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) != 0)
				continue;
			c->evicted = true;
			return c;
		}
		if (!old || c->idle_seq < old->idle_seq)
			old = c;
	}
	if (!old && (old = stalled_locked(s, uid, stall, sizeof(stall))))
		why = stall;
	if (!old)
		return NULL;
	json_object *r = err_obj(why);
	size_t len;
	const char *t = json_object_to_json_string_length(r, JSON_C_TO_STRING_PLAIN, &len);
	uint8_t hdr[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24) };
	/* Never block the accept thread on a client: best effort. */
	if (send(old->fd, hdr, 4, MSG_DONTWAIT | MSG_NOSIGNAL) == 4)
		(void)!send(old->fd, t, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	json_object_put(r);
	old->evicted = true;
	shutdown(old->fd, SHUT_RDWR);
	return old;
}

/* Evicts as evict_idle_locked() and waits for the thread to let go of its
 * slot (it takes the lock to close its descriptor).  0 when one was freed. */
static int evict_join_locked(struct cz_ctl_server *s, long uid, const char *why)
{
	cz_mutex_assert_held(&s->lock);
	struct conn *old = evict_idle_locked(s, uid, why);
	if (!old)
		return -1;
	pthread_t tid = old->tid;
	pthread_mutex_unlock(&s->lock);
	pthread_join(tid, NULL);
	pthread_mutex_lock(&s->lock);
	old->used = 0;
	return 0;
}

/* Fairness by default (issue 24): slots no non-admin may take, so that
 * root, cuzkd's own uid and --admin-group are always served whatever other
 * uids hold (awaits, half-sent frames, replies they never read).  0 when a
 * non-admin newcomer may have a slot (the longest idle non-admin one
 * closed to make room if need be), else -1 with the refusal in why. */
static int admin_reserve_locked(struct cz_ctl_server *s, char *why, size_t cap)
{
	cz_mutex_assert_held(&s->lock);
	for (;;) {
		int n = 0;
		for (int i = 0; i < MAX_CONN; i++)
			n += s->conns[i].used && s->conns[i].fd >= 0 && !s->conns[i].peer.admin;
		if (n < MAX_CONN - CZ_CTL_ADMIN_SLOTS)
			return 0;
		snprintf(why, cap, "closing the connection: the %d connection slots open to non-admin uids are taken "
			 "(%d are kept for admins) and this one was idle the longest", MAX_CONN - CZ_CTL_ADMIN_SLOTS,
			 CZ_CTL_ADMIN_SLOTS);
		if (evict_join_locked(s, EVICT_NONADMIN, why)) {
			snprintf(why, cap, "too many connections: the %d slots open to non-admin uids are running "
				 "requests (%d are kept for root, cuzkd's own uid and --admin-group)",
				 MAX_CONN - CZ_CTL_ADMIN_SLOTS, CZ_CTL_ADMIN_SLOTS);
			return -1;
		}
	}
}

/* A free slot (reaping finished threads on the way), or NULL. */
static struct conn *slot_find_locked(struct cz_ctl_server *s)
{
	cz_mutex_assert_held(&s->lock);
	struct conn *c = NULL;
	/* Reap every finished connection thread now, so their stacks go back
	 * to the thread library's cache instead of piling up until slots run
	 * out. */
	for (int i = 0; i < MAX_CONN; i++) {
		if (s->conns[i].used && s->conns[i].fd < 0) {
			pthread_join(s->conns[i].tid, NULL);
			s->conns[i].used = 0;
		}
		if (!s->conns[i].used && !c)
			c = &s->conns[i];
	}
	return c;
}

/*
 * Who may administer the daemon (load, unload, device, every job): root,
 * the daemon's own uid (it could do all of it anyway), and members of
 * --admin-group.  Membership is the peer's own group list as the kernel
 * holds it (SO_PEERGROUPS, Linux 4.13+): no NSS lookup, which may block
 * on the network, in the accept thread; and it is the groups the client
 * really has, not /etc/group's idea of its user.
 */
static bool peer_is_admin(struct cz_ctl_server *s, int fd, const struct ucred *cr)
{
	if (cr->uid == 0 || cr->uid == geteuid())
		return true;
	if (!s->admin_group)
		return false;
	if (cr->gid == s->admin_gid)
		return true;
	gid_t g[256];
	socklen_t gl = sizeof(g);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &gl))
		return false;   /* more than 256 groups, or an old kernel: not an admin */
	for (size_t i = 0; i < gl / sizeof(gid_t); i++)
		if (g[i] == s->admin_gid)
			return true;
	return false;
}

static void accept_one(struct cz_ctl_server *s)
{
	char why[200];
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) || cl != sizeof(cred)) {
		/* Every request is judged by who sent it: no credentials, no service. */
		reply_err(s, fd, "refused: the connection's credentials (SO_PEERCRED) cannot be read");
		close(fd);
		return;
	}
	long uid = (long)cred.uid;
	bool admin = peer_is_admin(s, fd, &cred);

	pthread_mutex_lock(&s->lock);
	struct conn *c = NULL;
	bool over = false, reserved = false;
	/* --max-conns-per-uid for every uid; without it CZ_CTL_UID_CONNS for
	 * a non-admin one (0 given: no cap at all) */
	int ucap = s->max_per_uid ? s->max_per_uid : s->uid_default && !admin ? CZ_CTL_UID_CONNS : 0;
	if (ucap && uid >= 0) {
		/* A uid at its cap recycles its own idle connection, or is
		 * refused.  Connections whose clients have already left go
		 * first, and do not count once gone: hence the loop. */
		snprintf(why, sizeof(why), "closing the connection: uid %ld has its %d connections (--max-conns-per-uid) "
			 "and this one was idle the longest", uid, ucap);
		for (;;) {
			int mine = 0;
			for (int i = 0; i < MAX_CONN; i++)
				mine += s->conns[i].used && s->conns[i].fd >= 0 && s->conns[i].uid == uid;
			if (mine < ucap)
				break;
			if (evict_join_locked(s, uid, why)) {
				over = true;
				break;
			}
		}
	}
	if (!over && !admin && admin_reserve_locked(s, why, sizeof(why)))
		over = reserved = true;
	if (!over) {
		c = slot_find_locked(s);
		snprintf(why, sizeof(why), "closing the connection: all %d connection slots are taken and this one "
			 "was idle the longest", MAX_CONN);
		if (!c && !evict_join_locked(s, -1, why))
			c = slot_find_locked(s);
	}
	if (c) {
		c->s = s;
		c->fd = fd;
		c->uid = uid;
		c->used = 1;
		c->state = CONN_IDLE;
		c->evicted = false;
		c->idle_since = cz_now_whole_ms();
		c->idle_seq = ++s->idle_seq;
		c->peer.sock = fd;
		c->peer.stop_fd = s->stopfd[0];
		c->peer.idle_ms = s->idle_ms;
		c->peer.uid = uid;
		c->peer.gid = (long)cred.gid;
		c->peer.pid = (long)cred.pid;
		c->peer.admin = admin;
		atomic_store(&c->peer.gone, false);
		if (pthread_create(&c->tid, NULL, conn_main, c)) {
			c->used = 0;
			c = NULL;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (!c) {
		if (over && !reserved)
			snprintf(why, sizeof(why), "too many connections from uid %ld: all %d it may have "
				 "(--max-conns-per-uid) are running requests", uid, ucap);
		else if (reserved)
			;       /* admin_reserve_locked's */
		else
			snprintf(why, sizeof(why), "too many connections: all %d slots are running requests", MAX_CONN);
		reply_err(s, fd, why);
		close(fd);
	}
}

/* Marks each busy connection whose client hung up, then calls the hook. */
static void note_hangups(struct cz_ctl_server *s, const struct pollfd *p, const int *slot, int n)
{
	int any = 0;
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < n; i++) {
		struct conn *c = &s->conns[slot[i]];
		if (!(p[i].revents & (POLLRDHUP | POLLHUP | POLLERR)))
			continue;
		/* The set was built before this lock: the descriptor must still be
		 * this connection's and the request still running. */
		if (c->used && c->fd == p[i].fd && c->state == CONN_BUSY && !atomic_load(&c->peer.gone)) {
			atomic_store(&c->peer.gone, true);
			any = 1;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (any && s->hangup)
		s->hangup(s->ctx);
}

static void *accept_main(void *v)
{
	struct cz_ctl_server *s = v;
	struct pollfd p[3 + MAX_CONN];
	int slot[MAX_CONN];

	cz_thread_name("cz-ctl-accept");

	for (;;) {
		int n = 0;
		p[0] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = s->stopfd[0], .events = POLLIN };
		p[2] = (struct pollfd){ .fd = s->wakefd[0], .events = POLLIN };
		/* Only busy connections: an idle one is watched by its own thread,
		 * and one already marked gone would report its hangup for ever. */
		pthread_mutex_lock(&s->lock);
		for (int i = 0; i < MAX_CONN; i++) {
			struct conn *c = &s->conns[i];
			if (c->used && c->fd >= 0 && c->state == CONN_BUSY && !atomic_load(&c->peer.gone)) {
				p[3 + n] = (struct pollfd){ .fd = c->fd, .events = POLLRDHUP };
				slot[n++] = i;
			}
		}
		pthread_mutex_unlock(&s->lock);
		if (poll(p, (nfds_t)(3 + n), -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (p[2].revents & POLLIN) {
			char buf[64];
			(void)!read(s->wakefd[0], buf, sizeof(buf));
		}
		if (n)
			note_hangups(s, p + 3, slot, n);
		if (p[0].revents & POLLIN)
			accept_one(s);
	}
	return NULL;
}

static int ms_of(double secs, double dflt)
{
	double v = secs > 0 ? secs : dflt;
	return v * 1e3 > 1e9 ? 1000000000 : (int)(v * 1e3);
}

struct cz_ctl_server *cz_ctl_server_start(const char *path, cz_ctl_fn fn, void *ctx,
					  const struct cz_ctl_server_opts *o, char *err,
					  size_t errcap)
{
	struct cz_ctl_server *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	s->fn = fn;
	s->ctx = ctx;
	s->hangup = o ? o->hangup : NULL;
	s->idle_ms = ms_of(o ? o->idle_timeout_s : 0, 300);
	s->read_ms = ms_of(o ? o->read_timeout_s : 0, 10);
	s->max_per_uid = o && o->max_conns_per_uid < MAX_CONN ? (int)o->max_conns_per_uid : 0;
	s->uid_default = o && o->max_conns_per_uid_default;
	s->admin_group = o && o->admin_group;
	s->admin_gid = o ? (gid_t)o->admin_gid : 0;
	s->stopfd[0] = s->stopfd[1] = s->wakefd[0] = s->wakefd[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	for (int i = 0; i < MAX_CONN; i++)
		s->conns[i].fd = -1;
	s->lfd = cz_ctl_listen_ex(path, o ? o->socket_mode : 0, o && o->socket_group ? (long)o->socket_gid : -1,
				  err, errcap);
	if (s->lfd < 0 || pipe2(s->stopfd, O_CLOEXEC) || pipe2(s->wakefd, O_CLOEXEC | O_NONBLOCK) ||
	    pthread_create(&s->tid, NULL, accept_main, s)) {
		if (s->lfd >= 0) {
			snprintf(err, errcap, "cannot start the control server: %s", strerror(errno));
			close(s->lfd);
		}
		for (int i = 0; i < 2; i++) {
			if (s->stopfd[i] >= 0)
				close(s->stopfd[i]);
			if (s->wakefd[i] >= 0)
				close(s->wakefd[i]);
		}
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

void cz_ctl_server_stop(struct cz_ctl_server *s)
{
	if (!s)
		return;
	/* The byte stays unread: stop_fd stays readable for every handler
	 * that polls it (a trace writer), now and later. */
	if (write(s->stopfd[1], "x", 1) < 0)
		perror("cuzkd: stopping the control server");
	pthread_join(s->tid, NULL);
	close(s->lfd);
	/* Every connection ends at its next read (SHUT_RD).  A running request
	 * is still answered (await: "shutting down") if the client's socket
	 * has room; send_frame() gives up on one that has none, so no client
	 * that does not read can hold the stop. */
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < MAX_CONN; i++)
		if (s->conns[i].used && s->conns[i].fd >= 0)
			shutdown(s->conns[i].fd, SHUT_RD);
	pthread_mutex_unlock(&s->lock);
	if (s->hangup)
		s->hangup(s->ctx);
	for (int i = 0; i < MAX_CONN; i++)
		if (s->conns[i].used)
			pthread_join(s->conns[i].tid, NULL);
	for (int i = 0; i < 2; i++) {
		close(s->stopfd[i]);
		close(s->wakefd[i]);
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
}
