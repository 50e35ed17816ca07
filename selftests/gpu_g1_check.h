/* SPDX-License-Identifier: MIT */
/*
 * selftests/gpu_g1_check.h — the 32-bit-limb G1 point arithmetic
 * (gpu/g1_32.h) against zk/'s, for one curve; included by
 * selftests/gpu_arith.c once per curve after it defines ZG(n) (zk/'s
 * names, cz_g1_##n), G32(n) (the 32-bit names, cz_g1##n), GC(n) (this
 * instance's static names), GNAME (the group, for messages) and the AS()
 * copy helper.  GC(g1_tests) emits 8 test points.
 */

static void GC(rand_point)(ZG(affine) *r)
{
	ZG(jac) g, p;
	uint64_t k[2] = { rnd(), rnd() };
	ZG(jac_from_affine)(&g, &ZG(generator));
	ZG(mul_vartime)(&p, &g, k, 2);
	ZG(jac_to_affine)(r, &p);
}

static void GC(rand_xyzz)(ZG(xyzz) *r)
{
	ZG(jac) g, p;
	uint64_t k[2] = { rnd(), rnd() };
	ZG(jac_from_affine)(&g, &ZG(generator));
	ZG(mul_vartime)(&p, &g, k, 2);
	ZG(jac_to_xyzz)(r, &p); /* Z != 1: a general representative */
}

static int GC(xyzz_same)(const G32(xyzz32) *got, const ZG(xyzz) *want)
{
	return memcmp(got, want, sizeof(*want)) == 0 ||
	       ZG(xyzz_eq)(&AS(ZG(xyzz), got), want);
}

static int GC(jac_same)(const G32(jac32) *got, const ZG(jac) *want)
{
	return ZG(jac_eq)(&AS(ZG(jac), got), want);
}

