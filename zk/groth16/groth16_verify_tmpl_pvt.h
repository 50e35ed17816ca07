/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/groth16_verify_tmpl_pvt.h — the Groth16 verification equation, written
 * once over the curve; private to zk/groth16/groth16_prove.c (BLS12-381) and
 * zk/groth16/bn254_groth16_prove.c (BN254).
 *   e(A, B) = e(α, β) · e(Σ pub_i·IC_i, γ) · e(C, δ)
 * checked as one multi-pairing e(−A, B)·e(α, β)·e(X, γ)·e(C, δ) = 1 with a
 * single final exponentiation (a few milliseconds).
 * gv_verify_x and gv_ic_add stay for the includer (the daemon's check of a
 * proof against a witness uses them without allocating).
 * The includer defines GV_NAME (the function's name), GV_G1 GV_G2 (group
 * prefixes), GV_FR (the scalar type), GV_PROOF GV_VK (struct tags) and
 * GV_PAIRING_CHECK.
 */
#define GV_CAT2(a, b) a##_##b
#define GV_CAT(a, b) GV_CAT2(a, b)
#define GV1(n) GV_CAT(GV_G1, n)
#define GV2(n) GV_CAT(GV_G2, n)

/* The multi-pairing, given x = IC_0 + Σ pub_i·IC_{i+1}. */
static bool gv_verify_x(const struct GV_VK *vk, const GV1(jac) *x, const struct GV_PROOF *p)
{
	GV1(affine) g1[4];
	GV2(affine) g2[4];

	GV1(affine_neg)(&g1[0], &p->a);
	g2[0] = p->b;
	g1[1] = vk->alpha1;
	g2[1] = vk->beta2;
	GV1(jac_to_affine)(&g1[2], x);
	g2[2] = vk->gamma2;
	g1[3] = p->c;
	g2[3] = vk->delta2;
	return GV_PAIRING_CHECK(g1, g2, 4);
}

/* x += v·IC_{i+1}.  v is public, so its time may depend on it: a value
 * under 2^64 (circom's bits, counters, small numbers: SHA-256's 256 public
 * bits were 23 ms of a one-shot prove through the constant-time mul) is a
 * double-and-add over its bits with mixed additions, 0 costs nothing; a
 * larger one takes the windowed mul, cheaper there. */
static void gv_ic_add(GV1(jac) *x, const struct GV_VK *vk, uint32_t i, const GV_FR *v)
{
	GV1(jac) t, ic;
	uint64_t s[4];

	GV_CAT(GV_FR, from_mont)(s, v);
	if (!(s[1] | s[2] | s[3])) {
		if (!s[0])
			return;
		int top = 63 - __builtin_clzll(s[0]);
		GV1(jac_from_affine)(&t, &vk->ic[i + 1]);
		for (int b = top - 1; b >= 0; b--) {
			GV1(jac_dbl)(&t, &t);
			if ((s[0] >> b) & 1)
				GV1(jac_add_affine)(&t, &t, &vk->ic[i + 1]);
		}
	} else {
		GV1(jac_from_affine)(&ic, &vk->ic[i + 1]);
		GV1(mul)(&t, &ic, v);
	}
	GV1(jac_add)(x, x, &t);
}

bool GV_NAME(const struct GV_VK *vk, const GV_FR *pub, const struct GV_PROOF *p)
{
	GV1(jac) x;

	GV1(jac_from_affine)(&x, &vk->ic[0]);
	for (uint32_t i = 0; i < vk->n_public; i++)
		gv_ic_add(&x, vk, i, &pub[i]);
	return gv_verify_x(vk, &x, p);
}

#undef GV1
#undef GV2
