#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the BN254 MSM suite (selftests/zk_bn254_msm: MSMs against the naive sum) with the IFMA vector path forced
# off (CZ_NO_IFMA=1): the plain run covers the vector path on a CPU that has it, this one the scalar flush.
CZ_NO_IFMA=1 exec "${B:-build}/selftests/zk_bn254_msm" "$@"
