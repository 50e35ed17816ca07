/* SPDX-License-Identifier: MIT */
/*
 * zk/io/wtns.c — .wtns reader and writer (format in wtns.h) for BLS12-381's
 * scalar field: zk/io/wtns_tmpl_pvt.h over cz_fr.
 */
#include "zk/io/wtns.h"

#define WT(n) cz_wtns_##n
#define WT_T cz_wtns
#define WT_FR cz_fr
#define WT_FR_BYTES CZ_FR_BYTES
#define WT_PRIME CZ_PRIME_BLS12_381_R
#include "zk/io/wtns_tmpl_pvt.h"
