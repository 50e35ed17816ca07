/* SPDX-License-Identifier: MIT */
/* Description: cuzkd with fixed-base tables (--fixed-tables, load's fixed_tables): keys of both curves proved with tables, every proof verified by snarkjs; the tables charged to the memory budget and sized by it, built in place (the load's peak RSS is the key and its tables once); bad values and sizes the budget cannot hold refused. */
/*
 * The oracle is snarkjs 0.7.6 (tools/fixtures/node_modules): each proof
 * is checked with `snarkjs groth16 verify` against the verification key
 * snarkjs exported for the fixture circuit (without snarkjs, cuzk verify).
 * The budget figures are the daemon's own (load's reply, status), checked
 * against each other: a key with tables costs its bytes without them plus
 * exactly its tables, and reserved is the sum of the keys.  The daemon's
 * device children (process isolation, cuzkd's default) prove with the
 * tables from the key's shared region; CZ_ISOLATION=thread runs it in
 * threads.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1     /* cuzkd's RSS holds the sanitizer's shadow and quarantine */
#else
#define SANITIZED 0
#endif
#define CZ_DAEMON_ENV_ISOLATION
#define CZ_DAEMON_START_TRIES 1000
#include "selftests/cz_daemon.h"

static int have_snarkjs;

static json_object *req(struct daemon *d, const char *json)
{
	return daemon_req(d, json, NULL, 0);
}

static int64_t budget_of(struct daemon *d, const char *field)
{
	json_object *s = req(d, "{\"op\":\"status\"}");
	int64_t v = int_of(json_object_object_get(s, "budget"), field);
	json_object_put(s);
	return v;
}

/* load name from zkey with fixed_tables tabs (NULL: the daemon's mode);
 * its reply's key_bytes and tables_bytes, or -1. */
static int load(struct daemon *d, const char *name, int bn, const char *zkey, const char *tabs,
		int64_t *kb, int64_t *tb, char *err, size_t cap)
{
	json_object *r = req(d, fmt("{\"op\":\"load\",\"name\":\"%s\",\"zkey\":\"%s/%s.zkey\"%s%s%s}", name, e2e_data(bn),
				    zkey, tabs ? ",\"fixed_tables\":\"" : "", tabs ? tabs : "", tabs ? "\"" : ""));
	int ok = ok_of(r);
	*kb = ok ? int_of(r, "key_bytes") : -1;
	*tb = ok ? int_of(r, "tables_bytes") : -1;
	snprintf(err, cap, "%s", ok ? "" : str_of(r, "error"));
	json_object_put(r);
	return ok;
}

static int prove_check(struct daemon *d, const char *id, const char *circ, int bn, const char *name)
{
	json_object *r = req(d, fmt("{\"op\":\"submit\",\"circuit\":\"%s\",\"id\":\"%s\",\"witnesses\":"
				    "[\"%s/%s_1.wtns\",\"%s/%s_2.wtns\"]}", circ, id, e2e_data(bn), name, e2e_data(bn),
				    name));
	int ok = ok_of(r);
	json_object_put(r);
	r = daemon_await(d, id, -1);
	char out[PATH_MAX];
	snprintf(out, sizeof(out), "%s", str_of(r, "dir"));
	ok = ok && ok_of(r) && !strcmp(str_of(r, "state"), "done");
	if (!ok)
		ct_diag("job %s: %s", id, str_of(r, "error"));
	json_object_put(r);
	const char *vk = fmt("%s/%s_vk.json", e2e_data(bn), name);
	return ok && vk_verify(vk, out, 0, have_snarkjs) && vk_verify(vk, out, 1, have_snarkjs);
}

