/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON output (event lines, starvctl --json), built with json-c. json-c
 * escapes quotes, backslashes and control characters but copies other
 * bytes as they are, and a comm is any 15 bytes a task chose. A name
 * (comm, a process's comm) goes through json_put_name(): the escaped
 * text of escape.h, the same string as in the text lines, ASCII, and
 * lossless ("\\x0a" in the JSON text is the name's newline). Any other
 * string goes through json_text(), which makes it valid UTF-8 first, so
 * every line starvd prints parses.
 */
#ifndef STARVD_JSON_H
#define STARVD_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include <starvd/abi.h>

/*
 * Copy @s to @out (@len bytes, NUL included) as valid UTF-8: each byte
 * that does not start a well-formed sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF) becomes U+FFFD.
 */
void utf8_sanitize(const char *s, char *out, size_t len);
/* A JSON string holding @s, made valid UTF-8. */
struct json_object *json_text(const char *s);
/* Add @key to @o; the helpers take the value's ownership (json-c). */
void json_put(struct json_object *o, const char *key, struct json_object *v);
void json_put_u64(struct json_object *o, const char *key, uint64_t v);
void json_put_int(struct json_object *o, const char *key, int64_t v);
void json_put_str(struct json_object *o, const char *key, const char *s);
void json_put_bool(struct json_object *o, const char *key, int v);
/* A task's or process's name, escaped (escape.h). */
void json_put_name(struct json_object *o, const char *key, const char *name);
/*
 * Who a task is, the same in every object that names one: tid, tgid,
 * comm, cpu, policy (name) and priority (the user's value: RT priority,
 * or nice).
 */
void json_put_task(struct json_object *o, const struct starvd_task *t);
/* @o on one line, no spaces; NULL if json-c could not allocate. */
const char *json_line(struct json_object *o);

#endif
