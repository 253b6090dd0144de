// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_dir.h"
#include "util.h"

#define MAX_LINKS	40	/* the kernel's MAXSYMLINKS */

enum kind {
	ON_THE_WAY,	/* a directory on the way to the run directory */
	OWN_DIR,	/* the run directory, boosts/ */
	OWN_FILE,	/* a file starvd reads back */
};

static const char *user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) || !res)
		snprintf(buf, len, "%u", (unsigned int)uid);
	else
		snprintf(buf, len, "%s", res->pw_name);
	return buf;
}

/* Does @st meet the rule for @kind? -EPERM, explained, if not. */
static int check_owner(const struct stat *st, const char *path,
		       enum kind kind, char *err, size_t len)
{
	static const char *const what[] = {
		[ON_THE_WAY] = "the directory",
		[OWN_DIR] = "the run directory",
		[OWN_FILE] = "the file",
	};
	uid_t me = geteuid();
	bool owner_ok = st->st_uid == me || (kind == ON_THE_WAY && !st->st_uid);
	bool mode_ok = !(st->st_mode & 0022) ||
		       (kind == ON_THE_WAY && (st->st_mode & S_ISVTX));
	char owner[64], self[64], todo[3 * PATH_MAX];

	if (owner_ok && mode_ok)
		return 0;
	user_name(st->st_uid, owner, sizeof(owner));
	user_name(me, self, sizeof(self));
	switch (kind) {
	case ON_THE_WAY:
		snprintf(todo, sizeof(todo),
			 "on the way to the run directory, it must be owned by root or %s and writable by no one else (unless sticky, as /tmp), or someone else can put another run directory in its place: chown root %s && chmod go-w %s, or choose another --run-dir",
			 self, path, path);
		break;
	case OWN_DIR:
		snprintf(todo, sizeof(todo),
			 "starvd acts as root on what it finds there (the boost journal, the saved RT runtime), so it must be owned by %s and writable by no one else: chown %s %s && chmod go-w %s, or choose another --run-dir",
			 self, self, path, path);
		break;
	case OWN_FILE:
		snprintf(todo, sizeof(todo),
			 "starvd reads or writes it as root, so it must be owned by %s and writable by no one else: if starvd did not write it, remove it (rm %s); else chown %s %s && chmod go-w %s",
			 self, path, self, path, path);
		break;
	}
	snprintf(err, len, "refusing %s %s: owned by uid %u (%s), mode %04o; %s",
		 what[kind], path, (unsigned int)st->st_uid, owner,
		 (unsigned int)(st->st_mode & 07777), todo);
	return -EPERM;
}

static int refuse_link(const char *path, char *err, size_t len)
{
	snprintf(err, len,
		 "refusing %s: a symbolic link, where starvd reads and writes only what it made itself (whoever made the link chooses what starvd acts on as root); if starvd did not make it, remove it (rm %s), or choose another --run-dir",
		 path, path);
	return -ELOOP;
}

static int refuse_type(const char *path, const char *want, char *err,
		       size_t len)
{
	snprintf(err, len,
		 "refusing %s: not a %s; if starvd did not make it, remove it, or choose another --run-dir",
		 path, want);
	return -EINVAL;
}

/*
 * An O_PATH descriptor of @name in @dir_fd (shown as @path), not followed
 * if a symbolic link, created as a directory if missing and @create; its
 * stat in @st.
 */
