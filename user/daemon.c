// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "run_dir.h"
#include "sched_attr.h"
#include "util.h"

static int ready_fd = -1;

/*
 * fork(), keeping in the child the signals pending here: starvd blocks
 * its stop signals from the start (they wait for run()), and a child
 * starts with none pending, so a SIGTERM that reached the parent during
 * start-up would otherwise be lost with it.
 */
static pid_t fork_keeping_signals(void)
{
	sigset_t pending;
	pid_t pid;
	int sig;

	sigemptyset(&pending);
	sigpending(&pending);
	pid = fork();
	if (pid == 0)
		for (sig = 1; sig < NSIG; sig++)
			if (sigismember(&pending, sig) == 1)
				raise(sig);	/* blocked: stays pending */
	return pid;
}

int daemonize(void)
{
	sigset_t none;
	int fds[2], null;
	char c;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork_keeping_signals();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(fds[1]);
		/*
		 * Wait until the daemon is set up, so the pidfile is there;
		 * a signal meanwhile ends this launcher as it would any
		 * program (the daemon, in its process group until setsid(),
		 * gets a terminal's signals itself).
		 */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		exit(read(fds[0], &c, 1) == 1 ? EXIT_SUCCESS : EXIT_FAILURE);
	}
	close(fds[0]);
	ready_fd = fds[1];
	if (setsid() < 0)
		return -errno;
	pid = fork_keeping_signals();
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

int pidfile_write(const char *path, char *err, size_t len)
{
	char buf[32];
	int fd, n, ret;

	/* Not O_TRUNC: nothing changes before the checks. */
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
		  O_CLOEXEC, 0644);
	if (fd < 0 && errno == ELOOP)
		return run_file_check(path, err, len);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "cannot write %s: %s", path,
			 strerror(-ret));
		return ret;
	}
	ret = run_file_check_fd(fd, path, err, len);
	if (ret)
		goto out;
	n = snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (ftruncate(fd, 0) || write(fd, buf, n) != n) {
		ret = -errno;
		snprintf(err, len, "cannot write %s: %s", path,
			 strerror(errno));
	}
out:
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

/*
 * Reset on fork: a SCHED_DEADLINE task cannot create a thread otherwise
 * (clone() fails with EAGAIN), and the log writer thread is started after
 * this; it runs at SCHED_OTHER then.
 */
static int set_reservation(int percent)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = SCHED_FLAG_RESET_ON_FORK,
		.sched_period = NSEC_PER_SEC,
		.sched_deadline = NSEC_PER_SEC,
		.sched_runtime = NSEC_PER_SEC / 100 * percent,
	};

	return sched_setattr_tid(0, &attr);
}

/*
 * starvd runs at a real-time policy of its own by default. On PREEMPT_RT
 * the hrtimer of a sleeping SCHED_OTHER task is a soft timer, expired by
 * ktimers/N on the CPU where it was armed: a busy loop that takes that CPU
 * holds starvd's timeout back, in the queue of the ktimers/N it should
 * rescue, for as long as the loop runs (docs/kernel-behaviours.md, "Soft
 * hrtimers are expired by ktimers/N"). A real-time task's sleep uses a
 * hard timer, expired in interrupt context, and its wake-up is pushed to
 * a CPU running something of lower priority. The same holds without
 * PREEMPT_RT for the wake-up itself.
 *
 * --priority PRIO sets SCHED_FIFO PRIO (0: stay SCHED_OTHER). Without it,
 * a starvd started at a real-time policy already (chrt, a unit's
 * CPUSchedulingPolicy=) keeps it, and one started at SCHED_OTHER takes
 * SCHED_FIFO 10, as stalld's unit does. Where SCHED_FIFO is refused (a
 * cgroup without real-time runtime under CONFIG_RT_GROUP_SCHED), a
 * SCHED_DEADLINE reservation is tried, which such cgroups do not limit,
 * then SCHED_OTHER, each with one line saying what it runs at and risks.
 */
#define DEFAULT_PRIORITY	10
#define FALLBACK_RESERVATION	5	/* percent of a CPU */

static bool running_realtime(void)
{
	int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;

	return policy == SCHED_FIFO || policy == SCHED_RR ||
	       policy == SCHED_DEADLINE;
}

static void set_own_priority(const struct config *cfg)
{
	struct sched_param sp = { .sched_priority = cfg->priority };
	int err, ret;

	if (cfg->priority == 0) {
		sp.sched_priority = 0;
		if (running_realtime() &&
		    sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp))
			log_err("--priority 0: cannot leave the real-time policy starvd was started with: %s",
				strerror(errno));
		return;
	}
	if (cfg->priority < 0) {
		if (running_realtime()) {
			log_msg("keeping the real-time policy starvd was started with");
			return;
		}
		sp.sched_priority = DEFAULT_PRIORITY;
	}
	if (!sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp)) {
		log_msg("running at SCHED_FIFO %d", sp.sched_priority);
		return;
	}
	err = errno;
	ret = set_reservation(FALLBACK_RESERVATION);
	if (!ret) {
		log_msg("cannot run at SCHED_FIFO %d: %s%s; running with a SCHED_DEADLINE reservation of %d%% of a CPU instead. starvd then runs before any busy loop, but for at most %d ms of each second: what it needs beyond that in a second (reads of very many tasks, many boosts at once) waits for the next one, so a starvation can be reported and boosted up to a second late, and its log lines are written at SCHED_OTHER, late while busy loops hold every CPU. Give its cgroup real-time runtime (cpu.rt_runtime_us) for SCHED_FIFO, or a larger reservation with -R",
			sp.sched_priority, strerror(err),
			err == EPERM ? " (a cgroup without real-time runtime? CONFIG_RT_GROUP_SCHED)" : "",
			FALLBACK_RESERVATION,
			FALLBACK_RESERVATION * 10);
		return;
	}
	log_err("cannot run at SCHED_FIFO %d (%s) nor with a SCHED_DEADLINE reservation (%s): running at SCHED_OTHER. A busy loop on the CPU starvd last ran on can then delay its wake-ups for as long as it runs (on PREEMPT_RT its timers wait for ktimers/N there), and starvation goes unseen: give starvd real-time runtime (cpu.rt_runtime_us of its cgroup), or pin it to a housekeeping CPU with -a",
		sp.sched_priority, strerror(err), strerror(-ret));
}

