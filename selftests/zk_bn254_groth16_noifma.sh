#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the BN254 Groth16 interop suite (selftests/zk_bn254_groth16) with the IFMA vector path forced off
# (CZ_NO_IFMA=1), so whatever of it runs an MSM does so on both flushes on a machine that has IFMA.
CZ_NO_IFMA=1 exec "${B:-build}/selftests/zk_bn254_groth16" "$@"
