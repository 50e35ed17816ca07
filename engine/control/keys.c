/* SPDX-License-Identifier: MIT */
/*
 * engine/control/keys.c — resident proving keys.  A key is read once (outside the
 * engine lock: a large .zkey takes seconds), charged to the memory budget
 * while loaded, and freed by `unload` only when no job uses it.  The
 * .zkey's primes pick the curve, and one code path loads a key of any
 * curve through that curve's ops (curves/curves.h); keys of every curve
 * live side by side, each job proving over its circuit's.
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"
#include "synth/witness/witness.h"
#include "zk/io/zkey.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cz_circuit *cz_circuit_find(struct cz_engine *e, const char *name)
{
	for (struct cz_circuit *c = e->circuits; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void circuit_free(const struct cz_backend *be, struct cz_circuit *c)
{
	if (c->kpinned)
		be->unpin_host(c->kreg.base);
	cz_numa_caches_destroy(c);
	cz_witload_detach(c);
	const struct cz_curve_ops *cv = cz_curve_ops(c->curve);
	if (cv) {       /* NULL: freed before its .zkey named a curve */
		if (c->dom)
			cv->dom_destroy(c->dom);
		cv->key_free(&c->key, &c->kreg);
	}
	free(c);
}

/* Pinned for the devices' key uploads; device children pin their own
 * mapping (engine/device/devproc.c). */
static void key_pin(struct cz_engine *e, struct cz_circuit *c)
{
	if (e->be->pin_host && e->cfg.isolation == CZ_ISOLATION_THREAD)
		c->kpinned = !e->be->pin_host(c->kreg.base, c->kreg.size);
}

/* Which key: SHA-256 over the .zkey's sections of types 1, 2 and 3 (its
 * header, the Groth16 header with the verification key, and IC), each as
 * type (u32 LE), size (u64 LE) and its bytes, in type order: a few KiB
 * read, whatever the key's size (the proving sections are not).  0, or -1
 * (not a .zkey's layout: no digest). */
static int key_digest(const char *path, uint8_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	uint8_t h[12], b[4096];
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (fd < 0 || !c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL) || pread(fd, h, 12, 0) != 12 ||
	    memcmp(h, "zkey", 4))
		goto out;
	uint32_t nsec = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
	int found = 0;
	for (uint32_t want = 1; want <= 3; want++) {
		off_t at = 12;
		for (uint32_t s = 0; s < nsec && s < 64; s++) {
			if (pread(fd, h, 12, at) != 12)
				goto out;
			uint32_t type = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
					(uint32_t)h[3] << 24;
			uint64_t size = 0;
			for (int i = 11; i >= 4; i--)
				size = size << 8 | h[i];
			if (size > (1ull << 40))
				goto out;
			if (type == want) {
				if (size > (64ull << 20) || !EVP_DigestUpdate(c, h, 12))
					goto out;
				for (uint64_t k = 0; k < size;) {
					size_t n = size - k < sizeof(b) ? (size_t)(size - k) : sizeof(b);
					if (pread(fd, b, n, at + 12 + (off_t)k) != (ssize_t)n || !EVP_DigestUpdate(c, b, n))
						goto out;
					k += n;
				}
				found++;
				break;
			}
			at += 12 + (off_t)size;
		}
	}
	unsigned n = 0;
	rc = found == 3 && EVP_DigestFinal_ex(c, out, &n) && n == CZ_JOURNAL_DIGEST ? 0 : -1;
out:
	EVP_MD_CTX_free(c);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The key at path into c, over its own curve: read, moved to a shared
 * region, its NTT domain made; key_bytes and part_bytes set.  0, or -1
 * with err set (c's parts made so far are circuit_free's). */
