/* SPDX-License-Identifier: MIT */
/*
 * engine/fleet/proofs.c — a done fleet job's proofs written out as a local
 * job's directory has them (K.proof.json, K.public.json): the one writer
 * both a member's await (engine/control/fleet_node.c) and `cuzkctl --fleet
 * await --out` (tools/cuzkctl/fleet.c) use.  Each partition's proof is in
 * the database as the finalizer's JSON object {"proof": ..., "public": ...}.
 */
#include "engine/fleet/fleet.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int cz_fleet_proofs_write(struct cz_fleet *f, const struct cz_fleet_status *st, const char *dir, char *err, size_t cap)
{
	for (uint32_t k = 0; k < st->nparts; k++) {
		void *buf = NULL;
		size_t len = 0;
		struct cz_key key = { .prio = st->prio, .seq = st->seq, .part = k };
		int rc = cz_fleet_proof(f, key, &buf, &len);
		if (rc) {
			snprintf(err, cap, "partition %u's proof: %s", k, cz_fleet_error(f));
			return rc;
		}
		json_tokener *tok = json_tokener_new();
		json_object *o = tok && len <= INT32_MAX ? json_tokener_parse_ex(tok, buf, (int)len) : NULL, *pr, *pub;
		json_tokener_free(tok);
		free(buf);
		char p[PATH_MAX + 128], q[PATH_MAX + 128];
		snprintf(p, sizeof p, "%s/%u.proof.json", dir, k);
		snprintf(q, sizeof q, "%s/%u.public.json", dir, k);
		bool ok = o && json_object_object_get_ex(o, "proof", &pr) && json_object_object_get_ex(o, "public", &pub) &&
			  !json_object_to_file_ext(p, pr, JSON_C_TO_STRING_PRETTY) &&
			  !json_object_to_file_ext(q, pub, JSON_C_TO_STRING_PRETTY);
		json_object_put(o);
		if (!ok) {
			snprintf(err, cap, "partition %u's proof cannot be written to %s", k, dir);
			return -EIO;
		}
	}
	return 0;
}
