/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tests' one JSON parser: strict JSON (RFC 8259, no trailing commas,
 * no single quotes, no control characters in strings) whose strings are
 * valid UTF-8, parsed by json-c as a consumer of starvd's output would.
 *
 * json-c 0.18 (Debian 13) rejects every byte above 0x7f inside a string
 * under JSON_TOKENER_STRICT, valid UTF-8 included (its check for control
 * characters reads a signed char). So strictness is checked on a copy
 * whose bytes above 0x7f are 'x' (they occur only inside strings, so the
 * copy has the same structure), and the object returned is parsed from
 * the text itself with JSON_TOKENER_VALIDATE_UTF8 alone.
 */
#ifndef STARVD_SELFTESTS_JSON_STRICT_H
#define STARVD_SELFTESTS_JSON_STRICT_H

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static inline struct json_object *json_parse_flags(const char *s, size_t len,
						   int flags)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;

	if (!tok)
		return NULL;
	json_tokener_set_flags(tok, flags);
	o = json_tokener_parse_ex(tok, s, (int)len);
	json_tokener_free(tok);
	return o;
}

/* The object of the @len bytes at @s, or NULL if not strict JSON. */
static inline struct json_object *json_parse_strict_len(const char *s,
							size_t len)
{
	struct json_object *o;
	char *ascii = malloc(len + 1);
	size_t i;

	if (!ascii)
		return NULL;
	for (i = 0; i < len; i++)
		ascii[i] = (unsigned char)s[i] > 0x7f ? 'x' : s[i];
	ascii[len] = '\0';
	o = json_parse_flags(ascii, len, JSON_TOKENER_STRICT);
	free(ascii);
	if (!o)
		return NULL;
	json_object_put(o);
	return json_parse_flags(s, len, JSON_TOKENER_VALIDATE_UTF8);
}

#endif
