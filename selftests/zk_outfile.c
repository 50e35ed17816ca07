/* SPDX-License-Identifier: MIT */
/* Description: files are written whole via PATH.tmp and rename, and a failed write leaves PATH as it was. */
#include "zk/io/outfile.h"
#include "selftests/cz_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole of path, read with plain stdio (the oracle). */
static size_t slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return (size_t)-1;
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int main(void)
{
	char dir[] = "/tmp/cz_outfile.XXXXXX", path[256], tmp[300], sub[300], buf[64];
	char err[CZ_ERRLEN];
	struct cz_outfile o;
	int rc;

	ct_plan(8);
	if (!mkdtemp(dir)) {
		ct_skip("mkdtemp failed", "no scratch directory");
		return ct_exit();
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);

	rc = cz_outfile_write(path, "hello", 5, err);
	ct_ok(!rc && slurp(path, buf, sizeof(buf)) == 5 && !memcmp(buf, "hello", 5) && !exists(tmp),
	      "a whole buffer lands at PATH, no PATH.tmp left (rc %d)", rc);

	rc = cz_outfile_open(&o, path, err);
	if (!rc) {
		fputs("new", o.fp);
		ct_ok(slurp(path, buf, sizeof(buf)) == 5 && exists(tmp),
		      "while writing, PATH still holds the old file");
		rc = cz_outfile_commit(&o, false, err);
	} else {
		ct_ok(0, "open: %s", err);
	}
	ct_ok(!rc && slurp(path, buf, sizeof(buf)) == 3 && !memcmp(buf, "new", 3) && !exists(tmp),
	      "a streamed write replaces PATH on commit (rc %d)", rc);

	rc = cz_outfile_open(&o, path, err);
	if (!rc) {
		fputs("partial", o.fp);
		errno = ENOSPC;      /* as a failed fwrite would leave it */
		rc = cz_outfile_commit(&o, true, err);
	}
	ct_ok(rc == -ENOSPC && slurp(path, buf, sizeof(buf)) == 3 && !exists(tmp) &&
	      strstr(err, tmp), "a write the caller saw fail keeps PATH, removes PATH.tmp: %s", err);

	/* PATH.tmp a directory: fopen fails, PATH untouched. */
	rc = mkdir(tmp, 0700) ? -errno : cz_outfile_write(path, "x", 1, err);
	ct_ok(rc < 0 && slurp(path, buf, sizeof(buf)) == 3 && strstr(err, tmp),
	      "PATH.tmp cannot be created: error names it, PATH kept: %s", err);
	rmdir(tmp);

	/* PATH a non-empty directory: rename fails, PATH.tmp removed. */
	snprintf(sub, sizeof(sub), "%s/d", dir);
	snprintf(path, sizeof(path), "%s/d", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/d/x", dir);
	fclose(fopen(sub, "w"));
	rc = cz_outfile_write(path, "y", 1, err);
	ct_ok(rc < 0 && !exists(tmp) && strstr(err, "rename"),
	      "rename onto a directory fails, PATH.tmp removed: %s", err);
	unlink(sub);
	rmdir(path);

	rc = cz_outfile_write("/nonexistent-cz-dir/f", "z", 1, err);
	ct_ok(rc == -ENOENT && strstr(err, "/nonexistent-cz-dir/f.tmp"),
	      "a missing directory is -ENOENT naming the file: %s", err);

	{
		static char longp[5000];     /* > sizeof(o.tmp) */

		memset(longp, 'a', sizeof(longp) - 1);
		rc = cz_outfile_write(longp, "z", 1, err);
	}
	ct_ok(rc == -ENAMETOOLONG, "a path with no room for .tmp is -ENAMETOOLONG (rc %d)", rc);

	snprintf(path, sizeof(path), "%s/f", dir);
	unlink(path);
	rmdir(dir);
	return ct_exit();
}
