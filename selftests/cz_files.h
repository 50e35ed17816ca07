/* SPDX-License-Identifier: MIT */
/*
 * selftests/cz_files.h — the witness tests' small file helpers: write a
 * text file, compare two files byte for byte, ask whether a program is on
 * PATH; and, where the test defines CZ_TMP (the name of its scratch-folder
 * string) before including this, P(fmt, ...): a path under that folder (64
 * rotating buffers, so a call may hold a few).  A test includes it once.
 */
#ifndef CZ_FILES_H
#define CZ_FILES_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static inline int write_text(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(s, f);
	return fclose(f);
}

/* 1 when files a and b both open and hold the same bytes. */
static inline int same_file(const char *a, const char *b)
{
	FILE *x = fopen(a, "rb"), *y = fopen(b, "rb");
	int same = x && y, ca, cb;
	while (same) {
		ca = fgetc(x);
		cb = fgetc(y);
		if (ca != cb)
			same = 0;
		if (ca == EOF || cb == EOF)
			break;
	}
	if (x)
		fclose(x);
	if (y)
		fclose(y);
	return same;
}

/* 1 when the shell finds prog. */
static inline int have(const char *prog)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

#ifdef CZ_TMP
static char pbuf[64][PATH_MAX];
static int pnext;

static inline const char *P(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *P(const char *fmt, ...)
{
	char *p = pbuf[pnext++ % 64], name[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (snprintf(p, PATH_MAX, "%s/%s", CZ_TMP, name) >= PATH_MAX)
		abort();
	return p;
}
#endif

#endif
