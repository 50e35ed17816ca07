/* SPDX-License-Identifier: MIT */
/*
 * engine/place/topo.c — the NUMA topology, read once at start (or from an hwloc
 * XML file) into plain arrays, so that the plan and everything after it
 * never call hwloc again and never depend on its types.
 *
 * What is kept: each NUMA node's OS number, its CPUs (OS numbers, from the
 * node's cpuset), local memory and reserved 2 MiB hugepages (hwloc reads
 * both from /sys/devices/system/node/nodeN/ on a live machine; an XML file
 * carries them), and the hwloc topology itself for PCI lookups, with I/O
 * objects kept so that a GPU's bus id maps to the package or node above its
 * PCI bridge.  A build without hwloc keeps one node 0 holding the CPUs this
 * process may run on and all of RAM: correct on a one-node machine, and
 * binding to it changes nothing.
 */
#define _GNU_SOURCE
#include "engine/place/place.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CZ_HAVE_HWLOC
#include <hwloc.h>
#endif

struct cz_topo {
	unsigned nnodes;
	struct cz_topo_node nodes[CZ_PLACE_MAX_NODES];
	bool this_system;
#ifdef CZ_HAVE_HWLOC
	hwloc_topology_t h;
#endif
};

bool cz_topo_have_hwloc(void)
{
#ifdef CZ_HAVE_HWLOC
	return true;
#else
	return false;
#endif
}

static int cmp_node(const void *a, const void *b)
{
	const struct cz_topo_node *x = a, *y = b;
	return (x->node > y->node) - (x->node < y->node);
}

#ifdef CZ_HAVE_HWLOC
static int load_hwloc(struct cz_topo *t, const char *xml, bool io, char *err, size_t cap)
{
	const char *what = xml ? xml : "this machine";

	if (hwloc_topology_init(&t->h)) {
		snprintf(err, cap, "topology: hwloc_topology_init: %s", strerror(errno));
		return -ENOMEM;
	}
	/* PCI devices and bridges: what a GPU's locality is read from.  Only
	 * when asked: on this machine that runs hwloc's pci plugin
	 * (libpciaccess), which costs a bus scan and keeps ~330 KiB it never
	 * frees (LeakSanitizer sees it), for nothing when no device has a
	 * bus id. */
	hwloc_topology_set_io_types_filter(t->h, io ? HWLOC_TYPE_FILTER_KEEP_IMPORTANT :
					   HWLOC_TYPE_FILTER_KEEP_NONE);
	if (xml && hwloc_topology_set_xml(t->h, xml)) {
		snprintf(err, cap, "--topology %s: cannot read it as hwloc XML (%s)", xml, strerror(errno));
		return -EINVAL;
	}
	if (hwloc_topology_load(t->h)) {
		snprintf(err, cap, "topology of %s: hwloc cannot load it (%s)", what, strerror(errno));
		return -EINVAL;
	}
	t->this_system = hwloc_topology_is_thissystem(t->h);
	int n = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE);
	if (n <= 0) {
		snprintf(err, cap, "topology of %s: no NUMA node", what);
		return -EINVAL;
	}
	if (n > CZ_PLACE_MAX_NODES) {
		snprintf(err, cap, "topology of %s: %d NUMA nodes, at most %d handled", what, n,
			 CZ_PLACE_MAX_NODES);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		struct cz_topo_node *d = &t->nodes[t->nnodes];
		if (o->os_index >= 1024) {
			snprintf(err, cap, "topology of %s: node %u: OS number past 1023", what, o->os_index);
			return -EINVAL;
		}
		d->node = (int)o->os_index;
		d->mem_bytes = o->attr->numanode.local_memory;
		for (unsigned k = 0; k < o->attr->numanode.page_types_len; k++)
			if (o->attr->numanode.page_types[k].size == (2u << 20))
				d->hugepages_2m = o->attr->numanode.page_types[k].count;
		int w = o->cpuset ? hwloc_bitmap_weight(o->cpuset) : 0;
		d->cpus = calloc(w > 0 ? (size_t)w : 1, sizeof(*d->cpus));
		if (!d->cpus) {
			snprintf(err, cap, "topology: out of memory");
			return -ENOMEM;
		}
		t->nnodes++;
		if (w <= 0)
			continue;       /* a memory-only node (CXL, HBM): no CPU to pin to */
		unsigned cpu;
		hwloc_bitmap_foreach_begin(cpu, o->cpuset)
			d->cpus[d->ncpus++] = cpu;
		hwloc_bitmap_foreach_end();
	}
	return 0;
}
#endif

