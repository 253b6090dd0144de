// SPDX-License-Identifier: GPL-2.0-or-later
/* The episodes starvd has seen, for starvctl advise (episodes.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "episodes.h"
#include "run_dir.h"

static int open_current(struct episodes *e, char *err, size_t len)
{
	struct stat st;
	int ret;

	e->fd = open(e->path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
			      O_CLOEXEC, 0600);
	if (e->fd < 0) {
		ret = -errno;
		snprintf(err, len, "cannot open %s: %s", e->path,
			 strerror(-ret));
		return ret;
	}
	ret = run_file_check_fd(e->fd, e->path, err, len);
	if (!ret && fstat(e->fd, &st))
		ret = -errno;
	if (ret) {
		close(e->fd);
		e->fd = -1;
		return ret;
	}
	e->size = st.st_size;
	return 0;
}

int episodes_open(struct episodes *e, const char *run_dir, char *err,
		  size_t len)
{
	snprintf(e->path, sizeof(e->path), "%s/" EPISODES_FILE, run_dir);
	snprintf(e->old, sizeof(e->old), "%s/" EPISODES_OLD, run_dir);
	return open_current(e, err, len);
}

int episodes_add(struct episodes *e, long long unix_time, const char *json)
{
	char line[8192], err[256];
	int n, ret;

	if (e->fd < 0)
		return -EBADF;
	if (e->size >= EPISODES_MAX_BYTES) {
		close(e->fd);
		e->fd = -1;
		if (rename(e->path, e->old))
			return -errno;
		ret = open_current(e, err, sizeof(err));
		if (ret)
			return ret;
	}
	/* {"unix_time":T, then the event's own members. */
	if (json[0] != '{')
		return -EINVAL;
	n = snprintf(line, sizeof(line), "{\"unix_time\":%lld,%s\n",
		     unix_time, json + 1);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -E2BIG;
	if (write(e->fd, line, n) != n)
		return -errno ?: -EIO;
	e->size += n;
	return 0;
}

void episodes_close(struct episodes *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

static int each_in(int dir_fd, const char *run_dir, const char *name,
		   int (*fn)(const char *line, void *arg), void *arg,
		   char *err, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int fd, ret = 0;

	fd = run_file_open(dir_fd, run_dir, name, err, len);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (!ret && (n = getline(&line, &cap, f)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		ret = fn(line, arg);
	}
	free(line);
	fclose(f);
	return ret;
}

int episodes_each(const char *run_dir, int (*fn)(const char *line, void *arg),
		  void *arg, char *err, size_t len)
{
	int dir_fd = run_dir_open(run_dir, false, err, len), ret;

	if (dir_fd == -ENOENT)
		return 0;
	if (dir_fd < 0)
		return dir_fd;
	ret = each_in(dir_fd, run_dir, EPISODES_OLD, fn, arg, err, len);
	if (!ret)
		ret = each_in(dir_fd, run_dir, EPISODES_FILE, fn, arg, err,
			      len);
	close(dir_fd);
	return ret;
}
