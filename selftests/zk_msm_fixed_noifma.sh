#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the fixed-base MSM suite (selftests/zk_msm_fixed) with the IFMA vector path forced off (CZ_NO_IFMA=1):
# the plain run covers the vector flush on a CPU that has it, this one the scalar flush.
CZ_NO_IFMA=1 exec "${B:-build}/selftests/zk_msm_fixed" "$@"