static int circuit_key_load(struct cz_engine *e, struct cz_circuit *c, const char *path,
			    uint64_t tables, char *err, size_t cap)
{
	const struct cz_backend *be = e->be;
	/* On a multi-node machine the key's pages are interleaved over the
	 * nodes with devices (cz_numa_key_nodes: why one interleaved copy). */
	uint64_t nodes = cz_numa_key_nodes(e);
	char msg[160];

	if (cap < CZ_ERRLEN || cz_zkey_curve(path, &c->curve, err))
		return -1;
	const struct cz_curve_ops *cv = cz_curve_ops(c->curve);
	/* The tables are planned (and charged) before the share, which gives
	 * them their place, and built there after it (engine/control/tables.c). */
	if (cv->backend_check(be, path, err, cap) || cv->key_load(&c->key, path, err, cap) ||
	    cz_tables_plan(e, c, cv, tables, err, cap))
		return -1;
	/* One copy, in shared memory: device children map it (curves/shkey.c). */
	if (cv->key_share(&c->key, &c->kreg, nodes, msg, sizeof(msg))) {
		snprintf(err, cap, "%s: %s", path, msg);
		return -1;
	}
	if (cz_tables_build(e, c, cv, err, cap))
		return -1;
	key_pin(e, c);
	if (!(c->dom = cv->dom_create(c->key.log2n))) {
		snprintf(err, cap, "%s: out of memory for the 2^%u NTT domain", path, c->key.log2n);
		return -1;
	}
	c->key_bytes = cv->key_bytes(&c->key) + cv->dom_bytes(c->dom);
	c->part_bytes = cv->part_bytes(&c->key);
	c->has_kdigest = key_digest(path, c->kdigest) == 0;
	return 0;
}

/* load's fields (docs/protocol.md); NULL, or the error naming one. */
static json_object *load_fields(json_object *req, const char **name, const char **path, uint64_t *parts,
				const char **wasm, const char **wlib, bool *progress, uint64_t *tables)
{
	json_object *bad;
	const char *tabs = NULL;
	if ((bad = cz_field_str(req, "name", true, name)) || (bad = cz_field_str(req, "zkey", true, path)) ||
	    (bad = cz_field_uint(req, "partitions", CZ_ENGINE_MAX_PARTS, parts)) ||
	    (bad = cz_field_str(req, "wasm", false, wasm)) ||
	    (bad = cz_field_str(req, "witness_lib", false, wlib)) ||
	    (bad = cz_field_bool(req, "progress", progress)) ||
	    (bad = cz_field_str(req, "fixed_tables", false, &tabs)))
		return bad;
	if (tabs && cz_engine_parse_tables(tabs, tables))
		return cz_ctl_err("\"fixed_tables\" must be \"auto\", \"off\" or a size in bytes "
				  "(K, M, G, T suffixes), not '%s'", tabs);
	return NULL;
}

/* load's answer for c, loaded. */
static json_object *load_reply(const struct cz_circuit *c)
{
	json_object *r = cz_ctl_ok();
	json_object_object_add(r, "circuit", json_object_new_string(c->name));
	json_object_object_add(r, "curve", json_object_new_string(cz_curve_tag(c->curve)));
	json_object_object_add(r, "log2n", json_object_new_int((int)c->key.log2n));
	json_object_object_add(r, "key_bytes", json_object_new_int64((int64_t)c->key_bytes));
	json_object_object_add(r, "tables_bytes", json_object_new_int64((int64_t)c->tables_bytes));
	json_object_object_add(r, "tables_ms", json_object_new_double(c->tables_ms));
	if (c->wprog) {
		json_object_object_add(r, "witness_lib", json_object_new_string(cz_witness_prog_lib(c->wprog)));
		cz_witload_report(c, r);
	}
	return r;
}

