// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemon_proc.h"
#include "json_strict.h"
#include "proc.h"
#include "workload.h"
#include "sched_attr.h"
#include "util.h"

/*
 * Where starvd and starvctl are: $STARVD_BIN_DIR; else the test's own
 * directory when they were installed next to it (a kselftest install,
 * selftests/kselftest.mk); else ../user.
 */
static const char *bin_dir(void)
{
	static char dir[512];
	const char *env = getenv("STARVD_BIN_DIR");
	char probe[600], *slash;
	ssize_t n;

	if (env)
		return env;
	if (!dir[0]) {
		n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
		slash = n > 0 ? memrchr(dir, '/', n) : NULL;
		if (slash)
			*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/starvd", dir);
		if (!slash || access(probe, X_OK))
			snprintf(dir, sizeof(dir), "../user");
	}
	return dir;
}

const char *bin_path(const char *name)
{
	static char path[4][512];
	static int slot;
	char *p = path[slot++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", bin_dir(), name);
	return p;
}

const char *test_path(const char *rel)
{
	static char path[4][PATH_MAX];
	static int slot;
	char *p = path[slot++ % 4], self[PATH_MAX / 2], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	slash = n > 0 ? memrchr(self, '/', n) : NULL;
	if (!slash)
		return rel;
	*slash = '\0';
	snprintf(p, PATH_MAX, "%s/%s", self, rel);
	return p;
}

const char *test_backend(void)
{
	const char *b = getenv("STARVD_TEST_BACKEND");

	return b && *b ? b : "bpf";
}

int daemon_start(struct daemon_proc *d, const char *const *args)
{
	/* As the systemd unit does: above the busy loops it watches. */
	struct sched_attr rt = {
		.size = sizeof(rt),
		.sched_policy = SCHED_FIFO,
		.sched_priority = DAEMON_PRIO,
	};

	return daemon_start_as(d, args, &rt);
}

static int start(struct daemon_proc *d, const char *const *args,
		 const struct sched_attr *attr, bool pinned,
		 const char *err_path);

int daemon_start_as(struct daemon_proc *d, const char *const *args,
		    const struct sched_attr *attr)
{
	return start(d, args, attr, true, NULL);
}

int daemon_start_unpinned(struct daemon_proc *d, const char *const *args,
			  const char *err_path)
{
	struct sched_attr other = {
		.size = sizeof(other),
		.sched_policy = SCHED_OTHER,
	};

	return start(d, args, &other, false, err_path);
}

static int start(struct daemon_proc *d, const char *const *args,
		 const struct sched_attr *attr, bool pinned,
		 const char *err_path)
{
	const char *argv[64], *mode = getenv("STARVD_TEST_BPF_MODE");
	int out[2], err[2], exec[2], n = 0;
	char c;

	memset(d, 0, sizeof(*d));
	/*
	 * One journal for every test: a daemon killed mid-boost (a test
	 * timing out) leaves its boosts for the next one, or for run.sh's
	 * final "starvd --restore", to put back.
	 */
	snprintf(d->run_dir, sizeof(d->run_dir), "%s", TEST_RUN_DIR);
	/* test_stalld_compat runs it through a "stalld" link. */
	argv[n++] = getenv("STARVD_TEST_DAEMON") ?: bin_path("starvd");
	argv[n++] = "-f";
	argv[n++] = "--json";
	argv[n++] = "--run-dir";
	argv[n++] = d->run_dir;
	if (pinned) {
		argv[n++] = "-a";
		argv[n++] = "0";
	}
	argv[n++] = "-b";
	argv[n++] = test_backend();
	if (mode && *mode && strcmp(test_backend(), "bpf") == 0) {
		argv[n++] = "--bpf-mode";
		argv[n++] = mode;
	}
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
	    pipe2(exec, O_CLOEXEC))
		return -errno;
	d->pid = fork();
	if (d->pid < 0)
		return -errno;
	if (d->pid == 0) {
		/*
		 * Out of the test's process group, which the harness SIGKILLs
		 * when a test times out: starvd then outlives the test until
		 * it is gone, and puts back what it boosted, the test process
		 * too. Killed with the test, it left the test process, which it
		 * had boosted and the kernel had throttled for an overrun, with
		 * nobody to restore it: SIGKILL waits until such a task runs,
		 * and in the 6.12-rt guest the harness waited 11 minutes.
		 */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (attr)
			sched_setattr_tid(0, attr);
		if (!pinned) {
			cpu_set_t all;
			int c;

			/* Whatever the test process is pinned to. */
			CPU_ZERO(&all);
			for (c = 0; c < CPU_SETSIZE; c++)
				CPU_SET(c, &all);
			sched_setaffinity(0, sizeof(all), &all);
		}
		dup2(out[1], STDOUT_FILENO);
		if (err_path) {
			int fd = open(err_path, O_WRONLY | O_NOCTTY);

			if (fd >= 0)
				dup2(fd, err[1]);
		}
		dup2(err[1], STDERR_FILENO);
		execv(argv[0], (char **)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	/* Until execv() closed it (or the child exited): starvd runs. */
	close(exec[1]);
	while (read(exec[0], &c, 1) < 0 && errno == EINTR)
		;
	close(exec[0]);
	d->out_fd = out[0];
	d->err_fd = err[0];
	fcntl(d->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(d->err_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static void read_into(int fd, char *buf, size_t *len, size_t cap)
{
	ssize_t n;

	while (*len + 1 < cap) {
		n = read(fd, buf + *len, cap - 1 - *len);
		if (n <= 0)
			break;
		*len += n;
	}
	buf[*len] = '\0';
}

/* Wait for output for up to @ms; false on timeout or end of output. */
static bool pump(struct daemon_proc *d, int ms)
{
	struct pollfd p[2] = {
		{ .fd = d->out_fd, .events = POLLIN },
		{ .fd = d->err_fd, .events = POLLIN },
	};
	size_t had = d->out_len + d->err_len;
	int n = poll(p, 2, ms);

	if (n <= 0)
		return false;
	read_into(d->out_fd, d->out, &d->out_len, sizeof(d->out));
	read_into(d->err_fd, d->err, &d->err_len, sizeof(d->err));
	if (getenv("STARVD_TEST_DEBUG"))
		fprintf(stderr, "%s", d->err);
	/*
	 * More only if something was read: once one pipe hangs up, poll()
	 * returns at once, and a caller looping on it spins (a test above
	 * starvd's priority on starvd's CPU then keeps it from finishing
	 * its exit, where it closes the other pipe).
	 */
	return d->out_len + d->err_len > had;
}

/* Next complete line of stdout after the cursor, or NULL. */
static const char *next_line(struct daemon_proc *d, size_t *len)
{
	const char *start = d->out + d->out_pos;
	const char *nl = memchr(start, '\n', d->out_len - d->out_pos);

	if (!nl)
		return NULL;
	*len = nl - start;
	d->out_pos += *len + 1;
	return start;
}

int daemon_wait_event(struct daemon_proc *d, const char *event, pid_t tid,
		      int timeout_ms, char *line, size_t len)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	const char *l;
	char got[64];
	size_t n;

	for (;;) {
		while ((l = next_line(d, &n))) {
			snprintf(line, len, "%.*s", (int)n, l);
			json_str(line, "event", got, sizeof(got));
			if (!got[0] || (event && strcmp(got, event)))
				continue;
			if (tid && json_int(line, "tid") != tid)
				continue;
			return 0;
		}
		if (now_ns() >= end)
			return -ETIMEDOUT;
		if (!pump(d, (end - now_ns()) / NSEC_PER_MSEC + 1) &&
		    now_ns() < end)
			usleep(10000);
	}
}

void daemon_drain(struct daemon_proc *d, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * NSEC_PER_MSEC;

	while (now_ns() < end)
		if (!pump(d, (end - now_ns()) / NSEC_PER_MSEC + 1))
			usleep(10000);
}

bool daemon_wait_output(struct daemon_proc *d, const char *s, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * NSEC_PER_MSEC;

	while (!daemon_output_has(d, s) && now_ns() < end)
		if (!pump(d, 50))
			usleep(10000);
	return daemon_output_has(d, s);
}

/* A /proc file in one read (they are made whole on open): its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static int thread_where(pid_t pid, pid_t tid, void *arg)
{
	const char *const what[] = { "stat", "wchan", "stack" };
	char path[96], buf[4096];
	size_t i;

	fprintf(stderr, "#  thread %d:\n", (int)tid);
	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
			 (int)tid, what[i]);
		fprintf(stderr, "#   %s: %s\n", what[i],
			read_small(path, buf, sizeof(buf)) > 0 ? buf : "(unreadable)");
	}
	return 0;
}

/* Each of its threads: starvd's log writer holds its events. */
void task_where(pid_t pid)
{
	int ret = proc_for_each_thread_of(pid, thread_where, NULL);

	if (ret < 0)
		fprintf(stderr, "#   /proc/%d/task: %s\n", (int)pid,
			strerror(-ret));
}

/* tasks_held_up()'s look at one thread. */
static int held_up(pid_t pid, pid_t tid, void *arg)
{
	char path[64], stat[1024], stack[2048], *line, *save;
	const char *state, *cpu, *prio, *policy;

	if (tid == gettid())
		return 0;
	state = task_stat_field(tid, 3, stat, sizeof(stat));
	if (!state || (*state != 'R' && *state != 'D'))
		return 0;
	cpu = stat_field(stat, 39);
	prio = stat_field(stat, 40);
	policy = stat_field(stat, 41);
	if (!policy)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stack", tid);
	if (read_small(path, stack, sizeof(stack)) <= 0)
		strcpy(stack, "(unreadable)\n");
	fprintf(stderr, "#   %d %.*s %c CPU %d policy %d rt prio %d:\n",
		tid, (int)(state - 1 - strchr(stat, '(')), strchr(stat, '('),
		*state, atoi(cpu), atoi(policy), atoi(prio));
	for (line = strtok_r(stack, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "#     %s\n", line);
	return 0;
}

/*
 * Every task that is runnable or in uninterruptible sleep, but the
 * caller: its CPU, policy, priority and kernel stack. What a test that
 * waited in vain was held up by, when the task it waited for (a starvd
 * still in execve(), say) waits on something else.
 */
void tasks_held_up(void)
{
	fprintf(stderr, "# runnable (R) and uninterruptible (D) tasks:\n");
	proc_for_each_thread(held_up, NULL);
}

/*
 * A daemon that outlived its stop timeout: where it is and the last lines
 * it printed. A daemon must stop promptly: this says whether it was
 * starvd's code or the kernel that held it.
 */
static void daemon_explain(struct daemon_proc *d, int sig, int timeout_ms)
{
	const char *tail;

	fprintf(stderr, "# starvd (pid %d) still running %d ms after signal %d:\n",
		(int)d->pid, timeout_ms, sig);
	task_where(d->pid);
	tail = strlen(d->err) > 1024 ? d->err + strlen(d->err) - 1024 : d->err;
	fprintf(stderr, "#   its stderr ends with:\n%s\n", tail);
}

/*
 * Half way to its stop timeout, a daemon still running is shown as it is
 * then (its threads, and every task runnable or blocked): by the timeout
 * it may have just exited, and what held it up is gone.
 */
int daemon_stop(struct daemon_proc *d, int sig, int timeout_ms)
{
	uint64_t start = now_ns();
	uint64_t half = start + (uint64_t)timeout_ms * NSEC_PER_MSEC / 2;
	uint64_t end = start + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	uint64_t last = start, gap = 0, t;
	bool reaped = false, shown = false;
	int status = -1;

	if (d->pid <= 0)
		return -1;
	kill(d->pid, sig);
	while (!reaped && (t = now_ns()) < end) {
		bool more;

		/* The longest this loop did not run: was the test held up? */
		if (t - last > gap)
			gap = t - last;
		last = t;
		more = pump(d, 10);

		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			reaped = true;
			break;
		}
		if (!shown && now_ns() >= half) {
			fprintf(stderr, "# starvd (pid %d) still running %d ms after signal %d:\n",
				(int)d->pid, timeout_ms / 2, sig);
			task_where(d->pid);
			tasks_held_up();
			shown = true;
		}
		/*
		 * Its output ended (it closed its pipes on the way out): poll
		 * returns at once from now on. Without a sleep this loop spins,
		 * and a test running above starvd's priority on starvd's CPU
		 * keeps it from finishing its exit (stuck in task_work_run in
		 * state R).
		 */
		if (!more)
			usleep(10000);
	}
	if (!reaped) {
		daemon_explain(d, sig, timeout_ms);
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &status, 0);
		status = -1;
	} else if (now_ns() >= end) {
		fprintf(stderr, "# starvd (pid %d) exited, but only %.3f s after signal %d (its stop timeout is %d ms; this test's wait went %.3f s at most without running)\n",
			(int)d->pid, (now_ns() - start) / 1e9, sig, timeout_ms,
			gap / 1e9);
		status = -1;
	}
	pump(d, 0);
	close(d->out_fd);
	close(d->err_fd);
	d->pid = 0;
	if (status < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_capture_for(const char *const *argv, char *out, size_t len,
		    void (*setup)(void *arg), void *arg, int term_after_ms)
{
	struct pollfd pfd = { .events = POLLIN };
	/*
	 * A command given no stop time must return by itself: one still
	 * running after RUN_HUNG_MS is hung. It is shown (its kernel stack,
	 * and every task runnable or blocked beside it) and killed, rather
	 * than left to the harness's timeout, which says nothing.
	 */
	bool hung_check = term_after_ms <= 0;
	bool termed = false;
	struct timespec t0, t;
	int fds[2], status;
	size_t off = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds)) {
		fprintf(stderr, "# cannot run %s: pipe: %s\n", argv[0],
			strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		char load[128] = "", max[32] = "";
		int err = errno;

		/*
		 * Never waitpid(-1): it would reap a busy loop's exit 0. The
		 * reasons for EAGAIN: the caller's policy (SCHED_DEADLINE,
		 * not reset on fork, given by a boost) or the task count
		 * (/proc/loadavg: running/all) at the kernel's limit.
		 */
		read_line("/proc/loadavg", load, sizeof(load));
		read_line("/proc/sys/kernel/threads-max", max, sizeof(max));
		fprintf(stderr, "# cannot run %s: fork: %s (this test's policy %d, loadavg %s, threads-max %s)\n",
			argv[0], strerror(err), sched_getscheduler(0), load,
			max);
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		/*
		 * A command a test runs (starvctl, node_exporter) is never on
		 * the test CPU: at SCHED_OTHER there it waits for the busy loop
		 * on kernels without the fair server (before 6.12), and the
		 * BPF backend's clock calibration sleeps and must wake (a
		 * "starvctl -b bpf metrics" in the 6.1 guest never returned).
		 */
		avoid_cpu(test_cpu());
		if (setup)
			setup(arg);
		/*
		 * A path is run as it is: execvp() would hand a file that is
		 * not a program to /bin/sh, and an empty one "runs" with exit
		 * 0 and no output, an answer no test should take for one.
		 */
		if (strchr(argv[0], '/'))
			execv(argv[0], (char **)argv);
		else
			execvp(argv[0], (char **)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	pfd.fd = fds[0];
	if (hung_check)
		term_after_ms = RUN_HUNG_MS;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (off + 1 < len) {
		int left = -1, r;

		if (!termed) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			left = term_after_ms - (int)((t.tv_sec - t0.tv_sec) *
				1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
			if (left < 0)
				left = 0;
		}
		r = poll(&pfd, 1, left);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 && hung_check) {
			fprintf(stderr, "# %s (pid %d) still running after %d ms:\n",
				argv[0], (int)pid, RUN_HUNG_MS);
			task_where(pid);
			tasks_held_up();
			kill(pid, SIGKILL);
			termed = true;
			continue;
		}
		if (r == 0) {
			/* Time is up: ask it to stop, then read to EOF. */
			kill(pid, SIGTERM);
			termed = true;
			continue;
		}
		n = read(fds[0], out + off, len - 1 - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)	/* said: a cut answer would look like its own */
			fprintf(stderr, "# reading what %s prints: %s\n", argv[0],
				strerror(errno));
		if (n <= 0)
			break;
		off += n;
	}
	out[off] = '\0';
	close(fds[0]);
	if (!termed && !hung_check)
		kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno == EINTR)
			continue;
		fprintf(stderr, "# waiting for %s (pid %d): %s\n", argv[0],
			(int)pid, strerror(errno));
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) :
				   128 + WTERMSIG(status);
}

int run_capture_as(const char *const *argv, char *out, size_t len,
		   void (*setup)(void *arg), void *arg)
{
	return run_capture_for(argv, out, len, setup, arg, 0);
}

int run_capture(const char *const *argv, char *out, size_t len)
{
	return run_capture_as(argv, out, len, NULL, NULL);
}

bool daemon_output_has(const struct daemon_proc *d, const char *s)
{
	return strstr(d->out, s) || strstr(d->err, s);
}

bool daemon_said_of(const struct daemon_proc *d, const char *s, pid_t tid)
{
	const char *l, *nl;
	char who[32];

	snprintf(who, sizeof(who), "pid %d (", (int)tid);
	for (l = d->err; *l; l = *nl ? nl + 1 : nl) {
		nl = strchrnul(l, '\n');
		if (memmem(l, nl - l, s, strlen(s)) &&
		    memmem(l, nl - l, who, strlen(who)))
			return true;
	}
	return false;
}

const char *daemon_out_tail(const struct daemon_proc *d, size_t max)
{
	const char *t = d->out;

	if (d->out_len > max) {
		t = d->out + d->out_len - max;
		t = strchr(t, '\n') ? strchr(t, '\n') + 1 : t;
	}
	return t;
}

void daemon_trim(struct daemon_proc *d, size_t keep_err)
{
	size_t drop;

	/* Both buffers are NUL-terminated at their length. */
	memmove(d->out, d->out + d->out_pos, d->out_len - d->out_pos + 1);
	d->out_len -= d->out_pos;
	d->out_pos = 0;
	if (d->err_len > keep_err) {
		drop = d->err_len - keep_err;
		memmove(d->err, d->err + drop, keep_err + 1);
		d->err_len = keep_err;
	}
}

static const char *json_find(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? p + strlen(pat) : NULL;
}

int64_t json_int(const char *line, const char *key)
{
	const char *p = json_find(line, key);

	return p ? strtoll(p, NULL, 10) : 0;
}

void json_str(const char *line, const char *key, char *buf, size_t len)
{
	const char *p = json_find(line, key);
	size_t n;

	buf[0] = '\0';
	if (!p || *p != '"')
		return;
	p++;
	n = strcspn(p, "\"");
	snprintf(buf, len, "%.*s", (int)n, p);
}

struct json_object *json_parse_strict(const char *s)
{
	return json_parse_strict_len(s, strlen(s) + 1);
}

struct json_object *json_member(struct json_object *o, const char *key,
				int type)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

const char *json_member_str(struct json_object *o, const char *key)
{
	struct json_object *v = json_member(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}