/* Without hwloc: one node 0 of the CPUs we may run on and all of RAM. */
static int load_flat(struct cz_topo *t, char *err, size_t cap)
{
	cpu_set_t set;
	struct cz_topo_node *d = &t->nodes[0];
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (sched_getaffinity(0, sizeof(set), &set))
		CPU_ZERO(&set);
	d->cpus = calloc(CPU_SETSIZE, sizeof(*d->cpus));
	if (!d->cpus) {
		snprintf(err, cap, "topology: out of memory");
		return -ENOMEM;
	}
	for (unsigned c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			d->cpus[d->ncpus++] = c;
	d->mem_bytes = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
	FILE *f = fopen("/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "r");
	unsigned long long hp = 0;
	if (f && fscanf(f, "%llu", &hp) == 1)
		d->hugepages_2m = hp;
	if (f)
		fclose(f);
	t->nnodes = 1;
	t->this_system = true;
	return 0;
}

struct cz_topo *cz_topo_load(const char *xml, bool io, char *err, size_t cap)
{
	struct cz_topo *t = calloc(1, sizeof(*t));
	int rc;

	if (!t) {
		snprintf(err, cap, "topology: out of memory");
		return NULL;
	}
#ifdef CZ_HAVE_HWLOC
	rc = load_hwloc(t, xml, io, err, cap);
#else
	(void)io;
	if (xml) {
		snprintf(err, cap, "--topology %s: this build has no hwloc (install libhwloc-dev, "
			 "tools/install-deps.sh, and rebuild)", xml);
		rc = -ENOTSUP;
	} else {
		rc = load_flat(t, err, cap);
	}
#endif
	(void)load_flat;
	if (rc) {
		cz_topo_free(t);
		return NULL;
	}
	qsort(t->nodes, t->nnodes, sizeof(t->nodes[0]), cmp_node);
	return t;
}

void cz_topo_free(struct cz_topo *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nnodes; i++)
		free(t->nodes[i].cpus);
#ifdef CZ_HAVE_HWLOC
	if (t->h)
		hwloc_topology_destroy(t->h);
#endif
	free(t);
}

unsigned cz_topo_nnodes(const struct cz_topo *t)
{
	return t->nnodes;
}

const struct cz_topo_node *cz_topo_node(const struct cz_topo *t, unsigned i)
{
	return i < t->nnodes ? &t->nodes[i] : NULL;
}

int cz_topo_node_index(const struct cz_topo *t, int node)
{
	for (unsigned i = 0; i < t->nnodes; i++)
		if (t->nodes[i].node == node)
			return (int)i;
	return -1;
}

bool cz_topo_is_this_system(const struct cz_topo *t)
{
	return t->this_system;
}

int cz_topo_pci_node(const struct cz_topo *t, const char *busid)
{
#ifdef CZ_HAVE_HWLOC
	hwloc_obj_t o = hwloc_get_pcidev_by_busidstring(t->h, busid);
	if (!o)
		return -1;
	o = hwloc_get_non_io_ancestor_obj(t->h, o);
	if (!o || !o->nodeset || hwloc_bitmap_iszero(o->nodeset))
		return -1;
	/* Nearest node under that ancestor: the first (a package split into
	 * sub-NUMA clusters reports them all; the device sits on the package). */
	return hwloc_bitmap_first(o->nodeset);
#else
	(void)t;
	(void)busid;
	return -1;
#endif
}
