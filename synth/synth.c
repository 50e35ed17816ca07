/* SPDX-License-Identifier: MIT */
/*
 * synth/synth.c — synthesis: witness → a = A·w, b = B·w, c = a∘b on the
 * n-domain, the CPU stage that the daemon's synthesis workers run before a
 * partition goes to a device.
 *
 * Input is the .zkey's coefficient list (the A and B matrices plus one row
 * per public signal), as snarkjs's prover uses it: c is a∘b, never C·w.
 * Each coefficient holds v·R² so that one Montgomery product with the
 * standard-form witness value gives v·w in Montgomery form: the witness is
 * never converted.  Indexed keys (coefficients sorted by row, row_off:
 * key_index in zk/groth16/groth16.h builds it with every key) split rows among threads with
 * no sharing; unindexed ones run serially.
 * Cost: one Fr mul and add per coefficient, one Fr mul per row.
 * The same code serves both curves (synth/synth_tmpl_pvt.h).
 */
#include "synth/synth.h"
#include "zk/field/field_inline.h"
#include "lib/pool.h"

#include <string.h>

#define SY(n) cz_synth_##n
#define SY_G16(n) cz_groth16_##n
#define SY_FR cz_fr
#include "synth/synth_tmpl_pvt.h"
#undef SY
#undef SY_G16
#undef SY_FR

#define SY(n) cz_bn254_synth_##n
#define SY_G16(n) cz_bn254_groth16_##n
#define SY_FR cz_bn254_fr
#include "synth/synth_tmpl_pvt.h"
