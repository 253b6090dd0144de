/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A single-producer single-consumer ring of variable-length records, in
 * a byte buffer: what log.c queues for its writer thread. One thread puts,
 * one other thread gets; neither ever waits for the other.
 */
#ifndef STARVD_LOG_RING_H
#define STARVD_LOG_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

struct log_ring {
	unsigned char *buf;
	size_t size;		/* a power of two, a multiple of 8 */
	/*
	 * Bytes ever put and ever got, counted modulo 2^N (size divides
	 * it): head - tail is what the ring holds.
	 */
	atomic_size_t head, tail;
};

/* Each record takes this and its bytes rounded up to 8. */
#define LOG_RING_HDR	8
#define LOG_RING_ALIGN	8

/* @buf: @size bytes (a power of two, at least 16), 8-byte aligned. */
void log_ring_init(struct log_ring *r, void *buf, size_t size);
/*
 * The producer: one record made of @cnt pieces (at least one byte in
 * all), or false (nothing put) if the ring has no room for it now.
 */
bool log_ring_put(struct log_ring *r, const struct iovec *iov, int cnt);
/*
 * The consumer: copy the oldest record into @out (@len bytes; a longer
 * record is cut) and free its room: its length, or 0 if the ring is empty.
 */
size_t log_ring_get(struct log_ring *r, void *out, size_t len);
/* The consumer's position: it moves whenever a record is got. */
size_t log_ring_tail(struct log_ring *r);

#endif