/*
 * First, before the backend is opened: loading BPF programs leaves work
 * for the kernel on the CPU that loads them (libbpf's feature probes and
 * any program it drops are freed by an RCU callback and a kworker of that
 * CPU). Unpinned, starvd can leave it on a CPU the operator gives to a
 * busy loop; on 5.10 that kworker, preempted there, holds a global mutex
 * every later BPF load (the next starvd's) waits for until the loop ends
 * (docs/kernel-behaviours.md, "JIT images are freed by a kworker of the
 * loading CPU").
 */
int pin_self(const struct config *cfg)
{
	char list[256];
	int ret;

	if (!cfg->have_affinity)
		return 0;
	cpuset_format(&cfg->affinity, list, sizeof(list));
	ret = set_affinity(&cfg->affinity);
	if (ret) {
		log_err("-a/--affinity %s: cannot run starvd on these CPUs: %s",
			list, strerror(-ret));
		return -1;
	}
	log_msg("running on CPUs %s", list);
	return 0;
}

void own_scheduling(int *only_cpu, int *rt_prio)
{
	struct sched_attr a;
	cpu_set_t set;
	int c;

	*rt_prio = 0;
	if (!sched_getattr_tid(0, &a) &&
	    (a.sched_policy == SCHED_FIFO || a.sched_policy == SCHED_RR))
		*rt_prio = a.sched_priority;
	*only_cpu = -1;
	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			*only_cpu = c;
}

/*
 * Grow the descriptor table now, while starvd has a single thread.
 * Growing it later, once threads share it, waits for an RCU grace period
 * (synchronize_rcu() in expand_fdtable()), which a busy loop can hold up
 * for as long as it runs (docs/kernel-behaviours.md, "A shared descriptor
 * table grows after an RCU grace period"): starvd's open() would wait
 * behind the very loop it is to report. 256 is four times what it uses;
 * a descriptor above the table is a dup2() away, and closing it keeps the
 * table.
 */
#define FD_TABLE_MIN	256

static void reserve_fd_table(void)
{
	if (dup2(STDERR_FILENO, FD_TABLE_MIN - 1) == FD_TABLE_MIN - 1)
		close(FD_TABLE_MIN - 1);
}

/*
 * Locked, memory that free() gives back from inside a heap stays
 * resident: glibc gives it back with madvise(MADV_DONTNEED), which locked
 * pages refuse. So every block of 128 KiB or more gets a mapping of its
 * own, unmapped when freed and grown by mremap(), without a copy. Left
 * to itself, glibc raises that threshold to the largest block freed
 * (libbpf's copy of the kernel's BTF: megabytes, read once for each BPF
 * object loaded): the next object's copy then lands in the heap, which
 * mlockall() locks whole, and a table grown by realloc() (the kernel's
 * symbols, ksym.c) leaves the copies it grew from, and qsort()'s
 * buffer, locked there for good.
 */
void malloc_map_large_blocks(void)
{
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int lock_memory(void)
{
	malloc_map_large_blocks();
	return mlockall(MCL_CURRENT | MCL_FUTURE) ? -errno : 0;
}

int protect_self(const struct config *cfg)
{
	int ret;

	reserve_fd_table();

	/*
	 * A page fault of starvd's own text can wait for a block or virtio
	 * IRQ thread that starves on the very CPU starvd must rescue.
	 */
	ret = cfg->mlock || cfg->mlock_required ? lock_memory() : 0;
	if (ret) {
		if (cfg->mlock_required) {
			log_err("--mlock: cannot lock starvd's memory: %s (needs CAP_IPC_LOCK)",
				strerror(-ret));
			return -1;
		}
		log_msg("note: cannot lock starvd's memory (%s): a page fault of its own may then wait for the I/O it is to rescue; run it with CAP_IPC_LOCK, or pass --no-mlock to say so",
			strerror(-ret));
	}
	if (cfg->reservation) {
		ret = set_reservation(cfg->reservation);
		if (ret) {
			log_err("failed to set -R/--reservation: %s%s: starvd cannot have a SCHED_DEADLINE reservation of %d%% of a CPU",
				strerror(-ret),
				ret == -EPERM ?
				" (with RT throttling on, SCHED_DEADLINE needs affinity to all CPUs of the root domain: drop -a or turn RT throttling off)" :
				ret == -EBUSY ?
				" (not enough SCHED_DEADLINE bandwidth left: use a smaller percentage)" : "",
				cfg->reservation);
			return -1;
		}
		log_msg("successfully set %d%% SCHED_DEADLINE reservation runtime/period = %llu/%llu",
			cfg->reservation,
			(unsigned long long)NSEC_PER_SEC / 100 * cfg->reservation,
			(unsigned long long)NSEC_PER_SEC);
		return 0;
	}
	set_own_priority(cfg);
	return 0;
}
