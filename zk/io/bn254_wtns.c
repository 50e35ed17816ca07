/* SPDX-License-Identifier: MIT */
/*
 * zk/io/bn254_wtns.c — .wtns reader and writer (format in zk/io/wtns.h) for
 * BN254's scalar field: zk/io/wtns_tmpl_pvt.h over cz_bn254_fr.
 */
#include "zk/io/bn254_wtns.h"

#define WT(n) cz_bn254_wtns_##n
#define WT_T cz_bn254_wtns
#define WT_FR cz_bn254_fr
#define WT_FR_BYTES CZ_BN254_FR_BYTES
#define WT_PRIME CZ_PRIME_BN254_R
#include "zk/io/wtns_tmpl_pvt.h"
