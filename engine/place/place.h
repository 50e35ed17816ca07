/* SPDX-License-Identifier: MIT */
/*
 * engine/place/place.h — the machine's topology and where cuzkd puts its work on
 * it (see engine/place/place.c for the design).
 *
 * The topology (engine/place/topo.c) comes from hwloc: this machine, or an hwloc
 * XML file (`lstopo server.xml` on a real server) so that anyone can plan
 * and test that server's placement.  A build without hwloc sees one node
 * holding every CPU it may run on, and refuses --topology.
 *
 * The plan (engine/place/place.c) says, per NUMA node, which devices, synthesis
 * workers and partition arena live there; cuzkd --print-placement prints
 * it, status shows it, and cz_place_apply_* binds a thread to it.
 */
#ifndef CZ_PLACE_H
#define CZ_PLACE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_PLACE_MAX_NODES 64   /* NUMA nodes a plan handles (os ids 0..1023) */

/* --- topology (engine/place/topo.c) --- */

struct cz_topo;

struct cz_topo_node {
	int node;               /* the OS's node number */
	unsigned ncpus;
	unsigned *cpus;         /* OS CPU numbers, ascending */
	uint64_t mem_bytes;     /* local memory */
	uint64_t hugepages_2m;  /* 2 MiB hugepages reserved on the node */
};

/* xml NULL: this machine.  io: keep PCI objects (for cz_topo_pci_node).
 * NULL with err on failure (naming the file). */
struct cz_topo *cz_topo_load(const char *xml, bool io, char *err, size_t cap);
void cz_topo_free(struct cz_topo *t);
unsigned cz_topo_nnodes(const struct cz_topo *t);
const struct cz_topo_node *cz_topo_node(const struct cz_topo *t, unsigned i);
/* Index (for cz_topo_node) of OS node `node`, or -1. */
int cz_topo_node_index(const struct cz_topo *t, int node);
/* OS node of the PCI function "dddd:bb:dd.f" (or "bb:dd.f"): the nearest
 * non-I/O ancestor's first node; -1 if the topology has no such device or
 * no I/O objects (a build without hwloc). */
int cz_topo_pci_node(const struct cz_topo *t, const char *busid);
/* true when the topology is the running machine (binding makes sense). */
bool cz_topo_is_this_system(const struct cz_topo *t);
/* true in a build with hwloc. */
bool cz_topo_have_hwloc(void);

/* --- the plan (engine/place/place.c) --- */

struct cz_place_opts {
	const char *topology;     /* hwloc XML, NULL = this machine */
	const char *device_nodes; /* "0,1,1": device i's node (cycled); NULL = defaults */
	unsigned ndev;            /* devices; 0 with dev_per_node: one per node with CPUs */
	bool dev_per_node;
	unsigned nworkers;        /* synthesis workers */
	uint64_t mem_budget;      /* bytes of partition buffers, split by devices per node */
	/* Device i's PCI bus id into buf (cuda), or NULL / nonzero = none. */
	int (*pci_bus_id)(unsigned index, char *buf, size_t cap);
};

struct cz_place_dev {
	unsigned device;
	int node;               /* OS node */
	char pci[32];           /* "" when the device has none */
};

struct cz_place_worker {
	unsigned worker;
	int node;
};

struct cz_place_arena {
	int node;
	uint64_t bytes;
};

struct cz_place {
	struct cz_topo *topo;
	unsigned ndev, nworkers, narenas;
	struct cz_place_dev *devs;
	struct cz_place_worker *workers;
	struct cz_place_arena *arenas;  /* one per node with a device, ascending node */
	bool bind;                      /* the topology is this machine: apply binds */
};

/* NULL with err naming the option or file on failure. */
struct cz_place *cz_place_plan(const struct cz_place_opts *o, char *err, size_t cap);
void cz_place_free(struct cz_place *p);
/* Index into p->arenas of OS node `node`'s arena, or -1. */
int cz_place_arena_index(const struct cz_place *p, int node);
/* {nodes[], devices[], synth_workers[], arenas[]} as docs/cuzkd.8.md says. */
json_object *cz_place_json(const struct cz_place *p);

/* The calling thread (and the threads and processes it creates later) runs
 * on device dev's node: CPU affinity to the node's CPUs, memory policy
 * bound to the node.  A device's consumer threads call it (a device child
 * binds itself through cz_place_env_apply).  0, or -errno; a no-op
 * returning 0 when !p->bind. */
int cz_place_apply_device(const struct cz_place *p, unsigned dev);
/* The same for synthesis worker w (0-based). */
int cz_place_apply_worker(const struct cz_place *p, unsigned w);
/* The same for an OS node directly. */
int cz_place_apply_node(const struct cz_place *p, int node);
/* A device process's placement travels to it in the environment
 * (CUZK_DEVICE_PLACEMENT, set by cuzkd before its device children start;
 * engine/place/numa.c): "NODE:CPU,CPU,...;..." with device i's the i-th entry.
 * format: into buf, its length or -ENOSPC.  apply: binds the calling
 * thread (and what it starts later) to device dev's entry, *node its
 * node; 0, 1 when env has no entry for dev, or -errno (-EINVAL: bad). */
int cz_place_env_format(const struct cz_place *p, char *buf, size_t cap);
int cz_place_env_apply(const char *env, unsigned dev, int *node);
/* The calling thread's memory policy back to the default (local). */
void cz_place_reset_mempolicy(void);

#endif