static void test_tables(struct daemon *d)
{
	char err[512];
	int64_t kb_off = -1, tb_off = -1, kb = -1, tb = -1, kb2 = -1, tb2 = -1;

	/* the same key without and with tables: the difference is the tables */
	int ok = load(d, "bn_plain", 1, "mulchain", "off", &kb_off, &tb_off, err, sizeof(err));
	int64_t free0 = budget_of(d, "free");
	ok = ok && load(d, "bn_tab", 1, "mulchain", "auto", &kb, &tb, err, sizeof(err));
	ct_ok(ok && tb_off == 0 && tb > 0 && kb == kb_off + tb,
	      "bn128 key with fixed_tables auto: key_bytes %lld = %lld without + %lld of tables (%s)",
	      (long long)kb, (long long)kb_off, (long long)tb, err);
	json_object *c = req(d, "{\"op\":\"circuits\"}");
	json_object *a = json_object_object_get(c, "circuits");
	int64_t part = 0, sum = 0, ctb = -1;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		sum += int_of(o, "key_bytes");
		if (!strcmp(str_of(o, "name"), "bn_tab")) {
			part = int_of(o, "partition_bytes");
			ctb = int_of(o, "tables_bytes");
		}
	}
	json_object_put(c);
	ct_ok(budget_of(d, "reserved") == sum && ctb == tb,
	      "the budget's reserved bytes are the keys' (tables included): %lld; circuits says %lld of tables",
	      (long long)sum, (long long)ctb);
	/* auto: at most half of what the key and two partitions leave */
	ct_ok(tb <= (free0 - kb_off - 2 * part) / 2,
	      "auto's tables (%lld bytes) within half the free budget %lld less the key %lld and two "
	      "partitions of %lld", (long long)tb, (long long)free0, (long long)kb_off, (long long)part);

	ok = load(d, "bls_tab", 0, "mulchain", "auto", &kb2, &tb2, err, sizeof(err)) && tb2 > 0;
	ct_ok(ok, "BLS12-381 key with tables: %lld bytes of tables (%s)", (long long)tb2, err);
	int64_t kb3 = -1, tb3 = -1;
	ok = load(d, "bn_small", 1, "rangehash", "4K", &kb3, &tb3, err, sizeof(err)) && tb3 >= 0 && tb3 <= 4096;
	ct_ok(ok, "fixed_tables 4K: at most 4096 bytes of tables (%lld)", (long long)tb3);

	ok = prove_check(d, "t_bn", "bn_tab", 1, "mulchain") && prove_check(d, "t_bls", "bls_tab", 0, "mulchain") &&
	     prove_check(d, "t_plain", "bn_plain", 1, "mulchain");
	ct_ok(ok, "%s accepts the proofs of keys with tables (bn128, BLS12-381) and without",
	      have_snarkjs ? "snarkjs groth16 verify" : "cuzk verify");

	ok = !load(d, "bad", 1, "mulchain", "lots", &kb3, &tb3, err, sizeof(err)) && strstr(err, "fixed_tables") &&
	     strstr(err, "lots");
	ct_ok(ok, "fixed_tables 'lots' refused naming the field: %s", err);

	int64_t res = budget_of(d, "reserved");
	json_object_put(req(d, "{\"op\":\"unload\",\"name\":\"bn_tab\"}"));
	ct_ok(budget_of(d, "reserved") == res - kb, "unload gives back the key and its tables (%lld bytes)",
	      (long long)kb);
}

/* /proc/PID/status's field (VmRSS, VmHWM: the kernel's count of the
 * daemon's resident pages now and at most), bytes; -1 if unread. */
