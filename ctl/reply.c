/* SPDX-License-Identifier: MIT */
/*
 * ctl/reply.c — the two shapes of a reply (docs/protocol.md): {"ok": true,
 * ...} and {"ok": false, "error": "..."}.  Here, with the framing, so every
 * part of the daemon that answers a request builds its reply the same way
 * without reaching into the part that routes requests.
 */
#include "ctl/ctl.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>

json_object *cz_ctl_err(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object *r = json_object_new_object();
	json_object_object_add(r, "ok", json_object_new_boolean(0));
	json_object_object_add(r, "error", json_object_new_string(buf));
	return r;
}

json_object *cz_ctl_ok(void)
{
	json_object *r = json_object_new_object();
	json_object_object_add(r, "ok", json_object_new_boolean(1));
	return r;
}
