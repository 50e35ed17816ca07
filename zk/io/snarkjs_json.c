/* SPDX-License-Identifier: MIT */
/*
 * zk/io/snarkjs_json.c — snarkjs Groth16 JSON files (see snarkjs_json.h) for
 * BLS12-381: zk/io/snarkjs_json_tmpl_pvt.h over its types, "bls12381".
 */
#include "zk/io/snarkjs_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zk/curve/pairing.h"

/* snarkjs's vk_alphabeta_12 is e(alpha, beta)^3 for BLS12-381 */
static void alphabeta_pow(cz_fp12 *e)
{
	cz_fp12 e2;
	cz_fp12_sqr(&e2, e);
	cz_fp12_mul(e, &e2, e);
}

#define SJ(n) cz_##n
#define SJ_FP cz_fp
#define SJ_FP2 cz_fp2
#define SJ_FP6 cz_fp6
#define SJ_FP12 cz_fp12
#define SJ_FR cz_fr
#define SJ_G1 cz_g1
#define SJ_G2 cz_g2
#define SJ_PROOF cz_groth16_proof
#define SJ_VK cz_groth16_vk
#define SJ_PAIRING cz_pairing
#define SJ_ALPHABETA_POW alphabeta_pow
#define SJ_CURVE_TAG "bls12381"
#define SJ_CURVE_NAME "BLS12-381"
#define SJ_OUR_CURVE(s) (strcmp((s), "bls12381") == 0 || strcmp((s), "bls12_381") == 0)
#define SJ_OTHER_CURVE(s)                                                            \
	(strcmp((s), "bn128") == 0 || strcmp((s), "bn254") == 0 || strcmp((s), "BN254") == 0)
#define SJ_OTHER_NAME "bn128/BN254"
#include "zk/io/snarkjs_json_tmpl_pvt.h"

/* Curve-independent: reads the tag only (the JSON helpers are the
 * template's, static in this file). */
int cz_snarkjs_json_curve(const char *path, enum cz_curve *curve, char err[CZ_ERRLEN])
{
	struct jctx c = { path, err };
	struct json_object *o, *v;
	char *text = NULL;
	size_t len = 0;
	int rc = read_file(path, &text, &len, err);

	if (rc)
		return rc;
	o = parse_text(&c, text, len);
	free(text);
	if (!o)
		return -EINVAL;
	rc = need_object(&c, o);
	*curve = CZ_CURVE_BLS12_381;
	if (!rc && (v = member(o, "curve"))) {
		const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
		if (s && SJ_OTHER_CURVE(s))
			*curve = CZ_CURVE_BN254;
		else if (!s || !SJ_OUR_CURVE(s))
			rc = cz_errf(err, -EINVAL, "%s: curve: \"%.32s\", expected \"bls12381\" or \"bn128\"",
				     path, s ? s : "(not a string)");
	}
	json_object_put(o);
	return rc;
}
