#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the BN254 MSM suite (selftests/zk_bn254_msm: MSMs against the naive sum) on the four-lane (ymm) IFMA flush
# (CZ_IFMA_LANES=4; the plain run has the default eight lanes); on a CPU without AVX-512VL IFMA it is the default path again.
CZ_IFMA_LANES=4 exec "${B:-build}/selftests/zk_bn254_msm" "$@"
