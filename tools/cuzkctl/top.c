/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzkctl/top.c — `cuzkctl top`: the dashboard's rows in a terminal
 * (docs/cuzkctl.1.md).  Each 0.5 s one `status` request on the open
 * connection, one frame: the devices with their last-10-s duty and a lane
 * of the last 60 s (a character a second), the budget and queue, a row per
 * job with a character per partition.  `q` quits; --once prints one frame
 * without terminal control and exits.
 */
#include "ctl/ctl.h"
#include "tools/cuzkctl/top.h"

#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* A partition state's character, in the order of the engine's states. */
static char part_char(const char *st)
{
	static const char *const n[] = { "queued", "synthesizing", "ready", "proving", "finalizing",
					 "done", "failed", "cancelled" };
	static const char c[] = ".sr>f#Xc";
	for (int i = 0; i < 8; i++)
		if (!strcmp(st, n[i]))
			return c[i];
	return '?';
}

/* Idle causes' characters, in the order of the lane's "causes". */
static const char cause_chars[] = "hoe bBwiSdzW?";
#define LEGEND_LANE "lane: a char a second, '#' mostly busy, '+' partly; idle: h hand-off, o order, " \
		    "e ready elsewhere, ' ' nothing submitted, b finalizer backpressure, B budget, " \
		    "w synthesis worker, i in-flight limit, S waiting for synthesis, d dispatch, z scheduler delay, W device warm-up, ? unattributed"
#define LEGEND_PART "partitions: . queued, s synthesizing, r ready, > proving, f finalizing, # done, " \
		    "X failed, c cancelled"

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;
	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static double dbl(json_object *o, const char *k)
{
	return json_object_get_double(get(o, k));
}

static const char *str(json_object *o, const char *k)
{
	const char *s = json_object_get_string(get(o, k));
	return s ? s : "";
}

/* 60 characters from the 300 slots of 0.2 s: each five, the busy share,
 * else the most frequent idle cause among them. */
static void lane(json_object *l, char out[61])
{
	json_object *busy = get(l, "busy_pct"), *cause = get(l, "idle_cause");
	size_t n = busy ? json_object_array_length(busy) : 0;
	memset(out, ' ', 60);
	out[60] = 0;
	for (size_t k = 0; k + 5 <= n && k / 5 < 60; k += 5) {
		double b = 0;
		int votes[16] = { 0 }, best = -1;
		for (size_t i = k; i < k + 5; i++) {
			b += json_object_get_double(json_object_array_get_idx(busy, i)) / 100;
			int c = json_object_get_int(json_object_array_get_idx(cause, i));
			if (c >= 0 && c < 16 && ++votes[c] > (best >= 0 ? votes[best] : 0))
				best = c;
		}
		char ch = b >= 2.5 ? '#' : b > 0.05 ? '+' : best >= 0 && best < (int)sizeof(cause_chars) - 1 ?
			  cause_chars[best] : ' ';
		out[k / 5] = ch;
	}
}

static void frame(json_object *s, int rows, int cols)
{
	json_object *b = get(s, "budget"), *c = get(s, "counters"), *devs = get(s, "devices");
	json_object *jobs = get(s, "jobs");
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);

	printf("cuzkd top — backend %s — %s\n", str(s, "backend"), when);
	printf("jobs done %.0f, failed %.0f, cancelled %.0f; partitions done %.0f; queued %.0f; in flight %.0f; "
	       "budget %.1f of %.1f MiB reserved\n",
	       dbl(c, "jobs_done"), dbl(c, "jobs_failed"), dbl(c, "jobs_cancelled"), dbl(c, "partitions_done"),
	       dbl(c, "queued"), dbl(b, "inflight"), dbl(b, "reserved") / 1048576, dbl(b, "budget") / 1048576);
	printf("\nDEVICE  DUTY 10s  SINCE START  LAST 60 S (oldest left)\n");
	int used = 5;
	for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);
		char l[61];
		lane(get(d, "last_60s"), l);
		printf("device %-2s %6.1f%%  %9.1f%%   |%s|\n", str(d, "device"), 100 * dbl(get(d, "last_10s"), "duty"),
		       100 * dbl(get(d, "since_start"), "duty"), l);
		used++;
	}
	printf("\nJOB              PRIORITY  STATE      PARTITIONS\n");
	used += 2;
	size_t nj = jobs ? json_object_array_length(jobs) : 0, shown = 0;
	int room = rows - used - 3;
	for (size_t i = 0; i < nj && (int)shown < room; i++, shown++) {
		json_object *j = json_object_array_get_idx(jobs, i), *p = get(j, "partitions");
		size_t np = p ? json_object_array_length(p) : 0;
		int width = cols - 46 > 8 ? cols - 46 : 8;
		printf("%-16.16s %-9s %-10s ", str(j, "job"), str(j, "priority"), str(j, "state"));
		for (size_t k = 0; k < np && (int)k < width; k++)
			putchar(part_char(json_object_get_string(json_object_array_get_idx(p, k))));
		if ((int)np > width)
			printf("…");
		putchar('\n');
	}
	if (shown < nj)
		printf("(%zu more jobs)\n", nj - shown);
	printf("\n%.*s\n%.*s\n", cols, LEGEND_LANE, cols, LEGEND_PART);
}

static json_object *status(int sock)
{
	char err[256];
	json_object *q = json_object_new_object();
	json_object_object_add(q, "op", json_object_new_string("status"));
	json_object *r = cz_ctl_call(sock, q, NULL, 0, err, sizeof(err));
	json_object_put(q);
	if (!r)
		fprintf(stderr, "cuzkctl top: %s\n", err);
	return r;
}

static volatile sig_atomic_t stop;
static void on_sig(int s)
{
	(void)s;
	stop = 1;
}

int cuzkctl_top(int sock, int argc, char **argv)
{
	int once = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--once")) {
			once = 1;
		} else {
			fprintf(stderr, "cuzkctl top: unknown option '%s' (top [--once])\n", argv[i]);
			return 2;
		}
	}
	if (once) {
		json_object *r = status(sock);
		if (!r)
			return 2;
		frame(r, 1 << 20, 200);
		json_object_put(r);
		return 0;
	}
	struct termios old, raw;
	int tty = isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &old);
	if (tty) {
		raw = old;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	int rc = 0, watch = 1;
	while (!stop) {
		json_object *r = status(sock);
		if (!r) {
			rc = 2;
			break;
		}
		struct winsize ws = { 0 };
		int rows = 24, cols = 80;
		if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
			rows = ws.ws_row;
			cols = ws.ws_col;
		}
		printf("\033[H\033[2J");
		frame(r, rows, cols);
		fflush(stdout);
		json_object_put(r);
		/* Stdin at its end (not a terminal): just the period, no busy loop. */
		struct pollfd p = { .fd = watch ? STDIN_FILENO : -1, .events = POLLIN };
		if (poll(&p, 1, 500) > 0 && (p.revents & (POLLIN | POLLHUP))) {
			char ch;
			ssize_t k = read(STDIN_FILENO, &ch, 1);
			if (k == 1 && (ch == 'q' || ch == 'Q'))
				break;
			if (k <= 0)
				watch = 0;
		}
	}
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
	return rc;
}
