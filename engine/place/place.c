/* SPDX-License-Identifier: MIT */
/*
 * engine/place/place.c — the placement plan: which NUMA node each device,
 * synthesis worker and partition arena lives on.
 *
 * Why: a partition synthesized into memory on the far socket and then
 * copied to a GPU on the near one crosses the socket interconnect twice,
 * and synthesis threads that wander between sockets lose their caches.  So
 * the unit of placement is the node: each device is on one (a GPU's from
 * its PCI bus id's locality, cpu and null devices from --device-nodes or
 * round-robin over the nodes that have CPUs, counting only the devices
 * without a locality; --device-nodes overrides PCI too), each node with a device gets
 * a partition arena of its devices' share of --mem-budget, and synthesis
 * workers are dealt out like the devices (worker w on device w mod ndev's
 * node), so every node with devices has workers in proportion to them.
 *
 * The plan is pure data computed from the topology and the options: it
 * binds nothing itself, so --print-placement and the tests can compute the
 * plan of any machine from its hwloc XML.  cz_place_apply_* then bind the
 * calling thread (sched_setaffinity to the node's CPUs, set_mempolicy
 * MPOL_BIND to the node; both are inherited by threads and processes it
 * creates afterwards), and only when the topology is this machine.
 */
#define _GNU_SOURCE
#include "engine/place/place.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND_ 2    /* linux/mempolicy.h, as alloc/region.c */

/* "0,1,1" → nodes[], each a node of t.  Count, or -1 with err. */
static int parse_nodes(const struct cz_topo *t, const char *s, int *nodes, unsigned max,
		       char *err, size_t cap)
{
	unsigned n = 0;
	const char *p = s;

	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || (*end && *end != ',')) {
			snprintf(err, cap, "--device-nodes '%s': expected node numbers separated by commas", s);
			return -1;
		}
		int ti = v >= 0 && v <= 1023 ? cz_topo_node_index(t, (int)v) : -1;
		if (ti < 0 || !cz_topo_node(t, (unsigned)ti)->ncpus) {
			snprintf(err, cap, "--device-nodes '%s': node %ld is not a node with CPUs in the "
				 "topology", s, v);
			return -1;
		}
		if (n == max) {
			snprintf(err, cap, "--device-nodes '%s': more than %u entries", s, max);
			return -1;
		}
		nodes[n++] = (int)v;
		p = *end ? end + 1 : end;
	}
	if (!n) {
		snprintf(err, cap, "--device-nodes '%s': empty", s);
		return -1;
	}
	return (int)n;
}

struct cz_place *cz_place_plan(const struct cz_place_opts *o, char *err, size_t cap)
{
	struct cz_place *p = calloc(1, sizeof(*p));
	int given[256], ngiven = 0;
	int withcpu[CZ_PLACE_MAX_NODES], nwith = 0;

