// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon_proc.h"
#include "sched_attr.h"
#include "util.h"

const char *bin_path(const char *name)
{
	static char path[4][512];
	static int slot;
	const char *dir = getenv("STARVD_BIN_DIR");
	char *p = path[slot++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", dir ? dir : "../user", name);
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

int daemon_start_as(struct daemon_proc *d, const char *const *args,
		    const struct sched_attr *attr)
{
	const char *argv[64], *mode = getenv("STARVD_TEST_BPF_MODE");
	int out[2], err[2], n = 0;

	memset(d, 0, sizeof(*d));
	/*
	 * One journal for every test: a daemon killed mid-boost (a test
	 * timing out) leaves its boosts for the next one, or for run.sh's
	 * final "starvd --restore", to put back.
	 */
	snprintf(d->run_dir, sizeof(d->run_dir), "%s", TEST_RUN_DIR);
	argv[n++] = bin_path("starvd");
	argv[n++] = "-f";
	argv[n++] = "--json";
	argv[n++] = "--run-dir";
	argv[n++] = d->run_dir;
	argv[n++] = "-a";
	argv[n++] = "0";
	argv[n++] = "-b";
	argv[n++] = test_backend();
	if (mode && *mode && strcmp(test_backend(), "bpf") == 0) {
		argv[n++] = "--bpf-mode";
		argv[n++] = mode;
	}
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	d->pid = fork();
	if (d->pid < 0)
		return -errno;
	if (d->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (attr)
			sched_setattr_tid(0, attr);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		execv(argv[0], (char **)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
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
	int n = poll(p, 2, ms);

	if (n <= 0)
		return false;
	read_into(d->out_fd, d->out, &d->out_len, sizeof(d->out));
	read_into(d->err_fd, d->err, &d->err_len, sizeof(d->err));
	if (getenv("STARVD_TEST_DEBUG"))
		fprintf(stderr, "%s", d->err);
	return !(p[0].revents & POLLHUP && p[1].revents & POLLHUP);
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

int daemon_stop(struct daemon_proc *d, int sig, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	int status = -1;

	if (d->pid <= 0)
		return -1;
	kill(d->pid, sig);
	while (now_ns() < end) {
		pump(d, 10);
		if (waitpid(d->pid, &status, WNOHANG) == d->pid)
			break;
	}
	if (now_ns() >= end) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &status, 0);
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

int run_capture_as(const char *const *argv, char *out, size_t len,
		   void (*setup)(void *arg), void *arg)
{
	int fds[2], status;
	size_t off = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		if (setup)
			setup(arg);
		execvp(argv[0], (char **)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while (off + 1 < len &&
	       (n = read(fds[0], out + off, len - 1 - off)) > 0)
		off += n;
	out[off] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
				   128 + WTERMSIG(status);
}

int run_capture(const char *const *argv, char *out, size_t len)
{
	return run_capture_as(argv, out, len, NULL, NULL);
}

bool daemon_output_has(const struct daemon_proc *d, const char *s)
{
	return strstr(d->out, s) || strstr(d->err, s);
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
