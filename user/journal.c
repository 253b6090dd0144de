// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "util.h"

#define ATTR_FMT "%" SCNu32 " %" SCNu64 " %" SCNd32 " %" SCNu32 " %" \
		 SCNu64 " %" SCNu64 " %" SCNu64
#define ATTR_ARGS(a) (a).sched_policy, (a).sched_flags, (a).sched_nice, \
		     (a).sched_priority, (a).sched_runtime, \
		     (a).sched_deadline, (a).sched_period
#define ATTR_PTRS(a) &(a).sched_policy, &(a).sched_flags, &(a).sched_nice, \
		     &(a).sched_priority, &(a).sched_runtime, \
		     &(a).sched_deadline, &(a).sched_period

static int mkdir_p(const char *path)
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

int journal_open(struct journal *j, const char *run_dir)
{
	char path[4096];
	int ret;

	j->dir_fd = -1;
	snprintf(path, sizeof(path), "%s/boosts", run_dir);
	ret = mkdir_p(path);
	if (ret)
		return ret;
	j->dir_fd = open(path, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
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

	/* comm goes last: it may contain spaces. */
	n = snprintf(buf, len,
		     "starvd-journal 1\ntid %d\nstart %" PRIu64 "\n"
		     "saved " ATTR_FMT "\napplied " ATTR_FMT "\ncomm %s\n",
		     e->tid, e->start_time, ATTR_ARGS(e->saved),
		     ATTR_ARGS(e->applied), e->comm);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

int journal_parse(const char *buf, struct journal_entry *e)
{
	const char *comm;
	int n = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(buf,
		   "starvd-journal 1\ntid %d\nstart %" SCNu64 "\n"
		   "saved " ATTR_FMT "\napplied " ATTR_FMT "\n%n",
		   &e->tid, &e->start_time, ATTR_PTRS(e->saved),
		   ATTR_PTRS(e->applied), &n) != 16 || !n || e->tid <= 0)
		return -EINVAL;
	comm = buf + n;
	if (strncmp(comm, "comm ", 5))
		return -EINVAL;
	comm += 5;
	snprintf(e->comm, sizeof(e->comm), "%.*s",
		 (int)strcspn(comm, "\n"), comm);
	e->saved.size = e->applied.size = sizeof(struct sched_attr);
	return 0;
}

int journal_add(struct journal *j, const struct journal_entry *e)
{
	char buf[512], name[32], tmp[40];
	int fd, n, ret = 0;

	n = journal_format(e, buf, sizeof(buf));
	if (n < 0)
		return n;
	snprintf(name, sizeof(name), "%d", e->tid);
	snprintf(tmp, sizeof(tmp), ".%d.tmp", e->tid);
	fd = openat(j->dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n || fsync(fd))
		ret = -errno;
	close(fd);
	if (!ret && renameat(j->dir_fd, tmp, j->dir_fd, name))
		ret = -errno;
	if (!ret && fsync(j->dir_fd))
		ret = -errno;
	if (ret)
		unlinkat(j->dir_fd, tmp, 0);
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
		efd = openat(j->dir_fd, de->d_name, O_RDONLY | O_CLOEXEC);
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
