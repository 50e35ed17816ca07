/* SPDX-License-Identifier: MIT */
/*
 * engine/place/numa.c — the engine's side of placement (engine/place/place.c): the plan
 * made from the engine's options, each thread bound to it as it starts, and
 * the per-node figures status shows.
 *
 * Which thread binds where: a synthesis worker to its node (its buffers come
 * from its node's arena, so the pages it fills are local); a device's
 * consumer threads to the device's node (a device process, cz-dev<N>,
 * binds itself as a whole, first thing: cz_numa_child_place, from the plan
 * in its environment); the device itself is opened from a
 * thread bound to its node, so the threads the backend creates then (the
 * cpu backend's pool, cuda's B2 thread) inherit the binding.  Binding
 * happens only when the plan is of this machine; a plan read from
 * --topology is shown, not applied.  Which node a partition goes to is
 * the dispatcher's choice (engine/pipeline/dispatch.c, WHICH NODE) and the order
 * thread's (engine/pipeline/order.c, ACROSS NODES); resident keys: below.
 */
#define _GNU_SOURCE
#include "engine/engine_pvt.h"
#include "engine/place/place.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cz_place *cz_engine_place_plan(const struct cz_engine_config *c, char *err, size_t cap)
{
	const struct cz_backend *be = cz_backend_find(c->backend);
	if (!be) {
		snprintf(err, cap, "unknown backend '%s' (known: %s)", c->backend, cz_backend_names());
		return NULL;
	}
	/* A per-node backend (cpu): by default one device per node of the
	 * plan's topology (this machine's, or --topology's). */
	int n = c->devices ? (int)c->devices : be->per_node ? 0 : be->count();
	if (n < 0 || (n == 0 && !be->per_node)) {
		snprintf(err, cap, "backend %s: no device found", be->name);
		return NULL;
	}
	struct cz_place_opts o = {
		.topology = c->topology, .device_nodes = c->device_nodes, .ndev = (unsigned)n,
		.dev_per_node = be->per_node,
		.nworkers = c->synth_workers, .mem_budget = c->mem_budget, .pci_bus_id = be->pci_bus_id,
	};
	struct cz_place *p = cz_place_plan(&o, err, cap);
	if (p && p->ndev > CZ_ENGINE_MAX_DEVICES) {
		snprintf(err, cap, "backend %s: one device per node makes %u, more than %u: give --devices",
			 be->name, p->ndev, CZ_ENGINE_MAX_DEVICES);
		cz_place_free(p);
		return NULL;
	}
	return p;
}

/* On a multi-node machine, one line per node with an arena and no 2 MiB
 * hugepages reserved: its arena falls back to THP or base pages
 * (alloc/region.c says which). */
void cz_numa_log_hugepages(const struct cz_place *p)
{
	if (cz_topo_nnodes(p->topo) < 2)
		return;         /* one node: alloc/region.c's own fallback line says it all */
	for (unsigned i = 0; i < p->narenas; i++) {
		int ti = cz_topo_node_index(p->topo, p->arenas[i].node);
		const struct cz_topo_node *n = ti < 0 ? NULL : cz_topo_node(p->topo, (unsigned)ti);
		if (n && !n->hugepages_2m)
			fprintf(stderr, "cuzkd: node %d: no 2 MiB hugepages reserved (its %llu-byte arena "
				"falls back to THP or base pages; reserve them in "
				"/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages, "
				"docs/deploy.md)\n", n->node, (unsigned long long)p->arenas[i].bytes, n->node);
	}
}

/* --isolation process on a multi-node machine: each device child binds
 * itself to its device's node first thing (cz_devproc_place, before it
 * maps anything or starts a thread, so all of the child follows: its
 * consumers, the backend's threads, every page it faults), by the plan
 * that this environment variable carries through the exec.  Set once,
 * before the engine starts any thread (setenv is not safe against a
 * concurrent getenv); unset when the plan binds nothing, so a child never
 * applies another daemon's plan. */
void cz_numa_devproc_env(const struct cz_engine *e)
{
	static char buf[64 * 1024];
	if (!e->place || !e->place->bind || cz_topo_nnodes(e->place->topo) < 2 ||
	    cz_place_env_format(e->place, buf, sizeof(buf)) < 0) {
		unsetenv(CZ_NUMA_PLACEMENT_ENV);
		return;
	}
	setenv(CZ_NUMA_PLACEMENT_ENV, buf, 1);
}

