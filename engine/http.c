/* SPDX-License-Identifier: MIT */
/*
 * engine/http.c — cuzkd's HTTP listener (--metrics-listen), on
 * libmicrohttpd: /metrics (Prometheus text), /status (the control socket's
 * status response), /healthz, /readyz, and / (the dashboard,
 * engine/dashboard.html, built into the binary).  docs/metrics.md.
 *
 * One libmicrohttpd polling thread serves every connection: a scrape or a
 * dashboard poll is short (no file I/O, no wait), so one thread bounds what
 * a crowd of clients can cost the daemon.  Handlers take only control-plane
 * locks (engine/evidence/metrics.c, the status request's), never a consumer's.
 * Without libmicrohttpd at build time, cz_http_start says so.
 *
 * Who sees what on /status (docs/metrics.md, Who sees /status).  A TCP
 * port is open to every local user, so by default it serves the aggregate
 * view: devices, budget, counters and circuits' shapes, but no job (its
 * id, owner, circuit or error) and no key path.  The whole status is for a
 * request carrying the --metrics-auth token ("Authorization: Bearer T"),
 * or, on a Unix-socket listener, for an admin peer (root or cuzkd's own
 * uid, the kernel's SO_PEERCRED); any other peer there gets the control
 * socket's per-user view, its own jobs only.  A wrong token is a 401.
 *
 * Crowds: at most --metrics-max-conns connections (HTTP_MAX_CONNS), at most
 * HTTP_MAX_PER_ADDR of them from one address (so that one address's idle
 * sockets cannot take the scraper's place), each closed after HTTP_IDLE_S
 * idle seconds; epoll, so the count is not bounded by select()'s
 * FD_SETSIZE.  A newcomer that finds either cap reached is not refused
 * while a connection it counts against is idle (no request in progress):
 * the one idle the longest is shut down for it (conn_make_room; all in
 * libmicrohttpd's one thread, so the table needs no lock), and only when
 * every such connection is running a request is the newcomer refused.
 * libmicrohttpd's own limits sit HTTP_EVICT_SLACK above ours, room for the
 * connections being closed.
 */
#define _GNU_SOURCE
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#ifdef CZ_HAVE_MICROHTTPD
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl.h"

extern const char cz_dashboard_html[];
extern const unsigned cz_dashboard_html_len;

#define HTTP_MAX_CONNS 1024u    /* in all; cuzkd raises RLIMIT_NOFILE well above it */
#define HTTP_MAX_PER_ADDR 64u   /* from one IP address */
#define HTTP_IDLE_S 10u         /* an idle connection is closed after it */
#define HTTP_TOKEN_MAX 256      /* --metrics-auth: the token's bytes at most */
#define HTTP_EVICT_SLACK 32u    /* connections shut down for newcomers, not yet closed */

/* A connection the listener holds (socket_context). */
struct hconn {
	int fd;
	struct sockaddr_storage addr;   /* the peer (family AF_UNIX: no address) */
	int64_t since;                  /* idle since (CLOCK_MONOTONIC ns) */
	bool busy;                      /* a request in progress */
	bool closing;                   /* shut down for a newcomer */
	unsigned at;                    /* its index in conns */
};

struct cz_http {
	struct cz_engine *e;
	struct MHD_Daemon *d;
	struct hconn **conns;           /* libmicrohttpd's thread only */
	unsigned nconns, max_conns, max_per_addr;
	uint64_t evicted;
	char unix_path[108];    /* unlinked at stop, when listening on one */
	char token[HTTP_TOKEN_MAX + 1]; /* --metrics-auth's token, "" without */
};

static int64_t cz_http_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Equal, in a time that depends on b's length only (the token's). */
static bool token_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;
	for (size_t i = 0; i < lb; i++)
		d |= (unsigned char)(a[i < la ? i : 0] ^ b[i]);
	return !d;
}

static enum MHD_Result send_buf(struct MHD_Connection *c, unsigned code, const char *type, char *body,
				size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	enum MHD_Result ok = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned code, const char *fmt, const char *arg)
{
	char *s = NULL;
	int n = asprintf(&s, fmt, arg);
	if (n < 0)
		return MHD_NO;
	return send_buf(c, code, "text/plain; charset=utf-8", s, (size_t)n, MHD_RESPMEM_MUST_FREE);
}

enum { VIEW_ALL, VIEW_USER, VIEW_AGGREGATE };

/* Which /status a request gets (the rule at the top); -1: a wrong token.
 * For VIEW_USER and VIEW_AGGREGATE, *peer is the non-admin it is served
 * as (for the aggregate a uid beyond 32 bits, which owns no job: a
 * negative one would be status's "all"). */
