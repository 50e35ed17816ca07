/* SPDX-License-Identifier: MIT */
/*
 * synth/witness/json.c — the input JSON, read in place: a witness's input
 * is checked whole (cz_wj_check: RFC 8259's grammar, nesting bounded) and
 * then walked by pointers into its bytes, with strings decoded into the
 * caller's buffers, so computing a witness makes no heap call (json-c's
 * parse made one per value).  Every function after the check trusts it:
 * the walk stays inside the checked bytes.
 */
#include "synth/witness/witness_pvt.h"

#include <string.h>

#define WJ_DEPTH 64

const char *cz_wj_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

int cz_wj_kind(const char *p, const char *e)
{
	if (p >= e)
		return CZ_WJ_BAD;
	switch (*p) {
	case '{': return CZ_WJ_OBJ;
	case '[': return CZ_WJ_ARR;
	case '"': return CZ_WJ_STR;
	case 't': case 'f': return CZ_WJ_BOOL;
	case 'n': return CZ_WJ_NULL;
	default: return *p == '-' || (*p >= '0' && *p <= '9') ? CZ_WJ_NUM : CZ_WJ_BAD;
	}
}

const char *cz_wj_kind_name(int k)
{
	static const char *const n[] = { "object", "array", "string", "number", "boolean", "null",
					 "not JSON" };
	return k >= 0 && k <= CZ_WJ_BAD ? n[k] : "not JSON";
}

struct chk {
	const char *e, *at, *why;
};

static const char *fail(struct chk *c, const char *at, const char *why)
{
	c->at = at;
	c->why = at >= c->e ? "ends early" : why;
	return NULL;
}

static int hexd(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : (ch | 32) >= 'a' && (ch | 32) <= 'f' ? (ch | 32) - 'a' + 10
										    : -1;
}

static const char *chk_string(struct chk *c, const char *p)
{
	for (p++; p < c->e && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return fail(c, p, "a control character in a string");
		if (*p != '\\')
			continue;
		if (++p >= c->e)
			break;
		if (*p == 'u') {
			for (int k = 1; k <= 4; k++)
				if (p + k >= c->e || hexd(p[k]) < 0)
					return fail(c, p + k, "a bad \\u escape");
			p += 4;
		} else if (!strchr("\"\\/bfnrt", *p))
			return fail(c, p, "a bad escape in a string");
	}
	return p < c->e ? p + 1 : fail(c, p, "ends early");
}

static const char *digits(const char *p, const char *e)
{
	while (p < e && *p >= '0' && *p <= '9')
		p++;
	return p;
}

static const char *chk_number(struct chk *c, const char *p)
{
	const char *q;
	if (*p == '-')
		p++;
	if ((q = digits(p, c->e)) == p)
		return fail(c, p, "a number without digits");
	p = q;
	if (p < c->e && *p == '.') {
		if ((q = digits(p + 1, c->e)) == p + 1)
			return fail(c, p + 1, "a number without digits after '.'");
		p = q;
	}
	if (p < c->e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < c->e && (*p == '+' || *p == '-'))
			p++;
		if ((q = digits(p, c->e)) == p)
			return fail(c, p, "an exponent without digits");
		p = q;
	}
	return p;
}

static const char *chk_value(struct chk *c, const char *p, int depth);

static const char *chk_list(struct chk *c, const char *p, int depth, char close)
{
	p = cz_wj_ws(p + 1, c->e);
	if (p < c->e && *p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			if (p >= c->e || *p != '"')
				return fail(c, p, "expected a member name (a string)");
			if (!(p = chk_string(c, p)))
				return NULL;
			p = cz_wj_ws(p, c->e);
			if (p >= c->e || *p != ':')
				return fail(c, p, "expected ':'");
			p++;
		}
		if (!(p = chk_value(c, p, depth + 1)))
			return NULL;
		p = cz_wj_ws(p, c->e);
		if (p < c->e && *p == close)
			return p + 1;
		if (p >= c->e || *p != ',')
			return fail(c, p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		p = cz_wj_ws(p + 1, c->e);
	}
}

