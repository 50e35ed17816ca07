/* SPDX-License-Identifier: MIT */
/* Description: cuzkd --metrics-listen: /healthz, /readyz before and after a key loads, /metrics accepted by promtool and agreeing with status and with the consumers' own clocks, /status equal to the socket's, the dashboard in headless chromium (every partition cell reaches done, every device shows its duty; a screenshot), a Unix-socket listener, bad specs refused. */
#define _GNU_SOURCE     /* strcasestr */
#include "ctl/ctl.h"
#include "selftests/cz_test.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define NJOB 6
#define NPART 8
#define NDEV 2

#define CZ_DAEMON_WATCH_EXIT
#define CZ_DAEMON_START_TRIES 3000
#define CZ_DAEMON_STOP_TRIES 3000
#include "selftests/cz_daemon.h"
#include "selftests/cz_files.h"
#include "selftests/cz_net.h"

static char data[2 * PATH_MAX], outdir[2 * PATH_MAX];

/* ---- the daemon ---- */

static json_object *req(struct daemon *d, json_object *q)
{
	char err[256];
	int s = cz_ctl_connect(d->sock, err, sizeof(err));
	json_object *r = s >= 0 ? cz_ctl_call(s, q, NULL, 0, err, sizeof(err)) : NULL;
	if (s >= 0)
		close(s);
	json_object_put(q);
	return r;
}

static json_object *req_str(struct daemon *d, const char *json)
{
	return req(d, json_tokener_parse(json));
}

static json_object *path_get(json_object *o, const char *path)
{
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		char *end;
		long idx = strtol(k, &end, 10);
		if (!*end && json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)idx);
		else if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	}
	return o;
}

static double num(json_object *o, const char *path)
{
	json_object *v = path_get(o, path);
	return v ? json_object_get_double(v) : NAN;
}

/* ---- a small HTTP/1.0 client (the test's own, so it checks the server) ---- */

struct resp {
	int code;
	char type[128];
	char *body;
	size_t len;
};

/* For printing a body's first line: "%.*s", LINE(body). */
#define LINE(b) (int)strcspn((b) ? (b) : "", "\n"), (b) ? (b) : ""