static int status_view(const struct cz_http *h, struct MHD_Connection *c, struct cz_ctl_peer *peer)
{
	memset(peer, 0, sizeof(*peer));
	peer->sock = peer->stop_fd = -1;
	peer->uid = peer->gid = (long)UINT32_MAX + 1;
	peer->pid = 0;
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (auth && h->token[0])
		return !strncmp(auth, "Bearer ", 7) && token_eq(auth + 7, h->token) ? VIEW_ALL : -1;
	if (!h->unix_path[0])
		return VIEW_AGGREGATE;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct ucred cr;
	socklen_t sl = sizeof(cr);
	if (!ci || getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cr, &sl))
		return VIEW_AGGREGATE;
	if (cr.uid == 0 || cr.uid == geteuid())
		return VIEW_ALL;
	peer->uid = (long)cr.uid;
	peer->gid = (long)cr.gid;
	peer->pid = (long)cr.pid;
	return VIEW_USER;
}

/* The aggregate view: no key's path (jobs are gone already: its uid owns
 * none); "view" says so, for the dashboard and scripts. */
static void aggregate(json_object *r)
{
	json_object *cl = json_object_object_get(r, "circuits");
	for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
		json_object *o = json_object_array_get_idx(cl, i);
		json_object_object_del(o, "zkey");
		json_object_object_del(o, "wasm");
	}
	json_object_object_add(r, "view", json_object_new_string("aggregate"));
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_len, void **state)
{
	struct cz_http *h = cls;
	(void)version;
	(void)upload;
	(void)state;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct hconn *hc = ci ? ci->socket_context : NULL;
	if (hc)
		hc->busy = true;        /* until its response is sent (req_done) */

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: only GET and HEAD\n", method);
	if (*upload_len)
		return send_text(c, MHD_HTTP_BAD_REQUEST, "%s: a GET takes no body\n", url);
	if (!strcmp(url, "/metrics")) {
		size_t len = 0;
		char *t = cz_engine_metrics_text(h->e, &len);
		size_t fl = 0;
		char *ft = t ? cz_engine_fleet_metrics_text(h->e, &fl) : NULL;    /* a fleet member's, after */
		if (ft) {
			char *both = realloc(t, len + fl + 1);
			if (both) {
				memcpy(both + len, ft, fl + 1);
				t = both;
				len += fl;
			}
			free(ft);
		}
		if (!t)
			return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s: out of memory\n", url);
		return send_buf(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", t, len,
				MHD_RESPMEM_MUST_FREE);
	}
	if (!strcmp(url, "/status")) {
		struct cz_ctl_peer peer;
		int v = status_view(h, c, &peer);
		if (v < 0)
			return send_text(c, MHD_HTTP_UNAUTHORIZED, "%s: wrong --metrics-auth token\n", url);
		json_object *q = json_object_new_object();
		json_object_object_add(q, "op", json_object_new_string("status"));
		json_object *r = cz_engine_request(h->e, q, NULL, 0, v ? &peer : NULL);
		if (v == VIEW_AGGREGATE)
			aggregate(r);
		size_t len;
		const char *s = json_object_to_json_string_length(r, JSON_C_TO_STRING_PLAIN, &len);
		char *body = s ? malloc(len + 1) : NULL;
		if (body) {
			memcpy(body, s, len);
			body[len] = '\n';
		}
		json_object_put(q);
		json_object_put(r);
		if (!body)
			return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s: out of memory\n", url);
		return send_buf(c, MHD_HTTP_OK, "application/json", body, len + 1, MHD_RESPMEM_MUST_FREE);
	}
	if (!strcmp(url, "/healthz"))
		return send_text(c, MHD_HTTP_OK, "%s\n", "ok");
	if (!strcmp(url, "/readyz")) {
		char why[256];
		int ok = cz_engine_ready(h->e, why, sizeof(why));
		return send_text(c, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, "%s\n", why);
	}
	if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
		return send_buf(c, MHD_HTTP_OK, "text/html; charset=utf-8", (char *)cz_dashboard_html,
				cz_dashboard_html_len, MHD_RESPMEM_PERSISTENT);
	return send_text(c, MHD_HTTP_NOT_FOUND, "%s: not found (/, /metrics, /status, /healthz, /readyz)\n", url);
}

