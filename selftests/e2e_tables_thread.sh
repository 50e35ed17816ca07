#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the fixed-base tables daemon suite (selftests/e2e_tables) once more in thread isolation
# (cuzkd's default runs each device in a child process, which maps the tables with the key's shared
# region), so both modes prove with them.
CZ_ISOLATION=thread exec "${B:-build}/selftests/e2e_tables" "$@"
