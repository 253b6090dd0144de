// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "options.h"
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

static void saved_path(const char *run_dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" RT_SAVED_FILE, run_dir);
}

static void fill_saved(FILE *f, const void *arg)
{
	fprintf(f, "%ld\n", *(const long *)arg);
}

/* The saved value: 0, -ENOENT if none, or another -errno. */
static int saved_read(const char *path, long *us)
{
	char buf[32];
	int ret = read_line(path, buf, sizeof(buf));

	return ret ? ret : parse_long(buf, us);
}

int rt_throttling_off(const char *run_dir)
{
	char path[4096];
	long cur, saved;
	int ret;

	ret = rt_runtime_read(&cur);
	if (ret) {
		log_err("cannot read %s: %s", RT_RUNTIME_PATH, strerror(-ret));
		return ret;
	}
	saved_path(run_dir, path, sizeof(path));
	/* Left by a starvd that was killed: what it found is the truth. */
	if (cur == -1 && !saved_read(path, &saved)) {
		log_msg("RT throttling already disabled, doing nothing (the value found before, %ld, is kept in %s: restored at exit or by --restore)",
			saved, path);
		return 0;
	}
	ret = mkdir_p(run_dir);
	if (!ret)
		ret = write_file_atomic(path, fill_saved, &cur);
	if (ret) {
		log_err("cannot save kernel.sched_rt_runtime_us in %s: %s; RT throttling left as it is (use --run-dir to choose another directory)",
			path, strerror(-ret));
		return ret;
	}
	if (cur == -1) {
		log_msg("RT throttling already disabled, doing nothing");
		return 0;
	}
	ret = rt_runtime_write(-1);
	if (!ret)
		ret = rt_runtime_read(&saved);
	if (!ret && saved != -1)
		ret = -EIO;
	if (ret) {
		log_err("turning off RT throttling failed: writing -1 to %s: %s",
			RT_RUNTIME_PATH, strerror(-ret));
		unlink(path);
		return ret;
	}
	log_msg("RT Throttling disabled (kernel.sched_rt_runtime_us was %ld, now -1; saved in %s, restored at exit or by --restore)",
		cur, path);
	return 0;
}

int rt_throttling_restore(const char *run_dir, long dflt)
{
	char path[4096];
	long saved, cur;
	int ret;

	saved_path(run_dir, path, sizeof(path));
	ret = saved_read(path, &saved);
	if (ret == -ENOENT) {
		if (dflt == RT_SAVED_ONLY)
			return 0;
		saved = dflt;
		log_msg("nothing saved in %s: setting the kernel's default",
			path);
	} else if (ret) {
		log_err("cannot read %s: %s; RT throttling left as it is",
			path, strerror(-ret));
		return ret;
	}
	ret = rt_runtime_read(&cur);
	if (ret) {
		log_err("cannot read %s: %s", RT_RUNTIME_PATH, strerror(-ret));
		return ret;
	}
	if (cur != -1 && cur != saved) {
		log_msg("kernel.sched_rt_runtime_us is %ld, not -1 as it was left: changed by someone else, not restored to %ld",
			cur, saved);
	} else if (cur != saved) {
		ret = rt_runtime_write(saved);
		if (ret) {
			log_err("error restoring rt throttling: writing %ld to %s: %s (the value stays saved in %s)",
				saved, RT_RUNTIME_PATH, strerror(-ret), path);
			return ret;
		}
		log_msg("RT Throttling runtime restored to %ld", saved);
	}
	unlink(path);
	return 0;
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
