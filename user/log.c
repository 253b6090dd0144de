// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where the daemon's lines go, and how they get there without ever
 * making the daemon wait.
 *
 * Every sink can block on the very kernel threads starvd exists to
 * rescue: a serial console is drained by its IRQ thread (irq/4-ttyS0),
 * journald reads syslog's socket and stdout when it gets a CPU, and
 * /dev/kmsg may print to a console synchronously. A daemon that writes
 * to such a sink itself can wait for the task it boosts, and so never end
 * the boost: irq/4-ttyS0, boosted to SCHED_DEADLINE 20us/1s and throttled,
 * holds the port, and the write() waits for it at 20 us a second
 * (docs/kernel-behaviours.md, "The serial console waits for its IRQ
 * thread").
 *
 * So once the daemon runs (log_start_async()), a line is copied into a
 * single-producer single-consumer ring of records (log_ring.h), each as
 * long as its text and JSON, and written by a thread of its own, at the
 * daemon's real-time priority (a line is written as soon as the sink
 * takes it, even with busy loops on every CPU; the thread only ever
 * waits for its sinks). The main loop only ever copies; when the ring is
 * full it waits at most FULL_WAIT_US for room (once per stall), then the
 * line is counted as dropped, and the count is logged once the writer
 * catches up. Before that (start-up, errors on the command line)
 * and after log_close(), lines are written directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "log_ring.h"
#include "sched_attr.h"
#include "util.h"

/*
 * The ring holds a burst of RING_EVENTS events at once (a starvation on
 * as many CPUs): RING_TEXT bytes an event for its record and text line
 * (a report naming cgroups is about 350), RING_JSON more with --json (its
 * object is about 700). Both sizes keep the ring a power of two, and
 * larger than the longest record.
 */
#define RING_EVENTS	128
#define RING_TEXT	512
#define RING_JSON	1536
/*
 * A full ring waits this long for the writer to make room: enough for a
 * live reader of a pipe (a test harness, journald) to keep up with a
 * burst, bounded for a sink that is stuck. Once a wait ends without
 * room, lines are dropped without waiting until the writer moves again.
 */
#define FULL_WAIT_US	20000
#define WRITER_STACK	(64 * 1024)

/*
 * A line: this, then its text and its JSON (none unless an event with
 * --json), each with a NUL, as one record of the ring.
 */
struct log_rec {
	int prio;
	bool event;
	unsigned short text_len, json_len;
};

/* The longest record: the writer copies each out into one this long. */
#define REC_MAX		(sizeof(struct log_rec) + LOG_TEXT_LEN + LOG_JSON_LEN)

static struct log_config cfg = { .ident = "starvd", .to_stderr = true };
static int kmsg_fd = -1;

static struct {
	bool running;
	bool stuck;			/* a sink never gave the writer back */
	size_t stalled_at;		/* tail when a wait for room failed, +1 */
	atomic_bool stop;
	atomic_bool reopen;		/* SIGHUP: the writer reopens the sinks */
	pthread_t thread;
	int efd;			/* the writer sleeps on it */
	struct log_ring ring;		/* its buffer: from log_start_async() */
	unsigned int queued;		/* lines queued (the producer's) */
	atomic_uint done;		/* lines written (the writer's) */
	atomic_ulong dropped;
	unsigned long dropped_said;
	/*
	 * A main thread with a SCHED_DEADLINE reservation (-R, or the
	 * fallback of its own priority) cannot hand it down: the kernel
	 * refuses a thread to a deadline task without reset-on-fork. The
	 * writer, created at SCHED_OTHER, takes the same reservation itself
	 * (dl.size set), so that busy loops on every CPU do not hold back
	 * what starvd says; dl_ret: how that went, once started is set.
	 */
	struct sched_attr dl;
	int dl_ret;
	atomic_bool started;
} q = { .efd = -1 };

static void sinks_open(void)
{
	if (cfg.to_syslog)
		openlog(cfg.ident, LOG_PID, LOG_DAEMON);
	if (cfg.to_kmsg && kmsg_fd < 0)
		kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
}

static void sinks_close(void)
{
	if (cfg.to_syslog)
		closelog();
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
}

void log_init(const struct log_config *lc)
{
	cfg = *lc;
	if (!cfg.ident)
		cfg.ident = "starvd";
	sinks_open();
}

