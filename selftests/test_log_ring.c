// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log's queue (user/log_ring.c, user/log.c): records of any size come
 * out whole and in order however often the ring wraps, a full ring
 * refuses a record without keeping any of it, and a log whose sink does
 * not keep up drops lines, says how many once, and keeps the order of
 * the rest. And the log's ring is not static storage: starvd locks all
 * of its memory (mlockall()), so a static ring is resident all the time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "log.h"
#include "log_ring.h"
#include "util.h"

/* Record @n: its length (1 to 200 bytes, in no order) and its bytes. */
static size_t rec_len(unsigned int n)
{
	return 1 + (n * 37 + n / 7) % 200;
}

static void rec_fill(unsigned int n, unsigned char *buf)
{
	size_t i;

	for (i = 0; i < rec_len(n); i++)
		buf[i] = n * 31 + i;
}

/* Put record @n in @r: false if the ring has no room. */
static bool put_rec(struct log_ring *r, unsigned int n)
{
	unsigned char buf[256];
	struct iovec iov[2];
	size_t len = rec_len(n);

	rec_fill(n, buf);
	/* Two pieces, as log.c's record and text. */
	iov[0] = (struct iovec){ buf, len / 2 };
	iov[1] = (struct iovec){ buf + len / 2, len - len / 2 };
	return log_ring_put(r, iov, 2);
}

/* Does the next record of @r hold record @n, whole? */
static bool get_rec(struct log_ring *r, unsigned int n)
{
	unsigned char got[256], want[256];
	size_t len = log_ring_get(r, got, sizeof(got));

	rec_fill(n, want);
	return len == rec_len(n) && !memcmp(got, want, len);
}

#define GUARD	256
#define CANARY	0xa5

/*
 * Mixed sizes, through a 512-byte ring that wraps at every position;
 * nothing is written around it.
 */
TEST(wraps_with_records_of_mixed_sizes)
{
	static uint64_t mem64[(GUARD + 512 + GUARD) / 8];
	unsigned char *mem = (unsigned char *)mem64, *buf = mem + GUARD;
	unsigned int put = 0, got = 0, round;
	struct log_ring r;
	size_t i;

	memset(mem, CANARY, sizeof(mem64));
	log_ring_init(&r, buf, 512);
	for (round = 0; round < 2000; round++) {
		/* Fill it (at least one record fits an emptied ring)... */
		while (put_rec(&r, put))
			put++;
		ASSERT_LT(got, put);
		/* ...and take back one to all of what it holds. */
		do {
			ASSERT_TRUE(get_rec(&r, got))
				TH_LOG("record %u (%zu bytes) did not come out whole and next",
				       got, rec_len(got));
			got++;
		} while (got < put && got % (round % 5 + 1));
	}
	while (got < put) {
		ASSERT_TRUE(get_rec(&r, got));
		got++;
	}
	EXPECT_EQ(0, log_ring_get(&r, mem, sizeof(mem64)));
	/* Records crossed the end of the buffer many times over. */
	EXPECT_GT(log_ring_tail(&r), 100 * 512);
	for (i = 0; i < GUARD; i++) {
		ASSERT_EQ(CANARY, mem[i]) TH_LOG("written before the ring");
		ASSERT_EQ(CANARY, buf[512 + i]) TH_LOG("written past the ring");
	}
}

