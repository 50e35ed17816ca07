/* SPDX-License-Identifier: MIT */
/* Description: the HTTP listener full (issue 24): with --metrics-max-conns 8 and 8 idle connections, a newcomer from the same address and one from another are each served, and each time the connection idle the longest is the one closed (the others are kept); with the default caps, 64 idle connections from one address do not refuse a 65th from it: the idlest of that address is closed instead; a bad --metrics-max-conns is refused naming the flag. */
#define _GNU_SOURCE     /* POLLRDHUP */
#define CZ_DAEMON_WATCH_EXIT
#include "selftests/cz_daemon.h"
#include "selftests/cz_net.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>

#define CAP 8
#define CROWD 64

static int port;

static int start(struct daemon *d, const char *name, const char *cap)
{
	const char *a[] = { "--backend", "null", "--devices", "1", "--metrics-listen", fmt("127.0.0.1:%d", port),
			    cap ? "--metrics-max-conns" : NULL, cap, NULL };
	return daemon_start(d, name, a);
}

/* A TCP connection to the listener from src (127.0.0.x), or -1. */
static int conn(const char *src)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in b = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	b.sin_addr.s_addr = inet_addr(src);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0 && (bind(s, (struct sockaddr *)&b, sizeof(b)) || connect(s, (struct sockaddr *)&a, sizeof(a)))) {
		close(s);
		s = -1;
	}
	return s;
}

/* GET /healthz on s (HTTP/1.keep); 1 on a 200 "ok". */
static int get(int s, int keep)
{
	char q[128], b[2048];
	int n = snprintf(q, sizeof(q), "GET /healthz HTTP/1.%d\r\nHost: x\r\n\r\n", keep);
	size_t at = 0;
	if (s < 0 || write(s, q, (size_t)n) != n)
		return 0;
	struct pollfd p = { .fd = s, .events = POLLIN };
	while (at < sizeof(b) - 1 && poll(&p, 1, 5000) == 1) {
		ssize_t k = read(s, b + at, sizeof(b) - 1 - at);
		if (k <= 0)
			break;
		at += (size_t)k;
		b[at] = 0;
		if (strstr(b, "\r\n\r\nok\n"))
			break;
	}
	b[at] = 0;
	return !strncmp(b, "HTTP/1.", 7) && strstr(b, " 200 ") && strstr(b, "\r\n\r\nok\n");
}

/* 1 when the server closed s (EOF or reset within ms), else 0. */
static int closed(int s, int ms)
{
	struct pollfd p = { .fd = s, .events = POLLIN | POLLRDHUP };
	char c;
	if (poll(&p, 1, ms) != 1)
		return 0;
	return read(s, &c, 1) <= 0;
}

static void test_cap(void)
{
	int c[CAP], held = 0;
	for (int i = 0; i < CAP; i++) {
		c[i] = conn("127.0.0.1");
		held += c[i] >= 0;
		usleep(30000);  /* each idle from its own moment: c[0] the longest */
	}
	usleep(100000);
	int n1 = conn("127.0.0.1"), ok1 = get(n1, 0);
	int gone0 = closed(c[0], 2000), kept = 1;
	for (int i = 1; i < CAP; i++)
		kept &= !closed(c[i], 0);
	ct_ok(held == CAP && ok1 && gone0 && kept,
	      "--metrics-max-conns %d, %d idle connections: a newcomer from the same address "
	      "is served (%d); the one idle the longest is closed (%d), the other %d stay", CAP, held, ok1, gone0,
	      CAP - 1);
	if (n1 >= 0)
		close(n1);
	/* Full again: a fresh one in c[0]'s place (the newest idle now). */
	if (c[0] >= 0)
		close(c[0]);
	c[0] = conn("127.0.0.1");
	usleep(100000);
	int n2 = conn("127.0.0.2"), ok2 = get(n2, 0);
	int gone1 = closed(c[1], 2000);
	kept = 1;
	for (int i = 0; i < CAP; i++)
		kept &= i == 1 || !closed(c[i], 0);
	ct_ok(ok2 && gone1 && kept, "full again: one from another address is served (%d) and the next idlest is "
	      "closed (%d), the rest stay", ok2, gone1);
	if (n2 >= 0)
		close(n2);
	for (int i = 0; i < CAP; i++)
		if (c[i] >= 0)
			close(c[i]);
}

static void test_per_addr(struct daemon *d)
{
	int c[CROWD], held = 0;
	(void)d;
	for (int i = 0; i < CROWD; i++) {
		c[i] = conn("127.0.0.1");
		held += c[i] >= 0;
		if (!i)
			usleep(50000);
	}
	usleep(200000);
	int n = conn("127.0.0.1"), ok = get(n, 0), gone = closed(c[0], 2000);
	ct_ok(held == CROWD && ok && gone, "default caps, %d idle connections from 127.0.0.1: a %dth from it is "
	      "served (%d), and that address's idlest is closed (%d)", held, CROWD + 1, ok, gone);
	if (n >= 0)
		close(n);
	for (int i = 0; i < CROWD; i++)
		if (c[i] >= 0)
			close(c[i]);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-httpconn"))
		return 1;
	ct_plan(1 + 2 + 1 + 1 + 1 + 1);
	port = free_port();
	struct daemon d;
	int up = mkdtemp(dir) && port > 0 && start(&d, "hc", fmt("%d", CAP)) == 0 && daemon_wait_warm(&d);
	if (ct_ok(up, "cuzkd (null backend) with --metrics-listen 127.0.0.1:%d --metrics-max-conns %d", port, CAP))
		test_cap();
	else
		skip_n(2, "no daemon");
	ct_ok(d.pid > 0 && daemon_stop(&d) == 0, "it stops cleanly");
	up = start(&d, "hd", NULL) == 0 && daemon_wait_warm(&d);
	if (up)
		test_per_addr(&d);
	else
		ct_ok(0, "cuzkd with the default caps did not start");
	ct_ok(d.pid > 0 && daemon_stop(&d) == 0, "it stops cleanly");
	int st = start(&d, "he", "0");
	ct_ok(st == 2 && cz_log_count(d.log, "bad value for --metrics-max-conns: '0' (expected connections, 1 to 65536)"),
	      "--metrics-max-conns 0 is refused naming the flag and its range (exit %d)", st);
	return e2e_end();
}
