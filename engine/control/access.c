/* SPDX-License-Identifier: MIT */
/*
 * engine/control/access.c — who may do what, and which fields a request may carry.
 *
 * Every request is judged before its handler runs, by two rules, from its
 * op's row (engine/control/ops.c: its fields, admins only or not):
 *
 * 1. Strict fields.  Each op has a fixed set of fields (docs/protocol.md);
 *    any other is refused naming it.  A field the daemon silently ignored
 *    was how a misspelt "priorty":"critical" or a client built for another
 *    version got a job other than the one it asked for.
 *
 * 2. Permissions.  The caller is the kernel's word on the connection
 *    (SO_PEERCRED, ctl/server.c), never a field of the request.  An admin
 *    (root, cuzkd's own uid, a member of --admin-group; an in-process
 *    caller such as --load or the HTTP listener) may do everything.  Any
 *    other uid may submit jobs, which then belong to it, and await, cancel,
 *    trace and see in status only its own; load, unload, device and the
 *    whole trace are for admins.  Another user's job is, to a non-admin,
 *    an unknown job: the same answer, word for word, and no sequence
 *    number of it in status (only a submit of its id is refused, as the
 *    id is taken).
 *
 *    Files: a non-admin names no path for the daemon to open.  Its
 *    witnesses travel as descriptors it opened itself (cuzkctl submit does
 *    this), so the kernel checked its right to read them, with its own
 *    uid, groups, ACLs, LSM labels and mount namespace, at its own open().
 *    The alternative, opening paths with the caller's credentials
 *    (setfsuid + setgroups around open), is a privileged code path that
 *    must get every one of those right, and is per thread in the kernel but
 *    not in glibc; descriptors need none of it and leave no window between
 *    a check and the open.
 *
 * Job ownership is checked here for the requests that name a job by id,
 * against the jobs the engine holds; a request naming an id the engine
 * does not hold goes on to its handler, which answers "unknown job".
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Who the admins are, for the error. */
static void admin_rule(char *buf, size_t cap)
{
	snprintf(buf, cap, "root, cuzkd's own user (uid %ld) or members of --admin-group", (long)geteuid());
}

/* NULL when req (with op) may run for peer, else the error. */
json_object *cz_access_request(struct cz_engine *e, const struct cz_op *opd, json_object *req,
			       const struct cz_ctl_peer *peer)
{
	const char *op = opd->name;
	char rule[160];

	json_object_object_foreach(req, name, fv) {
		(void)fv;
		if (!strcmp(name, "op"))
			continue;
		const char *const *f = opd->fields;
		while (*f && strcmp(*f, name))
			f++;
		if (*f)
			continue;
		char known[160] = "";
		size_t at = 0;
		for (f = opd->fields; *f; f++)
			at += (size_t)snprintf(known + at, sizeof(known) - at, "%s%s", at ? ", " : "", *f);
		return cz_ctl_err("unknown field \"%.64s\" in a %s request (%s%s)", name, op,
				   at ? "known: " : "it takes none", known);
	}
	if (!peer || peer->admin)
		return NULL;
	admin_rule(rule, sizeof(rule));
	if (opd->admin)
		return cz_ctl_err("%s: permission denied: only %s may; you are uid %ld", op, rule, peer->uid);
	json_object *v;
	if (!strcmp(op, "submit") && json_object_object_get_ex(req, "witnesses", &v))
		return cz_ctl_err("submit: \"witnesses\" by path: permission denied: only %s may have the daemon "
				   "open paths; you are uid %ld: pass the witnesses as descriptors instead "
				   "(cuzkctl submit does)", rule, peer->uid);
	if (!strcmp(op, "trace") && !json_object_object_get_ex(req, "job", &v))
		return cz_ctl_err("trace: the whole trace: permission denied: only %s may; you are uid %ld: "
				   "trace one of your jobs with \"job\"", rule, peer->uid);
	/* await, cancel, trace of one job: its owner only; and a submit may
	 * not reuse another user's id (a retry by its owner gets the job back,
	 * anyone else's would learn it exists and hold an answer it cannot
	 * await). */
	bool sub = !strcmp(op, "submit");
	if (json_object_object_get_ex(req, sub ? "id" : "job", &v) && json_object_is_type(v, json_type_string)) {
		const char *id = json_object_get_string(v);
		long owner = -1;
		bool found = false;
		pthread_mutex_lock(&e->lock);
		for (struct cz_job *j = e->jobs; j && !found; j = j->next)
			if (!strcmp(j->id, id)) {
				found = true;
				owner = j->owner;
			}
		pthread_mutex_unlock(&e->lock);
		/* One only the journal holds (finished before a restart, or
		 * gone from memory since): its journaled owner; a record from
		 * before owners were journaled, the daemon's own. */
		struct cz_jent je;
		if (!found && e->jn && cz_journal_find(e->jn, id, &je, NULL)) {
			found = true;
			owner = je.owner >= 0 ? je.owner : cz_access_owner(NULL);
		}
		if (found && owner != peer->uid && sub)
			return cz_ctl_err("submit: id '%.63s' is in use by another user's job: permission denied: "
					   "only its owner, %s may submit it again; you are uid %ld", id, rule,
					   peer->uid);
		/* Word for word what the handler answers for an id it does not
		 * hold: that another user has a job of that name is not this
		 * caller's to learn (issue 24). */
		if (found && owner != peer->uid)
			return cz_ctl_err("%sunknown job '%s'", strcmp(op, "trace") ? "" : "trace: ", id);
	}
	return NULL;
}

json_object *cz_access_id_owner(const char *id, long holder, long owner)
{
	long self = (long)geteuid();
	if (holder < 0)
		holder = self;  /* a record from before owners were journaled */
	if (holder == owner || owner == 0 || owner == self)
		return NULL;
	return cz_ctl_err("submit: id '%.63s' is in use by another user's job: permission denied: only its "
			   "owner, root or cuzkd's own user (uid %ld) may submit it again; you are uid %ld", id,
			   self, owner);
}

long cz_access_owner(const struct cz_ctl_peer *peer)
{
	return peer ? peer->uid : (long)geteuid();
}

long cz_access_view(const struct cz_ctl_peer *peer)
{
	return peer && !peer->admin ? peer->uid : -1;
}