static int open_component(int dir_fd, const char *name, const char *path,
			  bool create, struct stat *st, char *err, size_t len)
{
	int fd, ret;

	fd = openat(dir_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dir_fd, name, 0700) && errno != EEXIST) {
			ret = -errno;
			snprintf(err, len, "cannot create %s: %s", path,
				 strerror(-ret));
			return ret;
		}
		fd = openat(dir_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, st)) {
		ret = -errno;
		snprintf(err, len, "cannot stat %s: %s", path, strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

/* @fd (an O_PATH descriptor, @st its stat) as a directory of @kind. */
static int check_dir(int fd, const struct stat *st, const char *path,
		     enum kind kind, char *err, size_t len)
{
	if (S_ISLNK(st->st_mode))
		return refuse_link(path, err, len);
	if (!S_ISDIR(st->st_mode))
		return refuse_type(path, "directory", err, len);
	return check_owner(st, path, kind, err, len);
}

/* The rest of the walk after the symbolic link @fd: its target, then @rest. */
static int follow(int fd, const char *path, char *todo, size_t size,
		  const char *rest, char *err, size_t len)
{
	char target[PATH_MAX], tmp[2 * PATH_MAX];
	ssize_t n;

	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n < 0) {
		n = -errno;
		snprintf(err, len, "cannot read the symbolic link %s: %s",
			 path, strerror(-n));
		return n;
	}
	target[n] = '\0';
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/%s", target, rest) >= size) {
		snprintf(err, len, "%s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	memcpy(todo, tmp, strlen(tmp) + 1);
	return 0;
}

int run_dir_open(const char *path, bool create, char *err, size_t len)
{
	char todo[2 * PATH_MAX], walked[PATH_MAX], cwd[PATH_MAX];
	int dir_fd, fd, ret = 0, links = 0;
	char *rest = todo, *name;
	size_t at;
	struct stat st;
	bool last;

	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		ret = -errno;
		snprintf(err, len, "cannot resolve the run directory %s: %s",
			 path, strerror(-ret));
		return ret;
	}
	if ((size_t)snprintf(todo, sizeof(todo), "%s%s%s",
			     path[0] == '/' ? "" : cwd,
			     path[0] == '/' ? "" : "/", path) >= sizeof(todo)) {
		snprintf(err, len, "%s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	walked[0] = '\0';
	dir_fd = open_component(AT_FDCWD, "/", "/", false, &st, err, len);
	if (dir_fd < 0)
		return dir_fd;
	ret = check_dir(dir_fd, &st, "/", ON_THE_WAY, err, len);
	while (!ret) {
		rest += strspn(rest, "/");
		if (!*rest)
			break;
		name = rest;
		rest += strcspn(rest, "/");
		if (*rest)
			*rest++ = '\0';
		last = !rest[strspn(rest, "/")];
		if (!strcmp(name, "."))
			continue;
		at = strlen(walked);
		snprintf(walked + at, sizeof(walked) - at, "/%s", name);
		fd = open_component(dir_fd, name, walked, create, &st, err,
				    len);
		if (fd < 0) {
			ret = fd;
			break;
		}
		if (S_ISLNK(st.st_mode) && !last) {
			if (++links > MAX_LINKS) {
				ret = -ELOOP;
				snprintf(err, len, "%s: %s", path,
					 strerror(ELOOP));
			} else {
				ret = follow(fd, walked, todo, sizeof(todo),
					     rest, err, len);
			}
			close(fd);
			rest = todo;
			walked[at] = '\0';
			if (!ret && todo[0] == '/') {
				close(dir_fd);
				dir_fd = open_component(AT_FDCWD, "/", "/",
							false, &st, err, len);
				if (dir_fd < 0)
					return dir_fd;
				walked[0] = '\0';
			}
			continue;
		}
		ret = check_dir(fd, &st, walked, last ? OWN_DIR : ON_THE_WAY,
				err, len);
		close(dir_fd);
		dir_fd = fd;
	}
	if (!ret) {
		fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ret = fd < 0 ? -errno : fd;
		if (fd < 0)
			snprintf(err, len, "cannot open %s: %s", path,
				 strerror(-ret));
	}
	close(dir_fd);
	return ret;
}

int run_file_check_fd(int fd, const char *path, char *err, size_t len)
{
	struct stat st;
	int ret;

	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, len, "cannot stat %s: %s", path, strerror(-ret));
		return ret;
	}
	if (S_ISLNK(st.st_mode))
		return refuse_link(path, err, len);
	if (!S_ISREG(st.st_mode))
		return refuse_type(path, "regular file", err, len);
	return check_owner(&st, path, OWN_FILE, err, len);
}

int run_file_open(int dir_fd, const char *dir, const char *name, char *err,
		  size_t len)
{
	char path[PATH_MAX];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* O_NONBLOCK: a FIFO put there does not block the open. */
	fd = openat(dir_fd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP)
			return refuse_link(path, err, len);
		snprintf(err, len, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	ret = run_file_check_fd(fd, path, err, len);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int run_file_check(const char *path, char *err, size_t len)
{
	int fd, ret;

	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	ret = run_file_check_fd(fd, path, err, len);
	close(fd);
	return ret;
}

/* Each journal entry in @boosts_fd (shown as @boosts). */
static int check_entries(int boosts_fd, const char *boosts, char *err,
			 size_t len)
{
	struct dirent *de;
	int fd, ret = 0;
	DIR *dir;

	fd = openat(boosts_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(err, len, "cannot read %s: %s", boosts,
			 strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(dir))) {
		/* Dot files are the journal's temporary ones: never read. */
		if (de->d_name[0] == '.')
			continue;
		fd = run_file_open(boosts_fd, boosts, de->d_name, err, len);
		if (fd < 0)
			ret = fd;
		else
			close(fd);
	}
	closedir(dir);
	return ret;
}

int run_dir_check(const char *path, char *err, size_t len)
{
	static const char *const files[] = { RT_SAVED_FILE, HRTICK_JOURNAL };
	char boosts[PATH_MAX];
	int dir_fd, fd, ret;
	struct stat st;
	size_t i;

	dir_fd = run_dir_open(path, true, err, len);
	if (dir_fd < 0)
		return dir_fd;
	snprintf(boosts, sizeof(boosts), "%s/boosts", path);
	fd = open_component(dir_fd, "boosts", boosts, true, &st, err, len);
	ret = fd < 0 ? fd : check_dir(fd, &st, boosts, OWN_DIR, err, len);
	if (!ret)
		ret = check_entries(fd, boosts, err, len);
	if (fd >= 0)
		close(fd);
	for (i = 0; !ret && i < ARRAY_SIZE(files); i++) {
		fd = run_file_open(dir_fd, path, files[i], err, len);
		if (fd >= 0)
			close(fd);
		ret = fd == -ENOENT || fd >= 0 ? 0 : fd;
	}
	close(dir_fd);
	return ret;
}
