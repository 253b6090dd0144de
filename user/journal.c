// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "journal.h"
#include "util.h"

#define ATTR_FMT "%" PRIu32 " %" PRIu64 " %" PRId32 " %" PRIu32 " %" \
		 PRIu64 " %" PRIu64 " %" PRIu64
/* The 64-bit fields are __u64 where the system defines struct sched_attr. */
#define ATTR_ARGS(a) (a).sched_policy, (uint64_t)(a).sched_flags, \
		     (a).sched_nice, (a).sched_priority, \
		     (uint64_t)(a).sched_runtime, (uint64_t)(a).sched_deadline, \
		     (uint64_t)(a).sched_period

int journal_open(struct journal *j, const char *run_dir)
{
	char path[4096];
	int ret;

	j->dir_fd = -1;
	snprintf(path, sizeof(path), "%s/boosts", run_dir);
	ret = mkdir_p(path);
	if (ret)
		return ret;
	j->dir_fd = open(path, O_DIRECTORY | O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	return j->dir_fd < 0 ? -errno : 0;
}

void journal_close(struct journal *j)
{
	if (j->dir_fd >= 0)
		close(j->dir_fd);
	j->dir_fd = -1;
}

int journal_format(const struct journal_entry *e, char *buf, size_t len)
{
	int n;

	/* comm goes last, escaped (escape.h): it may contain anything. */
	n = snprintf(buf, len,
		     "starvd-journal 1\ntid %d\nstart %" PRIu64 "\n"
		     "saved " ATTR_FMT "\napplied " ATTR_FMT "\ncomm %s\n",
		     e->tid, e->start_time, ATTR_ARGS(e->saved),
		     ATTR_ARGS(e->applied), esc_name(e->comm));
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/*
 * The parser is strict, for a journal that may be corrupt after a crash:
 * it accepts only what journal_format() writes, every number within its
 * field's range (sscanf() takes "tid 4294967297" for pid 1). The comm,
 * only ever shown, is the exception: unescaped up to its newline (bytes
 * outside an escape kept as they are, as an older starvd wrote them) and
 * cut at 15 bytes, so that no name can cost a task its restore.
 */
static const char *expect(const char *p, const char *text)
{
	size_t n = strlen(text);

	return p && !strncmp(p, text, n) ? p + n : NULL;
}

static const char *number(const char *p, int64_t min, uint64_t max,
			  uint64_t *v)
{
	bool neg = p && *p == '-' && min < 0;
	uint64_t x = 0, lim;

	if (!p)
		return NULL;
	p += neg;
	lim = neg ? (uint64_t)-(min + 1) + 1 : max;
	/* One digit at least, no leading zero, no "-0". */
	if (*p < '0' || *p > '9' || (*p == '0' && (neg || (p[1] >= '0' &&
							  p[1] <= '9'))))
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = *p - '0';

		if (d > lim || x > (lim - d) / 10)
			return NULL;
		x = x * 10 + d;
	}
	if (!neg && min > 0 && x < (uint64_t)min)
		return NULL;
	*v = neg ? -x : x;
	return p;
}

static const char *parse_attr(const char *p, struct sched_attr *a)
{
	uint64_t v[7];

	/* policy flags nice priority runtime deadline period */
	p = number(p, 0, UINT32_MAX, &v[0]);
	p = number(expect(p, " "), 0, UINT64_MAX, &v[1]);
	p = number(expect(p, " "), -20, 19, &v[2]);
	p = number(expect(p, " "), 0, 99, &v[3]);
	p = number(expect(p, " "), 0, UINT64_MAX, &v[4]);
	p = number(expect(p, " "), 0, UINT64_MAX, &v[5]);
	p = number(expect(p, " "), 0, UINT64_MAX, &v[6]);
	p = expect(p, "\n");
	if (!p)
		return NULL;
	a->size = sizeof(*a);
	a->sched_policy = v[0];
	a->sched_flags = v[1];
	a->sched_nice = (int64_t)v[2];
	a->sched_priority = v[3];
	a->sched_runtime = v[4];
	a->sched_deadline = v[5];
	a->sched_period = v[6];
	return p;
}

int journal_parse(const char *buf, struct journal_entry *e)
{
	const char *p;
	size_t comm_len;
	uint64_t tid;

	memset(e, 0, sizeof(*e));
	p = number(expect(buf, "starvd-journal 1\ntid "), 1, INT32_MAX, &tid);
	p = number(expect(p, "\nstart "), 0, UINT64_MAX, &e->start_time);
	p = parse_attr(expect(p, "\nsaved "), &e->saved);
	p = parse_attr(expect(p, "applied "), &e->applied);
	p = expect(p, "comm ");
	if (!p)
		return -EINVAL;
	e->tid = tid;
	comm_len = strcspn(p, "\n");
	/* Too long (not written by journal_format()): its first bytes. */
	while (str_unescape(p, comm_len, e->comm, sizeof(e->comm)) < 0)
		comm_len--;
	return 0;
}

int journal_add(struct journal *j, const struct journal_entry *e)
{
	struct atomic_file a;
	char buf[512], name[32];
	int n, ret;

	n = journal_format(e, buf, sizeof(buf));
	if (n < 0)
		return n;
	snprintf(name, sizeof(name), "%d", e->tid);
	ret = atomic_open(&a, j->dir_fd, 0600);
	if (ret)
		return ret;
	errno = 0;	/* a short write sets none */
	if (write(a.fd, buf, n) != n || fsync(a.fd)) {
		ret = errno ? -errno : -EIO;
		atomic_abort(&a);
		return ret;
	}
	ret = atomic_commit(&a, name);
	if (!ret && fsync(j->dir_fd))
		ret = -errno;
	return ret;
}

int journal_remove(struct journal *j, pid_t tid)
{
	char name[32];

	snprintf(name, sizeof(name), "%d", tid);
	if (unlinkat(j->dir_fd, name, 0) && errno != ENOENT)
		return -errno;
	return 0;
}

int journal_load(struct journal *j, struct journal_entry **v, size_t *n)
{
	struct dirent *de;
	size_t cap = 0;
	char buf[512];
	DIR *dir;
	int fd;

	*v = NULL;
	*n = 0;
	fd = dup(j->dir_fd);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	rewinddir(dir);
	while ((de = readdir(dir))) {
		ssize_t len;
		int efd;

		if (de->d_name[0] == '.')
			continue;
		efd = openat(j->dir_fd, de->d_name,
			     O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (efd < 0)
			continue;
		len = read(efd, buf, sizeof(buf) - 1);
		close(efd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		grow_array((void **)v, &cap, *n + 1, sizeof(**v));
		if (journal_parse(buf, &(*v)[*n]) == 0)
			(*n)++;
		else
			unlinkat(j->dir_fd, de->d_name, 0);
	}
	closedir(dir);
	return 0;
}

int journal_recover(struct journal *j,
		    void (*restore)(const struct journal_entry *e))
{
	struct journal_entry *v;
	size_t n, i;
	int ret;

	ret = journal_load(j, &v, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		restore(&v[i]);
		journal_remove(j, v[i].tid);
	}
	free(v);
	return 0;
}
