/* SPDX-License-Identifier: MIT */
/* Description: the engine in-process: its caps and defaults at create, partition buffers wiped before they go back to the cache, a bad descriptor checksum fails its partition, a getrandom failure is named. */
#include "engine/engine_pvt.h"
#include "synth/part.h"
#include "zk/groth16/builtin.h"
#include "zk/io/groth16_io.h"
#include "selftests/cz_test.h"
#include "selftests/deny_getrandom.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX];
static struct cz_groth16_key key;

static int make_fixtures(void)
{
	struct cz_cs cs;
	cz_fr *w;
	char err[256], p[PATH_MAX + 32];

	if (cz_builtin_build("merkle", 8, 1, &cs, &w, err) || cz_groth16_devsetup(&cs, 9, &key, NULL))
		return -1;
	snprintf(p, sizeof(p), "%s/k.zkey", dir);
	if (cz_groth16_key_save(&key, p, err, sizeof(err)))
		return -1;
	for (int i = 0; i < 2; i++) {
		free(w);
		cz_cs_free(&cs);
		cz_builtin_build("merkle", 8, 100 + (uint64_t)i, &cs, &w, err);
		snprintf(p, sizeof(p), "%s/w%d.wtns", dir, i);
		if (cz_wtns_save(p, w, cs.nvars, err, sizeof(err)))
			return -1;
	}
	free(w);
	cz_cs_free(&cs);
	return 0;
}

static json_object *call(struct cz_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static json_object *call(struct cz_engine *e, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object *q = json_tokener_parse(buf);
	json_object *r = cz_engine_request(e, q, NULL, 0, NULL);
	json_object_put(q);
	return r;
}

static bool ok_of(json_object *r)
{
	json_object *v;
	return json_object_object_get_ex(r, "ok", &v) && json_object_get_boolean(v);
}

static const char *err_of(json_object *r)
{
	json_object *v;
	return json_object_object_get_ex(r, "error", &v) ? json_object_get_string(v) : "";
}

/* load k, submit the witnesses, await: the await response (caller puts it). */
static json_object *run_job(struct cz_engine *e, const char *id, int nw)
{
	char ws[3 * PATH_MAX] = "";
	size_t len = 0;
	for (int i = 0; i < nw; i++)
		len += (size_t)snprintf(ws + len, sizeof(ws) - len, "%s\"%s/w%d.wtns\"", i ? "," : "", dir, i);
	json_object *r = call(e, "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"%s\",\"witnesses\":[%s]}", id, ws);
	if (!ok_of(r))
		return r;
	json_object_put(r);
	return call(e, "{\"op\":\"await\",\"job\":\"%s\"}", id);
}

static struct cz_engine *start(const char *backend, const char *name, char *err, size_t cap)
{
	static char state[8][PATH_MAX + 32];
	static int n;
	struct cz_engine_config c;

	cz_engine_config_defaults(&c);
	snprintf(state[n % 8], sizeof(state[0]), "%s/%s", dir, name);
	c.state_dir = state[n++ % 8];
	c.backend = backend;
	c.device_threads = 2;
	c.consumers_per_device = 1;
	c.mem_budget = 256u << 20;
	c.null_delay_ms = 1;
	struct cz_engine *e = cz_engine_create(&c, err, cap);
	if (!e)
		return NULL;
	char zk[PATH_MAX + 32];
	snprintf(zk, sizeof(zk), "%s/k.zkey", dir);
	json_object *r = call(e, "{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s\"}", zk);
	if (!ok_of(r)) {
		snprintf(err, cap, "load: %s", err_of(r));
		json_object_put(r);
		cz_engine_destroy(e);
		return NULL;
	}
	json_object_put(r);
	return e;
}

/* ---- caps and defaults ---- */

static void caps(void)
{
	struct cz_engine_config d, c;
	char err[256] = "";
	static const struct {
		const char *what, *flag, *limit;
		int field;      /* 0 devices, 1 consumers, 2 synth, 3 threads, 4 budget, 5 backend, 6 state */
		unsigned v;
	} bad[] = {
		{ "33 devices", "--devices 33", "0 to 32", 0, 33 },
		{ "0 consumers per device", "--consumers-per-device 0", "1 to 64", 1, 0 },
		{ "65 consumers per device", "--consumers-per-device 65", "1 to 64", 1, 65 },
		{ "0 synthesis workers", "--synth-workers 0", "1 to 1024", 2, 0 },
		{ "1025 synthesis workers", "--synth-workers 1025", "1 to 1024", 2, 1025 },
		{ "5000 device threads", "--device-threads 5000", "0 to 4096", 3, 5000 },
		{ "a budget of 0", "--mem-budget 0", "more than 0", 4, 0 },
		{ "backend 'tpu'", "unknown backend 'tpu'", "cpu, null", 5, 0 },
		{ "no state directory", "--state-dir", "required", 6, 0 },
	};

	cz_engine_config_defaults(&d);
	d.state_dir = dir;
	ct_ok(cz_engine_config_check(&d, err, sizeof(err)) == 0 && !strcmp(d.backend, "cpu") &&
	      d.consumers_per_device == 2 && d.synth_workers == 1 && d.null_delay_ms == 20 &&
	      d.mem_budget > 0, "the defaults pass the engine's own check (%s)", err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = d;
		switch (bad[i].field) {
		case 0: c.devices = bad[i].v; break;
		case 1: c.consumers_per_device = bad[i].v; break;
		case 2: c.synth_workers = bad[i].v; break;
		case 3: c.device_threads = bad[i].v; break;
		case 4: c.mem_budget = bad[i].v; break;
		case 5: c.backend = "tpu"; break;
		default: c.state_dir = NULL; break;
		}
		*err = 0;
		struct cz_engine *e = cz_engine_create(&c, err, sizeof(err));
		ct_ok(!e && strstr(err, bad[i].flag) && strstr(err, bad[i].limit),
		      "create refuses %s, naming the option and its limit: \"%s\"", bad[i].what, err);
		cz_engine_destroy(e);
	}
	/* The most consumers the caps allow get ring owner ids in range. */
	c = d;
	c.backend = "null";
	c.devices = CZ_ENGINE_MAX_DEVICES;
	c.consumers_per_device = CZ_ENGINE_MAX_CONSUMERS_PER_DEV;
	c.mem_budget = 64u << 20;
	struct cz_engine *e = cz_engine_create(&c, err, sizeof(err));
	unsigned top = e ? CZ_OWNER_CONSUMER + e->ncons - 1 : 0;
	ct_ok(e && e->ncons == 2048 && top <= CZ_RING_OWNER_MAX,
	      "32 null devices x 64 consumers start; the last owner id %u <= %u (%s)", top,
	      CZ_RING_OWNER_MAX, e ? "" : err);
	cz_engine_destroy(e);
}

/* ---- secrets: every partition buffer is all zeros once back in its cache ---- */

static struct {
	const void *mem[16];
	size_t bytes[16];
	int n;
} puts_seen;

static void on_put(const void *mem, size_t bytes)
{
	if (puts_seen.n < 16) {
		puts_seen.mem[puts_seen.n] = mem;
		puts_seen.bytes[puts_seen.n] = bytes;
	}
	puts_seen.n++;
}

static size_t nonzero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += b[i] != 0;
	return c;
}

