/* SPDX-License-Identifier: MIT */
/* tools/cuzkctl/loadwatch.h — cuzkctl load's witness-build progress (loadwatch.c). */
#ifndef CZ_CUZKCTL_LOADWATCH_H
#define CZ_CUZKCTL_LOADWATCH_H

#include <json-c/json.h>
#include <sys/types.h>

/* Starts a child that polls the daemon at sock_path (`circuits`'s
 * "building") once a second and prints circuit NAME's build stage to
 * stderr as it changes (and every 10 s within one); its pid, or -1. */
pid_t cz_loadwatch_start(const char *sock_path, const char *name);
/* Ends the child (SIGTERM, reaped). */
void cz_loadwatch_stop(pid_t pid);
/* Sends the load request q (with "progress": true) on sock and prints each
 * build stage the daemon pushes before its answer, as it arrives; returns
 * the answer, or NULL with err. */
json_object *cz_loadwatch_call(int sock, json_object *q, const char *name, char *err, size_t cap);
/* Prints where the load's time went, from its answer's "witness_build". */
void cz_loadwatch_report(const char *name, json_object *r);

#endif