/* A full ring refuses a record, and holds the ones it had, unchanged. */
TEST(full_refuses_whole_records)
{
	static uint64_t buf[256 / 8];
	unsigned char big[sizeof(buf)] = { 0 };
	struct iovec iov = { big, sizeof(big) };
	unsigned int put = 0, got;
	struct log_ring r;

	log_ring_init(&r, buf, sizeof(buf));
	/* Larger than the ring with its header: never fits. */
	EXPECT_FALSE(log_ring_put(&r, &iov, 1));
	/* Empty: not even a header goes in. */
	iov.iov_len = 0;
	EXPECT_FALSE(log_ring_put(&r, &iov, 1));
	EXPECT_EQ(0, log_ring_get(&r, big, sizeof(big)));
	while (put_rec(&r, put))
		put++;
	ASSERT_GT(put, 1);
	/* Refused again, then room for it once one is got. */
	EXPECT_FALSE(put_rec(&r, put));
	for (got = 0; got < put; got++)
		ASSERT_TRUE(get_rec(&r, got));
	EXPECT_EQ(0, log_ring_get(&r, big, sizeof(big)));
	EXPECT_TRUE(put_rec(&r, put));
	EXPECT_TRUE(get_rec(&r, put));
}

struct ring_thread {
	struct log_ring *r;
	unsigned int count;
	atomic_uint bad;	/* the first record that was not next, +1 */
};

static void *consume(void *arg)
{
	struct ring_thread *t = arg;
	unsigned char got[256], want[256];
	unsigned int n = 0;
	size_t len;

	while (n < t->count) {
		len = log_ring_get(t->r, got, sizeof(got));
		if (!len) {
			sched_yield();
			continue;
		}
		rec_fill(n, want);
		if (len != rec_len(n) || memcmp(got, want, len)) {
			atomic_store(&t->bad, n + 1);
			return NULL;
		}
		n++;
	}
	return NULL;
}

/* One thread puts, another gets, as log.c's caller and writer do. */
TEST(one_producer_one_consumer)
{
	static uint64_t buf[1024 / 8];
	struct log_ring r;
	struct ring_thread t = { .r = &r, .count = 200000 };
	pthread_t thread;
	unsigned int n;

	log_ring_init(&r, buf, sizeof(buf));
	ASSERT_EQ(0, pthread_create(&thread, NULL, consume, &t));
	for (n = 0; n < t.count && !atomic_load(&t.bad); )
		if (put_rec(&r, n))
			n++;
		else
			sched_yield();
	pthread_join(thread, NULL);
	EXPECT_EQ(0, atomic_load(&t.bad))
		TH_LOG("record %u came out wrong", atomic_load(&t.bad) - 1);
}

/* What a test's sink, a pipe, has been given. */
struct sink {
	int fd;
	pthread_mutex_t lock;
	char *buf;
	size_t len;
};

