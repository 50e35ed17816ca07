/* SPDX-License-Identifier: MIT */
/*
 * curves/curves.c — the curves' ops tables (design in curves/curves.h):
 * one instance of curves/curves_tmpl_pvt.h per curve, over that curve's
 * zk/ and synth/ instances, and the one lookup by enum cz_curve.  The only
 * place the daemon's code above zk/ says which curves there are.
 */
#include "curves/curves.h"

#include "curves/shkey.h"
#include "synth/part.h"
#include "synth/synth.h"
#include "zk/groth16/builtin.h"
#include "zk/field/bls12_381.h"
#include "zk/field/bn254.h"
#include "zk/io/groth16_io.h"
#include "zk/io/snarkjs_json.h"
#include "zk/ntt/bn254_ntt.h"
#include "zk/ntt/ntt.h"

#include <stdio.h>
#include <stdlib.h>

#define CV(n) bls_##n
#define CV_CURVE CZ_CURVE_BLS12_381
#define CV_M bls
#define CV_W(n) n
#define CV_R CZ_BLS12_381_R
#define CV_PROVES(be) ((void)(be), true)       /* every backend */
#define CV_FR cz_fr
#define CV_KEY(n) cz_groth16_##n
#define CV_SHKEY(n) cz_shkey_##n
#define CV_NTT(n) cz_ntt_##n
#define CV_PART(n) cz_synth_part_##n
#define CV_PART_T cz_synth_part
#define CV_SYNTH_ABC cz_synth_abc
#define CV_WTNS_READ_FD cz_wtns_read_fd
#define CV_JSON(n) cz_##n
#define CV_PROOF_BIN cz_proof_bin
#include "curves/curves_tmpl_pvt.h"
#undef CV
#undef CV_CURVE
#undef CV_M
#undef CV_W
#undef CV_R
#undef CV_PROVES
#undef CV_FR
#undef CV_KEY
#undef CV_SHKEY
#undef CV_NTT
#undef CV_PART
#undef CV_PART_T
#undef CV_SYNTH_ABC
#undef CV_WTNS_READ_FD
#undef CV_JSON
#undef CV_PROOF_BIN

#define CV(n) bn_##n
#define CV_CURVE CZ_CURVE_BN254
#define CV_M bn
#define CV_W(n) bn_##n
#define CV_R CZ_BN254_R
#define CV_PROVES(be) ((be)->bn254)
#define CV_FR cz_bn254_fr
#define CV_KEY(n) cz_bn254_groth16_##n
#define CV_SHKEY(n) cz_bn254_shkey_##n
#define CV_NTT(n) cz_bn254_ntt_##n
#define CV_PART(n) cz_bn254_synth_part_##n
#define CV_PART_T cz_bn254_synth_part
#define CV_SYNTH_ABC cz_bn254_synth_abc
#define CV_WTNS_READ_FD cz_bn254_wtns_read_fd
#define CV_JSON(n) cz_bn254_##n
/* no CV_PROOF_BIN: BN254 has no compressed encoding, so no proof.bin */
#include "curves/curves_tmpl_pvt.h"

const struct cz_curve_ops *cz_curve_ops(enum cz_curve c)
{
	return c == CZ_CURVE_BLS12_381 ? &bls_ops : c == CZ_CURVE_BN254 ? &bn_ops : NULL;
}

const struct cz_curve_ops *cz_curve_ops_of_region(const struct cz_region *r)
{
	enum cz_curve c;
	return cz_shkey_curve(r, &c) ? NULL : cz_curve_ops(c);
}

int cz_curve_devkey_make(const char *circuit, unsigned log2n, uint64_t seed, struct cz_curve_devkey *d,
			 char *err, size_t cap)
{
	struct cz_cs cs;
	cz_fr *wf = NULL;
	char berr[256] = "";

	d->curve = CZ_CURVE_BLS12_381;  /* the built-in circuits' */
	if (cz_builtin_build(circuit, log2n, 1, &cs, &wf, berr)) {
		snprintf(err, cap, "circuit: %.200s", berr);
		return -1;
	}
	int rc = -1;
	if (!(d->w = malloc(cs.nvars * sizeof(*d->w))) || cz_groth16_devsetup(&cs, seed, &d->key.bls, NULL))
		snprintf(err, cap, "key: out of memory");
	else
		rc = 0;
	for (uint32_t i = 0; !rc && i < d->key.nvars; i++)
		cz_fr_from_mont(d->w[i].l, &wf[i]);
	if (rc) {
		free(d->w);
		d->w = NULL;
	}
	free(wf);
	cz_cs_free(&cs);
	return rc;
}