	if (!p)
		goto oom;
	/* An XML file's PCI objects are free to read; this machine's need a
	 * bus scan, done only for a backend whose devices have bus ids. */
	p->topo = cz_topo_load(o->topology, o->topology || o->pci_bus_id, err, cap);
	if (!p->topo)
		goto fail;
	p->bind = cz_topo_is_this_system(p->topo);
	for (unsigned i = 0; i < cz_topo_nnodes(p->topo); i++)
		if (cz_topo_node(p->topo, i)->ncpus)
			withcpu[nwith++] = cz_topo_node(p->topo, i)->node;
	if (!nwith) {
		snprintf(err, cap, "topology: no node has a CPU");
		goto fail;
	}
	if (o->device_nodes && (ngiven = parse_nodes(p->topo, o->device_nodes, given, 256, err, cap)) < 0)
		goto fail;
	p->ndev = o->ndev || !o->dev_per_node ? o->ndev : (unsigned)nwith;
	p->nworkers = o->nworkers;
	p->devs = calloc(p->ndev ? p->ndev : 1, sizeof(*p->devs));
	p->workers = calloc(p->nworkers ? p->nworkers : 1, sizeof(*p->workers));
	p->arenas = calloc(nwith, sizeof(*p->arenas));
	if (!p->devs || !p->workers || !p->arenas)
		goto oom;
	unsigned unplaced = 0;  /* devices dealt round-robin so far */
	for (unsigned i = 0; i < p->ndev; i++) {
		struct cz_place_dev *d = &p->devs[i];
		d->device = i;
		d->node = -1;
		if (o->pci_bus_id && !o->pci_bus_id(i, d->pci, sizeof(d->pci)) && d->pci[0]) {
			d->node = cz_topo_pci_node(p->topo, d->pci);
			if (d->node >= 0 && !cz_topo_node(p->topo, (unsigned)cz_topo_node_index(p->topo, d->node))->ncpus)
				d->node = -1;   /* a node without CPUs: place by the rules below */
		} else {
			d->pci[0] = 0;
		}
		/* --device-nodes overrides even a PCI locality (a BIOS that
		 * reports none, or one that lies). */
		if (ngiven)
			d->node = given[i % (unsigned)ngiven];
		else if (d->node < 0)
			d->node = withcpu[unplaced++ % (unsigned)nwith];
	}
	/* Arenas: one per node with a device, its devices' share of the budget. */
	for (int k = 0; k < nwith; k++) {
		unsigned on = 0;
		for (unsigned i = 0; i < p->ndev; i++)
			on += p->devs[i].node == withcpu[k];
		if (!on)
			continue;
		p->arenas[p->narenas++] = (struct cz_place_arena){
			.node = withcpu[k],
			.bytes = p->ndev ? o->mem_budget / p->ndev * on : 0,
		};
	}
	for (unsigned w = 0; w < p->nworkers; w++)
		p->workers[w] = (struct cz_place_worker){
			.worker = w, .node = p->ndev ? p->devs[w % p->ndev].node : withcpu[w % (unsigned)nwith],
		};
	return p;
oom:
	snprintf(err, cap, "placement: out of memory");
fail:
	cz_place_free(p);
	return NULL;
}

void cz_place_free(struct cz_place *p)
{
	if (!p)
		return;
	cz_topo_free(p->topo);
	free(p->devs);
	free(p->workers);
	free(p->arenas);
	free(p);
}

int cz_place_arena_index(const struct cz_place *p, int node)
{
	for (unsigned i = 0; i < p->narenas; i++)
		if (p->arenas[i].node == node)
			return (int)i;
	return -1;
}

static const struct cz_topo_node *node_of(const struct cz_place *p, int node)
{
	int i = cz_topo_node_index(p->topo, node);
	return i < 0 ? NULL : cz_topo_node(p->topo, (unsigned)i);
}

static json_object *cpus_json(const struct cz_topo_node *n)
{
	json_object *a = json_object_new_array();
	for (unsigned i = 0; n && i < n->ncpus; i++)
		json_object_array_add(a, json_object_new_int((int)n->cpus[i]));
	return a;
}

json_object *cz_place_json(const struct cz_place *p)
{
	json_object *r = json_object_new_object(), *nodes = json_object_new_array(),
		    *devs = json_object_new_array(), *workers = json_object_new_array(),
		    *arenas = json_object_new_array();

	for (unsigned i = 0; i < cz_topo_nnodes(p->topo); i++) {
		const struct cz_topo_node *n = cz_topo_node(p->topo, i);
		json_object *o = json_object_new_object();
		json_object_object_add(o, "node", json_object_new_int(n->node));
		json_object_object_add(o, "cpus", cpus_json(n));
		json_object_object_add(o, "mem_bytes", json_object_new_uint64(n->mem_bytes));
		json_object_object_add(o, "hugepages_2m", json_object_new_uint64(n->hugepages_2m));
		json_object_array_add(nodes, o);
	}
	for (unsigned i = 0; i < p->ndev; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "device", json_object_new_int((int)i));
		json_object_object_add(o, "node", json_object_new_int(p->devs[i].node));
		json_object_object_add(o, "pci", p->devs[i].pci[0] ? json_object_new_string(p->devs[i].pci) : NULL);
		json_object_object_add(o, "consumer_cpus", cpus_json(node_of(p, p->devs[i].node)));
		json_object_array_add(devs, o);
	}
	for (unsigned i = 0; i < p->nworkers; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "worker", json_object_new_int((int)i));
		json_object_object_add(o, "node", json_object_new_int(p->workers[i].node));
		json_object_object_add(o, "cpus", cpus_json(node_of(p, p->workers[i].node)));
		json_object_array_add(workers, o);
	}
	for (unsigned i = 0; i < p->narenas; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "node", json_object_new_int(p->arenas[i].node));
		json_object_object_add(o, "bytes", json_object_new_uint64(p->arenas[i].bytes));
		json_object_array_add(arenas, o);
	}
	json_object_object_add(r, "bound", json_object_new_boolean(p->bind));
	json_object_object_add(r, "nodes", nodes);
	json_object_object_add(r, "devices", devs);
	json_object_object_add(r, "synth_workers", workers);
	json_object_object_add(r, "arenas", arenas);
	return r;
}

