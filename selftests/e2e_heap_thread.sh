#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: selftests/e2e_heap once more with cuzkd's device consumers as threads of cuzkd
# (CZ_ISOLATION=thread, passed as --isolation thread): the debugging and sanitizer mode passes
# the same test as the default, one child process per device.
CZ_ISOLATION=thread exec "${B:-build}/selftests/e2e_heap" "$@"