/* "ADDR:PORT", "[ADDR6]:PORT", or "/unix/path": a bound, listening socket. */
static int listen_on(const char *spec, struct cz_http *h, char *err, size_t cap)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	int fam;

	if (spec[0] == '/') {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;
		if (strlen(spec) >= sizeof(un->sun_path)) {
			snprintf(err, cap, "--metrics-listen %s: a Unix socket path is at most %zu bytes", spec,
				 sizeof(un->sun_path) - 1);
			return -1;
		}
		un->sun_family = fam = AF_UNIX;
		snprintf(un->sun_path, sizeof(un->sun_path), "%s", spec);
		sl = sizeof(*un);
		unlink(spec);   /* a stale socket from a previous run */
		snprintf(h->unix_path, sizeof(h->unix_path), "%s", spec);
	} else {
		char host[64];
		const char *colon = strrchr(spec, ':');
		char *end;
		unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
		size_t hl = colon ? (size_t)(colon - spec) : 0;
		if (!colon || !colon[1] || *end || port > 65535 || hl == 0 || hl >= sizeof(host)) {
			snprintf(err, cap, "--metrics-listen %s: want ADDR:PORT, [ADDR6]:PORT or /unix/path", spec);
			return -1;
		}
		memcpy(host, spec, hl);
		host[hl] = 0;
		if (host[0] == '[' && host[hl - 1] == ']') {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			host[hl - 1] = 0;
			s6->sin6_family = fam = AF_INET6;
			s6->sin6_port = htons((uint16_t)port);
			sl = sizeof(*s6);
			if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1) {
				snprintf(err, cap, "--metrics-listen %s: '%s' is not an IPv6 address", spec, host + 1);
				return -1;
			}
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
			s4->sin_family = fam = AF_INET;
			s4->sin_port = htons((uint16_t)port);
			sl = sizeof(*s4);
			if (inet_pton(AF_INET, host, &s4->sin_addr) != 1) {
				snprintf(err, cap, "--metrics-listen %s: '%s' is not an IPv4 address", spec, host);
				return -1;
			}
		}
	}
	int fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	if (fd >= 0 && fam != AF_UNIX)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 64)) {
		snprintf(err, cap, "--metrics-listen %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		h->unix_path[0] = 0;
		return -1;
	}
	return fd;
}

/* --metrics-auth FILE: its first line, the token; a file others may read
 * would hand the token to the very users it keeps out. */
static int read_token(const char *path, char *tok, char *err, size_t cap)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	if (!f || fstat(fileno(f), &st)) {
		snprintf(err, cap, "--metrics-auth %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	size_t n = fread(tok, 1, HTTP_TOKEN_MAX + 1, f);
	fclose(f);
	tok[n < HTTP_TOKEN_MAX ? n : HTTP_TOKEN_MAX] = 0;
	tok[strcspn(tok, "\r\n")] = 0;
	if (st.st_mode & 077) {
		snprintf(err, cap, "--metrics-auth %s: readable by others (mode 0%o): make it 0600 or 0400", path,
			 (unsigned)(st.st_mode & 0777));
		return -1;
	}
	if (strlen(tok) < 16 || n > HTTP_TOKEN_MAX + 1 || strlen(tok) == HTTP_TOKEN_MAX) {
		snprintf(err, cap, "--metrics-auth %s: the token (its first line) must be 16 to %d bytes", path,
			 HTTP_TOKEN_MAX - 1);
		return -1;
	}
	for (const char *p = tok; *p; p++)
		if (*p <= ' ' || *p > '~') {
			snprintf(err, cap, "--metrics-auth %s: the token must be printable ASCII without spaces", path);
			return -1;
		}
	return 0;
}

/* ---- the connection table: a newcomer evicts the idlest, not refused ---- */

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr *b)
{
	if (a->ss_family != b->sa_family)
		return false;
	if (b->sa_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)a)->sin_addr, &((const struct sockaddr_in *)b)->sin_addr,
			       sizeof(struct in_addr));
	if (b->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return false;           /* a Unix socket's peers have no address to share */
}

/* Shuts down the idle connection (of addr's, when addr) idle the longest;
 * libmicrohttpd then sees its end and closes it.  false: none is idle. */
static bool conn_evict(struct cz_http *h, const struct sockaddr *addr)
{
	struct hconn *best = NULL;
	for (unsigned i = 0; i < h->nconns; i++) {
		struct hconn *c = h->conns[i];
		if (!c->busy && !c->closing && (!addr || same_addr(&c->addr, addr)) && (!best || c->since < best->since))
			best = c;
	}
	if (!best)
		return false;
	best->closing = true;
	shutdown(best->fd, SHUT_RDWR);
	h->evicted++;
	return true;
}

/* The accept policy: room for a newcomer from addr, made by evicting the
 * longest-idle connection where a cap is reached; MHD_NO when every
 * connection counted against it is running a request. */
