/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp.h — the BLS12-381 base field Fp (381-bit p), Montgomery form,
 * six 64-bit limbs, little-endian limb order.
 *
 * The code is generic over the limb count (zk/field/field_tmpl_pvt.h); this header is
 * the BLS12-381 instance.  Values are always fully reduced (< p).
 * "mont" bytes are the Montgomery representation a·R mod p (snarkjs .zkey);
 * plain bytes are the standard representative.
 */
#ifndef CZ_FP_H
#define CZ_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zk/field/field_decl_tmpl_pvt.h"

#define CZ_FP_LIMBS 6
#define CZ_FP_BYTES 48

/* The API every field has (zk/field/field_decl_tmpl_pvt.h lists and explains it). */
CZ_FIELD_DECLARE(cz_fp, cz_fp, cz_fp_wide, CZ_FP_LIMBS, CZ_FP_BYTES);

/* The multiplication path: the mulx/adcx/adox one is chosen at start-up when
 * the CPU has BMI2 and ADX.  Tests force each path in turn. */
bool cz_fp_have_adx(void);
void cz_field_force_portable(bool on);  /* all fields; for tests and benches */
/* How often inv_vartime fell back to Fermat (a bug if ever non-zero). */
unsigned long cz_field_inv_fallback_count(void);

#endif