int cz_place_apply_node(const struct cz_place *p, int node)
{
	const struct cz_topo_node *n = node_of(p, node);
	unsigned long mask[1024 / 64] = { 0 };
	cpu_set_t set;

	if (!p->bind)
		return 0;
	if (!n || !n->ncpus)
		return -EINVAL;
	CPU_ZERO(&set);
	for (unsigned i = 0; i < n->ncpus; i++)
		if (n->cpus[i] < CPU_SETSIZE)
			CPU_SET(n->cpus[i], &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	/* Memory the thread touches from now on comes from its node; a
	 * region bound by mbind (alloc/region.c) keeps its own policy. */
	mask[node / 64] = 1ul << (node % 64);
	if (syscall(SYS_set_mempolicy, MPOL_BIND_, mask, 1025ul))
		return -errno;
	return 0;
}

void cz_place_reset_mempolicy(void)
{
	syscall(SYS_set_mempolicy, 0 /* MPOL_DEFAULT */, NULL, 0ul);
}

int cz_place_apply_device(const struct cz_place *p, unsigned dev)
{
	return dev < p->ndev ? cz_place_apply_node(p, p->devs[dev].node) : -EINVAL;
}

int cz_place_apply_worker(const struct cz_place *p, unsigned w)
{
	return w < p->nworkers ? cz_place_apply_node(p, p->workers[w].node) : -EINVAL;
}

/* "NODE:CPU,CPU,...;NODE:..." — device i's entry is the i-th. */
int cz_place_env_format(const struct cz_place *p, char *buf, size_t cap)
{
	size_t n = 0;
	for (unsigned i = 0; i < p->ndev; i++) {
		const struct cz_topo_node *t = node_of(p, p->devs[i].node);
		int w = snprintf(buf + n, n < cap ? cap - n : 0, "%s%d:", i ? ";" : "", p->devs[i].node);
		n += w > 0 ? (size_t)w : 0;
		for (unsigned k = 0; t && k < t->ncpus; k++) {
			w = snprintf(buf + n, n < cap ? cap - n : 0, "%s%u", k ? "," : "", t->cpus[k]);
			n += w > 0 ? (size_t)w : 0;
		}
	}
	return n < cap ? (int)n : -ENOSPC;
}

int cz_place_env_apply(const char *env, unsigned dev, int *node_out)
{
	const char *q = env;
	for (unsigned i = 0; q && i < dev; i++)
		if ((q = strchr(q, ';')))
			q++;
	if (!q || !*q)
		return 1;
	char *end;
	long node = strtol(q, &end, 10);
	if (end == q || *end != ':' || node < 0 || node > 1023)
		return -EINVAL;
	cpu_set_t set;
	CPU_ZERO(&set);
	unsigned ncpu = 0;
	for (q = end + 1; *q && *q != ';';) {
		long c = strtol(q, &end, 10);
		if (end == q || c < 0 || (*end && *end != ',' && *end != ';'))
			return -EINVAL;
		if (c < CPU_SETSIZE) {
			CPU_SET((int)c, &set);
			ncpu++;
		}
		q = *end == ',' ? end + 1 : end;
	}
	if (!ncpu)
		return -EINVAL;
	*node_out = (int)node;
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	unsigned long mask[1024 / 64] = { 0 };
	mask[node / 64] = 1ul << (node % 64);
	if (syscall(SYS_set_mempolicy, MPOL_BIND_, mask, 1025ul))
		return -errno;
	return 0;
}
