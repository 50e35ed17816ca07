#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the two-curve daemon suite (selftests/e2e_bn254) once more in thread isolation
# (cuzkd's default runs each device in a child process, where BN254 keys are mapped from the
# shared region), so both modes prove both curves.
CZ_ISOLATION=thread exec "${B:-build}/selftests/e2e_bn254" "$@"
