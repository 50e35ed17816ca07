#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the snarkjs interop suite (selftests/e2e_cli: cuzk prove, verify, vk, devsetup
# against the pinned snarkjs) with the IFMA vector path forced off (CZ_NO_IFMA=1), so both MSM
# paths prove proofs snarkjs accepts on a CPU that has IFMA.
CZ_NO_IFMA=1 exec "${B:-build}/selftests/e2e_cli" "$@"
