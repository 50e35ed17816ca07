/* SPDX-License-Identifier: MIT */
/*
 * engine/control/idcheck.c — what a name a client gives may contain.
 *
 * A job id names a directory (proofs/<id>/), is written into log lines
 * (`cuzkd: job=<id> state=done`) and is echoed back to terminals in
 * errors.  A newline in it forged a separate, well-formed log line; a NUL
 * cut it short silently; a bidi override (U+202E) or an escape sequence
 * shows a terminal something other than what is there.  So an id is a
 * documented set of printable ASCII characters (docs/protocol.md, Job ids):
 * letters, digits and . _ - : + = , ~ @, 1 to 63 of them; the refusal
 * shows what was sent with every other byte escaped (cz_str_shown), so
 * not even the error carries it raw.  NUL inside any string field is
 * refused by engine/control/fields.c, never truncated.
 */
#include "engine/engine_pvt.h"

#include <stdio.h>
#include <string.h>

#define ID_PUNCT "._-:+=,~@"

const char *cz_id_check(const char *id)
{
	size_t n = strlen(id);
	if (!n || n >= sizeof(((struct cz_job *)0)->id))
		return "1 to 63 characters";
	for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
		bool alnum = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
		if (!alnum && !strchr(ID_PUNCT, *p))
			return *p < 0x20 || *p == 0x7f ? "a control character (newline, tab, escape...) is not allowed"
			       : *p >= 0x80 ? "only ASCII letters, digits and . _ - : + = , ~ @ (no bidi or other "
					      "non-ASCII characters)"
			       : "only ASCII letters, digits and . _ - : + = , ~ @";
	}
	if (id[0] == '.')
		return "not starting with '.'";
	return NULL;
}

void cz_str_shown(char *out, size_t cap, const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 8 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[k++] = (char)c;
		else
			k += (size_t)snprintf(out + k, cap - k, c == '\\' ? "\\\\" : "\\x%02x", c);
	}
	if (k + 8 >= cap && cap > 4)
		snprintf(out + (k < cap - 4 ? k : cap - 4), 4, "...");
	else if (cap)
		out[k] = 0;
}
