/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by the daemon, starvctl and the tests. */
#ifndef STARVD_UTIL_H
#define STARVD_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#ifndef ARRAY_SIZE
/* A case that falls through on purpose (the kernel's spelling). */
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* CLOCK_MONOTONIC in ns: the clock of every wait the backends report. */
uint64_t now_ns(void);

/* Parse a duration in seconds, decimals allowed ("60", "0.25"). */
int parse_seconds(const char *s, uint64_t *ns);
/* Parse a positive integer number of ns. */
int parse_ns(const char *s, uint64_t *ns);
/* Parse a non-negative int within [min, max]. */
int parse_int(const char *s, long min, long max, long *out);

/*
 * Read a small file whole, NUL-terminated (at most @len - 1 bytes): its
 * length, or -errno. For files whose text may hold newlines, as a task's
 * comm, and so /proc/<tid>/stat, can.
 */
int read_file(const char *path, char *buf, size_t len);
/* Read a small text file (first line, newline stripped); -errno on error. */
int read_line(const char *path, char *buf, size_t len);
/*
 * Is this a PREEMPT_RT kernel? /sys/kernel/realtime where the RT patch set
 * provides it (Debian's 6.1 and 6.12), else the kernel's version string:
 * mainline PREEMPT_RT (7.x) has no such file.
 */
bool kernel_preempt_rt(void);
/*
 * Does a kernel version string (uname -v) name PREEMPT_RT, as the word
 * "PREEMPT_RT" (or "PREEMPT RT" of the older RT patches)?
 */
bool uts_version_preempt_rt(const char *version);
/* Write a string to a file; -errno on error. */
int write_string(const char *path, const char *s);

/* mkdir -p with mode 0700 for the new directories; -errno on error. */
int mkdir_p(const char *path);

/* Is @path on tmpfs or ramfs (where fsync costs nothing)? */
bool on_memory_fs(const char *path);

/*
 * A file written whole or not at all, in the directory @dir_fd: open it
 * with atomic_open() (unnamed, O_TMPFILE: a writer killed before
 * atomic_commit() leaves nothing behind; named ".PID.N.tmp" on a file
 * system without O_TMPFILE), write to ->fd, then atomic_commit() gives it
 * its name, replacing any file of that name in one rename(), or
 * atomic_abort() drops it. Each closes ->fd. -errno on error.
 */
struct atomic_file {
	int dir_fd;
	int fd;
	char tmp[48];	/* its temporary name, "" while it has none */
};

int atomic_open(struct atomic_file *a, int dir_fd, mode_t mode);
int atomic_commit(struct atomic_file *a, const char *name);
void atomic_abort(struct atomic_file *a);

/*
 * Replace @path with what @fill writes (atomic_open()), so that a reader
 * never sees half of it; -errno on error. Mode 0644 less the umask; with
 * write_file_atomic_mode() @mode less the umask, from its creation on.
 */
int write_file_atomic(const char *path,
		      void (*fill)(FILE *f, const void *arg), const void *arg);
int write_file_atomic_mode(const char *path, mode_t mode,
			   void (*fill)(FILE *f, const void *arg),
			   const void *arg);
/* The same for the file @name of the directory @dir_fd. */
int write_file_atomic_at(int dir_fd, const char *name,
			 void (*fill)(FILE *f, const void *arg),
			 const void *arg);

/*
 * Grow *v to hold at least n elements of size sz. On ENOMEM it calls the
 * handler set with set_oom_handler() (the daemon's, from its start-up
 * on: log, put back what it changed, exit), or, in the tools, prints to
 * stderr and exits.
 */
void grow_array(void **v, size_t *cap, size_t n, size_t sz);
/*
 * A thread of starvd's: its stack @stack bytes or the C library's
 * minimum (128 KiB on arm64, where pthread_attr_setstacksize() refuses
 * less); every signal blocked (they are the main loop's, through its
 * signalfd); from its start at the caller's SCHED_FIFO or SCHED_RR
 * priority, else SCHED_OTHER. Under SCHED_RESET_ON_FORK (daemon.c) it
 * would be SCHED_OTHER, and placed on a CPU a busy loop holds it would
 * wait there for the kernel's fair server, where a real-time task is
 * pushed to a CPU it can run on. Where that policy is refused (no
 * CAP_SYS_NICE left), SCHED_OTHER. 0 or -errno.
 */
int thread_start(pthread_t *t, size_t stack, void *(*fn)(void *), void *arg);
void set_oom_handler(void (*fn)(void));

#endif
