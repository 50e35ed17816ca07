/* SPDX-License-Identifier: MIT */
/*
 * engine/control/fields.c — typed access to a request's fields.  Every field a
 * request carries is checked for its JSON type and range here, and a wrong
 * one is an error that names it: json-c's own getters convert silently
 * ("seven" → 0, 2.9 → 2, a number where a string belongs → ignored), which
 * is how a mistyped request used to do something other than what was asked.
 * A string with a NUL inside (JSON's \u0000) is refused, never cut short:
 * cz_fields_nul_scan checks a whole request before it is served.
 * Each getter returns NULL when the field is absent or good (absent leaves
 * *out alone: the caller's default), else the error response.
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *type_name(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a fractional number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "?";
}

/* A number as the request wrote it, where that can be known: json-c reads
 * any integer beyond 64 bits as 2^64-1 (or -2^63), so that value, echoed
 * bare, would name a number the client never sent. */
static const char *num_text(json_object *v)
{
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) == INT64_MIN)
			return "-9223372036854775808 or less (a number beyond 64 bits)";
		if (json_object_get_int64(v) >= 0 && json_object_get_uint64(v) == UINT64_MAX)
			return "18446744073709551615 or more (a number beyond 64 bits)";
	}
	return json_object_to_json_string(v);
}

json_object *cz_field_str(json_object *req, const char *k, bool required, const char **out)
{
	json_object *v;
	if (!json_object_object_get_ex(req, k, &v))
		return required ? cz_ctl_err("\"%s\" is required (a string)", k) : NULL;
	if (!json_object_is_type(v, json_type_string))
		return cz_ctl_err("\"%s\" must be a string, not %s", k, type_name(v));
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return cz_ctl_err("\"%s\" contains a NUL character (\\u0000): refused, not cut short", k);
	*out = json_object_get_string(v);
	return NULL;
}

json_object *cz_field_bool(json_object *req, const char *k, bool *out)
{
	json_object *v;
	if (!json_object_object_get_ex(req, k, &v))
		return NULL;
	if (!json_object_is_type(v, json_type_boolean))
		return cz_ctl_err("\"%s\" must be true or false, not %s", k, type_name(v));
	*out = json_object_get_boolean(v);
	return NULL;
}

json_object *cz_field_uint(json_object *req, const char *k, uint64_t max, uint64_t *out)
{
	json_object *v;
	if (!json_object_object_get_ex(req, k, &v))
		return NULL;
	if (json_object_is_type(v, json_type_int)) {
		/* json-c keeps integers beyond int64 as uint64; get_uint64 clamps
		 * negatives to 0, so read the sign first. */
		if (json_object_get_int64(v) < 0 || json_object_get_uint64(v) > max)
			return cz_ctl_err("\"%s\" must be an integer from 0 to %llu, got %s", k,
					   (unsigned long long)max, num_text(v));
		*out = json_object_get_uint64(v);
		return NULL;
	}
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		/* 1e2 is an integer written as a double; 2.9 is not. */
		if (isfinite(d) && d >= 0 && d <= (double)max && d == floor(d)) {
			*out = (uint64_t)d;
			return NULL;
		}
	}
	return cz_ctl_err("\"%s\" must be an integer from 0 to %llu, got %s", k, (unsigned long long)max,
			   num_text(v));
}

json_object *cz_field_seconds(json_object *req, const char *k, double max, double *out)
{
	json_object *v;
	if (!json_object_object_get_ex(req, k, &v))
		return NULL;
	double d = json_object_get_double(v);
	bool num = json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
	if (!num || !isfinite(d) || d < 0 || d > max)
		return cz_ctl_err("\"%s\" must be a finite number of seconds from 0 to %.0f, got %s", k, max,
				   num ? num_text(v) : type_name(v));
	*out = d;
	return NULL;
}

/* A string value holding a NUL, anywhere in v (to depth 8): its field's
 * name, dotted ("witnesses[2]"), into path; true. */
static bool nul_in(json_object *v, char *path, size_t cap, int depth)
{
	size_t at = strlen(path);
	if (json_object_is_type(v, json_type_string))
		return strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v);
	if (depth >= 8)
		return false;
	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			snprintf(path + at, cap - at, "[%zu]", i);
			if (nul_in(json_object_array_get_idx(v, i), path, cap, depth + 1))
				return true;
		}
	} else if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, k, c) {
			snprintf(path + at, cap - at, "%s%s", at ? "." : "", k);
			if (nul_in(c, path, cap, depth + 1))
				return true;
		}
	}
	path[at] = 0;
	return false;
}

json_object *cz_fields_nul_scan(json_object *req)
{
	char path[256] = "";
	return nul_in(req, path, sizeof(path), 0)
	       ? cz_ctl_err("\"%s\" contains a NUL character (\\u0000): refused, not cut short", path) : NULL;
}
