#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the Groth16 suite (selftests/zk_groth16) with the IFMA vector path forced off (CZ_NO_IFMA=1): the plain
# run covers the vector path on a CPU that has it, this one the scalar mulx/adx flush on the same machine.
CZ_NO_IFMA=1 exec "${B:-build}/selftests/zk_groth16" "$@"
