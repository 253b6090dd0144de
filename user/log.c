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
 * single-producer single-consumer ring and written by a thread of its
 * own, at the daemon's real-time priority (a line is written as soon as
 * the sink takes it, even with busy loops on every CPU; the thread only
 * ever waits for its sinks). The main loop only ever copies; when the ring is
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
#include <string.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "sched_attr.h"
#include "util.h"

#define RING_LINES	256	/* a power of two */
/*
 * A full ring waits this long for the writer to make room: enough for a
 * live reader of a pipe (a test harness, journald) to keep up with a
 * burst, bounded for a sink that is stuck. Once a wait ends without
 * room, lines are dropped without waiting until the writer moves again.
 */
#define FULL_WAIT_US	20000
#define WRITER_STACK	(64 * 1024)

struct log_line {
	int prio;
	bool event;
	char text[LOG_TEXT_LEN];
	char json[LOG_JSON_LEN];	/* "" unless an event with --json */
};

static struct log_config cfg = { .ident = "starvd", .to_stderr = true };
static int kmsg_fd = -1;

static struct {
	bool running;
	bool stuck;			/* a sink never gave the writer back */
	unsigned int stalled_at;	/* tail when a wait for room failed, +1 */
	atomic_bool stop;
	atomic_bool reopen;		/* SIGHUP: the writer reopens the sinks */
	pthread_t thread;
	int efd;			/* the writer sleeps on it */
	atomic_uint head, tail;		/* head: next to fill; tail: next to write */
	atomic_uint done;		/* lines written, the last one included */
	atomic_ulong dropped;
	unsigned long dropped_said;
	struct log_line ring[RING_LINES];
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

static void sinks_write(const struct log_line *l)
{
	if (l->json[0])
		write_line(STDOUT_FILENO, "%s\n", l->json);
	if (cfg.to_stderr && !(l->event && cfg.json && !cfg.verbose))
		write_line(STDERR_FILENO, "%s: %s\n", cfg.ident, l->text);
	if (cfg.to_syslog)
		syslog(l->prio, "%s", l->text);
	if (kmsg_fd >= 0)
		write_line(kmsg_fd, "<%d>%s: %s\n", l->prio, cfg.ident, l->text);
}

static void *writer(void *arg)
{
	struct pollfd pfd = { .fd = q.efd, .events = POLLIN };
	struct log_line l;
	unsigned int t;
	uint64_t v;

	if (q.dl.size)
		q.dl_ret = sched_setattr_tid(0, &q.dl);
	atomic_store(&q.started, true);
	for (;;) {
		t = atomic_load_explicit(&q.tail, memory_order_relaxed);
		if (t == atomic_load_explicit(&q.head, memory_order_acquire)) {
			if (atomic_load(&q.stop))
				return NULL;
			poll(&pfd, 1, -1);
			if (read(q.efd, &v, sizeof(v)) < 0 && errno != EAGAIN &&
			    errno != EINTR)
				return NULL;
			continue;
		}
		l = q.ring[t % RING_LINES];
		atomic_store_explicit(&q.tail, t + 1, memory_order_release);
		if (atomic_exchange(&q.reopen, false)) {
			sinks_close();
			sinks_open();
		}
		sinks_write(&l);
		atomic_store(&q.done, t + 1);
	}
}

static void wake_writer(void);

/* Is there room for one more line, waiting a little if the writer moves? */
static bool room(unsigned int h)
{
	struct timespec ts = { .tv_nsec = 1000 * 1000 };
	unsigned int t = atomic_load_explicit(&q.tail, memory_order_acquire);
	int waited_us = 0;

	if (h - t < RING_LINES)
		return true;
	if (q.stalled_at == t + 1)
		return false;	/* still where it stalled: do not wait again */
	while (waited_us < FULL_WAIT_US) {
		nanosleep(&ts, NULL);
		waited_us += 1000;
		t = atomic_load_explicit(&q.tail, memory_order_acquire);
		if (h - t < RING_LINES)
			return true;
	}
	q.stalled_at = t + 1;
	return false;
}

/* Queue @l for the writer; false if the ring is full (the line is lost). */
static bool push(const struct log_line *l)
{
	unsigned int h = atomic_load_explicit(&q.head, memory_order_relaxed);

	if (!room(h)) {
		atomic_fetch_add(&q.dropped, 1);
		return false;
	}
	q.ring[h % RING_LINES] = *l;
	atomic_store_explicit(&q.head, h + 1, memory_order_release);
	wake_writer();
	return true;
}

static void emit_line(struct log_line *l)
{
	unsigned long dropped;

	if (q.stuck)
		return;
	if (!q.running) {
		sinks_write(l);
		return;
	}
	dropped = atomic_load(&q.dropped);
	if (dropped != q.dropped_said) {
		struct log_line note = { .prio = LOG_WARNING };

		snprintf(note.text, sizeof(note.text),
			 "%lu log line(s) dropped: the log sinks (console, syslog, kmsg, stdout) did not keep up",
			 dropped - q.dropped_said);
		if (push(&note))
			q.dropped_said = dropped;
	}
	push(l);
}

int log_start_async(void)
{
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
	q.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q.efd < 0)
		return -errno;
	ret = thread_start(&q.thread, WRITER_STACK, writer, NULL);
	if (ret) {
		close(q.efd);
		q.efd = -1;
		return ret;
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
	while (atomic_load(&q.done) != atomic_load(&q.head) &&
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
	if (atomic_load(&q.done) != atomic_load(&q.head)) {
		/* The writer is inside a sink: touch none of them again. */
		q.stuck = true;
		return;
	}
	wake_writer();
	pthread_join(q.thread, NULL);
	close(q.efd);
	q.efd = -1;
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

/*
 * @text as one line of printable ASCII in @l: names come escaped
 * (escape.h), and this net escapes what any other text could still hold
 * (a control byte, a byte past ASCII) the same way, so that no line
 * breaks in two or sends an escape sequence to a terminal.
 */
static void set_text(struct log_line *l, const char *text)
{
	str_escape_ctl(text, l->text, sizeof(l->text));
}

static void vlog(int prio, const char *fmt, va_list ap)
{
	struct log_line l = { .prio = prio };
	char text[LOG_TEXT_LEN];

	vsnprintf(text, sizeof(text), fmt, ap);
	set_text(&l, text);
	emit_line(&l);
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
	struct log_line l = { .prio = LOG_INFO, .event = true };

	set_text(&l, text);
	if (cfg.json)
		snprintf(l.json, sizeof(l.json), "%s", json);
	emit_line(&l);
}
