/* SPDX-License-Identifier: MIT */
/*
 * engine/control/ops.c — the control protocol's ops, one row each: its
 * name, the fields it may carry (docs/protocol.md), whether only admins may
 * make it, and its handler.  The access rules (engine/control/access.c),
 * the routing (cz_engine_request, engine/engine.c) and the list of known
 * ops an unknown one is answered with all read this table, so a new
 * command is one row and one handler here (plus cuzkctl and
 * docs/protocol.md).
 *
 * Every handler has one shape: it may keep the request's descriptors
 * (owns_fds: submit, trace), else the router closes them after it.
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static json_object *op_load(struct cz_engine *e, json_object *req, int *fds, int nfds,
			    struct cz_ctl_peer *peer)
{
	(void)fds, (void)nfds;
	return cz_req_load(e, req, peer);
}

static json_object *op_unload(struct cz_engine *e, json_object *req, int *fds, int nfds,
			      struct cz_ctl_peer *peer)
{
	(void)fds, (void)nfds, (void)peer;
	return cz_req_unload(e, req);
}

static json_object *op_circuits(struct cz_engine *e, json_object *req, int *fds, int nfds,
				struct cz_ctl_peer *peer)
{
	(void)req, (void)fds, (void)nfds, (void)peer;
	return cz_req_circuits(e);
}

static json_object *op_submit(struct cz_engine *e, json_object *req, int *fds, int nfds,
			      struct cz_ctl_peer *peer)
{
	if (e->fleet)
		return cz_fnode_submit(e, req, fds, nfds, cz_access_owner(peer));
	return cz_req_submit(e, req, fds, nfds, cz_access_owner(peer));
}

static json_object *op_await(struct cz_engine *e, json_object *req, int *fds, int nfds,
			     struct cz_ctl_peer *peer)
{
	if (nfds > 1 || (nfds && e->fleet)) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		return e->fleet ? cz_ctl_err("await: a passed descriptor (the proofs delivered) is not served in "
					      "a fleet yet")
				: cz_ctl_err("await takes at most one passed descriptor (to write the proofs into), "
					     "got %d", nfds);
	}
	if (e->fleet)
		return cz_fnode_await(e, req, peer);
	json_object *r = cz_req_await(e, req, peer);
	if (nfds == 1) {
		r = cz_req_deliver(r, fds[0], peer);
		close(fds[0]);
	}
	return r;
}

static json_object *op_cancel(struct cz_engine *e, json_object *req, int *fds, int nfds,
			      struct cz_ctl_peer *peer)
{
	(void)fds, (void)nfds;
	if (e->fleet)
		return cz_fnode_cancel(e, req, peer);
	return cz_req_cancel(e, req);
}

static json_object *op_status(struct cz_engine *e, json_object *req, int *fds, int nfds,
			      struct cz_ctl_peer *peer)
{
	(void)req, (void)fds, (void)nfds;
	json_object *r = cz_req_status(e, cz_access_view(peer));
	if (e->fleet)
		cz_fnode_status(e, r);
	return r;
}

static json_object *op_trace(struct cz_engine *e, json_object *req, int *fds, int nfds,
			     struct cz_ctl_peer *peer)
{
	return cz_req_trace(e, req, fds, nfds, peer);
}

static json_object *op_device(struct cz_engine *e, json_object *req, int *fds, int nfds,
			      struct cz_ctl_peer *peer)
{
	json_object *dv, *av;

	(void)fds, (void)nfds, (void)peer;
	if (!json_object_object_get_ex(req, "device", &dv) || !json_object_is_type(dv, json_type_int) ||
	    json_object_get_int64(dv) < 0 || json_object_get_int64(dv) >= CZ_ENGINE_MAX_DEVICES ||
	    !json_object_object_get_ex(req, "action", &av) || !json_object_is_type(av, json_type_string))
		return cz_ctl_err("device needs \"device\" (a number) and \"action\" (enable, disable, restart)");
	return cz_devproc_request(e, (unsigned)json_object_get_int64(dv), json_object_get_string(av));
}

/* In the order the unknown-op error lists them. */
static const struct cz_op ops[] = {
	{ "load", { "name", "zkey", "partitions", "wasm", "witness_lib", "progress", "fixed_tables" }, true, false, op_load },
	{ "unload", { "name" }, true, false, op_unload },
	{ "circuits", { 0 }, false, false, op_circuits },
	{ "submit", { "circuit", "witnesses", "inputs", "priority", "id" }, false, true, op_submit },
	{ "await", { "job", "timeout" }, false, true, op_await },
	{ "cancel", { "job" }, false, false, op_cancel },
	{ "status", { 0 }, false, false, op_status },
	{ "trace", { "chrome", "job", "since", "follow" }, false, true, op_trace },
	{ "device", { "device", "action" }, true, false, op_device },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))
_Static_assert(NOPS <= CZ_OP_MAX, "CZ_OP_MAX bounds the ops");

const struct cz_op *cz_op_find(const char *name)
{
	for (size_t k = 0; k < NOPS; k++)
		if (!strcmp(ops[k].name, name))
			return &ops[k];
	return NULL;
}

json_object *cz_op_unknown(const char *name)
{
	char known[256];
	size_t at = 0;

	known[0] = 0;
	for (size_t k = 0; k < NOPS && at < sizeof(known); k++)
		at += (size_t)snprintf(known + at, sizeof(known) - at, "%s%s", k ? ", " : "", ops[k].name);
	return cz_ctl_err("unknown op \"%s\" (known: %s)", name, known);
}
