/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the daemon's messages go: stderr, syslog, the kernel log, JSON. */
#ifndef STARVD_LOG_H
#define STARVD_LOG_H

#include <stdbool.h>

struct log_config {
	bool to_stderr;
	bool to_syslog;
	bool to_kmsg;
	bool json;	/* events as JSON lines on stdout */
	bool verbose;	/* with json: text events on stderr too */
};

void log_init(const struct log_config *lc);
void log_close(void);

/* Informational and error messages, stalld style ("starvd: ..."). */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * One event: @text is the human line, @json the body of the JSON object
 * without braces ("\"event\":\"boost\",..."); json_escape() makes strings
 * safe to embed.
 */
void log_event(const char *text, const char *json);
void json_escape(const char *s, char *out, size_t len);

#endif