static void GC(g1_tests)(void)
{
	enum { NP = 200 };
	int bad_madd = 0, bad_add = 0, bad_dbl = 0, bad_jadd = 0, bad_jdbl = 0, bad_conv = 0;
	int bad_edge = 0, bad_mul = 0;

	for (int i = 0; i < NP; i++) {
		ZG(affine) b;
		ZG(xyzz) a, c, want;
		ZG(jac) aj, wj;
		G32(xyzz32) got;
		G32(jac32) gj;

		GC(rand_point)(&b);
		GC(rand_xyzz)(&a);
		GC(rand_xyzz)(&c);
		ZG(xyzz_add_affine)(&want, &a, &b);
		G32(xyzz32_add_affine)(&got, &AS(G32(xyzz32), &a), &AS(G32(a32), &b));
		bad_madd += !GC(xyzz_same)(&got, &want);
		ZG(xyzz_add)(&want, &a, &c);
		G32(xyzz32_add)(&got, &AS(G32(xyzz32), &a), &AS(G32(xyzz32), &c));
		bad_add += !GC(xyzz_same)(&got, &want);
		ZG(xyzz_dbl)(&want, &a);
		G32(xyzz32_dbl)(&got, &AS(G32(xyzz32), &a));
		bad_dbl += !GC(xyzz_same)(&got, &want);

		ZG(xyzz_to_jac)(&aj, &a);
		ZG(jac_add_affine)(&wj, &aj, &b);
		G32(jac32_add_affine)(&gj, &AS(G32(jac32), &aj), &AS(G32(a32), &b));
		bad_jadd += !GC(jac_same)(&gj, &wj);
		ZG(jac_dbl)(&wj, &aj);
		G32(jac32_dbl)(&gj, &AS(G32(jac32), &aj));
		bad_jdbl += !GC(jac_same)(&gj, &wj);
		G32(xyzz32_to_jac)(&gj, &AS(G32(xyzz32), &a));
		bad_conv += !GC(jac_same)(&gj, &aj);

		/* the aliased form r = a + b, as the bucket loop calls it */
		got = AS(G32(xyzz32), &a);
		G32(xyzz32_add_affine)(&got, &got, &AS(G32(a32), &b));
		ZG(xyzz_add_affine)(&want, &a, &b);
		bad_madd += !GC(xyzz_same)(&got, &want);

		uint32_t k = (uint32_t)rnd() >> (i % 32);
		G32(xyzz32_mul_u32)(&got, &AS(G32(xyzz32), &a), k);
		uint64_t k64 = k;
		ZG(mul_vartime)(&wj, &aj, &k64, 1);
		ZG(xyzz_to_jac)(&aj, &AS(ZG(xyzz), &got));
		bad_mul += !ZG(jac_eq)(&aj, &wj);
	}
	ct_ok(!bad_madd, "%s XYZZ + affine (madd-2008-s) = zk/ on %d random pairs, plain and aliased (%d bad)", GNAME, NP, bad_madd);
	ct_ok(!bad_add, "%s XYZZ + XYZZ (add-2008-s) = zk/ on %d random pairs (%d bad)", GNAME, NP, bad_add);
	ct_ok(!bad_dbl, "%s XYZZ doubling = zk/ on %d random points (%d bad)", GNAME, NP, bad_dbl);
	ct_ok(!bad_jadd, "%s Jacobian + affine (madd-2007-bl) = zk/ on %d random pairs (%d bad)", GNAME, NP, bad_jadd);
	ct_ok(!bad_jdbl, "%s Jacobian doubling = zk/ on %d random points (%d bad)", GNAME, NP, bad_jdbl);
	ct_ok(!bad_conv, "%s XYZZ -> Jacobian = zk/ on %d random points (%d bad)", GNAME, NP, bad_conv);
	ct_ok(!bad_mul, "%s XYZZ small-scalar multiple = zk/'s mul_vartime on %d points (%d bad)", GNAME, NP, bad_mul);

	/* Edges: infinity on either side, P + P (doubling path), P + (-P). */
	for (int i = 0; i < 20; i++) {
		ZG(affine) b, nb, inf = { { { 0 } }, { { 0 } } };
		ZG(xyzz) a, want, infx;
		G32(xyzz32) got;
		ZG(jac) aj, wj;
		G32(jac32) gj;

		GC(rand_point)(&b);
		ZG(affine_neg)(&nb, &b);
		ZG(xyzz_set_inf)(&infx);
		GC(rand_xyzz)(&a);
		const ZG(affine) *bs[] = { &b, &nb, &inf };
		ZG(xyzz) from_b;
		ZG(xyzz_from_affine)(&from_b, &b);
		const ZG(xyzz) *as[] = { &from_b, &infx, &a };
		for (int x = 0; x < 3; x++)
			for (int y = 0; y < 3; y++) {
				ZG(xyzz_add_affine)(&want, as[x], bs[y]);
				G32(xyzz32_add_affine)(&got, &AS(G32(xyzz32), as[x]), &AS(G32(a32), bs[y]));
				bad_edge += !GC(xyzz_same)(&got, &want);
				ZG(xyzz) bx;
				ZG(xyzz_from_affine)(&bx, bs[y]);
				ZG(xyzz_add)(&want, as[x], &bx);
				G32(xyzz32_add)(&got, &AS(G32(xyzz32), as[x]), &AS(G32(xyzz32), &bx));
				bad_edge += !GC(xyzz_same)(&got, &want);
				ZG(xyzz_to_jac)(&aj, as[x]);
				ZG(jac_add_affine)(&wj, &aj, bs[y]);
				G32(jac32_add_affine)(&gj, &AS(G32(jac32), &aj), &AS(G32(a32), bs[y]));
				bad_edge += !GC(jac_same)(&gj, &wj);
			}
		G32(xyzz32_dbl)(&got, &AS(G32(xyzz32), &infx));
		bad_edge += !G32(xyzz32_is_inf)(&got);
	}
	ct_ok(!bad_edge, "%s edges: infinity either side, P + P, P + (-P), for XYZZ and Jacobian (%d bad)",
	      GNAME, bad_edge);
}

