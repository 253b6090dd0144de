// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0 || v > 1e9)
		return -EINVAL;
	*ns = (uint64_t)(v * NSEC_PER_SEC + 0.5);
	return *ns ? 0 : -EINVAL;
}

int parse_ns(const char *s, uint64_t *ns)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0)
		return -EINVAL;
	*ns = v;
	return 0;
}

int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

bool uts_version_preempt_rt(const char *version)
{
	static const char *const marks[] = { "PREEMPT_RT", "PREEMPT RT" };
	const char *p;
	size_t i, n;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		n = strlen(marks[i]);
		for (p = version; (p = strstr(p, marks[i])); p += n)
			if ((p == version || p[-1] == ' ') &&
			    (p[n] == ' ' || p[n] == '\0'))
				return true;
	}
	return false;
}

bool kernel_preempt_rt(void)
{
	struct utsname u;
	char buf[8];

	if (read_line("/sys/kernel/realtime", buf, sizeof(buf)) >= 0)
		return !strcmp(buf, "1");
	return !uname(&u) && uts_version_preempt_rt(u.version);
}

int read_line(const char *path, char *buf, size_t len)
{
	int n = read_file(path, buf, len);

	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int write_string(const char *path, const char *s)
{
	size_t len = strlen(s);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

static void (*oom_handler)(void);

void set_oom_handler(void (*fn)(void))
{
	oom_handler = fn;
}

/* The C library's minimum where it is more than @want. */
static size_t thread_stack_size(size_t want)
{
	long min = sysconf(_SC_THREAD_STACK_MIN);

	return min > 0 && (size_t)min > want ? (size_t)min : want;
}

int thread_start(pthread_t *t, size_t stack, void *(*fn)(void *), void *arg)
{
	int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	struct sched_param sp = { 0 };
	pthread_attr_t attr;
	sigset_t all, old;
	int ret;

	if (policy == SCHED_FIFO || policy == SCHED_RR)
		sched_getparam(0, &sp);
	else
		policy = SCHED_OTHER;
	ret = -pthread_attr_init(&attr);
	if (ret)
		return ret;
	ret = -pthread_attr_setstacksize(&attr, thread_stack_size(stack));
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, policy);
	pthread_attr_setschedparam(&attr, &sp);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (!ret)
		ret = -pthread_create(t, &attr, fn, arg);
	if (ret == -EPERM && policy != SCHED_OTHER) {
		sp.sched_priority = 0;
		pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
		pthread_attr_setschedparam(&attr, &sp);
		ret = -pthread_create(t, &attr, fn, arg);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return ret;
}

void grow_array(void **v, size_t *cap, size_t n, size_t sz)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (n <= *cap)
		return;
	while (ncap < n)
		ncap *= 2;
	p = realloc(*v, ncap * sz);
	if (!p) {
		if (oom_handler)
			oom_handler();	/* does not return */
		fprintf(stderr, "starvd: out of memory\n");
		exit(1);
	}
	*v = p;
	*cap = ncap;
}

int mkdir_p(const char *path)
{
	char tmp[4096], *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

bool on_memory_fs(const char *path)
{
	struct statfs st;

	if (statfs(path, &st))
		return false;
	/* f_type is a signed word on 32-bit, the magics are unsigned. */
	return (unsigned long)st.f_type == TMPFS_MAGIC ||
	       (unsigned long)st.f_type == RAMFS_MAGIC;
}

int atomic_open(struct atomic_file *a, int dir_fd, mode_t mode)
{
	static unsigned int seq;

	a->dir_fd = dir_fd;
	a->tmp[0] = '\0';
	a->fd = openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (a->fd >= 0)
		return 0;
	/* EISDIR before 3.11 (O_TMPFILE includes O_DIRECTORY). */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	snprintf(a->tmp, sizeof(a->tmp), ".%d.%u.tmp", (int)getpid(), seq++);
	a->fd = openat(dir_fd, a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		       mode);
	return a->fd < 0 ? -errno : 0;
}

int atomic_commit(struct atomic_file *a, const char *name)
{
	char proc[32];
	int ret = 0;

	if (!a->tmp[0]) {
		/*
		 * linkat() cannot replace a name: a temporary one, renamed
		 * over @name. Through /proc, not AT_EMPTY_PATH, which needs
		 * CAP_DAC_READ_SEARCH.
		 */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", a->fd);
		snprintf(a->tmp, sizeof(a->tmp), ".%d.%d.tmp", (int)getpid(),
			 a->fd);
		if (linkat(AT_FDCWD, proc, a->dir_fd, a->tmp,
			   AT_SYMLINK_FOLLOW)) {
			ret = -errno;
			a->tmp[0] = '\0';
		}
	}
	if (!ret && renameat(a->dir_fd, a->tmp, a->dir_fd, name))
		ret = -errno;
	if (ret && a->tmp[0])
		unlinkat(a->dir_fd, a->tmp, 0);
	close(a->fd);
	a->fd = -1;
	return ret;
}

void atomic_abort(struct atomic_file *a)
{
	if (a->tmp[0])
		unlinkat(a->dir_fd, a->tmp, 0);
	close(a->fd);
	a->fd = -1;
}

static int write_at(int dir_fd, const char *name, mode_t mode,
		    void (*fill)(FILE *f, const void *arg), const void *arg)
{
	struct atomic_file a;
	int ret;
	FILE *f;

	ret = atomic_open(&a, dir_fd, mode);
	if (ret)
		return ret;
	/* A FILE of its own: ->fd stays open for atomic_commit(). */
	f = fdopen(dup(a.fd), "w");
	if (!f) {
		ret = -errno;
		atomic_abort(&a);
		return ret;
	}
	fill(f, arg);
	if (fflush(f) || ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret) {
		atomic_abort(&a);
		return ret;
	}
	return atomic_commit(&a, name);
}

int write_file_atomic_at(int dir_fd, const char *name,
			 void (*fill)(FILE *f, const void *arg),
			 const void *arg)
{
	return write_at(dir_fd, name, 0644, fill, arg);
}

int write_file_atomic(const char *path,
		      void (*fill)(FILE *f, const void *arg), const void *arg)
{
	return write_file_atomic_mode(path, 0644, fill, arg);
}

int write_file_atomic_mode(const char *path, mode_t mode,
			   void (*fill)(FILE *f, const void *arg),
			   const void *arg)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int dir_fd, ret;

	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else if (slash - path >= (ptrdiff_t)sizeof(dir))
		return -ENAMETOOLONG;
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	ret = write_at(dir_fd, slash ? slash + 1 : path, mode, fill, arg);
	close(dir_fd);
	return ret;
}
