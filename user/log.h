/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the daemon's messages go: stderr, syslog, the kernel log, JSON. */
#ifndef STARVD_LOG_H
#define STARVD_LOG_H

#include <stdbool.h>

struct log_config {
	/* syslog ident and "IDENT: " prefix: "starvd", or "stalld" (NULL: starvd) */
	const char *ident;
	bool to_stderr;
	bool to_syslog;
	bool to_kmsg;
	bool json;	/* events as JSON lines on stdout */
	bool verbose;	/* with json: text events on stderr too */
};

void log_init(const struct log_config *lc);
/*
 * From now on, lines are queued and written by a thread of their own:
 * no sink can block the caller (see log.c). Call once the process has
 * its final credentials, signal mask and scheduling policy.
 */
int log_start_async(void);
/* Write what is queued (giving up on a sink that takes nothing for 1 s). */
void log_close(void);
/* SIGHUP: close and reopen syslog and /dev/kmsg (e.g. after a restart of the logger). */
void log_reopen(void);

/* Informational and error messages, stalld style ("starvd: ...", "stalld: ..."). */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The longest text line and JSON line a sink gets (longer ones are cut). */
#define LOG_TEXT_LEN	1024
#define LOG_JSON_LEN	8192	/* a holder stack's frames */

/* Are events wanted as JSON lines (--json)? */
bool log_json(void);
/*
 * One event (event.h renders them): @text is the human line, @json the
 * whole JSON object on one line, "" for none.
 */
void log_event(const char *text, const char *json);

#endif
