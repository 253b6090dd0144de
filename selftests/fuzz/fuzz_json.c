// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Strings from the kernel into JSON (user/json.c): the input is a comm, a
 * kernel stack, any bytes. Whatever they are, the sanitized string is
 * valid UTF-8 by json-c's own validator, fits its buffer, is unchanged
 * when sanitized again and when it already was valid, and the JSON line
 * holding it parses back to the same string.
 */
#include <json-c/json.h>

#include "fuzz.h"
#include "json.h"
#include "lib/json_strict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t lens[] = { 1, 2, 3, 4, 5, 16, 64 };
	static char clean[3 * 512 + 1], again[sizeof(clean)], small[64];
	struct json_object *o, *back, *v;
	char *s = fuzz_string(data, size > 512 ? 512 : size);
	size_t i;

	utf8_sanitize(s, clean, sizeof(clean));
	utf8_sanitize(clean, again, sizeof(again));
	FUZZ_CHECK(!strcmp(clean, again));
	/* A valid string is left as it is. */
	if (strlen(clean) == strlen(s))
		FUZZ_CHECK(!strcmp(clean, s));

	o = json_object_new_object();
	FUZZ_CHECK(o);
	json_put_str(o, "comm", s);
	back = json_parse_strict_len(json_line(o), strlen(json_line(o)));
	FUZZ_CHECK(back);
	FUZZ_CHECK(json_object_object_get_ex(back, "comm", &v));
	FUZZ_CHECK(!strcmp(json_object_get_string(v), clean));
	json_object_put(back);
	json_object_put(o);

	/* Cut short, it is still valid and a prefix of the whole. */
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		utf8_sanitize(s, small, lens[i]);
		FUZZ_CHECK(strlen(small) < lens[i]);
		FUZZ_CHECK(!strncmp(small, clean, strlen(small)));
		utf8_sanitize(small, again, sizeof(again));
		FUZZ_CHECK(!strcmp(small, again));
	}
	free(s);
	return 0;
}
