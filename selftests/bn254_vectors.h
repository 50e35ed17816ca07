/* SPDX-License-Identifier: MIT */
/*
 * selftests/bn254_vectors.h — reads selftests/data/bn254_vectors.txt, the
 * BN254 known answers that the pinned ffjavascript computed
 * (tools/fixtures/bn254-vectors.js): one vector a line, "name v1 v2 ...",
 * decimal.  $CZ_DATA_DIR overrides the folder.
 *
 * bv_next(name, vals, max) returns the values of the next line called name
 * (each call moves on; bv_rewind starts over), their count, or -1 when
 * there is none.  Strings point into a buffer owned here.
 */
#ifndef BN254_VECTORS_H
#define BN254_VECTORS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *bv_buf;
static size_t bv_len, bv_pos;

static int bv_load(void)
{
	const char *d = getenv("CZ_DATA_DIR");
	char path[512];
	snprintf(path, sizeof(path), "%s/bn254_vectors.txt", d ? d : "selftests/data");
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	bv_buf = malloc((size_t)n + 1);
	if (!bv_buf || fread(bv_buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return -1;
	}
	fclose(f);
	bv_buf[n] = 0;
	bv_len = (size_t)n;
	return 0;
}

static void bv_rewind(void)
{
	bv_pos = 0;
}

/* Line copies live in a small ring so a caller can hold a few at once. */
static int bv_next(const char *name, char **vals, int max)
{
	static char lines[4][4096];
	static int slot;
	size_t nl = strlen(name);
	while (bv_buf && bv_pos < bv_len) {
		char *s = bv_buf + bv_pos, *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		bv_pos += len + 1;
		if (len <= nl || strncmp(s, name, nl) || s[nl] != ' ' || len >= sizeof(lines[0]))
			continue;
		char *l = lines[slot++ & 3];
		memcpy(l, s + nl + 1, len - nl - 1);
		l[len - nl - 1] = 0;
		int n = 0;
		for (char *t = strtok(l, " "); t && n < max; t = strtok(NULL, " "))
			vals[n++] = t;
		return n;
	}
	return -1;
}

/* After selftests/zk_curve_test.h (T_NAME, T_AFF, T_JAC, T_GEN, tfr): the
 * lines called tag, a scalar k and then the coordinates of ffjavascript's
 * k·G (nv values, read by from_dec), against T's mul and mul_vartime, and
 * k·G in the subgroup when in_subgroup.  How many lines; *bad counts the
 * misses. */
#ifdef T_NAME
static int bv_check_mul(const char *tag, int nv, bool (*from_dec)(T_AFF *, char **), int in_subgroup, int *bad)
{
	char *v[8];
	int n = 0;
	bv_rewind();
	while (bv_next(tag, v, 8) == nv) {
		tfr k;
		uint64_t raw[4];
		T_AFF want;
		T_JAC g, r;
		if (!TFR(from_dec)(&k, v[0]) || !from_dec(&want, v + 1)) {
			(*bad)++;
			continue;
		}
		TFR(from_mont)(raw, &k);
		T_NAME(jac_from_affine)(&g, &T_GEN);
		T_NAME(mul)(&r, &g, &k);
		*bad += !T_NAME(jac_eq_affine)(&r, &want);
		T_NAME(mul_vartime)(&r, &g, raw, 4);
		*bad += !T_NAME(jac_eq_affine)(&r, &want);
		*bad += in_subgroup && !T_NAME(affine_in_subgroup)(&want);
		n++;
	}
	return n;
}
#endif

#endif
