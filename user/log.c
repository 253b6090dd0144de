// SPDX-License-Identifier: GPL-2.0-or-later
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"

static struct log_config cfg = { .to_stderr = true };
static int kmsg_fd = -1;

void log_init(const struct log_config *lc)
{
	cfg = *lc;
	if (cfg.to_syslog)
		openlog("starvd", LOG_PID, LOG_DAEMON);
	if (cfg.to_kmsg && kmsg_fd < 0)
		kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
}

void log_close(void)
{
	if (cfg.to_syslog)
		closelog();
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
}

static void emit(int prio, const char *line, bool event)
{
	if (cfg.to_stderr && !(event && cfg.json && !cfg.verbose))
		fprintf(stderr, "starvd: %s\n", line);
	if (cfg.to_syslog)
		syslog(prio, "%s", line);
	if (kmsg_fd >= 0)
		dprintf(kmsg_fd, "<%d>starvd: %s\n", prio, line);
}

static void vlog(int prio, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	emit(prio, line, false);
}

void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap);
	va_end(ap);
}

void log_event(const char *text, const char *json)
{
	if (cfg.json) {
		printf("{%s}\n", json);
		fflush(stdout);
	}
	emit(LOG_INFO, text, true);
}

void json_escape(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 7 < len; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = c;
		} else if (c < 0x20) {
			o += snprintf(out + o, len - o, "\\u%04x", c);
		} else {
			out[o++] = c;
		}
	}
	out[o] = '\0';
}