static const char *chk_value(struct chk *c, const char *p, int depth)
{
	p = cz_wj_ws(p, c->e);
	if (depth > WJ_DEPTH)
		return fail(c, p, "nested too deeply");
	switch (cz_wj_kind(p, c->e)) {
	case CZ_WJ_OBJ: return chk_list(c, p, depth, '}');
	case CZ_WJ_ARR: return chk_list(c, p, depth, ']');
	case CZ_WJ_STR: return chk_string(c, p);
	case CZ_WJ_NUM: return chk_number(c, p);
	default:
		for (size_t i = 0; i < 3; i++) {
			static const char *const lit[] = { "true", "false", "null" };
			size_t n = strlen(lit[i]);
			if ((size_t)(c->e - p) >= n && !memcmp(p, lit[i], n))
				return p + n;
		}
		return fail(c, p, "unexpected character");
	}
}

const char *cz_wj_check(const char *s, size_t n, const char **why, size_t *at)
{
	struct chk c = { .e = s + n };
	const char *p = cz_wj_ws(s, c.e), *root = p, *end = chk_value(&c, p, 0);
	if (end && (end = cz_wj_ws(end, c.e)) != c.e)
		fail(&c, end, "trailing characters after the value"), end = NULL;
	if (!end) {
		*why = c.why;
		*at = (size_t)(c.at - s);
		return NULL;
	}
	return root;
}

const char *cz_wj_skip(const char *p, const char *e)
{
	int depth = 0;
	p = cz_wj_ws(p, e);
	do {
		if (p >= e)
			return e;
		if (*p == '"') {
			for (p++; p < e && *p != '"'; p++)
				if (*p == '\\')
					p++;
			p++;
		} else if (*p == '{' || *p == '[')
			depth++, p++;
		else if (*p == '}' || *p == ']')
			depth--, p++;
		else if (*p == ',' || *p == ':' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		else {
			while (p < e && !strchr(",:]} \t\n\r", *p))
				p++;
		}
	} while (depth > 0);
	return p;
}

const char *cz_wj_first(const char *p, const char *e)
{
	p = cz_wj_ws(p + 1, e);
	return p < e && (*p == ']' || *p == '}') ? NULL : p;
}

const char *cz_wj_next(const char *p, const char *e)
{
	p = cz_wj_ws(cz_wj_skip(p, e), e);
	return p < e && *p == ',' ? cz_wj_ws(p + 1, e) : NULL;
}

/* UTF-8 of code point u into out. */
static size_t utf8(uint32_t u, char *out)
{
	if (u < 0x80)
		return out[0] = (char)u, 1;
	if (u < 0x800)
		return out[0] = (char)(0xc0 | u >> 6), out[1] = (char)(0x80 | (u & 63)), 2;
	out[0] = (char)(0xe0 | u >> 12);
	out[1] = (char)(0x80 | ((u >> 6) & 63));
	out[2] = (char)(0x80 | (u & 63));
	return 3;
}

int cz_wj_string(const char *p, const char *e, char *out, size_t cap)
{
	size_t k = 0;
	for (p++; p < e && *p != '"'; p++) {
		char b[4];
		size_t n = 1;
		b[0] = *p;
		if (*p == '\\') {
			p++;
			switch (*p) {
			case 'b': b[0] = '\b'; break;
			case 'f': b[0] = '\f'; break;
			case 'n': b[0] = '\n'; break;
			case 'r': b[0] = '\r'; break;
			case 't': b[0] = '\t'; break;
			case 'u': {
				uint32_t u = 0;
				for (int i = 1; i <= 4; i++)
					u = u << 4 | (uint32_t)hexd(p[i]);
				p += 4;
				n = utf8(u, b);
				break;
			}
			default: b[0] = *p; break;
			}
		}
		if (k + n >= cap)
			return -1;
		memcpy(out + k, b, n);
		k += n;
	}
	out[k] = 0;
	return 0;
}

const char *cz_wj_member(const char *p, const char *e, char *key, size_t cap, int *too_long)
{
	*too_long = cz_wj_string(p, e, key, cap) != 0;
	p = cz_wj_ws(cz_wj_skip(p, e), e);   /* past the name, at ':' */
	return cz_wj_ws(p + 1, e);
}
