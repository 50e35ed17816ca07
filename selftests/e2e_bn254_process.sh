#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the two-curve daemon suite (selftests/e2e_bn254) with the devices in child
# processes (--isolation process), so BN254 keys are mapped from the shared region there too.
CZ_ISOLATION=process exec "${B:-build}/selftests/e2e_bn254" "$@"