static void *drain(void *arg)
{
	struct sink *s = arg;
	char chunk[4096];
	ssize_t n;

	while ((n = read(s->fd, chunk, sizeof(chunk))) > 0) {
		pthread_mutex_lock(&s->lock);
		memcpy(s->buf + s->len, chunk, n);
		s->len += n;
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

#define LINES		1000
#define SINK_MAX	(4 << 20)

/* Line @n of @kind ("line" or "after"): a word, its number, padding. */
static void make_line(char *buf, size_t len, const char *kind, int n)
{
	int at = snprintf(buf, len, "%s %d ", kind, n);
	int pad = (n * 37) % 700;

	memset(buf + at, 'x', pad);
	buf[at + pad] = '\0';
}

/* What the sink shows, up to the last whole line counted. */
struct tally {
	int lines, afters;	/* whole lines of each kind, in order */
	int last_after;		/* the number of the last "after" line */
	int notes;		/* "N log line(s) dropped" lines */
	long said;		/* the sum of their N */
	int bad;		/* lines out of order, cut or unknown */
	int next_line, next_after;
	size_t counted;		/* bytes of the sink */
};

/* Count the lines that came since the last call. */
static void count(struct sink *s, struct tally *t)
{
	char want[1024], *line, *end, kind[8];
	long dropped;
	int n;

	pthread_mutex_lock(&s->lock);
	for (line = s->buf + t->counted;
	     (end = memchr(line, '\n', s->buf + s->len - line));
	     line = end + 1) {
		*end = '\0';
		if (sscanf(line, "starvd: %ld log line(s) dropped", &dropped) == 1) {
			t->notes++;
			t->said += dropped;
		} else if (sscanf(line, "starvd: %7s %d ", kind, &n) == 2 &&
			   (!strcmp(kind, "line") || !strcmp(kind, "after"))) {
			bool after = !strcmp(kind, "after");

			make_line(want, sizeof(want), kind, n);
			if (strcmp(line + strlen("starvd: "), want) ||
			    n < (after ? t->next_after : t->next_line) ||
			    (!after && t->afters))
				t->bad++;
			if (after) {
				t->afters++;
				t->last_after = n;
				t->next_after = n + 1;
			} else {
				t->lines++;
				t->next_line = n + 1;
			}
		} else {
			t->bad++;
		}
		*end = '\n';
	}
	t->counted = line - s->buf;
	pthread_mutex_unlock(&s->lock);
}

/*
 * A sink that takes nothing while LINES lines are logged (the writer
 * blocks on a full pipe, the ring fills), then takes everything: the
 * lines that were not dropped come whole and in order, and once the
 * writer catches up the log says how many were dropped, once.
 */
TEST(full_log_drops_and_says_so_once)
{
	struct log_config lc = { .ident = "starvd", .to_stderr = true };
	struct timespec ms = { .tv_nsec = 1000 * 1000 };
	struct sink s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	int p[2], saved, n, k, i;
	char line[1024];
	pthread_t reader;
	struct tally t = { .last_after = -1 };

	s.buf = malloc(SINK_MAX);
	ASSERT_NE(NULL, s.buf);
	ASSERT_EQ(0, pipe(p));
	s.fd = p[0];
	saved = dup(STDERR_FILENO);
	ASSERT_LE(0, saved);
	ASSERT_LE(0, dup2(p[1], STDERR_FILENO));
	close(p[1]);
	log_init(&lc);
	ASSERT_EQ(0, log_start_async());
	for (n = 0; n < LINES; n++) {
		make_line(line, sizeof(line), "line", n);
		log_msg("%s", line);
	}
	ASSERT_EQ(0, pthread_create(&reader, NULL, drain, &s));
	/*
	 * One line at a time, each given its time to come through (a line
	 * that does not may be dropped, which the note must count too),
	 * until every line logged is either in the sink or said dropped.
	 */
	for (k = 0; k < 2000; k++) {
		make_line(line, sizeof(line), "after", k);
		log_msg("%s", line);
		for (i = 0; i < 100; i++) {
			count(&s, &t);
			if (t.last_after == k)
				break;
			nanosleep(&ms, NULL);
		}
		if (k >= 100 && t.last_after == k &&
		    t.said == (LINES - t.lines) + (k + 1 - t.afters))
			break;
	}
	log_close();
	ASSERT_LE(0, dup2(saved, STDERR_FILENO));
	close(saved);
	pthread_join(reader, NULL);
	count(&s, &t);
	EXPECT_EQ(0, t.bad) TH_LOG("lines out of order, cut or unknown");
	/* Nothing read the pipe: the ring had no room for all. */
	EXPECT_LT(t.lines, LINES);
	EXPECT_LT(0, t.lines);
	EXPECT_LE(1, t.notes);
	/* Every line dropped said once, none said that was not dropped. */
	EXPECT_EQ(k, t.last_after);
	EXPECT_EQ((LINES - t.lines) + (k + 1 - t.afters), t.said)
		TH_LOG("%d and %d lines in the sink, %ld said dropped in %d notes",
		       t.lines, t.afters, t.said, t.notes);
	free(s.buf);
}

/*
 * The .data and .bss of this program, which links log.c: a ring (or any
 * buffer) of static storage would be resident and locked in starvd all
 * the time; the log's ring is allocated when its writer starts.
 */
extern char __data_start[], _end[];

TEST(log_is_not_static_storage)
{
	size_t size = _end - __data_start;

	EXPECT_GT(256 * 1024, size)
		TH_LOG("%zu KiB of static storage: starvd locks all of it", size / 1024);
}

TEST_HARNESS_MAIN
