/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one escaping rule for a name in text: a thread name (comm) is any
 * 15 bytes but NUL that an unprivileged task chose, so every sink that
 * prints one (stderr, syslog, /dev/kmsg, starvctl's tables, the boost
 * journal, JSON's "comm") gets it through str_escape(): each byte outside
 * printable ASCII (0x20..0x7e), and the backslash, becomes "\xNN" (two
 * lowercase hex digits), as the kernel and systemd escape. Printable
 * ASCII is kept, so ordinary names (stalld's lines) do not change. The
 * result cannot end a line, start an escape sequence or look like
 * another name, and str_unescape() gives the bytes back.
 */
#ifndef STARVD_ESCAPE_H
#define STARVD_ESCAPE_H

#include <stddef.h>
#include <sys/types.h>

/* Room for an escaped name of up to 15 bytes: 4 each, and the NUL. */
#define ESC_NAME_LEN	64

/*
 * Escape @s into @out (@len bytes, NUL included), cut before an escape
 * that does not fit. Returns @out.
 */
char *str_escape(const char *s, char *out, size_t len);
/*
 * The same but the backslash is kept: log.c's net under every line, so
 * that no caller's text can break a line or reach a terminal raw.
 */
char *str_escape_ctl(const char *s, char *out, size_t len);
/*
 * Reverse str_escape() for the @n bytes at @s into @out (@len bytes, NUL
 * included): "\xNN" becomes its byte, any other byte is copied. Returns
 * the length, -EINVAL for a NUL byte (in @s or escaped), -ENOSPC if it
 * does not fit.
 */
ssize_t str_unescape(const char *s, size_t n, char *out, size_t len);

/*
 * @name escaped, for a log call's argument: valid until the end of the
 * enclosing block. log_msg("pid %d (%s)", tid, esc_name(comm));
 */
#define esc_name(name) \
	str_escape((name), (char[ESC_NAME_LEN]){ 0 }, ESC_NAME_LEN)

#endif
