/* SPDX-License-Identifier: MIT */
/* zk/groth16/cs.c — growable compressed-row R1CS (see zk/groth16/cs.h), both curves. */
#include "zk/groth16/cs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CS(n) cz_cs_##n
#define CS_T cz_cs
#define CS_FR cz_fr
#include "zk/groth16/cs_tmpl_pvt.h"
#undef CS
#undef CS_T
#undef CS_FR

#define CS(n) cz_bn254_cs_##n
#define CS_T cz_bn254_cs
#define CS_FR cz_bn254_fr
#include "zk/groth16/cs_tmpl_pvt.h"
