// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>

#include "escape.h"

static char *escape(const char *s, char *out, size_t len, bool backslash)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return out;
	for (; *p; p++) {
		if (*p >= 0x20 && *p <= 0x7e && (*p != '\\' || !backslash)) {
			if (o + 1 >= len)
				break;
			out[o++] = *p;
			continue;
		}
		if (o + 4 >= len)
			break;
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[*p >> 4];
		out[o++] = hex[*p & 0xf];
	}
	out[o] = '\0';
	return out;
}

char *str_escape(const char *s, char *out, size_t len)
{
	return escape(s, out, len, true);
}

char *str_escape_ctl(const char *s, char *out, size_t len)
{
	return escape(s, out, len, false);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

ssize_t str_unescape(const char *s, size_t n, char *out, size_t len)
{
	size_t i, o = 0;
	int hi, lo;
	char c;

	for (i = 0; i < n; i++) {
		c = s[i];
		if (c == '\\' && n - i >= 4 && s[i + 1] == 'x' &&
		    (hi = hex_digit(s[i + 2])) >= 0 &&
		    (lo = hex_digit(s[i + 3])) >= 0) {
			c = hi << 4 | lo;
			i += 3;
		}
		if (!c)
			return -EINVAL;
		if (o + 1 >= len)
			return -ENOSPC;
		out[o++] = c;
	}
	if (len)
		out[o] = '\0';
	return o;
}