static int64_t proc_bytes(pid_t pid, const char *field)
{
	FILE *f = fopen(fmt("/proc/%d/status", (int)pid), "r");
	char line[256];
	long long kb = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			kb = strtoll(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

/* The tables are built in their place in the key's shared region: the
 * load's peak is the region (key and tables) and the heap key moved into
 * it, plus a bound for scratch, never a second copy of the tables (which
 * the build on the heap, then a copy, held: 832 MB at 2^16 for 377 MB).
 * The oracle is the kernel's VmHWM of the daemon against its VmRSS before
 * the load; the bound is the daemon's own key_bytes and tables_bytes. */
static void test_peak(void)
{
	struct daemon d;
	char err[512];
	int64_t kb = -1, tb = -1;
	const char *zk = fmt("%s/peak", dir);
	if (system(fmt("%s/cuzk devsetup --builtin merkle --log2 13 --witnesses 0 --out-dir %s >/dev/null 2>&1",
		       bindir, zk))) {
		ct_ok(0, "cuzk devsetup --builtin merkle --log2 13");
		return;
	}
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "2", "--mem-budget", "1G",
			      "--fixed-tables", "auto", NULL };
	if (!ct_ok(daemon_start(&d, "peak", cpu) == 0, "cuzkd for the peak starts"))
		return;
	int64_t rss0 = proc_bytes(d.pid, "VmRSS");
	json_object *r = req(&d, fmt("{\"op\":\"load\",\"name\":\"m13\",\"zkey\":\"%s/merkle_13.zkey\"}", zk));
	int ok = ok_of(r);
	kb = ok ? int_of(r, "key_bytes") : -1;
	tb = ok ? int_of(r, "tables_bytes") : -1;
	snprintf(err, sizeof(err), "%s", ok ? "" : str_of(r, "error"));
	json_object_put(r);
	int64_t hwm = proc_bytes(d.pid, "VmHWM");
	const int64_t slack = 16 << 20;    /* scratch, thread stacks, the load's own buffers */
	bool in_bound = ok && tb >= 2 * slack && rss0 > 0 && hwm > 0 && hwm - rss0 <= kb + (kb - tb) + slack;
	const char *what = fmt("the load's peak grew %lld bytes (VmHWM %lld - VmRSS %lld before), within the "
			       "key's %lld with its %lld of tables, the heap key's %lld and %lld of scratch (a "
			       "copy of the tables would be %lld more) (%s)",
			       (long long)(hwm - rss0), (long long)hwm, (long long)rss0, (long long)kb,
			       (long long)tb, (long long)(kb - tb), (long long)slack, (long long)tb, err);
	if (SANITIZED)
		ct_skip("sanitizer build: its shadow memory and quarantine are in the RSS", "%s", what);
	else
		ct_ok(in_bound, "tables built in place: %s", what);
	ct_ok(daemon_stop(&d) == 0, "that cuzkd stops with status 0");
}

/* A budget too small for the whole tables: auto builds smaller ones
 * (a wider stride or window), within the same bound. */
static void test_tight(void)
{
	struct daemon d;
	char err[512];
	int64_t kb_off = -1, tb_off = -1, kb = -1, tb = -1;
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "2", "--mem-budget", "300K",
			      "--fixed-tables", "auto", NULL };
	if (!ct_ok(daemon_start(&d, "cpu", cpu) == 0, "cuzkd with a 300 KiB budget starts"))
		return;
	int ok = load(&d, "plain", 1, "mulchain", "off", &kb_off, &tb_off, err, sizeof(err));
	json_object_put(req(&d, "{\"op\":\"unload\",\"name\":\"plain\"}"));
	int64_t free0 = budget_of(&d, "free");
	ok = ok && load(&d, "tight", 1, "mulchain", NULL, &kb, &tb, err, sizeof(err));
	json_object *c = req(&d, "{\"op\":\"circuits\"}");
	int64_t part = int_of(json_object_array_get_idx(json_object_object_get(c, "circuits"), 0), "partition_bytes");
	json_object_put(c);
	ct_ok(ok && tb > 0 && tb < 376832 && tb <= (free0 - kb_off - 2 * part) / 2 && kb == kb_off + tb &&
	      budget_of(&d, "reserved") == kb,
	      "300 KiB budget: auto builds %lld bytes of tables, within (%lld - %lld - 2 x %lld) / 2 and "
	      "charged (%s)", (long long)tb, (long long)free0, (long long)kb_off, (long long)part, err);
	ct_ok(prove_check(&d, "t_tight", "tight", 1, "mulchain"), "its proofs verify");
	/* A size the budget cannot hold is refused, naming the tables' size
	 * and the budget, and charges nothing. */
	int64_t res = budget_of(&d, "reserved");
	int64_t kb2 = -1, tb2 = -1;
	ok = !load(&d, "big", 1, "mulchain", "1G", &kb2, &tb2, err, sizeof(err)) &&
	     strstr(err, "fixed-base tables of ") && strstr(err, "of 307200 bytes free") &&
	     strstr(err, "--mem-budget") && budget_of(&d, "reserved") == res;
	ct_ok(ok, "fixed_tables 1G in a 300 KiB budget: refused, nothing charged: %s", err);
	ct_ok(daemon_stop(&d) == 0, "that cuzkd stops with status 0");
}

int main(int argc, char **argv)
{
	(void)argc;
	if (e2e_begin(argv[0], "cuzk-e2e-tables"))
		return 1;
	ct_plan(18);
	if (!mkdtemp(dir)) {
		ct_ok(0, "mkdtemp");
		return ct_exit();
	}
	have_snarkjs = snarkjs_usable();
	struct daemon d;
	const char *cpu[] = { "--backend", "cpu", "--device-threads", "2", "--mem-budget", "1G",
			      "--fixed-tables", "auto", NULL };
	if (!ct_ok(daemon_start(&d, "cpu", cpu) == 0, "cuzkd (cpu backend, --fixed-tables auto) starts"))
		return ct_exit();
	test_tables(&d);
	ct_ok(daemon_stop(&d) == 0, "cuzkd stops on SIGTERM with status 0");
	test_tight();
	test_peak();
	return e2e_end();
}