/*
 * write(2), not stdio: a writer stuck in a sink must hold no FILE lock;
 * and one write() per record: glibc's dprintf() attaches a FILE whose
 * lseek(SEEK_CUR) /dev/kmsg fails with EINVAL, and then writes nothing.
 */
static void write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= n;
	}
}

/* One formatted line to @fd, cut to what fits. */
static void __attribute__((format(printf, 2, 3)))
write_line(int fd, const char *fmt, ...)
{
	char buf[LOG_TEXT_LEN + LOG_JSON_LEN + 32];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf)) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	if (n > 0)
		write_all(fd, buf, n);
}

static void sinks_write(const struct log_rec *r, const char *text,
			const char *json)
{
	if (r->json_len)
		write_line(STDOUT_FILENO, "%.*s\n", r->json_len, json);
	if (cfg.to_stderr && !(r->event && cfg.json && !cfg.verbose))
		write_line(STDERR_FILENO, "%s: %s\n", cfg.ident, text);
	if (cfg.to_syslog)
		syslog(r->prio, "%s", text);
	if (kmsg_fd >= 0)
		write_line(kmsg_fd, "<%d>%s: %s\n", r->prio, cfg.ident, text);
}

static void *writer(void *arg)
{
	struct pollfd pfd = { .fd = q.efd, .events = POLLIN };
	union {
		struct log_rec rec;
		char bytes[REC_MAX];
	} m;
	unsigned int written = 0;
	const char *text, *json;
	uint64_t v;

	if (q.dl.size)
		q.dl_ret = sched_setattr_tid(0, &q.dl);
	atomic_store(&q.started, true);
	for (;;) {
		/* Copied out: its room is free while the sinks take it. */
		if (!log_ring_get(&q.ring, &m, sizeof(m))) {
			if (atomic_load(&q.stop))
				return NULL;
			poll(&pfd, 1, -1);
			if (read(q.efd, &v, sizeof(v)) < 0 && errno != EAGAIN &&
			    errno != EINTR)
				return NULL;
			continue;
		}
		text = m.bytes + sizeof(m.rec);
		json = text + m.rec.text_len + 1;
		if (atomic_exchange(&q.reopen, false)) {
			sinks_close();
			sinks_open();
		}
		sinks_write(&m.rec, text, json);
		atomic_store(&q.done, ++written);
	}
}

static void wake_writer(void);

/* Put @iov in the ring, waiting a little for room if the writer moves. */
static bool put(const struct iovec *iov, int cnt)
{
	struct timespec ts = { .tv_nsec = 1000 * 1000 };
	int waited_us = 0;

	if (log_ring_put(&q.ring, iov, cnt))
		return true;
	if (q.stalled_at == log_ring_tail(&q.ring) + 1)
		return false;	/* still where it stalled: do not wait again */
	while (waited_us < FULL_WAIT_US) {
		nanosleep(&ts, NULL);
		waited_us += 1000;
		if (log_ring_put(&q.ring, iov, cnt))
			return true;
	}
	q.stalled_at = log_ring_tail(&q.ring) + 1;
	return false;
}

/*
 * Queue a line for the writer: @r, @text and @json as long as @r says;
 * false if the ring is full.
 */
static bool push(const struct log_rec *r, const char *text, const char *json)
{
	const struct iovec iov[] = {
		{ (void *)r, sizeof(*r) },
		{ (void *)text, r->text_len },
		{ "", 1 },
		{ (void *)json, r->json_len },
		{ "", 1 },
	};

	if (!put(iov, ARRAY_SIZE(iov)))
		return false;
	q.queued++;
	wake_writer();
	return true;
}

/*
 * One line, @text made one line of printable ASCII: names come escaped
 * (escape.h), and this net escapes what any other text could still hold
 * (a control byte, a byte past ASCII) the same way, so that no line
 * breaks in two or sends an escape sequence to a terminal. @json is cut
 * to LOG_JSON_LEN - 1 bytes.
 */
static void emit(int prio, bool event, const char *raw, const char *json)
{
	struct log_rec r = { .prio = prio, .event = event };
	char text[LOG_TEXT_LEN];
	unsigned long dropped;

	if (q.stuck)
		return;
	str_escape_ctl(raw, text, sizeof(text));
	r.text_len = strlen(text);
	r.json_len = strnlen(json, LOG_JSON_LEN - 1);
	if (!q.running) {
		sinks_write(&r, text, json);
		return;
	}
	dropped = atomic_load(&q.dropped);
	if (dropped != q.dropped_said) {
		struct log_rec n = { .prio = LOG_WARNING };
		char note[128];

		snprintf(note, sizeof(note),
			 "%lu log line(s) dropped: the log sinks (console, syslog, kmsg, stdout) did not keep up",
			 dropped - q.dropped_said);
		n.text_len = strlen(note);
		if (push(&n, note, ""))
			q.dropped_said = dropped;
	}
	/* The line is lost; a note that is not queued stays to say. */
	if (!push(&r, text, json))
		atomic_fetch_add(&q.dropped, 1);
}

