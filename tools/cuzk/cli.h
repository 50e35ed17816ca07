/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cli.h — what the offline commands (prove, verify, vk, devsetup,
 * bench prove) share: exit codes, option values, peak RSS.
 *
 * Exit codes are the public interface (docs/cuzk.1.md):
 *   0 success, 1 the statement is false (proof INVALID, witness does not
 *   satisfy the circuit), 2 usage or malformed input (the message names the
 *   file and field), or a system error (out of memory, I/O).
 */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stddef.h>
#include <stdint.h>

enum { CZ_EXIT_OK = 0, CZ_EXIT_FALSE = 1, CZ_EXIT_USAGE = 2 };

/* Parses a non-negative decimal (up to max) into *v; prints
 * "cuzk CMD: OPT: ..." and returns -1 if it is not one. */
int cz_cli_uint(const char *cmd, const char *opt, const char *s, uint64_t max, uint64_t *v);
/* Peak resident set size of this process so far, bytes. */
uint64_t cz_cli_peak_rss(void);

#endif
