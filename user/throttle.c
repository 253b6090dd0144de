// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "options.h"
#include "run_dir.h"
#include "throttle.h"
#include "util.h"

static int parse_long(const char *buf, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(buf, &end, 10);
	return end == buf || errno || (*end && *end != '\n') ? -EINVAL : 0;
}

int rt_runtime_read(long *us)
{
	char buf[32];
	int ret;

	ret = read_line(RT_RUNTIME_PATH, buf, sizeof(buf));
	if (ret)
		return ret;
	return parse_long(buf, us);
}

static int rt_runtime_write(long us)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", us);
	return write_string(RT_RUNTIME_PATH, buf);
}

static void fill_saved(FILE *f, const void *arg)
{
	fprintf(f, "%ld\n", *(const long *)arg);
}

/*
 * The value saved in the run directory @dir_fd (@run_dir), checked
 * (run_dir.h): 0, -ENOENT if none, or another -errno, explained in @err.
 */
static int saved_read(int dir_fd, const char *run_dir, long *us, char *err,
		      size_t len)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = run_file_open(dir_fd, run_dir, RT_SAVED_FILE, err, len);
	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n >= 0) {
		buf[n] = '\0';
		if (!parse_long(buf, us))
			return 0;
	}
	snprintf(err, len, "cannot read %s/" RT_SAVED_FILE ": %s", run_dir,
		 strerror(n < 0 ? errno : EINVAL));
	return n < 0 ? -errno : -EINVAL;
}

int rt_throttling_off(const char *run_dir)
{
	char err[4096];
	long cur, saved;
	int dir_fd, ret;

	ret = rt_runtime_read(&cur);
	if (ret) {
		log_err("cannot read %s: %s", RT_RUNTIME_PATH, strerror(-ret));
		return ret;
	}
	dir_fd = run_dir_open(run_dir, true, err, sizeof(err));
	if (dir_fd < 0) {
		log_err("%s; RT throttling left as it is", err);
		return dir_fd;
	}
	ret = saved_read(dir_fd, run_dir, &saved, err, sizeof(err));
	if (ret && ret != -ENOENT) {
		log_err("%s; RT throttling left as it is", err);
		goto out;
	}
	/* Left by a starvd that was killed: what it found is the truth. */
	if (cur == -1 && !ret) {
		log_msg("RT throttling already disabled, doing nothing (the value found before, %ld, is kept in %s/" RT_SAVED_FILE ": restored at exit or by --restore)",
			saved, run_dir);
		goto out;
	}
	ret = write_file_atomic_at(dir_fd, RT_SAVED_FILE, fill_saved, &cur);
	if (ret) {
		log_err("cannot save kernel.sched_rt_runtime_us in %s/" RT_SAVED_FILE ": %s; RT throttling left as it is (use --run-dir to choose another directory)",
			run_dir, strerror(-ret));
		goto out;
	}
	if (cur == -1) {
		log_msg("RT throttling already disabled, doing nothing");
		goto out;
	}
	ret = rt_runtime_write(-1);
	if (!ret)
		ret = rt_runtime_read(&saved);
	if (!ret && saved != -1)
		ret = -EIO;
	if (ret) {
		log_err("turning off RT throttling failed: writing -1 to %s: %s",
			RT_RUNTIME_PATH, strerror(-ret));
		unlinkat(dir_fd, RT_SAVED_FILE, 0);
		goto out;
	}
	log_msg("RT Throttling disabled (kernel.sched_rt_runtime_us was %ld, now -1; saved in %s/" RT_SAVED_FILE ", restored at exit or by --restore)",
		cur, run_dir);
out:
	close(dir_fd);
	return ret;
}

int rt_throttling_restore(const char *run_dir, long dflt)
{
	char err[4096];
	long saved, cur;
	int dir_fd, ret;

	dir_fd = run_dir_open(run_dir, false, err, sizeof(err));
	ret = dir_fd < 0 ? dir_fd :
	      saved_read(dir_fd, run_dir, &saved, err, sizeof(err));
	if (ret == -ENOENT) {
		if (dflt == RT_SAVED_ONLY)
			goto out;
		saved = dflt;
		log_msg("nothing saved in %s/" RT_SAVED_FILE ": setting the kernel's default",
			run_dir);
	} else if (ret) {
		log_err("%s; RT throttling left as it is", err);
		goto out;
	}
	ret = rt_runtime_read(&cur);
	if (ret) {
		log_err("cannot read %s: %s", RT_RUNTIME_PATH, strerror(-ret));
		goto out;
	}
	if (cur != -1 && cur != saved) {
		log_msg("kernel.sched_rt_runtime_us is %ld, not -1 as it was left: changed by someone else, not restored to %ld",
			cur, saved);
	} else if (cur != saved) {
		ret = rt_runtime_write(saved);
		if (ret) {
			log_err("error restoring rt throttling: writing %ld to %s: %s (the value stays saved in %s/" RT_SAVED_FILE ")",
				saved, RT_RUNTIME_PATH, strerror(-ret),
				run_dir);
			goto out;
		}
		log_msg("RT Throttling runtime restored to %ld", saved);
	}
	if (dir_fd >= 0)
		unlinkat(dir_fd, RT_SAVED_FILE, 0);
out:
	if (dir_fd >= 0)
		close(dir_fd);
	return ret == -ENOENT ? 0 : ret;
}

int rt_throttling_start(const struct config *cfg, bool *owned)
{
	long us;
	int ret;

	*owned = false;
	if (cfg->log_only) {
		ret = rt_runtime_read(&us);
		if (!ret)
			log_msg("RT throttling left as it is (kernel.sched_rt_runtime_us=%ld): --log_only boosts nothing",
				us);
		return 0;
	}
	if (!cfg->systemd) {
		if (rt_throttling_off(cfg->run_dir))
			return -1;
		*owned = true;
		return 0;
	}
	ret = rt_runtime_read(&us);
	if (ret) {
		log_err("cannot read %s: %s", RT_RUNTIME_PATH, strerror(-ret));
		return -1;
	}
	if (us == -1) {
		log_msg("RT throttling is off (kernel.sched_rt_runtime_us=-1), managed by the service");
		return 0;
	}
	log_err("RT throttling is on! %s cannot run... (kernel.sched_rt_runtime_us=%ld): with -S/--systemd the service turns it off first ('%s --rt-throttling off' or 'sysctl -w kernel.sched_rt_runtime_us=-1'); without -S %s does it itself",
		cfg->name, us, cfg->name, cfg->name);
	return -1;
}

int rt_throttling_command(const struct config *cfg)
{
	long us;
	int ret;

	switch (cfg->rt_throttling) {
	case RT_CMD_OFF:
		ret = rt_throttling_off(cfg->run_dir);
		break;
	case RT_CMD_ON:
		ret = rt_throttling_restore(cfg->run_dir,
					    RT_RUNTIME_DEFAULT_US);
		break;
	default:
		ret = rt_runtime_read(&us);
		if (ret) {
			fprintf(stderr, "%s: cannot read %s: %s\n", cfg->name,
				RT_RUNTIME_PATH, strerror(-ret));
			break;
		}
		printf("Runtime: %ld\nRT Throttling is %s\n", us,
		       us == -1 ? "disabled" : "enabled");
	}
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
