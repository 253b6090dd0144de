// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "escape.h"
#include "json.h"
#include "sched_attr.h"

/* Length of the well-formed UTF-8 sequence at @p, 0 if there is none. */
static size_t utf8_seq(const unsigned char *p)
{
	size_t n, i;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void utf8_sanitize(const char *s, char *out, size_t len)
{
	static const char repl[] = "\xef\xbf\xbd";	/* U+FFFD */
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n;

	if (!len)
		return;
	while (*p) {
		n = utf8_seq(p);
		if (n) {
			if (o + n >= len)
				break;
			memcpy(out + o, p, n);
			p += n;
		} else {
			if (o + 3 >= len)
				break;
			memcpy(out + o, repl, 3);
			n = 3;
			p++;
		}
		o += n;
	}
	out[o] = '\0';
}

struct json_object *json_text(const char *s)
{
	/* Each byte becomes at most three. */
	char buf[3 * 512 + 1];

	utf8_sanitize(s, buf, sizeof(buf));
	return json_object_new_string(buf);
}

void json_put(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

void json_put_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_put(o, key, json_object_new_uint64(v));
}

void json_put_int(struct json_object *o, const char *key, int64_t v)
{
	json_put(o, key, json_object_new_int64(v));
}

void json_put_str(struct json_object *o, const char *key, const char *s)
{
	json_put(o, key, json_text(s));
}

void json_put_name(struct json_object *o, const char *key, const char *name)
{
	json_put(o, key, json_object_new_string(esc_name(name)));
}

void json_put_bool(struct json_object *o, const char *key, int v)
{
	json_put(o, key, json_object_new_boolean(!!v));
}

void json_put_task(struct json_object *o, const struct starvd_task *t)
{
	json_put_u64(o, "tid", t->tid);
	json_put_u64(o, "tgid", t->tgid);
	json_put_name(o, "comm", t->comm);
	json_put_int(o, "cpu", t->cpu);
	json_put_str(o, "policy", policy_name(t->policy));
	json_put_int(o, "priority", prio_to_user(t->policy, t->prio));
}

const char *json_line(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
}