static void secrets(void)
{
	char err[256] = "";
	struct cz_engine *e = start("cpu", "cpu", err, sizeof(err));

	if (!ct_ok(e != NULL, "engine (cpu) starts and loads the key: %s", err)) {
		ct_skip("no engine", "buffers wiped");
		return;
	}
	cz_engine_test_put_hook = on_put;
	json_object *r = run_job(e, "wipe", 2);
	bool done = ok_of(r);
	ct_diag("job: %s", done ? "done" : err_of(r));
	json_object_put(r);
	/* After the job is answered: the buffers are back in the cache, and
	 * nothing has reused them (no other job runs).  Read them there. */
	size_t left = 0, want = (size_t)cz_synth_part_bytes(&key);
	bool sized = true;
	for (int i = 0; i < puts_seen.n && i < 16; i++) {
		left += nonzero(puts_seen.mem[i], puts_seen.bytes[i]);
		sized &= puts_seen.bytes[i] == want;
	}
	ct_ok(done && puts_seen.n == 2 && sized && left == 0,
	      "2 proofs; both %zu-byte partition buffers (w, a, b, c, h) are all zeros after the put "
	      "(%d puts, %zu nonzero bytes)", want, puts_seen.n, left);
	cz_engine_test_put_hook = NULL;
	cz_engine_destroy(e);
}

/* ---- a descriptor that fails its checksum fails its partition, not the daemon ---- */

static void checksum(void)
{
	char err[256] = "";
	struct cz_engine *e = start("null", "null", err, sizeof(err));

	if (!ct_ok(e != NULL, "engine (null) starts and loads the key: %s", err)) {
		ct_skip("no engine", "checksum");
		ct_skip("no engine", "checksum");
		return;
	}
	atomic_store(&cz_pipe_test_corrupt, 1);
	json_object *r = run_job(e, "bad", 1);
	ct_ok(!ok_of(r) && strstr(err_of(r), "checksum"),
	      "a descriptor with a wrong checksum fails its job: \"%s\"", err_of(r));
	json_object_put(r);
	atomic_store(&cz_pipe_test_corrupt, 0);
	r = run_job(e, "good", 1);
	ct_ok(ok_of(r), "the next job is done (%s)", ok_of(r) ? "ok" : err_of(r));
	json_object_put(r);
	cz_engine_destroy(e);
}

/* ---- getrandom failing: the partition's error says so ---- */

static void random_fails(void)
{
	int fd[2];
	char msg[512] = "";

	if (pipe(fd)) {
		ct_ok(0, "pipe");
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char out[512] = "no seccomp";
		if (!deny_getrandom(EIO)) {
			char err[256] = "";
			struct cz_engine *e = start("cpu", "nornd", err, sizeof(err));
			if (!e)
				snprintf(out, sizeof(out), "start: %s", err);
			else {
				json_object *r = run_job(e, "nornd", 1);
				snprintf(out, sizeof(out), "%s%s", ok_of(r) ? "OK " : "", err_of(r));
				json_object_put(r);
				cz_engine_destroy(e);
			}
		}
		if (write(fd[1], out, strlen(out) + 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(fd[1]);
	ssize_t n = read(fd[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = 0;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	if (!strcmp(msg, "no seccomp"))
		ct_skip("no seccomp filters here", "getrandom failure named in the job's error");
	else
		ct_ok(strstr(msg, "getrandom") && strstr(msg, strerror(EIO)) && !strstr(msg, "satisfy"),
		      "getrandom denied: the job's error names getrandom and EIO: \"%s\"", msg);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cuzk-engine-XXXXXX");
	ct_plan(11 + 2 + 3 + 1);
	if (!mkdtemp(dir) || make_fixtures()) {
		ct_ok(0, "fixtures");
		return ct_exit();
	}
	caps();
	secrets();
	checksum();
	random_fails();
	cz_groth16_key_free(&key);
	if (!ct_fail) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			ct_diag("could not remove %s", dir);
	}
	return ct_exit();
}
