// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "sched_attr.h"
#include "util.h"

static int ready_fd = -1;

int daemonize(void)
{
	int fds[2], null;
	char c;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(fds[1]);
		/* Wait until the daemon is set up, so the pidfile is there. */
		exit(read(fds[0], &c, 1) == 1 ? EXIT_SUCCESS : EXIT_FAILURE);
	}
	close(fds[0]);
	ready_fd = fds[1];
	if (setsid() < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0)
		_exit(EXIT_SUCCESS);
	umask(022);
	if (chdir("/"))
		return -errno;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	return 0;
}

void daemon_ready(void)
{
	if (ready_fd < 0)
		return;
	if (write(ready_fd, "1", 1) < 0)
		log_err("cannot notify the parent process: %s",
			strerror(errno));
	close(ready_fd);
	ready_fd = -1;
}

int pidfile_write(const char *path)
{
	char buf[32];
	int fd, n, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

void pidfile_remove(const char *path)
{
	if (path)
		unlink(path);
}

static int set_affinity(const struct cpuset *set)
{
	cpu_set_t *mask;
	size_t size;
	int cpu, ret = 0;

	mask = CPU_ALLOC(STARVD_MAX_CPUS);
	if (!mask)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE(STARVD_MAX_CPUS);
	CPU_ZERO_S(size, mask);
	for (cpu = 0; cpu < STARVD_MAX_CPUS; cpu++)
		if (cpuset_test(set, cpu))
			CPU_SET_S(cpu, size, mask);
	if (sched_setaffinity(0, size, mask))
		ret = -errno;
	CPU_FREE(mask);
	return ret;
}

static int set_reservation(int percent)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_DEADLINE,
		.sched_period = NSEC_PER_SEC,
		.sched_deadline = NSEC_PER_SEC,
		.sched_runtime = NSEC_PER_SEC / 100 * percent,
	};

	return sched_setattr_tid(0, &attr);
}

int protect_self(const struct config *cfg)
{
	char list[256];
	int ret;

	if (cfg->have_affinity) {
		cpuset_format(&cfg->affinity, list, sizeof(list));
		ret = set_affinity(&cfg->affinity);
		if (ret) {
			log_err("-a/--affinity %s: cannot run starvd on these CPUs: %s",
				list, strerror(-ret));
			return -1;
		}
		log_msg("running on CPUs %s", list);
	}
	if (cfg->mlock && mlockall(MCL_CURRENT | MCL_FUTURE)) {
		log_err("--mlock: cannot lock starvd's memory: %s (needs CAP_IPC_LOCK)",
			strerror(errno));
		return -1;
	}
	if (cfg->reservation) {
		ret = set_reservation(cfg->reservation);
		if (ret) {
			log_err("-R/--reservation %d: cannot give starvd a SCHED_DEADLINE reservation: %s%s",
				cfg->reservation, strerror(-ret),
				ret == -EPERM ?
				" (with RT throttling on, SCHED_DEADLINE needs affinity to all CPUs of the root domain: drop -a or turn RT throttling off)" :
				ret == -EBUSY ?
				" (not enough SCHED_DEADLINE bandwidth left: use a smaller percentage)" : "");
			return -1;
		}
		log_msg("running with a SCHED_DEADLINE reservation of %d%% of a CPU",
			cfg->reservation);
	}
	return 0;
}
