/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Run starvd under test and read the events it prints. */
#ifndef STARVD_TEST_DAEMON_PROC_H
#define STARVD_TEST_DAEMON_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched_attr.h"

#define TEST_RUN_DIR "/run/starvd-selftests"
#define DAEMON_PRIO 60

struct daemon_proc {
	pid_t pid;
	int out_fd, err_fd;
	char out[1 << 16], err[1 << 16];	/* everything read so far */
	size_t out_len, err_len, out_pos;
	char run_dir[64];
};

/*
 * Start "starvd ($STARVD_TEST_DAEMON if set) -f --json --run-dir <tmp> -a 0 -b <STARVD_TEST_BACKEND>
 * [--bpf-mode <STARVD_TEST_BPF_MODE>] <args...>" (NULL-terminated).
 * Returns once the child has exec'd starvd (or failed to).
 */
int daemon_start(struct daemon_proc *d, const char *const *args);
/* The same with the daemon's scheduling attributes (NULL: inherited). */
int daemon_start_as(struct daemon_proc *d, const char *const *args,
		    const struct sched_attr *attr);
/*
 * As a user starts it by hand: no -a, SCHED_OTHER, so starvd chooses its
 * own policy; stderr to @err_path (e.g. /dev/console) unless NULL.
 */
int daemon_start_unpinned(struct daemon_proc *d, const char *const *args,
			  const char *err_path);
/*
 * Wait up to @timeout_ms for the next JSON event named @event (any event
 * if NULL; and for @tid if non-zero); copies the line to @line. 0 or -ETIMEDOUT.
 */
int daemon_wait_event(struct daemon_proc *d, const char *event, pid_t tid,
		      int timeout_ms, char *line, size_t len);
/* Wait up to @ms for @s to appear in the output. */
bool daemon_wait_output(struct daemon_proc *d, const char *s, int ms);
/* Collect output for @ms milliseconds (e.g. to check nothing happens). */
void daemon_drain(struct daemon_proc *d, int ms);
/* Send @sig and wait up to @timeout_ms; returns the exit status or -1. */
int daemon_stop(struct daemon_proc *d, int sig, int timeout_ms);
/*
 * Run argv, stdout and stderr into @out; returns the exit status. One
 * still running after RUN_HUNG_MS is hung: where it and every task
 * runnable or blocked beside it are goes to stderr, and it is killed
 * (status 137), well inside the harness's timeout, which says nothing.
 */
#define RUN_HUNG_MS 20000
int run_capture(const char *const *argv, char *out, size_t len);
/* The same, calling @setup(@arg) in the child before the exec. */
int run_capture_as(const char *const *argv, char *out, size_t len,
		   void (*setup)(void *arg), void *arg);
/*
 * The same, sending SIGTERM once it has run @term_after_ms (if 0: the hang
 * check above), without an external timeout(1): host binaries do not run
 * in every guest.
 */
int run_capture_for(const char *const *argv, char *out, size_t len,
		    void (*setup)(void *arg), void *arg, int term_after_ms);
#define RUN(out, ...) ({ \
	const char *const _argv[] = { __VA_ARGS__, NULL }; \
	run_capture(_argv, out, sizeof(out)); \
})

/* Did stdout or stderr contain @s? */
bool daemon_output_has(const struct daemon_proc *d, const char *s);
/* A line of its stderr says @s of pid @tid ("pid <tid> (")? */
bool daemon_said_of(const struct daemon_proc *d, const char *s, pid_t tid);
/*
 * Where a process (starvd, a victim) is, on stderr: each thread's state,
 * wait channel and kernel stack (root can read them), for a test that
 * waited in vain.
 */
void task_where(pid_t pid);
/*
 * Every runnable (R) or uninterruptible (D) task but the caller, with its
 * CPU, policy, priority and kernel stack, on stderr: what else was stuck.
 */
void tasks_held_up(void);
/* The last @max bytes of what it printed on stdout (its events), whole lines. */
const char *daemon_out_tail(const struct daemon_proc *d, size_t max);
/*
 * For long runs: forget the stdout lines daemon_wait_event() has returned
 * and all but the last @keep_err bytes of stderr, so the buffers never
 * fill (a full buffer is no longer read and starvd blocks writing).
 */
void daemon_trim(struct daemon_proc *d, size_t keep_err);

struct json_object;
/*
 * Parse @s as strict JSON whose strings must be valid UTF-8 (json-c's own
 * validator); NULL if it does not parse. json_object_put() it.
 */
struct json_object *json_parse_strict(const char *s);
/* @o's member @key if it is of @type (an enum json_type), else NULL. */
struct json_object *json_member(struct json_object *o, const char *key,
				int type);
/* @o's member @key if a string, else NULL. */
const char *json_member_str(struct json_object *o, const char *key);
/* Integer value of "key": in a JSON line, 0 if missing. */
int64_t json_int(const char *line, const char *key);
/* String value of "key": copied into buf ("" if missing). */
void json_str(const char *line, const char *key, char *buf, size_t len);

/*
 * Path of the binaries under test: $STARVD_BIN_DIR, the test's own
 * directory if starvd is there (kselftest install), or ../user.
 */
const char *bin_path(const char *name);
/*
 * A file at @rel from this test program's own directory (what its
 * Makefile put next to it: heartbeat, the unpacked node_exporter or
 * promtool); @rel itself if that directory is not known.
 */
const char *test_path(const char *rel);
/* "bpf" or "netlink", from $STARVD_TEST_BACKEND. */
const char *test_backend(void);

#endif
