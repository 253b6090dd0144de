// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The byte ring of log_ring.h. A record is a header (its length) and its
 * bytes, padded to LOG_RING_ALIGN, and always contiguous: one that does
 * not fit before the end of the buffer starts at the beginning, and a
 * header of length WRAP fills the end. The producer publishes a record
 * with a release store of head (after its bytes), the consumer frees its
 * room with a release store of tail (after copying it out).
 */
#include <stdint.h>
#include <string.h>

#include "log_ring.h"

#define WRAP	UINT32_MAX	/* the rest of the buffer is unused */

static size_t rec_size(size_t len)
{
	return LOG_RING_HDR + ((len + LOG_RING_ALIGN - 1) &
			       ~(size_t)(LOG_RING_ALIGN - 1));
}

void log_ring_init(struct log_ring *r, void *buf, size_t size)
{
	r->buf = buf;
	r->size = size;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
}

bool log_ring_put(struct log_ring *r, const struct iovec *iov, int cnt)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	size_t off = head & (r->size - 1), to_end = r->size - off;
	size_t len = 0, need;
	uint32_t hdr;
	int i;

	for (i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	need = rec_size(len);
	if (!len || len >= WRAP || need > r->size)
		return false;
	if (need > to_end)
		need += to_end;	/* the end stays unused */
	if (need > r->size - (head - tail))
		return false;
	if (need > rec_size(len)) {
		hdr = WRAP;
		memcpy(r->buf + off, &hdr, sizeof(hdr));
		off = 0;
	}
	hdr = len;
	memcpy(r->buf + off, &hdr, sizeof(hdr));
	off += LOG_RING_HDR;
	for (i = 0; i < cnt; i++) {
		memcpy(r->buf + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	atomic_store_explicit(&r->head, head + need, memory_order_release);
	return true;
}

size_t log_ring_get(struct log_ring *r, void *out, size_t len)
{
	size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	size_t off;
	uint32_t hdr;

	if (tail == head)
		return 0;
	off = tail & (r->size - 1);
	memcpy(&hdr, r->buf + off, sizeof(hdr));
	if (hdr == WRAP) {
		tail += r->size - off;
		off = 0;
		memcpy(&hdr, r->buf, sizeof(hdr));
	}
	memcpy(out, r->buf + off + LOG_RING_HDR, hdr < len ? hdr : len);
	atomic_store_explicit(&r->tail, tail + rec_size(hdr),
			      memory_order_release);
	return hdr < len ? hdr : len;
}

size_t log_ring_tail(struct log_ring *r)
{
	return atomic_load_explicit(&r->tail, memory_order_acquire);
}