void cz_numa_child_place(unsigned dev)
{
	const char *env = getenv(CZ_NUMA_PLACEMENT_ENV);
	int node = -1;
	int rc = env ? cz_place_env_apply(env, dev, &node) : 1;
	if (rc < 0)
		fprintf(stderr, "cz-dev%u: cannot bind to node %d (%s): %s\n", dev, node, CZ_NUMA_PLACEMENT_ENV,
			strerror(-rc));
}

/*
 * RESIDENT KEYS: one copy, its pages interleaved over the nodes that have
 * devices (bit n of the mask: node n), not one copy per node.  Who reads a
 * key: every synthesis worker, each partition (the coefficient table and
 * row offsets, streamed), and the cpu backend's MSMs (the bases; a cuda
 * device reads them once, at upload).  A copy on the loader's node made
 * every read of the other node's workers remote: in the two-node VM all
 * 512 pages of the test key sat on one node (selftests/vm, move_pages),
 * half the workers reading 100% remote; interleaved, 256 and 256, each
 * node's workers reading half local, half remote, and both memory
 * controllers sharing the load.  A copy per node would make every read
 * local, at one more key per node: a proving key is tens of GB, charged to
 * the budget that partitions need, and the streamed reads are a small part
 * of a partition's traffic beside its own buffers (which are local).  The
 * bandwidth side needs a real dual-socket machine: docs/deploy.md gives
 * the method, and a per-node copy is the change to make if it shows the
 * remote half costing more than the memory.  Only when the plan is of this
 * machine (a --topology plan binds nothing); 0 otherwise.
 */
uint64_t cz_numa_key_nodes(const struct cz_engine *e)
{
	uint64_t m = 0;
	if (!e->place || !e->place->bind || cz_topo_nnodes(e->place->topo) < 2)
		return 0;
	for (unsigned k = 0; k < e->place->narenas; k++)
		if (e->place->arenas[k].node >= 0 && e->place->arenas[k].node < 64)
			m |= 1ull << e->place->arenas[k].node;
	return m;
}

void cz_numa_bind_worker(struct cz_engine *e, unsigned w)
{
	int rc = e->place ? cz_place_apply_worker(e->place, w) : 0;
	if (rc)
		fprintf(stderr, "cuzkd: synthesis worker %u: cannot bind to node %d: %s\n", w,
			e->place->workers[w].node, strerror(-rc));
}

void cz_numa_bind_device(struct cz_engine *e, unsigned dev)
{
	int rc = e->place ? cz_place_apply_device(e->place, dev) : 0;
	if (rc)
		fprintf(stderr, "cuzkd: device %u: cannot bind to node %d: %s\n", dev,
			e->place->devs[dev].node, strerror(-rc));
}

/* Opens device i from a thread bound to its node, so that what the backend
 * starts inherits the binding; the caller's own binding is put back. */
struct cz_device *cz_numa_open_device(struct cz_engine *e, unsigned i, char *err, size_t cap)
{
	cpu_set_t saved;
	int have = e->place && e->place->bind && !sched_getaffinity(0, sizeof(saved), &saved);
	if (have)
		cz_numa_bind_device(e, i);
	struct cz_device *d = e->be->open(i, &e->bopts, err, cap);
	if (have) {
		sched_setaffinity(0, sizeof(saved), &saved);
		cz_place_reset_mempolicy();
	}
	return d;
}

void cz_numa_count(struct cz_engine *e, const struct cz_part *p, unsigned dev)
{
	if (!e->place || dev >= e->place->ndev)
		return;
	int dn = e->place->devs[dev].node;
	int ai = cz_place_arena_index(e->place, dn);
	if (ai >= 0)
		atomic_fetch_add_explicit(&e->node_parts[ai], 1, memory_order_relaxed);
	if (p->node >= 0 && p->node != dn)
		atomic_fetch_add_explicit(&e->cross_node, 1, memory_order_relaxed);
}

json_object *cz_numa_status_json(struct cz_engine *e)
{
	if (!e->place)
		return NULL;
	json_object *r = cz_place_json(e->place), *pn = json_object_new_array();
	for (unsigned i = 0; i < e->place->narenas; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "node", json_object_new_int(e->place->arenas[i].node));
		json_object_object_add(o, "partitions", json_object_new_uint64(atomic_load(&e->node_parts[i])));
		json_object_array_add(pn, o);
	}
	json_object_object_add(r, "node_partitions", pn);
	json_object_object_add(r, "cross_node", json_object_new_uint64(atomic_load(&e->cross_node)));
	return r;
}

/* Arena k holds its node's share of the buffers: the budget split by
 * devices per node, plus the 1/8 slab rounding and 64 MiB slack each; a
 * node's region is bound to it before its first page is touched
 * (alloc/region.c mbind), and only when the plan is of this machine.  One
 * arena (one node, or no plan) is exactly the single arena of before. */
