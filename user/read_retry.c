// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "log.h"
#include "read_retry.h"
#include "util.h"

void read_retry_init(struct read_retry *r)
{
	memset(r, 0, sizeof(*r));
	r->backoff_ms = READ_BACKOFF_MIN_MS;
}

/* ": what the backend knows about it", or "". */
static const char *hint_sep(const struct backend *b)
{
	return b->read_error_hint[0] ? ": " : "";
}

uint64_t read_retry_failed(struct read_retry *r, const struct backend *b,
			   int err, uint64_t now)
{
	uint64_t next = now + r->backoff_ms * NSEC_PER_MSEC;

	if (r->backoff_ms < READ_BACKOFF_MAX_MS)
		r->backoff_ms *= 2;
	r->nr_failed++;
	if (err == r->err)
		return next;
	if (!r->err)
		r->since_ns = now;
	r->err = err;
	log_err("reading the waiters from the %s backend failed: %s%s%s; nothing is detected meanwhile; retrying every %.1f to %.0f s, logged again only if the error changes",
		b->display_name, strerror(-err), hint_sep(b),
		b->read_error_hint, READ_BACKOFF_MIN_MS / 1000.0,
		READ_BACKOFF_MAX_MS / 1000.0);
	return next;
}

void read_retry_ok(struct read_retry *r, const struct backend *b,
		   uint64_t now)
{
	r->backoff_ms = READ_BACKOFF_MIN_MS;
	if (!r->err)
		return;
	log_msg("reading the waiters from the %s backend works again, after %llu failed attempts in %.1f s",
		b->display_name, (unsigned long long)r->nr_failed,
		(double)(now - r->since_ns) / NSEC_PER_SEC);
	r->err = 0;
	r->nr_failed = 0;
}

void read_retry_log_status(const struct read_retry *r,
			   const struct backend *b, uint64_t now)
{
	if (!r->err)
		return;
	log_msg("status: reads failing for %.1f s (%llu attempts): %s%s%s",
		(double)(now - r->since_ns) / NSEC_PER_SEC,
		(unsigned long long)r->nr_failed, strerror(-r->err),
		hint_sep(b), b->read_error_hint);
}