json_object *cz_req_load(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer)
{
	const char *name = NULL, *path = NULL, *wasm = NULL, *wlib = NULL;
	uint64_t parts = 0, tables = e->cfg.fixed_tables;
	bool progress = false;
	char err[256];
	json_object *bad;

	if ((bad = load_fields(req, &name, &path, &parts, &wasm, &wlib, &progress, &tables)))
		return bad;
	if (!*name || strlen(name) >= 64)
		return cz_ctl_err("\"name\" must be 1 to 63 characters");
	if (!*path)
		return cz_ctl_err("\"zkey\" must be a path, not empty");
	pthread_mutex_lock(&e->lock);
	bool dup = cz_circuit_find(e, name) != NULL;
	pthread_mutex_unlock(&e->lock);
	if (dup)
		return cz_ctl_err("circuit '%s' is already loaded (unload it first)", name);

	struct cz_circuit *c = calloc(1, sizeof(*c));
	if (!c)
		return cz_ctl_err("out of memory");
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->partitions = (uint32_t)parts;
	if (circuit_key_load(e, c, path, tables, err, sizeof(err)) ||
	    cz_witload_attach(e, c, wasm, wlib, progress ? peer : NULL, err, sizeof(err))) {
		cz_tables_unreserve(e, c);
		circuit_free(e->be, c);
		return cz_ctl_err("%s", err);
	}

	json_object *r = NULL;
	struct cz_budget_stat st;
	/* The tables' bytes are held already (cz_tables_plan): the rest of
	 * key_bytes is charged here. */
	uint64_t rest = c->key_bytes - c->tables_resv;
	pthread_mutex_lock(&e->lock);
	cz_budget_stat(e->budget, &st);
	if (cz_circuit_find(e, name))
		r = cz_ctl_err("circuit '%s' is already loaded (unload it first)", name);
	else if (rest + c->part_bytes > st.free)
		r = cz_ctl_err("%s: the key (%llu bytes) and one partition (%llu bytes) do not fit the free "
				"budget (%llu of %llu bytes; raise --mem-budget)", path,
				(unsigned long long)c->key_bytes, (unsigned long long)c->part_bytes,
				(unsigned long long)st.free, (unsigned long long)st.limit);
	/* No magazines: a buffer is taken on a synthesis thread and given back
	 * on the finalizer's, so per-thread magazines would only shuttle it
	 * through the depot and malloc new ones as the flow settles; the cache
	 * lock once per partition costs nothing, and once the slabs exist
	 * (the high-water mark of partitions in flight) get and put make no
	 * heap call. */
	else if (e->arena && cz_numa_caches_create(e, c))
		r = cz_ctl_err("%s: cannot make a buffer cache of %llu-byte partitions", path,
				(unsigned long long)c->part_bytes);
	else if (cz_budget_try_reserve(e->budget, rest))
		r = cz_ctl_err("%s: the key (%llu bytes) does not fit the free budget", path,
				(unsigned long long)c->key_bytes);
	if (!r) {
		/* An id for the consumers (engine/pipeline/pipe.h), set before any job can
		 * name the circuit: the submit that does takes this lock after. */
		unsigned id = 0;
		while (id < CZ_PIPE_KEYS && e->key_used[id])
			id++;
		if (id == CZ_PIPE_KEYS) {
			r = cz_ctl_err("%s: %u keys are loaded already: unload one first", path,
					CZ_PIPE_KEYS);
			cz_budget_release(e->budget, rest);
		} else {
			e->key_used[id] = 1;
			c->key_id = id;
			struct cz_pipe_key pk = { .curve = c->curve, .key = &c->key, .dom = c->dom };
			cz_pipe_key_set(&e->pipe, id, &pk);
			c->next = e->circuits;
			e->circuits = c;
			e->keys_bytes += c->key_bytes;  /* what partitions can never have (engine/pipeline/admit.c) */
			cz_metrics_keys(e->metrics, (int64_t)c->key_bytes, 1);
			cz_recover_resume_locked(e, c);   /* jobs from before a restart */
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (r) {
		cz_tables_unreserve(e, c);
		circuit_free(e->be, c);
		return r;
	}
	c->tables_resv = 0;     /* part of key_bytes now: unload gives it back */
	cz_devproc_key(e, c->key_id, c->kreg.fd);      /* device children map it */
	fprintf(stderr, "cuzkd: loaded %s from %s: %s, 2^%u domain, %u signals, %u public, %llu bytes\n",
		name, path, cz_curve_name(c->curve), c->key.log2n, c->key.nvars, c->key.npub,
		(unsigned long long)c->key_bytes);
	return load_reply(c);
}

json_object *cz_req_unload(struct cz_engine *e, json_object *req)
{
	const char *name = NULL;
	json_object *r = NULL;
	struct cz_circuit *gone = NULL;

	if ((r = cz_field_str(req, "name", true, &name)))
		return r;
	pthread_mutex_lock(&e->lock);
	struct cz_circuit **pp = &e->circuits;
	while (*pp && strcmp((*pp)->name, name))
		pp = &(*pp)->next;
	if (!*pp)
		r = cz_ctl_err("unknown circuit '%s'", name);
	else if ((*pp)->jobs)
		r = cz_ctl_err("circuit '%s' is in use by %d active job(s); cancel or await them first", name,
				(*pp)->jobs);
	else {
		gone = *pp;
		*pp = gone->next;
		cz_engine_budget_release_locked(e, gone->key_bytes);
		e->keys_bytes -= gone->key_bytes;
		cz_pipe_key_set(&e->pipe, gone->key_id, NULL);   /* no partition names it */
		e->key_used[gone->key_id] = 0;
		cz_metrics_keys(e->metrics, -(int64_t)gone->key_bytes, -1);
	}
	pthread_mutex_unlock(&e->lock);
	if (r)
		return r;
	/* No job uses it: no device computes with it now.  Devices that keep a
	 * copy (cuda) drop it, or it would stay resident after the key is gone. */
	for (unsigned i = 0; e->be->unload_key && i < e->ndev; i++)
		if (e->devs[i].dev)     /* either curve: the union's address is the key's */
			e->be->unload_key(e->devs[i].dev, &gone->key);
	cz_devproc_key(e, gone->key_id, -1);     /* children drop theirs */
	/* Finished jobs still name the circuit in status: keep only its name. */
	pthread_mutex_lock(&e->lock);
	for (struct cz_job *j = e->jobs; j; j = j->next)
		if (j->circ == gone)
			j->circ = NULL;
	pthread_mutex_unlock(&e->lock);
	circuit_free(e->be, gone);
	fprintf(stderr, "cuzkd: unloaded %s\n", name);
	return cz_ctl_ok();
}

json_object *cz_req_circuits(struct cz_engine *e)
{
	json_object *r = cz_ctl_ok(), *a = json_object_new_array();
	pthread_mutex_lock(&e->lock);
	for (struct cz_circuit *c = e->circuits; c; c = c->next) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(c->name));
		json_object_object_add(o, "zkey", json_object_new_string(c->path));
		if (c->has_kdigest) {   /* what a resumed job's key_digest names */
			char h[2 * CZ_JOURNAL_DIGEST + 1];
			cz_journal_hex(h, c->kdigest);
			json_object_object_add(o, "key_digest", json_object_new_string(h));
		}
		json_object_object_add(o, "curve", json_object_new_string(cz_curve_tag(c->curve)));
		json_object_object_add(o, "log2n", json_object_new_int((int)c->key.log2n));
		json_object_object_add(o, "signals", json_object_new_int64(c->key.nvars));
		json_object_object_add(o, "public", json_object_new_int64(c->key.npub));
		json_object_object_add(o, "partitions", json_object_new_int64(c->partitions));
		json_object_object_add(o, "key_bytes", json_object_new_int64((int64_t)c->key_bytes));
		json_object_object_add(o, "partition_bytes", json_object_new_int64((int64_t)c->part_bytes));
		json_object_object_add(o, "tables_bytes", json_object_new_int64((int64_t)c->tables_bytes));
		json_object_object_add(o, "active_jobs", json_object_new_int(c->jobs));
		if (c->wprog) {         /* takes inputs (docs/protocol.md) */
			json_object_object_add(o, "wasm", json_object_new_string(c->wasm));
			json_object_object_add(o, "witness_sha256",
					       json_object_new_string(cz_witness_prog_sha256(c->wprog)));
			json_object_object_add(o, "witness_memory_bytes",
					       json_object_new_int64((int64_t)cz_witgen_charge_locked(e, c)));
			json_object_object_add(o, "witness_memory_limit_bytes",
					       json_object_new_int64((int64_t)c->wmem_limit));
			json_object_object_add(o, "witness_memory_peak_bytes",
					       json_object_new_int64((int64_t)c->wmem_peak));
		}
		json_object_array_add(a, o);
	}
	json_object *building = cz_witload_building_locked(e);
	pthread_mutex_unlock(&e->lock);
	json_object_object_add(r, "circuits", a);
	json_object_object_add(r, "building", building);
	return r;
}

void cz_circuits_free(struct cz_engine *e)
{
	while (e->circuits) {
		struct cz_circuit *c = e->circuits;
		e->circuits = c->next;
		circuit_free(e->be, c);
	}
}