int cz_numa_arenas_create(struct cz_engine *e)
{
	uint64_t budget = e->cfg.mem_budget;
	unsigned n = e->place && e->place->narenas ? e->place->narenas : 1;

	for (unsigned k = 0; k < n; k++) {
		uint64_t share = n == 1 ? budget : e->place->arenas[k].bytes;
		int node = e->place && e->place->bind && e->place->narenas &&
			   cz_topo_nnodes(e->place->topo) > 1 ? e->place->arenas[k].node : CZ_REGION_NODE_NONE;
		e->node_arena[k] = cz_slab_arena_create(share + share / 8 + (64u << 20), node, 0, 0);
		if (!e->node_arena[k]) {
			cz_numa_arenas_destroy(e);
			return -ENOMEM;
		}
		e->narena = k + 1;
		/* The devices copy partitions from here: pinned once (cuda),
		 * where the consumers run (device children pin their mapping) */
		const struct cz_region *rg = cz_slab_region(e->node_arena[k]);
		if (e->be && e->be->pin_host && e->cfg.isolation == CZ_ISOLATION_THREAD)
			e->be->pin_host(rg->base, rg->size);
		if (node >= 0 && cz_slab_region(e->node_arena[k])->node != node)
			fprintf(stderr, "cuzkd: node %d: mbind of its %llu-byte arena failed: its pages go "
				"where they are first touched (docs/deploy.md, when a node is short)\n", node,
				(unsigned long long)(share + share / 8 + (64u << 20)));
	}
	e->arena = e->node_arena[0];
	return 0;
}

void cz_numa_arenas_destroy(struct cz_engine *e)
{
	for (unsigned k = 0; k < e->narena; k++) {
		if (e->be && e->be->unpin_host && e->cfg.isolation == CZ_ISOLATION_THREAD)
			e->be->unpin_host(cz_slab_region(e->node_arena[k])->base);
		cz_slab_arena_destroy(e->node_arena[k]);
	}
	e->narena = 0;
	e->arena = NULL;
}

/* No magazines (engine/control/keys.c says why). */
int cz_numa_caches_create(struct cz_engine *e, struct cz_circuit *c)
{
	for (unsigned k = 0; k < e->narena; k++)
		if (!(c->node_cache[k] = cz_slab_cache_create(e->node_arena[k], c->name, c->part_bytes,
							      CZ_SLAB_NOMAG))) {
			cz_numa_caches_destroy(c);
			return -ENOMEM;
		}
	c->cache = c->node_cache[0];
	return 0;
}

void cz_numa_caches_destroy(struct cz_circuit *c)
{
	for (unsigned k = 0; k < CZ_PLACE_MAX_NODES && c->node_cache[k]; k++) {
		cz_slab_cache_destroy(c->node_cache[k]);
		c->node_cache[k] = NULL;
	}
	c->cache = NULL;
}

void *cz_numa_buffer_get(struct cz_engine *e, struct cz_part *p, int arena)
{
	struct cz_circuit *c = p->job->circ;
	unsigned n = e->narena, k0 = arena >= 0 && (unsigned)arena < n ? (unsigned)arena : 0;

	/* The worker's own node's arena: one cache lock (dispatch.c).  A full
	 * one (its share of the budget is out while the budget is not)
	 * borrows from the next node's, and the partition counts as synthesized
	 * there. */
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (k0 + i) % n;
		void *m = cz_slab_get(c->node_cache[k]);
		if (!m)
			continue;
		p->mem = m;
		p->cache = c->node_cache[k];
		if (e->place && n > 1)
			p->node = e->place->arenas[k].node;
		return m;
	}
	return NULL;
}

uint64_t cz_numa_buffer_off(const struct cz_engine *e, const struct cz_part *p)
{
	uint64_t node = p->node >= 0 && p->node < 255 ? (uint64_t)(p->node + 1) << 48 : 0;
	if (!p->mem)
		return node;
	for (unsigned k = 0; k < e->narena; k++)
		if (p->cache == p->job->circ->node_cache[k])
			return (uint64_t)k << 56 | node | cz_slab_off(e->node_arena[k], p->mem);
	return node;
}

/* The order thread's and the consumers' view: each device's node, in the
 * pipe's region (order.c, ACROSS NODES); nothing on a one-node plan. */
void cz_numa_pipe_nodes(struct cz_engine *e)
{
	bool multi = e->place && cz_topo_nnodes(e->place->topo) > 1;
	for (unsigned d = 0; multi && d < e->ndev && d < e->place->ndev; d++)
		cz_pipe_dev_node(&e->pipe, d, e->place->devs[d].node);
}