static enum MHD_Result conn_make_room(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct cz_http *h = cls;
	unsigned live = 0, here = 0;
	(void)len;
	for (unsigned i = 0; i < h->nconns; i++)
		if (!h->conns[i]->closing) {
			live++;
			here += same_addr(&h->conns[i]->addr, addr);
		}
	if (h->nconns >= h->max_conns + HTTP_EVICT_SLACK)
		return MHD_NO;  /* too many being closed already */
	if (here >= h->max_per_addr && !conn_evict(h, addr))
		return MHD_NO;
	if (live >= h->max_conns && here < h->max_per_addr && !conn_evict(h, NULL))
		return MHD_NO;
	return MHD_YES;
}

static void conn_notify(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode what)
{
	struct cz_http *h = cls;
	struct hconn *hc = *ctx;
	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fi = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ai = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (h->nconns >= h->max_conns + HTTP_EVICT_SLACK || !fi || !(hc = calloc(1, sizeof(*hc))))
			return;         /* untracked: never evicted (its accept was refused past this) */
		hc->fd = fi->connect_fd;
		if (ai && ai->client_addr && ai->client_addr->sa_family == AF_INET)
			memcpy(&hc->addr, ai->client_addr, sizeof(struct sockaddr_in));
		else if (ai && ai->client_addr && ai->client_addr->sa_family == AF_INET6)
			memcpy(&hc->addr, ai->client_addr, sizeof(struct sockaddr_in6));
		else
			hc->addr.ss_family = AF_UNIX;
		hc->since = cz_http_now();
		hc->at = h->nconns;
		h->conns[h->nconns++] = hc;
		*ctx = hc;
	} else if (hc) {        /* MHD_CONNECTION_NOTIFY_CLOSED */
		h->conns[hc->at] = h->conns[--h->nconns];
		h->conns[hc->at]->at = hc->at;
		free(hc);
		*ctx = NULL;
	}
}

/* A request's response is sent (or it ended): idle from now. */
static void req_done(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)state;
	(void)toe;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct hconn *hc = ci ? ci->socket_context : NULL;
	if (hc) {
		hc->busy = false;
		hc->since = cz_http_now();
	}
}

struct cz_http *cz_http_start(struct cz_engine *e, const char *spec, const char *auth, unsigned max_conns,
			      char *err, size_t cap)
{
	struct cz_http *h = calloc(1, sizeof(*h));
	if (h) {
		h->max_conns = max_conns ? max_conns : HTTP_MAX_CONNS;
		h->conns = calloc(h->max_conns + HTTP_EVICT_SLACK, sizeof(*h->conns));
	}
	if (!h || !h->conns) {
		free(h);
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	h->max_per_addr = HTTP_MAX_PER_ADDR < h->max_conns ? HTTP_MAX_PER_ADDR : h->max_conns;
	h->e = e;
	int fd = auth && read_token(auth, h->token, err, cap) ? -1 : listen_on(spec, h, err, cap);
	if (fd < 0) {
		free(h->conns);
		free(h);
		return NULL;
	}
	/* Our caps are conn_make_room's (evicting the idlest first); libmicrohttpd's
	 * sit above them by the slack for connections being closed.  The
	 * per-address cap on TCP only: a Unix socket's peers have no address. */
	h->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, conn_make_room, h, handle, h,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, h->max_conns + HTTP_EVICT_SLACK,
				MHD_OPTION_CONNECTION_TIMEOUT, HTTP_IDLE_S, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				h->unix_path[0] ? 0u : h->max_per_addr + HTTP_EVICT_SLACK,
				MHD_OPTION_NOTIFY_CONNECTION, conn_notify, h, MHD_OPTION_NOTIFY_COMPLETED, req_done, h,
				MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, cap, "--metrics-listen %s: libmicrohttpd cannot serve on it", spec);
		close(fd);
		if (h->unix_path[0])
			unlink(h->unix_path);
		free(h->conns);
		free(h);
		return NULL;
	}
	return h;
}

void cz_http_stop(struct cz_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);  /* closes the listening socket too (and every connection: conn_notify) */
	if (h->unix_path[0])
		unlink(h->unix_path);
	for (unsigned i = 0; i < h->nconns; i++)
		free(h->conns[i]);
	free(h->conns);
	free(h);
}

#else /* !CZ_HAVE_MICROHTTPD */

struct cz_http *cz_http_start(struct cz_engine *e, const char *spec, const char *auth, unsigned max_conns,
			      char *err, size_t cap)
{
	(void)e;
	(void)auth;
	(void)max_conns;
	snprintf(err, cap, "--metrics-listen %s: this cuzkd was built without libmicrohttpd "
		 "(install libmicrohttpd-dev, e.g. by tools/install-deps.sh, and rebuild)", spec);
	return NULL;
}

void cz_http_stop(struct cz_http *h)
{
	(void)h;
}

#endif