static void resp_free(struct resp *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

/* --metrics-auth's token (the daemon "a" runs with it); http_hdr: extra
 * request header lines ("Authorization: ...\r\n"), "" for none; http_src:
 * the loopback address a TCP request comes from (127.0.0.X), 0: 127.0.0.1. */
#define TOKEN "e2e-metrics-token-0123456789abcdef"
static const char *http_hdr = "";
static in_addr_t http_src;
static int http_wait_s;         /* > 0: a reply not begun in that long is a failure */

/* port > 0: 127.0.0.1:port; else the Unix socket upath. */
static int http(int port, const char *upath, const char *method, const char *path, struct resp *out)
{
	int fd;
	memset(out, 0, sizeof(*out));
	if (port > 0) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
		struct sockaddr_in from = { .sin_family = AF_INET, .sin_addr.s_addr = http_src };
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && http_src && bind(fd, (struct sockaddr *)&from, sizeof(from)))
			goto fail;
		struct timeval tv = { .tv_sec = http_wait_s };
		if (fd >= 0 && http_wait_s && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			goto fail;
		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
			goto fail;
	} else {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", upath);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
			goto fail;
	}
	char rq[512];
	int n = snprintf(rq, sizeof(rq), "%s %s HTTP/1.0\r\nHost: localhost\r\n%s\r\n", method, path, http_hdr);
	if (write(fd, rq, (size_t)n) != n)
		goto fail;
	size_t cap = 65536, len = 0;
	char *b = malloc(cap + 1);
	for (;;) {
		if (len == cap)
			b = realloc(b, (cap *= 2) + 1);
		ssize_t k = read(fd, b + len, cap - len);
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	b[len] = 0;
	char *hend = strstr(b, "\r\n\r\n");
	if (sscanf(b, "HTTP/1.%*d %d", &out->code) != 1 || !hend) {
		free(b);
		return -1;
	}
	*hend = 0;
	char *ct = strcasestr(b, "\r\nContent-Type: ");
	if (ct)
		sscanf(ct + 16, "%127[^\r\n]", out->type);
	out->len = len - (size_t)(hend + 4 - b);
	out->body = malloc(out->len + 1);
	memcpy(out->body, hend + 4, out->len);
	out->body[out->len] = 0;
	free(b);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* /readyz once cuzkd is past "starting…": its control socket answers a
 * moment before it marks itself started. */
static int readyz(int port, const char *upath, struct resp *r)
{
	int h = -1;
	for (int i = 0; i < 500; i++) {
		h = http(port, upath, "GET", "/readyz", r);
		if (h || !r->body || strncmp(r->body, "starting", 8))
			break;
		resp_free(r);
		usleep(10000);
	}
	return h;
}

/* The value of the sample "name{labels}" in a text exposition, NAN if absent. */
static double metric(const char *text, const char *sample)
{
	size_t n = strlen(sample);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, sample, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return NAN;
}

/* promtool check metrics on text: 0 clean; else its complaints in why. */
static int promtool(const char *text, size_t len, char *why, size_t cap)
{
	char in[3 * PATH_MAX], cmd[7 * PATH_MAX];
	snprintf(in, sizeof(in), "%s/metrics.txt", dir);
	FILE *f = fopen(in, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		return -1;
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", in);
	FILE *p = popen(cmd, "r");
	size_t k = p ? fread(why, 1, cap - 1, p) : 0;
	why[k] = 0;
	int st = p ? pclose(p) : -1;
	return st == 0 && k == 0 ? 0 : -1;
}

/* Headless chromium's DOM of the dashboard after budget_ms of virtual time
 * (and a screenshot when png is set).  malloc'd, NULL on failure. */
static char *dashboard(int port, int budget_ms, const char *png)
{
	char cmd[8 * PATH_MAX], out[3 * PATH_MAX];
	snprintf(out, sizeof(out), "%s/dom.html", dir);
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
		 "--user-data-dir=%s/chromium --virtual-time-budget=%d --window-size=1000,620 %s%s "
		 "'http://127.0.0.1:%d/?token=" TOKEN "' > %s 2>%s/chromium.log",
		 dir, budget_ms, png ? "--screenshot=" : "--dump-dom", png ? png : "", port, out, dir);
	if (system(cmd))
		return NULL;
	if (png)
		return strdup("");
	FILE *f = fopen(out, "r");
	if (!f)
		return NULL;
	char *b = malloc(1 << 22);
	size_t n = fread(b, 1, (1 << 22) - 1, f);
	fclose(f);
	b[n] = 0;
	return b;
}

/* Partition cells (elements with data-part) in the DOM: how many, how many
 * in state want; devices (data-device) and how many carry a duty in [0, 1]. */
static void dom_count(const char *dom, const char *want, int *cells, int *in_state, int *devs, int *duties)
{
	*cells = *in_state = *devs = *duties = 0;
	for (const char *p = dom; (p = strstr(p, "<span class=\"cell ")); p++) {
		const char *end = strchr(p, '>'), *part = strstr(p, "data-part=\""), *st = strstr(p, "data-state=\"");
		if (!end || !part || part > end || !st || st > end || !strstr(p, "data-job=\""))
			continue;
		(*cells)++;
		if (!strncmp(st + 12, want, strlen(want)) && st[12 + strlen(want)] == '"')
			(*in_state)++;
	}
	for (const char *p = dom; (p = strstr(p, "<div class=\"lane\" data-device=\"")); p++) {
		const char *end = strchr(p, '>'), *d = strstr(p, "data-duty=\"");
		(*devs)++;
		if (d && end && d < end) {
			double v = strtod(d + 11, NULL);
			if (v >= 0 && v <= 1)
				(*duties)++;
		}
	}
}

/* /metrics' device restarts and state against status's devices[]: 0 when
 * every device agrees (text names what differs). */
static int devices_agree(const char *mt, json_object *st, int ndev, char *text, size_t cap)
{
	static const char *const states[] = { "starting", "ready", "failed", "disabled" };
	int bad = 0;
	size_t n = 0;
	*text = 0;
	for (int d = 0; d < ndev; d++) {
		char k[96], p[64];
		snprintf(p, sizeof(p), "devices.%d.restarts", d);
		double rs = num(st, p);
		snprintf(k, sizeof(k), "cuzk_device_restarts_total{device=\"%d\"}", d);
		double rm = metric(mt, k);
		snprintf(p, sizeof(p), "devices.%d.state", d);
		const char *ss = json_object_get_string(path_get(st, p));
		int ones = 0, match = 0;
		for (int s = 0; s < 4; s++) {
			snprintf(k, sizeof(k), "cuzk_device_state{device=\"%d\",state=\"%s\"}", d, states[s]);
			double v = metric(mt, k);
			ones += v == 1;
			match += v == 1 && ss && !strcmp(ss, states[s]);
		}
		if (n < cap)
			n += (size_t)snprintf(text + n, cap - n, "%sdevice %d: restarts %g/%g, state %s", d ? "; " : "",
					      d, rm, rs, ss ? ss : "?");
		bad |= rm != rs || ones != 1 || match != 1;
	}
	return bad;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], spec[64], why[4096], zkey[3 * PATH_MAX], wt[2][3 * PATH_MAX];
	struct daemon a = { 0 }, b = { 0 }, c = { 0 };
	struct resp r;
	(void)argc;

	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[sl > 0 ? sl : 0] = 0;
	char *sdir = dirname(self[0] ? self : argv[0]);
	snprintf(bindir, sizeof(bindir), "%s/../bin", sdir);
	snprintf(data, sizeof(data), "%s/../../selftests/data", sdir);
	snprintf(outdir, sizeof(outdir), "%s/e2e_metrics.out", sdir);
	snprintf(zkey, sizeof(zkey), "%s/mulchain.zkey", data);
	snprintf(wt[0], sizeof(wt[0]), "%s/mulchain_1.wtns", data);
	snprintf(wt[1], sizeof(wt[1]), "%s/mulchain_2.wtns", data);
	snprintf(dir, sizeof(dir), "/tmp/cuzk-metrics-XXXXXX");
	signal(SIGPIPE, SIG_IGN);
	ct_plan(38);
	if (!mkdtemp(dir)) {
		ct_ok(0, "mkdtemp");
		return ct_exit();
	}
	mkdir(outdir, 0755);
	int port = free_port();
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
#ifndef CZ_HAVE_MICROHTTPD
	{       /* This build has no listener: cuzkd must say so, and exit 2. */
		const char *args[] = { "--backend", "null", "--metrics-listen", spec, NULL };
		char cmd[4 * PATH_MAX];
		int rc0 = daemon_start(&a, "nomhd", args);
		snprintf(cmd, sizeof(cmd), "grep -q -- '--metrics-listen %s: this cuzkd was built without "
			 "libmicrohttpd' %s", spec, a.log);
		ct_ok(rc0 == 2 && !system(cmd), "without libmicrohttpd: --metrics-listen exits %d naming why", rc0);
		for (int i = 1; i < 36; i++)
			ct_skip("built without libmicrohttpd (tools/install-deps.sh installs libmicrohttpd-dev)",
				"listener point %d", i + 1);
		if (rc0 == 0)
			daemon_stop(&a);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			printf("# cannot remove %s\n", dir);
		return ct_exit();
	}
#endif
	char tokfile[PATH_MAX + 16];
	snprintf(tokfile, sizeof(tokfile), "%s/token", dir);
	FILE *tf0 = fopen(tokfile, "w");
	if (tf0) {
		fputs(TOKEN "\n", tf0);
		fclose(tf0);
	}
	chmod(tokfile, 0600);
	const char *args_a[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "100",
				 "--metrics-listen", spec, "--metrics-auth", tokfile, NULL };
	int rc = daemon_start(&a, "a", args_a);
	if (!ct_ok(rc == 0, "cuzkd starts with --metrics-listen %s (rc %d; log %s)", spec, rc, a.log)) {
		ct_exit();
		return 1;
	}

	int h = http(port, NULL, "GET", "/healthz", &r);
	ct_ok(!h && r.code == 200 && !strcmp(r.body, "ok\n"), "/healthz: 200 ok (%d)", r.code);
	resp_free(&r);

	h = readyz(port, NULL, &r);
	ct_ok(!h && r.code == 503 && r.body && strstr(r.body, "no proving key"),
	      "/readyz before any key: 503 naming why (%d: %.*s)", r.code, LINE(r.body));
	resp_free(&r);

	json_object *q = json_object_new_object();
	json_object_object_add(q, "op", json_object_new_string("load"));
	json_object_object_add(q, "name", json_object_new_string("m"));
	json_object_object_add(q, "zkey", json_object_new_string(zkey));
	json_object *lr = req(&a, q);
	double key_bytes = num(lr, "key_bytes");
	/* Ready once the key is loaded and each device's warm-up proof (one
	 * --null-delay-ms here) is done. */
	for (int i = 0; i < 500; i++) {
		h = http(port, NULL, "GET", "/readyz", &r);
		if (h || r.code == 200)
			break;
		resp_free(&r);
		usleep(10000);
	}
	ct_ok(ok_of(lr) && !h && r.code == 200 && strstr(r.body, "verified warm-up proof"),
	      "/readyz after load: 200 (%d: %.*s)", r.code, LINE(r.body));
	resp_free(&r);
	json_object_put(lr);

	h = http(port, NULL, "GET", "/metrics", &r);
	ct_ok(!h && r.code == 200 && strstr(r.type, "text/plain") && strstr(r.type, "version=0.0.4"),
	      "/metrics: 200, %s", r.type);
	if (!have("promtool"))
		ct_skip("promtool absent (tools/install-deps.sh installs prometheus)", "promtool check metrics, idle");
	else
		ct_ok(!promtool(r.body, r.len, why, sizeof(why)), "promtool check metrics accepts it idle%s%s",
		      *why ? ": " : "", why);
	resp_free(&r);

	/* The jobs: NJOB × NPART partitions of 100 ms on 2 null devices. */
	char ids[NJOB][16];
	int submitted = 0;
	for (int j = 0; j < NJOB; j++) {
		q = json_object_new_object();
		json_object *w = json_object_new_array();
		json_object_object_add(q, "op", json_object_new_string("submit"));
		json_object_object_add(q, "circuit", json_object_new_string("m"));
		snprintf(ids[j], sizeof(ids[j]), "job%d", j);
		json_object_object_add(q, "id", json_object_new_string(ids[j]));
		for (int i = 0; i < NPART; i++)
			json_object_array_add(w, json_object_new_string(wt[i % 2]));
		json_object_object_add(q, "witnesses", w);
		json_object *sr = req(&a, q);
		submitted += ok_of(sr);
		json_object_put(sr);
	}
	int chrome = have("chromium");
	if (!chrome) {
		ct_skip("chromium absent (tools/install-deps.sh installs it)", "dashboard while jobs run");
	} else {
		char *dom = dashboard(port, 300, NULL);
		int cells = 0, done = 0, devs = 0, duties = 0;
		if (dom)
			dom_count(dom, "done", &cells, &done, &devs, &duties);
		ct_ok(dom && cells == NJOB * NPART && devs == NDEV && duties == NDEV,
		      "dashboard while jobs run: %d partition cells (%d done so far), %d devices with a duty",
		      cells, done, duties);
		free(dom);
	}
	int awaited = 0, placed[NDEV] = { 0 }, bad_dev = 0;
	double acct_dev_ms = 0;
	for (int j = 0; j < NJOB; j++) {
		char rq[128];
		snprintf(rq, sizeof(rq), "{\"op\":\"await\",\"job\":\"%s\"}", ids[j]);
		json_object *ar = req_str(&a, rq);
		awaited += ok_of(ar);
		acct_dev_ms += num(ar, "accounting.device_ms");
		json_object *dv = path_get(ar, "accounting.devices");
		for (int i = 0; i < NPART; i++) {
			int d = dv ? json_object_get_int(json_object_array_get_idx(dv, (size_t)i)) : -1;
			if (d >= 0 && d < NDEV)
				placed[d]++;
			else
				bad_dev++;
		}
		json_object_put(ar);
	}
	ct_ok(submitted == NJOB && awaited == NJOB, "%d jobs submitted, %d done", submitted, awaited);

	/* At rest: the device figures no longer move once the accounting has
	 * passed the last compute end (its 5-ms horizon): wait until two
	 * status calls agree on busy time. */
	json_object *st = NULL;
	for (int i = 0; i < 200; i++) {
		json_object *s1 = req_str(&a, "{\"op\":\"status\"}");
		usleep(20000);
		json_object_put(st);
		st = req_str(&a, "{\"op\":\"status\"}");
		int same = 1;
		for (int d = 0; d < NDEV; d++) {
			char k[64];
			snprintf(k, sizeof(k), "devices.%d.since_start.busy_ms", d);
			same &= num(s1, k) == num(st, k);
		}
		json_object_put(s1);
		if (same)
			break;
	}
	h = http(port, NULL, "GET", "/metrics", &r);
	char *mt = r.body ? strdup(r.body) : strdup("");
	if (!have("promtool"))
		ct_skip("promtool absent", "promtool check metrics, after the jobs");
	else
		ct_ok(!h && !promtool(r.body, r.len, why, sizeof(why)), "promtool check metrics accepts it after %d jobs%s%s",
		      NJOB, *why ? ": " : "", why);
	resp_free(&r);

	char dtxt[512];
	ct_ok(!devices_agree(mt, st, NDEV, dtxt, sizeof(dtxt)),
	      "cuzk_device_restarts_total and cuzk_device_state agree with status (thread isolation: %s)", dtxt);
	double pd = metric(mt, "cuzk_partitions_total{state=\"done\"}");
	ct_ok(pd == NJOB * NPART && pd == num(st, "counters.partitions_done"),
	      "cuzk_partitions_total{state=\"done\"} %g = status partitions_done %g = %d submitted", pd,
	      num(st, "counters.partitions_done"), NJOB * NPART);

	/* Busy seconds: against status's live figure (the same accounting)
	 * and against the consumers' own clocks (measured around each prove
	 * call, not from the trace): within 1% each. */
	int near_status = 1, near_cons = 1;
	double busy_sum = 0;
	for (int d = 0; d < NDEV; d++) {
		char k[96];
		snprintf(k, sizeof(k), "cuzk_device_busy_seconds_total{device=\"%d\"}", d);
		double m = metric(mt, k);
		snprintf(k, sizeof(k), "devices.%d.since_start.busy_ms", d);
		double s = num(st, k) / 1e3, cons = 0;
		json_object *cl = path_get(st, "consumers");
		for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
			json_object *co = json_object_array_get_idx(cl, i);
			if (num(co, "device") == d)
				cons += num(co, "busy_ms") / 1e3;
		}
		busy_sum += m;
		printf("# device %d: metrics %.6f s, status %.6f s, consumers %.6f s\n", d, m, s, cons);
		near_status &= m > 0 && fabs(m - s) <= 0.01 * s;
		near_cons &= m > 0 && fabs(m - cons) <= 0.01 * cons;
	}
	/* Per-job accounting (await): the device time each partition's consumer
	 * measured, against the trace's device stage; each partition's device
	 * against the consumers' own proved counts. */
	int proved_match = !bad_dev;
	for (int d = 0; d < NDEV; d++) {
		double proved = 0;
		json_object *cl = path_get(st, "consumers");
		for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
			json_object *co = json_object_array_get_idx(cl, i);
			if (num(co, "device") == d)
				proved += num(co, "proved");
		}
		proved_match &= proved == placed[d];
	}
	double tr_dev = metric(mt, "cuzk_stage_duration_seconds_sum{stage=\"device\"}");
	ct_ok(proved_match && fabs(acct_dev_ms / 1e3 - tr_dev) <= 0.01 * tr_dev,
	      "await accounting: device_ms %.1f summed = trace device stage %.1f ms within 1%%; partitions per "
	      "device %d/%d = consumers' proved", acct_dev_ms, tr_dev * 1e3, placed[0], placed[1]);
	ct_ok(near_status, "cuzk_device_busy_seconds_total within 1%% of status devices[].since_start.busy_ms");
	ct_ok(near_cons, "cuzk_device_busy_seconds_total within 1%% of the consumers' own busy_ms per device");

	int counts = 1;
	static const char *const stages[] = { "queue_wait", "synthesis", "device", "finalize" };
	for (int k = 0; k < 4; k++) {
		char s[96];
		snprintf(s, sizeof(s), "cuzk_stage_duration_seconds_count{stage=\"%s\"}", stages[k]);
		double v = metric(mt, s);
		snprintf(s, sizeof(s), "cuzk_stage_duration_seconds_bucket{stage=\"%s\",le=\"+Inf\"}", stages[k]);
		counts &= v == NJOB * NPART && metric(mt, s) == v;
		printf("# stage %s: %g observations\n", stages[k], v);
	}
	double dev_sum = metric(mt, "cuzk_stage_duration_seconds_sum{stage=\"device\"}");
	ct_ok(counts && fabs(dev_sum - busy_sum) <= 0.01 * busy_sum,
	      "stage histograms: %d observations each; device stage sum %.4f s = busy %.4f s within 1%%",
	      NJOB * NPART, dev_sum, busy_sum);
	/* Each partition holds a device >= 100 ms (--null-delay-ms): none in a lower bucket. */
	ct_ok(metric(mt, "cuzk_stage_duration_seconds_bucket{stage=\"device\",le=\"0.05\"}") == 0,
	      "no device stage under the null backend's 100 ms");

	double jd = metric(mt, "cuzk_jobs_total{state=\"done\",priority=\"normal\"}");
	double jl = metric(mt, "cuzk_job_latency_seconds_count{priority=\"normal\"}");
	double qn = 0;
	for (int p = 0; p < 4; p++) {
		static const char *const pn[] = { "critical", "high", "normal", "low" };
		char s[96];
		snprintf(s, sizeof(s), "cuzk_queue_partitions{priority=\"%s\"}", pn[p]);
		qn += metric(mt, s);
	}
	ct_ok(jd == NJOB && jl == NJOB && qn == 0 && num(st, "counters.queued") == 0,
	      "jobs_total{done,normal} %g, job_latency count %g, queue %g (status %g)", jd, jl, qn,
	      num(st, "counters.queued"));
	double kb = metric(mt, "cuzk_budget_bytes{kind=\"keys\"}");
	double lim = metric(mt, "cuzk_budget_bytes{kind=\"limit\"}");
	ct_ok(kb == key_bytes && lim == num(st, "budget.budget") && metric(mt, "cuzk_keys_loaded") == 1 &&
	      metric(mt, "process_resident_memory_bytes") > 0,
	      "budget_bytes keys %g = load's key_bytes %g, limit %g = status, rss present", kb, key_bytes, lim);
	free(mt);

	/* Without the token: the aggregate view (issue 24): the same counters,
	 * no job, no key path; a wrong token: 401. */
	h = http(port, NULL, "GET", "/status", &r);
	json_object *ag = r.body ? json_tokener_parse(r.body) : NULL;
	resp_free(&r);
	http_hdr = "Authorization: Bearer not-the-token-at-all\r\n";
	int h401 = http(port, NULL, "GET", "/status", &r);
	int c401 = r.code;
	resp_free(&r);
	int agg = ag && ok_of(ag) && !strcmp(str_of(ag, "view"), "aggregate") &&
		  json_object_array_length(path_get(ag, "jobs")) == 0 && num(ag, "counters.jobs_done") == num(st, "counters.jobs_done") &&
		  path_get(st, "circuits.0.zkey") && !path_get(ag, "circuits.0.zkey") && path_get(ag, "circuits.0.name") &&
		  !strstr(json_object_to_json_string(ag), "mulchain.zkey");
	if (!agg)
		ct_diag("aggregate /status: view %s jobs %s circuits %s", str_of(ag, "view"), json_object_to_json_string(path_get(ag, "jobs")), json_object_to_json_string(path_get(ag, "circuits")));
	ct_ok(agg && !h401 && c401 == 401,
	      "/status without --metrics-auth's token: the aggregate view (no job of %d, no key path, counters as "
	      "status); a wrong token: %d", (int)json_object_array_length(path_get(st, "jobs")), c401);
	json_object_put(ag);
	http_hdr = "Authorization: Bearer " TOKEN "\r\n";
	h = http(port, NULL, "GET", "/status", &r);
	json_object *hs = r.body ? json_tokener_parse(r.body) : NULL;
	int same = hs && ok_of(hs) && strstr(r.type, "application/json") && !path_get(hs, "view");
	static const char *const cnt[] = { "jobs_submitted", "jobs_done", "partitions_done", "queued" };
	for (int k = 0; k < 4; k++) {
		char p[64];
		snprintf(p, sizeof(p), "counters.%s", cnt[k]);
		same &= num(hs, p) == num(st, p);
	}
	json_object *hj = path_get(hs, "jobs"), *sj = path_get(st, "jobs");
	same &= hj && sj && json_object_array_length(hj) == json_object_array_length(sj);
	for (size_t i = 0; same && i < json_object_array_length(hj); i++)
		same &= !strcmp(json_object_get_string(path_get(json_object_array_get_idx(hj, i), "job")),
				json_object_get_string(path_get(json_object_array_get_idx(sj, i), "job")));
	same &= path_get(hs, "devices.0.last_60s.busy_pct") &&
		json_object_array_length(path_get(hs, "devices.0.last_60s.busy_pct")) == 300;
	ct_ok(same, "/status with the token: the socket's status (counters, jobs) plus 300 lane slots a device");
	json_object_put(hs);
	resp_free(&r);
	http_hdr = "";

	/* A crowd of idle TCP connections from one address (issue 24: 64 of
	 * them used to take every slot): a scrape from another address still
	 * answers. */
	enum { CROWD = 200 };
	int crowd[CROWD], held = 0;
	for (int i = 0; i < CROWD; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		crowd[i] = socket(AF_INET, SOCK_STREAM, 0);
		held += crowd[i] >= 0 && !connect(crowd[i], (struct sockaddr *)&a, sizeof(a));
	}
	usleep(200000);         /* the listener has accepted what it takes */
	/* Answered at once, not when the idle ones time out (10 s): 5 s. */
	http_src = inet_addr("127.0.0.2");
	http_wait_s = 5;
	h = http(port, NULL, "GET", "/metrics", &r);
	http_src = 0;
	http_wait_s = 0;
	ct_ok(held == CROWD && !h && r.code == 200 && metric(r.body, "cuzk_keys_loaded") == 1,
	      "%d idle TCP connections from 127.0.0.1: a scrape from 127.0.0.2 answers within 5 s, before the "
	      "listener's 10-s idle timeout (%d)", held, r.code);
	resp_free(&r);
	for (int i = 0; i < CROWD; i++)
		if (crowd[i] >= 0)
			close(crowd[i]);

	if (!chrome) {
		ct_skip("chromium absent", "dashboard after the jobs");
		ct_skip("chromium absent", "dashboard screenshot");
	} else {
		char *dom = dashboard(port, 1500, NULL);
		int cells = 0, done = 0, devs = 0, duties = 0;
		if (dom)
			dom_count(dom, "done", &cells, &done, &devs, &duties);
		ct_ok(dom && cells == NJOB * NPART && done == cells && devs == NDEV && duties == NDEV,
		      "dashboard after the jobs: %d of %d partition cells done, %d of %d devices show a duty",
		      done, cells, duties, devs);
		free(dom);
		char png[3 * PATH_MAX];
		struct stat ps;
		snprintf(png, sizeof(png), "%s/dashboard.png", outdir);
		unlink(png);
		char *ok = dashboard(port, 1500, png);
		long long size = ok && !stat(png, &ps) ? (long long)ps.st_size : 0;
		ct_ok(size > 1000, "dashboard screenshot: %s (%lld bytes)", png, size);
		free(ok);
	}

	h = http(port, NULL, "GET", "/nope", &r);
	int nf = !h && r.code == 404;
	resp_free(&r);
	h = http(port, NULL, "POST", "/metrics", &r);
	ct_ok(nf && !h && r.code == 405, "/nope: 404; POST /metrics: 405 (%d)", r.code);
	resp_free(&r);

	/* cuzkctl top: --once, and live under tmux until 'q'. */
	char top[8 * PATH_MAX], cmd[12 * PATH_MAX];
	snprintf(top, sizeof(top), "%s/cuzkctl --socket %s top", bindir, a.sock);
	snprintf(cmd, sizeof(cmd), "%s --once", top);
	FILE *tp = popen(cmd, "r");
	char frame[16384] = "";
	size_t fl = tp ? fread(frame, 1, sizeof(frame) - 1, tp) : 0;
	frame[fl] = 0;
	int top_rc = tp ? pclose(tp) : -1, rows = 0;
	for (int j = 0; j < NJOB; j++) {
		char row[160];
		snprintf(row, sizeof(row), "\n%-16s normal    done       ########\n", ids[j]);
		rows += !!strstr(frame, row);
	}
	ct_ok(top_rc == 0 && rows == NJOB && strstr(frame, "\ndevice 0 ") && strstr(frame, "\ndevice 1 "),
	      "cuzkctl top --once: %d of %d job rows all done, both devices", rows, NJOB);
	if (!have("tmux")) {
		ct_skip("tmux absent (tools/install-deps.sh installs it)", "cuzkctl top under tmux");
	} else {
		char tm[128], shown = 0, quit = 0;
		snprintf(tm, sizeof(tm), "tmux -L cuzk-e2e-metrics-%d", (int)getpid());
		snprintf(cmd, sizeof(cmd), "%s new-session -d -s top -x 150 -y 45 '%s'", tm, top);
		int started = !system(cmd);
		for (int i = 0; started && i < 400 && !shown; i++) {
			snprintf(cmd, sizeof(cmd), "%s capture-pane -p -t top | grep -q '^job0 .*done *########' && "
				 "%s capture-pane -p -t top | grep -q '^device 1 '", tm, tm);
			shown = !system(cmd);
			if (!shown)
				usleep(50000);
		}
		snprintf(cmd, sizeof(cmd), "%s send-keys -t top q", tm);
		if (started && !system(cmd))
			for (int i = 0; i < 400 && !quit; i++) {
				snprintf(cmd, sizeof(cmd), "%s has-session -t top 2>/dev/null", tm);
				quit = system(cmd) != 0;
				if (!quit)
					usleep(50000);
			}
		snprintf(cmd, sizeof(cmd), "%s kill-server 2>/dev/null", tm);
		if (system(cmd))
			(void)0;        /* already gone with its last session */
		ct_ok(started && shown && quit, "cuzkctl top under tmux: the jobs and devices shown, 'q' quits");
	}

	/* trace --job, --since, --follow. */
	double seq3 = -1;
	for (size_t i = 0; sj && i < json_object_array_length(sj); i++)
		if (!strcmp(json_object_get_string(path_get(json_object_array_get_idx(sj, i), "job")), ids[3]))
			seq3 = num(json_object_array_get_idx(sj, i), "seq");
	char tout[3 * PATH_MAX];
	snprintf(tout, sizeof(tout), "%s/trace.txt", dir);
	snprintf(cmd, sizeof(cmd), "%s/cuzkctl --socket %s trace --job %s --out %s", bindir, a.sock, ids[3], tout);
	int trc = system(cmd), others = 0, starts = 0, evs = 0;
	FILE *tf = fopen(tout, "r");
	char ln[512];
	while (tf && fgets(ln, sizeof(ln), tf)) {
		if (strstr(ln, "\"ev\": \"thread\""))
			continue;
		char *jp = strstr(ln, "\"job\": ");
		evs++;
		others += !jp || strtod(jp + 7, NULL) != seq3;
		starts += !!strstr(ln, "\"ev\": \"compute_start\"");
	}
	if (tf)
		fclose(tf);
	snprintf(cmd, sizeof(cmd), "%s/cuzkctl --socket %s trace --job no-such-job >/dev/null 2>&1", bindir, a.sock);
	int unknown = system(cmd);
	ct_ok(trc == 0 && evs > 0 && others == 0 && starts == NPART && WIFEXITED(unknown) && WEXITSTATUS(unknown) == 1,
	      "trace --job %s: %d events, all of job seq %g, %d compute starts; an unknown job exits 1", ids[3], evs,
	      seq3, starts);
	/* --follow: a job submitted after the stream began shows up in it. */
	pid_t fp = fork();
	if (fp == 0) {
		char bin[3 * PATH_MAX];
		snprintf(bin, sizeof(bin), "%s/cuzkctl", bindir);
		execl(bin, bin, "--socket", a.sock, "trace", "--follow", "--out", tout, (char *)NULL);
		_exit(127);
	}
	usleep(300000);
	q = json_object_new_object();
	json_object *fw = json_object_new_array();
	json_object_object_add(q, "op", json_object_new_string("submit"));
	json_object_object_add(q, "circuit", json_object_new_string("m"));
	json_object_object_add(q, "id", json_object_new_string("followed"));
	json_object_array_add(fw, json_object_new_string(wt[0]));
	json_object_array_add(fw, json_object_new_string(wt[1]));
	json_object_object_add(q, "witnesses", fw);
	json_object *fr = req(&a, q);
	double fseq = num(fr, "seq");
	json_object_put(fr);
	json_object_put(req_str(&a, "{\"op\":\"await\",\"job\":\"followed\"}"));
	int ends = 0;
	for (int i = 0; i < 300 && ends < 2; i++) {
		usleep(20000);
		ends = 0;
		tf = fopen(tout, "r");
		while (tf && fgets(ln, sizeof(ln), tf)) {
			char *jp = strstr(ln, "\"job\": ");
			ends += strstr(ln, "\"ev\": \"final_end\"") && jp && strtod(jp + 7, NULL) == fseq;
		}
		if (tf)
			fclose(tf);
	}
	kill(fp, SIGTERM);
	int fst;
	waitpid(fp, &fst, 0);
	ct_ok(ends == 2, "trace --follow: both partitions of a job submitted after it started stream in (%d)", ends);

	/* A second daemon on the same port: refused, naming the flag. */
	const char *args_c[] = { "--backend", "null", "--metrics-listen", spec, NULL };
	rc = daemon_start(&c, "c", args_c);
	snprintf(cmd, sizeof(cmd), "grep -q -- '--metrics-listen %s: Address already in use' %s", spec, c.log);
	ct_ok(rc == 2 && !system(cmd), "a port in use: exit %d, named in the log", rc);
	if (rc == 0)
		daemon_stop(&c);
	rc = daemon_stop(&a);
	ct_ok(rc == 0, "cuzkd stops cleanly with the listener (exit %d)", rc);
	int lines = 0;
	for (int j = 0; j < NJOB; j++) {
		snprintf(cmd, sizeof(cmd), "grep -q 'cuzkd: job=%s state=done priority=normal circuit=m partitions=%d "
			 "failed=0 ms=.* device_ms=' %s", ids[j], NPART, a.log);
		lines += !system(cmd);
	}
	ct_ok(lines == NJOB, "a log line per finished job: %d of %d", lines, NJOB);

	/* A Unix-socket listener, with a key given at start: ready at once. */
	char upath[3 * PATH_MAX], lspec[3 * PATH_MAX + 4];
	snprintf(upath, sizeof(upath), "%s/m.sock", dir);
	snprintf(lspec, sizeof(lspec), "m=%s", zkey);
	/* Its device takes 1.5 s a partition, so its warm-up proof keeps it
	 * not ready that long after the key is loaded. */
	const char *args_b[] = { "--backend", "null", "--null-delay-ms", "1500", "--metrics-listen", upath,
				 "--load", lspec, NULL };
	/* ... under systemd's notify protocol, with a watchdog of 300 ms. */
	char npath[100];
	snprintf(npath, sizeof(npath), "%.80s/notify.sock", dir);
	int nfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un na = { .sun_family = AF_UNIX };
	snprintf(na.sun_path, sizeof(na.sun_path), "%s", npath);
	if (nfd >= 0 && !bind(nfd, (struct sockaddr *)&na, sizeof(na))) {
		setenv("NOTIFY_SOCKET", npath, 1);
		setenv("WATCHDOG_USEC", "300000", 1);
	}
	rc = daemon_start(&b, "b", args_b);
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	h = rc ? -1 : readyz(0, upath, &r);
	int warming = !h && r.code == 503 && r.body && strstr(r.body, "device 0: warming up");
	char before[200];
	snprintf(before, sizeof(before), "%d: %.*s", r.code, LINE(r.body));
	resp_free(&r);
	for (int i = 0; i < 500 && !rc; i++) {
		h = http(0, upath, "GET", "/readyz", &r);
		if (h || r.code == 200)
			break;
		/* a device process still starting (a slow, sanitized child)
		 * answers so first; the warm-up's 503 comes after it */
		warming |= r.code == 503 && r.body && strstr(r.body, "device 0: warming up");
		resp_free(&r);
		usleep(10000);
	}
	ct_ok(warming && !h && r.code == 200,
	      "Unix socket listener, key given at start: /readyz 503 while the device's warm-up proof runs (%s), "
	      "then 200 (%d: %.*s)", before, r.code, LINE(r.body));
	resp_free(&r);
	h = rc ? -1 : http(0, upath, "GET", "/metrics", &r);
	ct_ok(!h && r.code == 200 && metric(r.body, "cuzk_keys_loaded") == 1, "… and /metrics on it");
	resp_free(&r);
	/* Notifications so far: READY=1 with a STATUS= line, then watchdog pings. */
	char note[4096] = "";
	int ready = 0, pings = 0, stopping = 0, warm_note = 0, early = 0;
	for (int i = 0; i < 1000 && nfd >= 0 && pings < 2; i++) {
		struct pollfd pf = { .fd = nfd, .events = POLLIN };
		if (poll(&pf, 1, 10) <= 0)
			continue;
		ssize_t k = recv(nfd, note, sizeof(note) - 1, 0);
		note[k > 0 ? k : 0] = 0;
		ready |= strstr(note, "READY=1") && strstr(note, "STATUS=ready; 1 key(s)");
		warm_note |= !ready && strstr(note, "STATUS=device 0: warming up") != NULL;
		early |= !!strstr(note, "READY=1") && !warm_note;
		pings += !!strstr(note, "WATCHDOG=1");
	}
	int brc = daemon_stop(&b);
	ct_ok(brc == 0 && access(upath, F_OK) != 0, "stops cleanly (exit %d) and removes the Unix socket", brc);
	for (int i = 0; i < 100 && nfd >= 0 && !stopping; i++) {
		struct pollfd pf = { .fd = nfd, .events = POLLIN };
		if (poll(&pf, 1, 10) <= 0)
			continue;
		ssize_t k = recv(nfd, note, sizeof(note) - 1, 0);
		note[k > 0 ? k : 0] = 0;
		stopping |= !!strstr(note, "STOPPING=1");
	}
