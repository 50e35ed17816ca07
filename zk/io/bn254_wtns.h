/* SPDX-License-Identifier: MIT */
/*
 * zk/io/bn254_wtns.h — circom/snarkjs witness files (.wtns) over BN254's
 * scalar field (bn128): the same format, reader, writer and checks as
 * zk/io/wtns.h; a witness of the other curve is refused naming both.
 */
#ifndef CZ_BN254_WTNS_H
#define CZ_BN254_WTNS_H

#include "zk/field/bn254_fr.h"
#include "zk/io/wtns.h"

_Static_assert(CZ_BN254_FR_BYTES == CZ_FR_BYTES, "the same 32-byte values");
CZ_WTNS_DECLARE(cz_bn254_wtns, cz_bn254_wtns, cz_bn254_fr);

#endif
