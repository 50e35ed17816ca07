/* SPDX-License-Identifier: MIT */
/* zk/io/outfile.c — write to PATH.tmp, rename onto PATH (see outfile.h). */
#include "zk/io/outfile.h"

#include <errno.h>
#include <string.h>

int cz_outfile_open(struct cz_outfile *o, const char *path, char err[CZ_ERRLEN])
{
	o->fp = NULL;
	o->path = path;
	if (snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", path) >= (int)sizeof(o->tmp))
		return cz_errf(err, -ENAMETOOLONG, "%s: path too long", path);
	o->fp = fopen(o->tmp, "wb");
	if (!o->fp) {
		int e = errno;

		return cz_errf(err, -e, "%s: %s", o->tmp, strerror(e));
	}
	return 0;
}

int cz_outfile_commit(struct cz_outfile *o, bool bad, char err[CZ_ERRLEN])
{
	/* A failed fwrite leaves its errno (ENOSPC, EIO, ...) for us to name;
	 * fflush and fclose report their own. */
	int e = bad ? errno : 0;

	if (fflush(o->fp) != 0) {
		bad = true;
		e = e ? e : errno;
	}
	if (ferror(o->fp))
		bad = true;
	if (fclose(o->fp) != 0) {
		bad = true;
		e = e ? e : errno;
	}
	o->fp = NULL;
	if (bad) {
		e = e ? e : EIO;
		remove(o->tmp);
		return cz_errf(err, -e, "%s: write failed: %s", o->tmp, strerror(e));
	}
	if (rename(o->tmp, o->path) != 0) {
		e = errno;
		remove(o->tmp);
		return cz_errf(err, -e, "%s: rename from %s: %s", o->path, o->tmp, strerror(e));
	}
	return 0;
}

int cz_outfile_write(const char *path, const void *buf, size_t len, char err[CZ_ERRLEN])
{
	struct cz_outfile o;
	int rc = cz_outfile_open(&o, path, err);

	if (rc)
		return rc;
	return cz_outfile_commit(&o, len && fwrite(buf, 1, len, o.fp) != len, err);
}