#ifdef CZ_HAVE_SYSTEMD
	ct_ok(ready && warm_note && !early && pings >= 2 && stopping,
	      "sd_notify: STATUS=device 0: warming up, then READY=1 with STATUS=, %d WATCHDOG=1 pings, STOPPING=1",
	      pings);
#else
	ct_skip("built without libsystemd", "sd_notify");
#endif
	if (nfd >= 0)
		close(nfd);

	/* Device processes: device 1's dies at its first partition after its
	 * warm-up (--null-fault 1:2) and restarts; /metrics says so as status
	 * does, and promtool still accepts it. */
	{
		struct daemon e = { 0 };
		int eport = free_port();
		char espec[64];
		snprintf(espec, sizeof(espec), "127.0.0.1:%d", eport);
		const char *args_e[] = { "--backend", "null", "--devices", "2", "--null-delay-ms", "20",
					 "--isolation", "process", "--null-fault", "1:2", "--metrics-listen", espec,
					 "--load", lspec, NULL };
		int erc = daemon_start(&e, "e", args_e), eok = 0;
		char etxt[512] = "", pwhy[1024] = "";
		for (int i = 0; !erc && i < 500; i++) {       /* ready: both warm */
			h = http(eport, NULL, "GET", "/readyz", &r);
			int ok = !h && r.code == 200;
			resp_free(&r);
			if (ok)
				break;
			usleep(10000);
		}
		for (int j = 0; !erc && j < 2; j++) {
			char rq[4 * sizeof(wt[0]) + 200];
			snprintf(rq, sizeof(rq), "{\"op\":\"submit\",\"circuit\":\"m\",\"id\":\"e%d\",\"witnesses\":"
				 "[\"%s\",\"%s\",\"%s\",\"%s\"]}", j, wt[0], wt[1], wt[0], wt[1]);
			json_object_put(req_str(&e, rq));
		}
		for (int j = 0; !erc && j < 2; j++) {
			char rq[64];
			snprintf(rq, sizeof(rq), "{\"op\":\"await\",\"job\":\"e%d\"}", j);
			json_object_put(req_str(&e, rq));
		}
		json_object *es = NULL;
		for (int i = 0; !erc && i < 100; i++) {       /* the restart follows the death by 100 ms */
			json_object_put(es);
			es = req_str(&e, "{\"op\":\"status\"}");
			if (num(es, "devices.1.restarts") >= 1 && !strcmp(json_object_get_string(path_get(es, "devices.1.state")) ?: "", "ready"))
				break;
			usleep(100000);
		}
		h = erc ? -1 : http(eport, NULL, "GET", "/metrics", &r);
		json_object *es2 = h ? NULL : req_str(&e, "{\"op\":\"status\"}");
		/* The partition device 1 held when it died was handed out again:
		 * the jobs' attempts count it, partition by partition. */
		int att = 0, per = 0;
		for (int j = 0; !erc && j < 2; j++) {
			char rq[64];
			snprintf(rq, sizeof(rq), "{\"op\":\"await\",\"job\":\"e%d\"}", j);
			json_object *ar = req_str(&e, rq);
			att += (int)num(ar, "accounting.attempts");
			json_object *pa = path_get(ar, "accounting.partition_attempts");
			for (size_t k = 0; pa && k < json_object_array_length(pa); k++)
				per += json_object_get_int(json_object_array_get_idx(pa, k));
			json_object_put(ar);
		}
		ct_ok(att > 8 && per == att, "--isolation process: the jobs' accounting counts %d attempts for 8 partitions "
		      "(partition by partition: %d), the retried ones included", att, per);
		if (!h && r.body) {
			eok = num(es2, "devices.1.restarts") >= 1 && !devices_agree(r.body, es2, 2, etxt, sizeof(etxt));
			if (have("promtool") && promtool(r.body, strlen(r.body), pwhy, sizeof(pwhy)))
				eok = 0;
		}
		resp_free(&r);
		ct_ok(eok, "--isolation process, device 1 dies once: cuzk_device_restarts_total and cuzk_device_state agree "
		      "with status (%s)%s%s", etxt, *pwhy ? "; promtool: " : "", pwhy);
		json_object_put(es);
		json_object_put(es2);
		if (!erc)
			daemon_stop(&e);
	}

	const char *args_d[] = { "--backend", "null", "--metrics-listen", "nonsense", NULL };
	struct daemon d = { 0 };
	rc = daemon_start(&d, "d", args_d);
	snprintf(cmd, sizeof(cmd), "grep -q -- '--metrics-listen nonsense: want ADDR:PORT' %s", d.log);
	ct_ok(rc == 2 && !system(cmd), "--metrics-listen nonsense: exit %d with the accepted forms", rc);
	if (rc == 0)
		daemon_stop(&d);

	json_object_put(st);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("# cannot remove %s\n", dir);
	return ct_exit();
}
