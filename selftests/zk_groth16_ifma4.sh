#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the Groth16 suite (selftests/zk_groth16) on the four-lane (ymm) IFMA flush (CZ_IFMA_LANES=4; the plain
# run has the default eight lanes, zk_groth16_noifma the scalar flush).
CZ_IFMA_LANES=4 exec "${B:-build}/selftests/zk_groth16" "$@"
