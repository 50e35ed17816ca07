/* SPDX-License-Identifier: MIT */
/*
 * selftests/engine_place.c — the placement plan (engine/place/place.c) from hwloc
 * XML files of machines this one is not: a 2-socket and a 4-node machine
 * made by lstopo's synthetic input, and a hand-written 2-socket server with
 * four NVIDIA GPUs behind PCI bridges under its packages
 * (selftests/data/topo_2socket_gpu.py writes it), so the cuda path's
 * PCI → node mapping is tested without a GPU.
 *
 * The oracle is each file's construction, written down here independently
 * of hwloc and of the plan: which CPUs each node has, which node each bus
 * id sits under.  Then cuzkd --print-placement prints the same plan.
 */
#define _GNU_SOURCE
#include "selftests/cz_test.h"
#include "engine/engine.h"
#include "engine/place/place.h"
#include "zk/groth16/builtin.h"
#include "zk/io/groth16_io.h"

#include <errno.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char data[PATH_MAX + 32], bindir[PATH_MAX + 32];

static const char *path_of(const char *name)
{
	static char p[2 * PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", data, name);
	return p;
}

/* The oracle's CPU sets: node n's CPUs by construction of each file. */
static int cpu_node_synth(unsigned cpu, unsigned per_node)
{
	return (int)(cpu / per_node);     /* lstopo "pack:N [numa] core:K pu:1": K a node, in order */
}

static int cpu_node_gpu(unsigned cpu)
{
	return (cpu / 4) % 2;             /* 0-3,8-11 on node 0; 4-7,12-15 on node 1 */
}

static int all_cpus_on(const struct cz_place *p, int node, int (*of)(unsigned, unsigned),
		       unsigned arg, unsigned want)
{
	int i = cz_topo_node_index(p->topo, node);
	if (i < 0)
		return 0;
	const struct cz_topo_node *n = cz_topo_node(p->topo, (unsigned)i);
	for (unsigned k = 0; k < n->ncpus; k++)
		if (of(n->cpus[k], arg) != node)
			return 0;
	return n->ncpus == want;
}

static int of_gpu(unsigned cpu, unsigned arg)
{
	(void)arg;
	return cpu_node_gpu(cpu);
}

static int of_synth(unsigned cpu, unsigned per)
{
	return cpu_node_synth(cpu, per);
}

/* Every device, worker and arena where the rule puts it (dev_node[i]). */
static int plan_matches(const struct cz_place *p, const int *dev_node, unsigned ndev, unsigned nw,
			uint64_t budget)
{
	if (p->ndev != ndev || p->nworkers != nw)
		return 0;
	for (unsigned i = 0; i < ndev; i++)
		if (p->devs[i].node != dev_node[i])
			return 0;
	for (unsigned w = 0; w < nw; w++)
		if (p->workers[w].node != dev_node[w % ndev])
			return 0;
	/* One arena per node with devices, its share of the budget. */
	unsigned narenas = 0;
	for (int node = 0; node < 8; node++) {
		unsigned on = 0;
		for (unsigned i = 0; i < ndev; i++)
			on += dev_node[i] == node;
		if (!on)
			continue;
		int a = cz_place_arena_index(p, node);
		if (a < 0 || p->arenas[a].bytes != budget / ndev * on)
			return 0;
		narenas++;
	}
	return narenas == p->narenas;
}

static int fake_bus[4] = { 0x86, 0x3b, 0xaf, 0x5e };    /* device i's bus, shuffled across sockets */

static int fake_pci(unsigned index, char *buf, size_t cap)
{
	if (index >= 4)
		return -1;
	snprintf(buf, cap, "0000:%02X:00.0", fake_bus[index]);  /* upper case, as CUDA writes it */
	return 0;
}

static void test_synthetic(void)
{
	char err[512] = "";
	struct cz_place_opts o = { .topology = path_of("topo_2socket.xml"), .ndev = 4, .nworkers = 6,
				   .mem_budget = 8ull << 30 };
	struct cz_place *p = cz_place_plan(&o, err, sizeof(err));
	int want[] = { 0, 1, 0, 1 };

	ct_ok(p && cz_topo_nnodes(p->topo) == 2 && !p->bind &&
	      all_cpus_on(p, 0, of_synth, 4, 4) && all_cpus_on(p, 1, of_synth, 4, 4),
	      "2-socket XML: two nodes of 4 CPUs each, only their own, not this machine (%s)", err);
	ct_ok(p && plan_matches(p, want, 4, 6, o.mem_budget),
	      "2-socket, 4 null devices, 6 workers: devices round-robin, workers with them, "
	      "an arena of half the budget per node");
	cz_place_free(p);

	o = (struct cz_place_opts){ .topology = path_of("topo_4node.xml"), .ndev = 8, .nworkers = 8,
				    .mem_budget = 1ull << 30 };
	p = cz_place_plan(&o, err, sizeof(err));
	int want4[] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	int ok = p && cz_topo_nnodes(p->topo) == 4;
	for (int n = 0; ok && n < 4; n++)
		ok = all_cpus_on(p, n, of_synth, 2, 2);
	ct_ok(ok && plan_matches(p, want4, 8, 8, o.mem_budget),
	      "4-node XML, 8 devices: two a node, each node's CPUs its own (%s)", err);
	cz_place_free(p);

	o.device_nodes = "3,3,2";
	o.ndev = 4;
	o.nworkers = 5;
	p = cz_place_plan(&o, err, sizeof(err));
	int wantg[] = { 3, 3, 2, 3 };
	ct_ok(p && plan_matches(p, wantg, 4, 5, o.mem_budget) && p->narenas == 2,
	      "--device-nodes 3,3,2 cycles over 4 devices: arenas only on nodes 2 and 3 (%s)", err);
	cz_place_free(p);
}

static void test_gpu(void)
{
	char err[512] = "";
	struct cz_place_opts o = { .topology = path_of("topo_2socket_gpu.xml"), .ndev = 4,
				   .nworkers = 4, .mem_budget = 4ull << 30, .pci_bus_id = fake_pci };
	struct cz_place *p = cz_place_plan(&o, err, sizeof(err));
	int want[4];
	for (int i = 0; i < 4; i++)
		want[i] = fake_bus[i] >= 0x80;          /* 3b, 5e under package 0; 86, af under 1 */

	ct_ok(p && all_cpus_on(p, 0, of_gpu, 0, 8) && all_cpus_on(p, 1, of_gpu, 0, 8),
	      "GPU server XML: nodes 0-3,8-11 and 4-7,12-15 (%s)", err);
	ct_ok(p && plan_matches(p, want, 4, 4, o.mem_budget),
	      "each GPU on the node of the package above its PCI bridge (86 → 1, 3b → 0, af → 1, 5e → 0)");
	ct_ok(p && !strcmp(p->devs[0].pci, "0000:86:00.0") && cz_topo_pci_node(p->topo, "3b:00.0") == 0 &&
	      cz_topo_pci_node(p->topo, "0000:01:00.0") == -1,
	      "bus ids: a short form finds its device, an absent one has no node");
	const struct cz_topo_node *n0 = p ? cz_topo_node(p->topo, 0) : NULL, *n1 = p ? cz_topo_node(p->topo, 1) : NULL;
	ct_ok(n0 && n1 && n0->mem_bytes == 8ull << 30 && n1->mem_bytes == 8ull << 30 &&
	      n0->hugepages_2m == 512 && n1->hugepages_2m == 0,
	      "memory per node 8 GiB, 2 MiB hugepages: 512 on node 0, none on node 1");

	/* The JSON: exactly the names the issue and docs/cuzkd.8.md give. */
	json_object *j = p ? cz_place_json(p) : NULL, *v;
	int names = j != NULL;
	static const char *const top[] = { "nodes", "devices", "synth_workers", "arenas" };
	static const char *const f[4][4] = { { "node", "cpus", "mem_bytes", "hugepages_2m" },
					     { "device", "node", "pci", "consumer_cpus" },
					     { "worker", "node", "cpus", NULL }, { "node", "bytes", NULL, NULL } };
	for (int t = 0; names && t < 4; t++) {
		names = json_object_object_get_ex(j, top[t], &v) && json_object_array_length(v) > 0;
		for (size_t e = 0; names && e < json_object_array_length(v); e++)
			for (int k = 0; names && k < 4 && f[t][k]; k++)
				names = json_object_object_get_ex(json_object_array_get_idx(v, e), f[t][k], NULL);
	}
	json_object *d1 = names ? json_object_array_get_idx(json_object_object_get(j, "devices"), 1) : NULL;
	json_object *cc = d1 ? json_object_object_get(d1, "consumer_cpus") : NULL;
	int cpus_ok = cc && json_object_array_length(cc) == 8;
	for (size_t k = 0; cpus_ok && k < 8; k++)
		cpus_ok = cpu_node_gpu((unsigned)json_object_get_int(json_object_array_get_idx(cc, k))) == 0;
	ct_ok(names && cpus_ok, "JSON has every named field; device 1's consumer_cpus are node 0's");
	json_object_put(j);
	cz_place_free(p);
}

static void test_errors(void)
{
	char err[512] = "";
	struct cz_place_opts o = { .topology = path_of("topo_2socket.xml"), .ndev = 2, .nworkers = 1,
				   .mem_budget = 1 << 20, .device_nodes = "0,5" };
	struct cz_place *p = cz_place_plan(&o, err, sizeof(err));
	ct_ok(!p && strstr(err, "--device-nodes") && strstr(err, "node 5"),
	      "--device-nodes naming an absent node: refused, named (%s)", err);
	o.device_nodes = "1,x";
	p = cz_place_plan(&o, err, sizeof(err));
	ct_ok(!p && strstr(err, "--device-nodes '1,x'"), "--device-nodes 1,x: refused (%s)", err);
	o.device_nodes = NULL;
	o.topology = "/nonexistent/server.xml";
	p = cz_place_plan(&o, err, sizeof(err));
	ct_ok(!p && strstr(err, "/nonexistent/server.xml"), "an unreadable topology file is named (%s)", err);
}

/* This machine: a worker bound by the plan runs only on its node's CPUs. */
static void test_apply(void)
{
	char err[512] = "";
	struct cz_place_opts o = { .ndev = 1, .nworkers = 1, .mem_budget = 1 << 20 };
	struct cz_place *p = cz_place_plan(&o, err, sizeof(err));
	cpu_set_t before, after;
	sched_getaffinity(0, sizeof(before), &before);
	int rc = p ? cz_place_apply_worker(p, 0) : -1;
	sched_getaffinity(0, sizeof(after), &after);
	int ok = p && p->bind && rc == 0;
	const struct cz_topo_node *n = ok ? cz_topo_node(p->topo, (unsigned)cz_topo_node_index(p->topo, p->workers[0].node)) : NULL;
	ok = ok && n && (unsigned)CPU_COUNT(&after) == n->ncpus;
	for (unsigned k = 0; ok && k < n->ncpus; k++)
		ok = CPU_ISSET(n->cpus[k], &after);
	ct_ok(ok, "this machine: worker 0 pinned to exactly its node's %u CPUs (rc %d, %s)",
	      n ? n->ncpus : 0, rc, err);
	sched_setaffinity(0, sizeof(before), &before);
	cz_place_free(p);
}

/* A device child's placement through the environment: the 2-socket
 * file's plan written out (its CPUs by construction: 0-3 node 0, 4-7
 * node 1), and an entry applied here (CPU 0 exists on every machine). */
static void test_env(void)
{
	char err[512] = "", buf[256] = "";
	struct cz_place_opts o = { .topology = path_of("topo_2socket.xml"), .ndev = 3, .nworkers = 1,
				   .mem_budget = 1 << 20, .device_nodes = "1,0,1" };
	struct cz_place *p = cz_place_plan(&o, err, sizeof(err));
	int n = p ? cz_place_env_format(p, buf, sizeof(buf)) : -1;
	ct_ok(n > 0 && !strcmp(buf, "1:4,5,6,7;0:0,1,2,3;1:4,5,6,7"), "placement for device children: '%s' (%s)",
	      buf, err);
	ct_ok(p && cz_place_env_format(p, buf, 10) == -ENOSPC, "a buffer too short for it: -ENOSPC");
	cz_place_free(p);
	cpu_set_t before, after;
	sched_getaffinity(0, sizeof(before), &before);
	int node = -1, rc1 = cz_place_env_apply("7:1;0:0", 1, &node);
	sched_getaffinity(0, sizeof(after), &after);
	cz_place_reset_mempolicy();
	sched_setaffinity(0, sizeof(before), &before);
	int d0 = -9;
	int rc_none = cz_place_env_apply("0:0", 1, &d0), rc_bad = cz_place_env_apply("x:0", 0, &d0),
	    rc_empty = cz_place_env_apply("0:", 0, &d0), rc_junk = cz_place_env_apply("0:1a", 0, &d0);
	ct_ok(rc1 == 0 && node == 0 && CPU_COUNT(&after) == 1 && CPU_ISSET(0, &after) && rc_none == 1 &&
	      rc_bad == -EINVAL && rc_empty == -EINVAL && rc_junk == -EINVAL,
	      "device 1's entry applied: node %d, only CPU 0 (rc %d); no entry: 1 (%d); bad ones -EINVAL (%d %d %d)",
	      node, rc1, rc_none, rc_bad, rc_empty, rc_junk);
}

static void test_print(void)
{
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "%s/cuzkd --print-placement --state-dir /nonexistent --backend null "
		 "--devices 3 --synth-workers 2 --mem-budget 3G --topology %s", bindir,
		 path_of("topo_2socket_gpu.xml"));
	FILE *f = popen(cmd, "r");
	char buf[65536];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	int rc = f ? pclose(f) : -1;
	buf[n] = 0;
	json_object *j = json_tokener_parse(buf), *d = NULL, *a = NULL;
	int ok = rc == 0 && j && json_object_object_get_ex(j, "devices", &d) &&
		 json_object_object_get_ex(j, "arenas", &a) && json_object_array_length(d) == 3 &&
		 json_object_array_length(a) == 2;
	for (size_t i = 0; ok && i < 3; i++)
		ok = json_object_get_int(json_object_object_get(json_object_array_get_idx(d, i), "node")) == (int)(i % 2);
	ct_ok(ok, "cuzkd --print-placement: exit 0 without a state dir, 3 null devices on nodes 0,1,0, "
	      "2 arenas (rc %d)", rc);
	json_object_put(j);
	snprintf(cmd, sizeof(cmd), "%s/cuzkd --print-placement --state-dir /x --backend null --devices 2 "
		 "--device-nodes 7 --topology %s 2>&1 >/dev/null", bindir, path_of("topo_2socket.xml"));
	f = popen(cmd, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	rc = f ? pclose(f) : -1;
	buf[n] = 0;
	ct_ok(rc != 0 && strstr(buf, "--device-nodes"), "cuzkd --print-placement --device-nodes 7 on 2 nodes: "
	      "fails naming the option");
	/* The cpu backend without --devices: one device a node (4 in the
	 * 4-node file), each on its own node. */
	snprintf(cmd, sizeof(cmd), "%s/cuzkd --print-placement --state-dir /x --backend cpu --topology %s", bindir,
		 path_of("topo_4node.xml"));
	f = popen(cmd, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	rc = f ? pclose(f) : -1;
	buf[n] = 0;
	j = json_tokener_parse(buf);
	d = NULL;
	ok = rc == 0 && j && json_object_object_get_ex(j, "devices", &d) && json_object_array_length(d) == 4;
	for (size_t i = 0; ok && i < 4; i++)
		ok = json_object_get_int(json_object_object_get(json_object_array_get_idx(d, i), "node")) == (int)i;
	ct_ok(ok, "cuzkd --print-placement --backend cpu on 4 nodes: one device a node, device i on node i (rc %d)", rc);
	json_object_put(j);
}

/* The engine on this machine: status shows the plan, every partition is
 * counted on its device's node, none crossed nodes. */
static void test_engine(void)
{
	char dir[] = "/tmp/cuzk-place-XXXXXX", p[PATH_MAX + 64], err[512] = "";
	struct cz_cs cs;
	struct cz_groth16_key key;
	cz_fr *w = NULL;
	int ok = mkdtemp(dir) && !cz_builtin_build("merkle", 8, 1, &cs, &w, err) &&
		 !cz_groth16_devsetup(&cs, 9, &key, NULL);
	snprintf(p, sizeof(p), "%s/k.zkey", dir);
	ok = ok && !cz_groth16_key_save(&key, p, err, sizeof(err));
	snprintf(p, sizeof(p), "%s/w.wtns", dir);
	ok = ok && !cz_wtns_save(p, w, cs.nvars, err, sizeof(err));
	struct cz_engine_config c;
	cz_engine_config_defaults(&c);
	c.state_dir = dir;
	c.device_threads = 2;
	c.consumers_per_device = 1;
	c.synth_workers = 2;
	c.mem_budget = 256u << 20;
	struct cz_engine *e = ok ? cz_engine_create(&c, err, sizeof(err)) : NULL;
	char req[3 * PATH_MAX];
	snprintf(req, sizeof(req), "{\"op\":\"load\",\"name\":\"k\",\"zkey\":\"%s/k.zkey\"}", dir);
	json_object *q = json_tokener_parse(req), *r = e ? cz_engine_request(e, q, NULL, 0, NULL) : NULL;
	json_object_put(q);
	json_object_put(r);
	snprintf(req, sizeof(req), "{\"op\":\"submit\",\"circuit\":\"k\",\"id\":\"j\",\"witnesses\":"
		 "[\"%s/w.wtns\",\"%s/w.wtns\",\"%s/w.wtns\"]}", dir, dir, dir);
	q = json_tokener_parse(req);
	r = e ? cz_engine_request(e, q, NULL, 0, NULL) : NULL;
	json_object_put(q);
	json_object_put(r);
	q = json_tokener_parse("{\"op\":\"await\",\"job\":\"j\"}");
	r = e ? cz_engine_request(e, q, NULL, 0, NULL) : NULL;
	json_object_put(q);
	json_object_put(r);
	q = json_tokener_parse("{\"op\":\"status\"}");
	r = e ? cz_engine_request(e, q, NULL, 0, NULL) : NULL;
	json_object_put(q);
	json_object *pl = NULL, *np = NULL, *cn = NULL;
	uint64_t sum = 0;
	int has = r && json_object_object_get_ex(r, "placement", &pl) &&
		  json_object_object_get_ex(pl, "node_partitions", &np) &&
		  json_object_object_get_ex(pl, "cross_node", &cn) &&
		  json_object_object_get_ex(pl, "synth_workers", NULL);
	for (size_t i = 0; has && i < json_object_array_length(np); i++)
		sum += json_object_get_uint64(json_object_object_get(json_object_array_get_idx(np, i), "partitions"));
	ct_ok(has && sum == 3 && json_object_get_uint64(cn) == 0,
	      "status: the plan, 3 partitions counted on their devices' nodes, 0 cross-node (%s)", err);
	json_object_put(r);
	cz_engine_destroy(e);
	if (ok) {
		free(w);
		cz_cs_free(&cs);
		cz_groth16_key_free(&key);
	}
	snprintf(req, sizeof(req), "rm -rf %s", dir);
	if (system(req))
		fprintf(stderr, "# cannot remove %s\n", dir);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	(void)argc;
	if (!realpath(argv[0], self))
		return 1;
	char *sdir = dirname(self);     /* build/selftests */
	snprintf(bindir, sizeof(bindir), "%s/../bin", sdir);
	snprintf(data, sizeof(data), "%s/../../selftests/data", sdir);
	ct_plan(20);
	if (!cz_topo_have_hwloc()) {
		for (int i = 0; i < 20; i++)
			ct_skip("this build has no hwloc (libhwloc-dev)", "placement test %d", i);
		return ct_exit();
	}
	test_synthetic();
	test_gpu();
	test_errors();
	test_apply();
	test_env();
	test_print();
	test_engine();
	return ct_exit();
}
