/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Failed reads of the backend are retried with a backoff from 100 ms to
 * 5 s (the module may be reloaded, e.g. by a DKMS upgrade). The failure is
 * logged once, with what to do, and again only if the error changes; the
 * recovery once.
 */
#ifndef STARVD_READ_RETRY_H
#define STARVD_READ_RETRY_H

#include <stdint.h>

#include "backend.h"

#define READ_BACKOFF_MIN_MS	100
#define READ_BACKOFF_MAX_MS	5000

struct read_retry {
	int err;		/* reads failing since since_ns; 0: they work */
	uint64_t nr_failed, since_ns;
	unsigned int backoff_ms;	/* the wait after the next failure */
};

void read_retry_init(struct read_retry *r);
/* A read of @b failed with @err at @now: when to try again. */
uint64_t read_retry_failed(struct read_retry *r, const struct backend *b,
			   int err, uint64_t now);
/* A read of @b worked at @now. */
void read_retry_ok(struct read_retry *r, const struct backend *b,
		   uint64_t now);
/* For the status line: how long reads have been failing, if they are. */
void read_retry_log_status(const struct read_retry *r,
			   const struct backend *b, uint64_t now);

#endif
