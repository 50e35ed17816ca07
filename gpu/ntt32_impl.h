/* SPDX-License-Identifier: MIT */
/*
 * gpu/ntt32_impl.h — the NTT's per-thread field steps, written once for both
 * curves' Fr; private to gpu/ntt32.h (the transform and the shared layout are
 * described there), which includes it once per field after defining N32(n)
 * (this field's name of step n), N32_T (its 32-bit type), N32_F(n) (its
 * operations).
 */
#ifndef N32
#error "gpu/ntt32_impl.h is private to gpu/ntt32.h"
#endif

CZ_STATIC_ASSERT(sizeof(N32_T) == CZ_NTT32_WORDS * 4, "an Fr element is 8 words");

/* One DIF butterfly on an array of elements (global stages). */
CZ_HD void N32(bfly)(N32_T *a, uint32_t t, unsigned hlog, const N32_T *tw, unsigned log2n)
{
	uint32_t j, xi, yi;
	cz_ntt32_pair(&xi, &yi, &j, t, hlog);
	N32_T x = a[xi], y = a[yi], s, d;

	N32_F(add)(&s, &x, &y);
	N32_F(sub)(&d, &x, &y);
	if (j)  /* tw[0] = 1 */
		N32_F(mul)(&d, &d, &tw[(size_t)j << (log2n - 1 - hlog)]);
	a[xi] = s;
	a[yi] = d;
}

/* Block element i to and from k_block's limb-major shared layout. */
CZ_HD void N32(sh_get)(N32_T *r, const uint32_t *sh, uint32_t i, unsigned B)
{
	CZ_UNROLL
	for (unsigned k = 0; k < CZ_NTT32_WORDS; k++)
		r->l[k] = sh[cz_ntt32_sh_word(i, k, B)];
}

CZ_HD void N32(sh_put)(uint32_t *sh, uint32_t i, unsigned B, const N32_T *v)
{
	CZ_UNROLL
	for (unsigned k = 0; k < CZ_NTT32_WORDS; k++)
		sh[cz_ntt32_sh_word(i, k, B)] = v->l[k];
}

/* The same butterfly on a block held in the shared layout. */
CZ_HD void N32(bfly_sh)(uint32_t *sh, uint32_t t, unsigned hlog, const N32_T *tw, unsigned log2n,
			unsigned B)
{
	uint32_t j, xi, yi;
	cz_ntt32_pair(&xi, &yi, &j, t, hlog);
	N32_T x, y, s, d;

	N32(sh_get)(&x, sh, xi, B);
	N32(sh_get)(&y, sh, yi, B);
	N32_F(add)(&s, &x, &y);
	N32_F(sub)(&d, &x, &y);
	if (j)
		N32_F(mul)(&d, &d, &tw[(size_t)j << (log2n - 1 - hlog)]);
	N32(sh_put)(sh, xi, B, &s);
	N32(sh_put)(sh, yi, B, &d);
}

/* out = hi[k >> s]·lo[k & (2^s - 1)]. */
CZ_HD void N32(pow2tab)(N32_T *out, uint32_t k, const N32_T *hi, const N32_T *lo, unsigned s)
{
	N32_F(mul)(out, &hi[k >> s], &lo[k & (((uint32_t)1 << s) - 1)]);
}

CZ_HD void N32(gather)(N32_T *dst, const N32_T *src, uint32_t k, unsigned log2n, unsigned flags,
		       const N32_T *hi, const N32_T *lo, unsigned s)
{
	uint32_t mask = ((uint32_t)1 << log2n) - 1, i = k;

	if (flags & CZ_NTT32_NEGATE)
		i = (0u - i) & mask;
	if (flags & CZ_NTT32_BITREV)
		i = cz_ntt32_bitrev(i, log2n);
	N32_T v = src[i];
	if (flags & CZ_NTT32_SCALE) {
		N32_T f;
		N32(pow2tab)(&f, k, hi, lo, s);
		N32_F(mul)(&v, &v, &f);
	}
	dst[k] = v;
}

/* Groth16's quotient numerator at point k, from a, b, c evaluated on the
 * odd coset and left in bit-reversed order by the second DIF: standard-form
 * scalar h[k] = a·b - c, the H MSM's input. */
CZ_HD void N32(abc)(N32_T *h, const N32_T *a, const N32_T *b, const N32_T *c, uint32_t k,
		    unsigned log2n)
{
	uint32_t i = cz_ntt32_bitrev(k, log2n);
	N32_T x;

	N32_F(mul)(&x, &a[i], &b[i]);
	N32_F(sub)(&x, &x, &c[i]);
	N32_F(from_mont)(&h[k], &x);
}
