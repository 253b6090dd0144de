// SPDX-License-Identifier: GPL-2.0-or-later
/* What a starving kernel thread was there to do (pending.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "pending.h"
#include "util.h"

/* include/linux/interrupt.h, softirq_to_name[] in kernel/softirq.c */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

const char *pending_softirq_name(unsigned int nr)
{
	return nr < ARRAY_SIZE(softirq_names) ? softirq_names[nr] : NULL;
}

static bool symbol_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool module_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/*
 * The function whose first byte is one before the address "%pB" was
 * given: "%pB" names it "name+0x1/0xSIZE" (the offset of that address),
 * optionally with " [module]" or " [module BUILDID]": "name" or
 * "name [module]". Anything else (an address, another offset: a pointer
 * into a function) gives "?".
 */
static void accept_symbol(const char *s, size_t n, char *out, size_t len)
{
	const char *end = s + n, *p = s, *mod, *q;

	snprintf(out, len, "?");
	while (p < end && symbol_char(*p))
		p++;
	if (p == s || p - s >= (ptrdiff_t)len || end - p < 7 ||
	    strncmp(p, "+0x1/0x", 7))
		return;
	q = p + 7;
	if (q == end || !isxdigit((unsigned char)*q))
		return;
	while (q < end && isxdigit((unsigned char)*q))
		q++;
	if (q == end) {
		snprintf(out, len, "%.*s", (int)(p - s), s);
		return;
	}
	if (end - q < 4 || strncmp(q, " [", 2) || end[-1] != ']')
		return;
	mod = q + 2;
	for (q = mod; q < end - 1 && module_char(*q); q++)
		;
	if (q == mod || (q < end - 1 && *q != ' '))
		return;
	if ((size_t)(p - s) + 3 + (size_t)(q - mod) >= len)
		return;
	snprintf(out, len, "%.*s [%.*s]", (int)(p - s), s, (int)(q - mod),
		 mod);
}

/* "WQ SYMBOL" (@n bytes at @s) into @w. */
static void parse_work(const char *s, size_t n, struct pending_work *w)
{
	const char *sp = memchr(s, ' ', n);
	char wq[32];

	memset(w, 0, sizeof(*w));
	if (!sp) {
		snprintf(w->func, sizeof(w->func), "?");
		return;
	}
	if (sp - s != 1 || *s != '-') {
		snprintf(wq, sizeof(wq), "%.*s", (int)(sp - s), s);
		str_escape(wq, w->wq, sizeof(w->wq));
	}
	accept_symbol(sp + 1, n - (sp + 1 - s), w->func, sizeof(w->func));
}

int pending_parse(const char *buf, size_t len, unsigned int tid,
		  struct task_pending *p)
{
	const char *line = buf, *end = buf + len;
	bool found = false;

	memset(p, 0, sizeof(*p));
	while (line < end) {
		const char *nl = memchr(line, '\n', end - line);
		size_t n = (nl ? nl : end) - line;
		unsigned long v;
		char *e;

		if (n >= 2 && line[1] == ' ')
			v = strtoul(line + 2, &e, 10);
		else
			v = 0;
		switch (n ? line[0] : 0) {
		case 'T':
			found = n > 2 && v == tid;
			break;
		case 'S':
			p->softirqs_read = found;
			p->softirqs = v;
			break;
		case 'Q':
			p->worker = found;
			break;
		case 'R':
			if (found && n > 2)
				parse_work(line + 2, n - 2, &p->running);
			break;
		case 'W':
			if (found && n > 2 && p->nr_shown < PENDING_SHOWN)
				parse_work(line + 2, n - 2,
					   &p->shown[p->nr_shown++]);
			break;
		case 'N':
			if (found)
				p->nr_queued = v < PENDING_COUNTED ? v :
					       PENDING_COUNTED;
			break;
		}
		line += n + 1;
	}
	if (!found) {
		memset(p, 0, sizeof(*p));
		return -ESRCH;
	}
	if (p->nr_queued < p->nr_shown)
		p->nr_queued = p->nr_shown;
	return 0;
}

/* Append to @buf (@len bytes) at *@off, which never passes @len - 1. */
static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off = *off + n < len ? *off + n : len - 1;
}

static void work_text(const struct pending_work *w, char *buf, size_t len,
		      size_t *off)
{
	put(buf, len, off, "%s%s%s%s", w->func, w->wq[0] ? " (" : "", w->wq,
	    w->wq[0] ? ")" : "");
}

static void softirqs_text(unsigned int mask, const char *sep, char *buf,
			  size_t len, size_t *off)
{
	size_t start = *off;
	unsigned int i;

	for (i = 0; i < 32; i++) {
		const char *name = pending_softirq_name(i);

		if (!(mask & (1U << i)))
			continue;
		if (name)
			put(buf, len, off, "%s%s", *off > start ? sep : "",
			    name);
		else
			put(buf, len, off, "%s%u", *off > start ? sep : "", i);
	}
}

void pending_text(const struct task_pending *p, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	if (p->unknown) {
		put(buf, len, &off, "pending work not read: %s", p->unknown);
		return;
	}
	if (p->softirqs_read) {
		put(buf, len, &off, "pending softirqs: %s",
		    p->softirqs ? "" : "none");
		softirqs_text(p->softirqs, " ", buf, len, &off);
		return;
	}
	if (!p->worker)
		return;
	if (p->running.func[0]) {
		put(buf, len, &off, "running ");
		work_text(&p->running, buf, len, &off);
		put(buf, len, &off, "; ");
	}
	put(buf, len, &off, "queued: %s", p->nr_queued ? "" : "none");
	for (i = 0; i < p->nr_shown; i++) {
		put(buf, len, &off, "%s", i ? ", " : "");
		work_text(&p->shown[i], buf, len, &off);
	}
	if (p->nr_queued > p->nr_shown)
		put(buf, len, &off, ", %s%u more",
		    p->nr_queued >= PENDING_COUNTED ? "at least " : "",
		    p->nr_queued - p->nr_shown);
}

void pending_brief(const struct task_pending *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (!p || p->unknown)
		return;
	if (p->softirqs_read)
		softirqs_text(p->softirqs, ",", buf, len, &off);
	else if (p->running.func[0])
		snprintf(buf, len, "%s", p->running.func);
	else if (p->nr_shown)
		snprintf(buf, len, "%s", p->shown[0].func);
}