int log_start_async(void)
{
	size_t size = RING_EVENTS * (RING_TEXT + (cfg.json ? RING_JSON : 0));
	void *buf;
	int ret;

	/*
	 * The main thread's FIFO or RR priority (thread_start()); its
	 * SCHED_DEADLINE reservation, taken by the writer itself.
	 */
	memset(&q.dl, 0, sizeof(q.dl));
	if (!sched_getattr_tid(0, &q.dl) &&
	    q.dl.sched_policy == SCHED_DEADLINE)
		q.dl.sched_flags &= ~SCHED_FLAG_RESET_ON_FORK;
	else
		memset(&q.dl, 0, sizeof(q.dl));
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	log_ring_init(&q.ring, buf, size);
	q.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q.efd < 0) {
		ret = -errno;
		goto err_free;
	}
	ret = thread_start(&q.thread, WRITER_STACK, writer, NULL);
	if (ret) {
		close(q.efd);
		q.efd = -1;
		goto err_free;
	}
	q.running = true;
	if (q.dl.size) {
		int i;

		/* It runs at once: nothing else is busy at start-up. */
		for (i = 0; i < 1000 && !atomic_load(&q.started); i++)
			usleep(1000);
		if (!atomic_load(&q.started) || q.dl_ret)
			log_msg("the log writer thread could not take starvd's SCHED_DEADLINE reservation (%s): it runs at SCHED_OTHER, so with busy loops on every CPU starvd's lines can be late (never its boosts)",
				atomic_load(&q.started) ?
				strerror(-q.dl_ret) : "it did not start");
	}
	return 0;

err_free:
	free(buf);
	q.ring.buf = NULL;
	return ret;
}

static void wake_writer(void)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is full, so the writer is awake anyway. */
	(void)!write(q.efd, &one, sizeof(one));
}

/*
 * Let the writer finish what is queued while it makes progress: a slow
 * serial console still gets the last lines, but a sink that takes nothing
 * for STALL_MS (its kernel thread starves) is given up on, and so is
 * whatever is left after STOP_MAX_MS: SIGTERM ends starvd promptly
 * whatever the sinks do.
 */
#define STALL_MS	1000
#define STOP_MAX_MS	3000

static void stop_async(void)
{
	struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	unsigned int last = atomic_load(&q.done);
	int idle_ms = 0, ms = 0;

	atomic_store(&q.stop, true);
	wake_writer();
	while (atomic_load(&q.done) != q.queued &&
	       idle_ms < STALL_MS && ms < STOP_MAX_MS) {
		nanosleep(&ts, NULL);
		ms += 10;
		idle_ms += 10;
		if (atomic_load(&q.done) != last) {
			last = atomic_load(&q.done);
			idle_ms = 0;
		}
	}
	q.running = false;
	if (atomic_load(&q.done) != q.queued) {
		/*
		 * The writer is inside a sink: touch none of them again, and
		 * leave it the ring.
		 */
		q.stuck = true;
		return;
	}
	wake_writer();
	pthread_join(q.thread, NULL);
	close(q.efd);
	q.efd = -1;
	free(q.ring.buf);
	q.ring.buf = NULL;
}

void log_close(void)
{
	if (q.running)
		stop_async();
	if (!q.stuck)
		sinks_close();
}

void log_reopen(void)
{
	if (!q.running) {
		sinks_close();
		sinks_open();
		return;
	}
	/* The writer does it, before the next line: it owns the sinks. */
	atomic_store(&q.reopen, true);
}

static void vlog(int prio, const char *fmt, va_list ap)
{
	char text[LOG_TEXT_LEN];

	vsnprintf(text, sizeof(text), fmt, ap);
	emit(prio, false, text, "");
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

bool log_json(void)
{
	return cfg.json;
}

void log_event(const char *text, const char *json)
{
	emit(LOG_INFO, true, text, cfg.json ? json : "");
}
