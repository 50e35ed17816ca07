/* SPDX-License-Identifier: MIT */
/*
 * zk/io/outfile.h — writing a file so that no reader ever sees half of it.
 *
 * Every file cuzk writes (.zkey, .wtns, proof.json, public.json, vk.json,
 * proof.bin) goes to PATH.tmp first and is renamed onto PATH only once all
 * of it has been written and closed without error; rename(2) within one
 * directory is atomic, so PATH is either the old file or the whole new one.
 * On any failure PATH.tmp is removed and PATH is left as it was.
 *
 * Not a durability guarantee: there is no fsync, so after a power loss PATH
 * may be the old file or (depending on the file system) empty.  The daemon's
 * outputs, which must survive a crash, go through engine/durable/output.c instead.
 *
 * Errors: 0 or a negative errno value, with a message naming the file in
 * err[CZ_ERRLEN].
 */
#ifndef CZ_OUTFILE_H
#define CZ_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "zk/io/iden3bin.h"        /* CZ_ERRLEN, cz_errf */

struct cz_outfile {
	FILE *fp;               /* open on tmp, for the caller's writes */
	const char *path;       /* final name (borrowed) */
	char tmp[4096];         /* path + ".tmp" */
};

/* Creates (truncates) path.tmp for writing. */
int cz_outfile_open(struct cz_outfile *o, const char *path, char err[CZ_ERRLEN]);
/* Flushes and closes o->fp, then renames onto path; bad (a write the caller
 * saw fail) or any flush/close error removes path.tmp instead.  Consumes o
 * either way. */
int cz_outfile_commit(struct cz_outfile *o, bool bad, char err[CZ_ERRLEN]);
/* open, one write of len bytes, commit. */
int cz_outfile_write(const char *path, const void *buf, size_t len, char err[CZ_ERRLEN]);

#endif
