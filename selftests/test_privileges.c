// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Privileges: the capabilities starvd keeps after start-up, what callers
 * without privileges are told, and the systemd unit's sandbox.
 *
 * Every daemon here runs with -S (RT throttling "managed"), so nothing
 * changes kernel.sched_rt_runtime_us.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <linux/bpf.h>
#include <linux/genetlink.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/daemon_proc.h"
#include "lib/workload.h"
#include "backend_netlink.h"
#include "journal.h"
#include "proc.h"
#include "throttle.h"
#include "util.h"

/*
 * "systemd-analyze security" overall exposure of systemd/starvd.service,
 * times ten (its --threshold= unit): 2.3, its capabilities those of the
 * run loop and the BPF loader alone (--kstack and holder stacks take a
 * drop-in, starvd(8)).
 */
#define UNIT_EXPOSURE_MAX	23
/* The same for systemd/starvd-metrics.service (starvctl metrics): 2.1. */
#define METRICS_UNIT_EXPOSURE_MAX	21
#define NOBODY			65534
#define CAP_BIT(c)		(1ULL << (c))
#define KSTACK_CAPS		(CAP_BIT(CAP_SYS_ADMIN) | \
				 CAP_BIT(CAP_SYS_PTRACE) | \
				 CAP_BIT(CAP_DAC_READ_SEARCH))

enum who {
	AS_IS,
	NOBODY_NO_CAPS,		/* setpriv --reuid=65534 --regid=65534
				   --clear-groups --bounding-set=-all */
	ROOT_NO_BPF,		/* setpriv --bounding-set=-bpf,-perfmon,
				   -sys_admin */
	ROOT_NO_NICE,		/* setpriv --bounding-set=-sys_nice: real-time
				   policies are refused, as in a cgroup
				   without RT runtime */
	ROOT_NO_KSTACK,		/* setpriv --bounding-set=-sys_admin,
				   -sys_ptrace,-dac_read_search: as
				   starvd.service without its drop-in */
};

static int last_cap(void)
{
	char buf[16];

	if (read_line("/proc/sys/kernel/cap_last_cap", buf, sizeof(buf)))
		return CAP_LAST_CAP;
	return atoi(buf);
}

static void drop_bound(int cap)
{
	if (cap <= last_cap() && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
		fprintf(stderr, "cannot drop capability %d: %s\n", cap,
			strerror(errno));
		_exit(126);
	}
}

static void become(enum who who)
{
	int cap;

	switch (who) {
	case AS_IS:
		break;
	case NOBODY_NO_CAPS:
		for (cap = 0; cap <= last_cap(); cap++)
			drop_bound(cap);
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY)) {
			fprintf(stderr, "cannot become nobody: %s\n",
				strerror(errno));
			_exit(126);
		}
		break;
	case ROOT_NO_BPF:
		/* Root's execve() gets the bounding set as permitted set. */
		drop_bound(CAP_BPF);
		drop_bound(CAP_PERFMON);
		drop_bound(CAP_SYS_ADMIN);
		break;
	case ROOT_NO_NICE:
		drop_bound(CAP_SYS_NICE);
		break;
	case ROOT_NO_KSTACK:
		drop_bound(CAP_SYS_ADMIN);
		drop_bound(CAP_SYS_PTRACE);
		drop_bound(CAP_DAC_READ_SEARCH);
		break;
	}
	/* A starvd that starts by mistake dies with the test. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static void become_setup(void *arg)
{
	become(*(enum who *)arg);
}

/* Run argv as @who, stdout+stderr into @out; returns the exit status. */
static int run_as(enum who who, const char *const *argv, char *out,
		  size_t len)
{
	return run_capture_as(argv, out, len, become_setup, &who);
}

#define RUN_AS(who, out, ...) ({ \
	const char *const _argv[] = { __VA_ARGS__, NULL }; \
	run_as(who, _argv, out, sizeof(out)); \
})

static bool has(const char *out, const char *s)
{
	return strstr(out, s) != NULL;
}

static bool is_bpf(void)
{
	return !strcmp(test_backend(), "bpf");
}

static bool module_loaded(void)
{
	return access("/sys/module/starvd", F_OK) == 0;
}

/*
 * Copy @src to @dst with mode @mode, replacing every @from by @to (none if
 * @from is NULL). 0 or -errno.
 */
static int copy_file(const char *src, const char *dst, mode_t mode,
		     const char *from, const char *to)
{
	FILE *in, *out;
	char *buf = NULL, *p, *hit;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	in = fopen(src, "re");
	if (!in)
		return -errno;
	out = fopen(dst, "we");
	if (!out) {
		ret = -errno;
		fclose(in);
		return ret;
	}
	if (from) {
		while ((n = getline(&buf, &cap, in)) > 0) {
			for (p = buf; (hit = strstr(p, from));
			     p = hit + strlen(from))
				fprintf(out, "%.*s%s", (int)(hit - p), p, to);
			fputs(p, out);
		}
	} else {
		buf = malloc(65536);
		while (buf && (n = fread(buf, 1, 65536, in)) > 0)
			fwrite(buf, 1, n, out);
	}
	free(buf);
	if (ferror(in) || ferror(out))
		ret = -EIO;
	fclose(in);
	if (fclose(out) && !ret)
		ret = -errno;
	if (!ret && chmod(dst, mode))
		ret = -errno;
	return ret;
}

/*
 * Copies of the binaries nobody can run, whatever the permissions on the
 * way to the build directory, in a new directory @dir.
 */
static int public_bins(char *dir, size_t len)
{
	const char *names[] = { "starvd", "starvctl" };
	char path[PATH_MAX];
	size_t i;
	int ret;

	snprintf(dir, len, "/tmp/starvd-priv.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755))
		return -errno;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ret = copy_file(bin_path(names[i]), path, 0755, NULL, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static void remove_bins(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.200s/starvd", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%.200s/starvctl", dir);
	unlink(path);
	rmdir(dir);
}

FIXTURE(unprivileged) {
	char dir[64];
	char starvd[PATH_MAX], starvctl[PATH_MAX];
	char out[8192];
};

FIXTURE_SETUP(unprivileged)
{
	if (geteuid())
		SKIP(return, "needs root (to become nobody)");
	ASSERT_EQ(0, public_bins(self->dir, sizeof(self->dir)));
	snprintf(self->starvd, sizeof(self->starvd), "%.63s/starvd", self->dir);
	snprintf(self->starvctl, sizeof(self->starvctl), "%.63s/starvctl",
		 self->dir);
}

FIXTURE_TEARDOWN(unprivileged)
{
	if (self->dir[0])
		remove_bins(self->dir);
}

/* starvctl as nobody: exit 1, naming what it needs. */
TEST_F(unprivileged, starvctl_as_nobody)
{
	if (is_bpf()) {
		EXPECT_EQ(1, RUN_AS(NOBODY_NO_CAPS, self->out, self->starvctl,
				    "-b", "bpf", "tasks"));
		EXPECT_TRUE(has(self->out, "CAP_BPF")) TH_LOG("%s", self->out);
		EXPECT_TRUE(has(self->out, "CAP_PERFMON"));
		EXPECT_TRUE(has(self->out, "uid 65534, not as root"));
		EXPECT_TRUE(has(self->out, "Run it as root"));
		/* -b auto: both backends, each with its reason. */
		EXPECT_EQ(1, RUN_AS(NOBODY_NO_CAPS, self->out, self->starvctl,
				    "tasks"));
		EXPECT_TRUE(has(self->out, "BPF backend: ")) TH_LOG("%s", self->out);
		EXPECT_TRUE(has(self->out, "CAP_BPF"));
		EXPECT_TRUE(has(self->out, "netlink backend: "));
		return;
	}
	if (!module_loaded())
		SKIP(return, "the starvd module is not loaded");
	EXPECT_EQ(1, RUN_AS(NOBODY_NO_CAPS, self->out, self->starvctl,
			    "-b", "netlink", "tasks"));
	EXPECT_TRUE(has(self->out, "CAP_NET_ADMIN")) TH_LOG("%s", self->out);
}

/* starvd as nobody: exit 1 before anything, saying it needs root. */
TEST_F(unprivileged, starvd_as_nobody)
{
	EXPECT_EQ(1, RUN_AS(NOBODY_NO_CAPS, self->out, self->starvd, "-f",
			    "-S", "-b", test_backend(), "--run-dir",
			    "/tmp/starvd-nobody"));
	EXPECT_TRUE(has(self->out, "root needed")) TH_LOG("%s", self->out);
	EXPECT_TRUE(has(self->out, "CAP_SYS_NICE"));
	EXPECT_TRUE(has(self->out, "uid 65534, not as root"));
	EXPECT_TRUE(has(self->out, "-l/--log_only"));
	if (!is_bpf())
		return;
	/* Log-only needs no CAP_SYS_NICE: then the BPF backend says it. */
	EXPECT_EQ(1, RUN_AS(NOBODY_NO_CAPS, self->out, self->starvd, "-f",
			    "-l", "-b", "bpf"));
	EXPECT_TRUE(has(self->out, "CAP_BPF")) TH_LOG("%s", self->out);
	EXPECT_TRUE(has(self->out, "CAP_PERFMON"));
	EXPECT_TRUE(has(self->out, "not as root"));
}

/*
 * Root without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (a container, a
 * unit's CapabilityBoundingSet=): -b bpf names them; -b auto also says
 * what to do about the module, or uses it when it is loaded.
 */
static void root_without_bpf_caps_checks(struct __test_metadata *_metadata)
{
	char out[8192];

	if (!is_bpf())
		SKIP(return, "the BPF backend is not under test");
	EXPECT_EQ(1, RUN_AS(ROOT_NO_BPF, out, bin_path("starvctl"), "-b",
			    "bpf", "info"));
	EXPECT_TRUE(has(out, "CAP_BPF")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "CAP_PERFMON"));
	EXPECT_TRUE(has(out, "runs as root but lacks"));
	EXPECT_TRUE(has(out, "capability bounding set"));
	EXPECT_EQ(1, RUN_AS(ROOT_NO_BPF, out, bin_path("starvd"), "-f", "-S",
			    "-b", "bpf", "--run-dir", TEST_RUN_DIR));
	EXPECT_TRUE(has(out, "CAP_BPF")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "capability bounding set"));

	if (module_loaded()) {
		EXPECT_EQ(0, RUN_AS(ROOT_NO_BPF, out, bin_path("starvctl"),
				    "info"));
		EXPECT_TRUE(has(out, "BPF unavailable")) TH_LOG("%s", out);
		return;
	}
	EXPECT_EQ(1, RUN_AS(ROOT_NO_BPF, out, bin_path("starvctl"), "info"));
	EXPECT_TRUE(has(out, "BPF backend: ")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "CAP_BPF"));
	EXPECT_TRUE(has(out, "modprobe starvd"));
	EXPECT_EQ(1, RUN_AS(ROOT_NO_BPF, out, bin_path("starvd"), "-f", "-S",
			    "--run-dir", TEST_RUN_DIR));
	EXPECT_TRUE(has(out, "CAP_BPF")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "CAP_PERFMON"));
	EXPECT_TRUE(has(out, "modprobe starvd"));
}

TEST(root_without_bpf_caps)
{
	long saved_rt;

	if (geteuid())
		SKIP(return, "needs root");
	/* As stalld, -S refuses to start while RT throttling is on. */
	ASSERT_EQ(0, rt_throttle_off(&saved_rt));
	root_without_bpf_caps_checks(_metadata);
	EXPECT_EQ(0, rt_throttle_restore(saved_rt));
}

static int bpf_sys(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/*
 * Does a lookup in a map, by fd, need a capability on this kernel? Yes
 * before 6.5 with unprivileged BPF disabled: then starvd keeps CAP_BPF
 * (or CAP_SYS_ADMIN when --kstack keeps it anyway) to read.
 */
static bool bpf_reads_need_caps(void)
{
	union bpf_attr attr = {
		.map_type = BPF_MAP_TYPE_ARRAY,
		.key_size = 4,
		.value_size = 8,
		.max_entries = 1,
	};
	__u32 key = 0;
	__u64 value;
	int fd, status;
	pid_t pid;

	fd = bpf_sys(BPF_MAP_CREATE, &attr);
	if (fd < 0)
		return false;
	pid = fork();
	if (pid == 0) {
		cap_t none = cap_init();

		if (!none || cap_set_proc(none))
			_exit(2);
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = fd;
		attr.key = (unsigned long)&key;
		attr.value = (unsigned long)&value;
		_exit(bpf_sys(BPF_MAP_LOOKUP_ELEM, &attr) && errno == EPERM);
	}
	close(fd);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

static uint64_t status_caps(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t n = strlen(key);
	uint64_t v = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtoull(line + n + 1, NULL, 16);
	fclose(f);
	return v;
}

FIXTURE(daemon) {
	struct daemon_proc *d;
	long saved_rt;		/* -S: RT throttling is off, "managed" */
	uint64_t base;		/* kept with no option */
	uint64_t bpf_read;	/* kept by the BPF backend to read */
};

FIXTURE_SETUP(daemon)
{
	if (geteuid())
		SKIP(return, "needs root");
	self->d = calloc(1, sizeof(*self->d));
	ASSERT_TRUE(NULL != self->d);
	/* As stalld, -S refuses to start while RT throttling is on. */
	ASSERT_EQ(0, rt_throttle_off(&self->saved_rt));
	/* Memory is locked by default: MCL_FUTURE needs CAP_IPC_LOCK. */
	self->base = CAP_BIT(CAP_SYS_NICE) | CAP_BIT(CAP_IPC_LOCK);
	if (is_bpf()) {
		if (bpf_reads_need_caps())
			self->bpf_read = last_cap() >= CAP_BPF ?
				CAP_BIT(CAP_BPF) : CAP_BIT(CAP_SYS_ADMIN);
	} else {
		self->base |= CAP_BIT(CAP_NET_ADMIN);
	}
}

FIXTURE_TEARDOWN(daemon)
{
	if (self->d && self->d->pid)
		daemon_stop(self->d, SIGKILL, 2000);
	if (self->d)
		rt_throttle_restore(self->saved_rt);
	free(self->d);
}

/* Start with @args, check every capability set against @want. */
static void check_caps(struct __test_metadata *_metadata,
		       struct daemon_proc *d, const char *const *args,
		       uint64_t want)
{
	pid_t pid;

	ASSERT_EQ(0, daemon_start(d, args));
	pid = d->pid;
	ASSERT_TRUE(daemon_wait_output(d, "capabilities: kept", 10000))
		TH_LOG("stderr:\n%s", d->err);
	EXPECT_EQ(want, status_caps(pid, "CapEff"))
		TH_LOG("want %#llx; %s", (unsigned long long)want, d->err);
	EXPECT_EQ(want, status_caps(pid, "CapPrm"));
	EXPECT_EQ(want, status_caps(pid, "CapBnd"));
	EXPECT_EQ(0, status_caps(pid, "CapInh"));
	EXPECT_EQ(0, status_caps(pid, "CapAmb"));
	EXPECT_EQ(1, status_caps(pid, "NoNewPrivs"));
}

TEST_F(daemon, keeps_only_what_the_run_loop_needs)
{
	const char *const args[] = { "-S", NULL };

	check_caps(_metadata, self->d, args, self->base | self->bpf_read);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

TEST_F(daemon, log_only_keeps_no_cap_sys_nice)
{
	const char *const args[] = { "-S", "-l", NULL };

	check_caps(_metadata, self->d, args,
		   (self->base & ~CAP_BIT(CAP_SYS_NICE)) | self->bpf_read);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/* Wait up to @ms for starvd's state in its run directory. */
static bool state_published(const struct daemon_proc *d, int ms)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/state", d->run_dir);
	for (; ms > 0 && access(path, F_OK); ms -= 10)
		usleep(10000);
	return !access(path, F_OK);
}

/* Start @args through a link named stalld (its comm, its personality). */
static int start_as_stalld(struct daemon_proc *d, const char *const *args)
{
	char dir[] = "/tmp/starvd-stalld.XXXXXX", link[64], target[PATH_MAX];
	int ret;

	if (!realpath(bin_path("starvd"), target) || !mkdtemp(dir))
		return -errno;
	snprintf(link, sizeof(link), "%s/stalld", dir);
	if (symlink(target, link)) {
		ret = -errno;
		rmdir(dir);
		return ret;
	}
	setenv("STARVD_TEST_DAEMON", link, 1);
	ret = daemon_start(d, args);
	unsetenv("STARVD_TEST_DAEMON");
	unlink(link);
	rmdir(dir);
	return ret;
}

/* Started through a link named stalld (its comm): starvctl sees it run. */
TEST_F(daemon, starvctl_sees_stalld_running)
{
	const char *const args[] = { "-S", NULL };
	char out[8192];

	ASSERT_EQ(0, start_as_stalld(self->d, args));
	ASSERT_TRUE(state_published(self->d, 10000))
		TH_LOG("stderr:\n%s", self->d->err);
	EXPECT_EQ(0, RUN(out, bin_path("starvctl"), "--run-dir",
			 self->d->run_dir, "status")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "running, pid"));
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/*
 * A starvd that runs as stalld keeps its state in /run/stalld: starvctl
 * without --run-dir finds it there when there is no /run/starvd.
 */
TEST_F(daemon, starvctl_finds_stalld_run_dir)
{
	const char *const args[] = { "-S", "--run-dir", "/run/stalld", NULL };
	char out[8192];

	if (!access("/run/starvd", F_OK) || !access("/run/stalld", F_OK))
		SKIP(return, "/run/starvd or /run/stalld exists: a daemon of this machine's own may use it");
	ASSERT_EQ(0, start_as_stalld(self->d, args));
	snprintf(self->d->run_dir, sizeof(self->d->run_dir), "/run/stalld");
	EXPECT_TRUE(state_published(self->d, 10000))
		TH_LOG("stderr:\n%s", self->d->err);
	EXPECT_EQ(0, RUN(out, bin_path("starvctl"), "status"))
		TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "running, pid")) TH_LOG("%s", out);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	EXPECT_EQ(0, system("rm -rf /run/stalld"));
}

/*
 * starvctl as nobody, while starvd runs: told to run it as root, exit 1,
 * never that starvd is down (status --json's "running":false, metrics'
 * starvd_up 0).
 */
TEST_F(daemon, starvctl_status_as_nobody)
{
	const char *const args[] = { "-S", NULL };
	const char *const cmds[][2] = { { "status", NULL },
					{ "status", "--json" },
					{ "metrics", NULL } };
	char bins[64], starvctl[128], out[8192];
	struct stat st;
	size_t i;

	ASSERT_EQ(0, public_bins(bins, sizeof(bins)));
	snprintf(starvctl, sizeof(starvctl), "%s/starvctl", bins);
	ASSERT_EQ(0, daemon_start(self->d, args));
	ASSERT_TRUE(state_published(self->d, 10000))
		TH_LOG("stderr:\n%s", self->d->err);
	/* Root's alone, as under the unit (UMask=0077: the state is 0600). */
	ASSERT_EQ(0, stat(self->d->run_dir, &st));
	ASSERT_EQ(0, chmod(self->d->run_dir, 0700));
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(1, RUN_AS(NOBODY_NO_CAPS, out, starvctl, "--run-dir",
				    self->d->run_dir, cmds[i][0],
				    cmds[i][1])) TH_LOG("%s", out);
		EXPECT_TRUE(has(out, "permission denied"))
			TH_LOG("%s %s: %s", cmds[i][0], cmds[i][1] ?: "", out);
		EXPECT_TRUE(has(out, "as root"));
		EXPECT_FALSE(has(out, "\"running\":false"));
		EXPECT_FALSE(has(out, "starvd_up 0"));
		EXPECT_FALSE(has(out, "not running"));
	}
	chmod(self->d->run_dir, st.st_mode & 07777);
	remove_bins(bins);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/* A sleeping task of another user, for /proc/PID/stack; -1 on error. */
static pid_t nobody_sleeper(void)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Dumpable again, as after an execve(): /proc/PID is its. */
		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(1);
		if (write(fds[1], "1", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	/* Its uid has changed once it writes; EOF if it could not. */
	if (pid > 0 && read(fds[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

/* Can a process with exactly @caps read /proc/@pid/stack? */
static bool stack_readable_with(uint64_t caps, pid_t pid)
{
	char path[64], buf[256];
	int status, fd;
	pid_t child = fork();

	if (child == 0) {
		cap_t c = cap_init();
		cap_value_t v;

		for (v = 0; v < 64; v++)
			if (caps & CAP_BIT(v)) {
				cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET);
				cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_SET);
			}
		if (cap_set_proc(c))
			_exit(2);
		snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
		fd = open(path, O_RDONLY);
		_exit(fd >= 0 && read(fd, buf, sizeof(buf)) > 0 ? 0 : 1);
	}
	waitpid(child, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * --kstack keeps what /proc/PID/stack needs: the stacks of kernel threads
 * and of other users' tasks are readable with exactly the daemon's set.
 */
TEST_F(daemon, kstack_keeps_what_proc_pid_stack_needs)
{
	const char *const args[] = { "-S", "--kstack", NULL };
	uint64_t want = self->base | KSTACK_CAPS, eff;
	pid_t sleeper;

	/* CAP_SYS_ADMIN makes reads work on kernels that need a cap. */
	check_caps(_metadata, self->d, args, want);
	eff = status_caps(self->d->pid, "CapEff");
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));

	sleeper = nobody_sleeper();
	ASSERT_LT(0, sleeper);
	EXPECT_TRUE(stack_readable_with(eff, 2)) TH_LOG("kthreadd");
	EXPECT_TRUE(stack_readable_with(eff, sleeper)) TH_LOG("uid 65534");
	/* Not one of them too many. */
	EXPECT_FALSE(stack_readable_with(eff & ~CAP_BIT(CAP_DAC_READ_SEARCH),
					 sleeper));
	EXPECT_FALSE(stack_readable_with(eff & ~CAP_BIT(CAP_SYS_PTRACE), 2));
	EXPECT_FALSE(stack_readable_with(eff & ~CAP_BIT(CAP_SYS_ADMIN), 2));
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
}

/*
 * Under starvd.service without its drop-in (no CAP_SYS_ADMIN in the
 * bounding set) --kstack cannot read /proc/PID/stack: starvd says so and
 * where the drop-in is, rather than reporting with no stack unexplained.
 */
TEST(kstack_without_cap_sys_admin_says_what_to_do)
{
	enum who who = ROOT_NO_KSTACK;
	const char *const argv[] = {
		bin_path("starvd"), "-f", "-l", "--kstack", "--run-dir",
		TEST_RUN_DIR, NULL
	};
	char out[8192];
	int st;

	if (geteuid())
		SKIP(return, "needs root");
	/* SIGTERM after 2 s: a clean exit, status 0. */
	st = run_capture_for(argv, out, sizeof(out), become_setup, &who, 2000);
	EXPECT_EQ(0, st) TH_LOG("exit status %d: %s", st, out);
	EXPECT_TRUE(has(out, "capabilities: kept")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "--kstack: no CAP_SYS_ADMIN")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\"The systemd unit\""));
}

static pid_t ns_init;

static void forward_signal(int sig)
{
	kill(ns_init, sig);
}

/*
 * In the child before the exec: a pid namespace of its own, entered by a
 * fork whose parent passes SIGTERM on, waits, and exits with the child's
 * status; with @arg true, that namespace's /proc in a mount namespace of
 * its own, as a container has, else the host's.
 */
static void in_own_pid_ns(void *arg)
{
	bool own_proc = *(bool *)arg;
	pid_t pid;
	int st;

	if (unshare(CLONE_NEWPID | (own_proc ? CLONE_NEWNS : 0)))
		_exit(126);
	pid = fork();
	if (pid < 0)
		_exit(126);
	if (pid) {
		ns_init = pid;
		signal(SIGTERM, forward_signal);
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				_exit(126);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	if (own_proc &&
	    (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	     mount("proc", "/proc", "proc", 0, NULL)))
		_exit(126);
}

/*
 * The kernel names the tasks it reports by their ids in the initial pid
 * namespace, and so does the boost journal: in any other, those ids name
 * other tasks or none. The daemon (reporting only, too) and --restore
 * refuse to start there, under the container's own /proc and the host's,
 * and say what to do; they never act on what such an id names.
 */
TEST(refuses_a_pid_namespace_of_its_own)
{
	const char *const daemon[] = {
		bin_path("starvd"), "-f", "-l", "--run-dir", TEST_RUN_DIR, NULL
	};
	const char *const restore[] = {
		bin_path("starvd"), "--restore", "--run-dir", TEST_RUN_DIR, NULL
	};
	const char *const *cmds[] = { daemon, restore };
	char out[8192];
	bool own_proc;
	int i, p, st;

	if (geteuid())
		SKIP(return, "needs root");
	for (p = 0; p < 2; p++) {
		own_proc = p;
		for (i = 0; i < 2; i++) {
			/* Not refused: SIGTERM after 5 s, a clean exit, 0. */
			st = run_capture_for(cmds[i], out, sizeof(out),
					     in_own_pid_ns, &own_proc, 5000);
			EXPECT_EQ(1, st) TH_LOG("%s, %s /proc: exit status %d: %s",
						cmds[i][1], p ? "own" : "host's",
						st, out);
			EXPECT_TRUE(has(out, "runs in a pid namespace of its own"))
				TH_LOG("%s", out);
			EXPECT_TRUE(has(out, "--pid=host"));
		}
	}
}

TEST_F(daemon, no_mlock_drops_cap_ipc_lock)
{
	const char *const args[] = { "-S", "--no-mlock", NULL };

	check_caps(_metadata, self->d, args,
		   (self->base & ~CAP_BIT(CAP_IPC_LOCK)) | self->bpf_read);
	EXPECT_EQ(0, status_caps(self->d->pid, "VmLck"));
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/* How many threads of @pid are named @comm, each checked for @policy, @prio. */
static int expect_threads_policy(struct __test_metadata *_metadata, pid_t pid,
				 const char *comm, int policy, int prio)
{
	char path[64], name[32];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		struct sched_param sp = { 0 };
		pid_t tid = atoi(de->d_name);
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
			 (int)tid);
		f = tid > 0 ? fopen(path, "r") : NULL;
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strcmp(strtok(name, "\n"), comm)) {
			n++;
			EXPECT_EQ(policy, sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK)
				TH_LOG("%s thread %d", comm, (int)tid);
			EXPECT_EQ(0, sched_getparam(tid, &sp));
			EXPECT_EQ(prio, sp.sched_priority);
		}
		fclose(f);
	}
	closedir(dir);
	return n;
}

/* The policy and priority of @pid, once starvd has started. */
static void expect_policy(struct __test_metadata *_metadata,
			  struct daemon_proc *d, int policy, int prio)
{
	struct sched_param sp = { 0 };

	/* Its start line: after its threads are made. */
	ASSERT_TRUE(daemon_wait_output(d, ", monitoring CPUs ", 10000))
		TH_LOG("stderr:\n%s", d->err);
	EXPECT_EQ(policy, sched_getscheduler(d->pid) & ~SCHED_RESET_ON_FORK)
		TH_LOG("%s", d->err);
	EXPECT_EQ(0, sched_getparam(d->pid, &sp));
	EXPECT_EQ(prio, sp.sched_priority);
	/*
	 * Its SCHED_FIFO emulation threads too, from their start: created
	 * under SCHED_RESET_ON_FORK they would be SCHED_OTHER, and one on a
	 * CPU a busy loop holds would wait there for the fair server.
	 */
	EXPECT_EQ(8, expect_threads_policy(_metadata, d->pid, "starvd-fifo",
					   policy, prio));
	EXPECT_EQ(0, daemon_stop(d, SIGTERM, 5000));
}

/* Started by hand at SCHED_OTHER, starvd takes SCHED_FIFO 10 itself. */
TEST_F(daemon, own_priority_by_default)
{
	const char *const args[] = { "-S", NULL };

	ASSERT_EQ(0, daemon_start_unpinned(self->d, args, NULL));
	expect_policy(_metadata, self->d, SCHED_FIFO, 10);
	EXPECT_TRUE(daemon_output_has(self->d, "running at SCHED_FIFO 10"));
}

/* Started at a real-time policy (chrt, a unit), starvd keeps it. */
TEST_F(daemon, started_realtime_keeps_its_policy)
{
	const char *const args[] = { "-S", NULL };

	ASSERT_EQ(0, daemon_start(self->d, args));
	expect_policy(_metadata, self->d, SCHED_FIFO, DAEMON_PRIO);
	EXPECT_TRUE(daemon_output_has(self->d, "keeping the real-time policy"));
}

TEST_F(daemon, priority_option)
{
	const char *const fifo[] = { "-S", "--priority", "33", NULL };
	const char *const other[] = { "-S", "--priority", "0", NULL };

	ASSERT_EQ(0, daemon_start(self->d, fifo));
	expect_policy(_metadata, self->d, SCHED_FIFO, 33);
	ASSERT_EQ(0, daemon_start(self->d, other));
	expect_policy(_metadata, self->d, SCHED_OTHER, 0);
}

/*
 * Where both real-time policies are refused (here: no CAP_SYS_NICE, which
 * refuses SCHED_DEADLINE too), starvd still runs, at SCHED_OTHER, and says
 * what it tried and what that risks. rt_cgroup below refuses SCHED_FIFO
 * alone.
 */
TEST(refused_priority_falls_back)
{
	enum who who = ROOT_NO_NICE;
	const char *const argv[] = {
		bin_path("starvd"), "-f", "-l", "-S", "--run-dir",
		TEST_RUN_DIR, NULL
	};
	char out[8192];
	int st;

	if (geteuid())
		SKIP(return, "needs root");
	/* SIGTERM after 3 s: a clean exit, status 0. */
	st = run_capture_for(argv, out, sizeof(out), become_setup, &who, 3000);
	EXPECT_EQ(0, st) TH_LOG("exit status %d", st);
	EXPECT_TRUE(has(out, "cannot run at SCHED_FIFO 10")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "nor with a SCHED_DEADLINE reservation"));
	EXPECT_TRUE(has(out, "running at SCHED_OTHER"));
	EXPECT_TRUE(has(out, "pin it to a housekeeping CPU with -a"));
	EXPECT_TRUE(has(out, "received Terminated"));
}

/*
 * The cgroup a unit's service runs in on a kernel with
 * CONFIG_RT_GROUP_SCHED: a cpu group without real-time runtime
 * (cpu.rt_runtime_us 0, a new group's default). With RT throttling on,
 * the kernel refuses SCHED_FIFO there (EPERM) but not SCHED_DEADLINE,
 * which group real-time runtime does not cover: starvd's fallback, for
 * real. Only the cgroup v1 cpu controller has cpu.rt_runtime_us; where the
 * machine has no v1 cpu hierarchy, the test mounts one if the controller
 * is not in use by cgroup v2.
 */
FIXTURE(rt_cgroup) {
	struct daemon_proc *d;
	char mnt[PATH_MAX];	/* the cpu hierarchy's root */
	char back[PATH_MAX];	/* cgroup.procs of the test's own group */
	char group[PATH_MAX];	/* the group without real-time runtime */
	bool mounted, made, moved;
	long saved_rt;		/* RT throttling as found, if turned on */
	bool rt_changed;
};

FIXTURE_SETUP(rt_cgroup)
{
	if (geteuid())
		SKIP(return, "needs root");
	self->d = calloc(1, sizeof(*self->d));
	ASSERT_TRUE(NULL != self->d);
}

FIXTURE_TEARDOWN(rt_cgroup)
{
	char rt[32];

	if (self->d && self->d->pid)
		daemon_stop(self->d, SIGKILL, 2000);
	free(self->d);
	if (self->moved) {
		snprintf(rt, sizeof(rt), "%d", (int)getpid());
		if (write_string(self->back, rt))
			TH_LOG("cannot move the test back to %s", self->back);
	}
	if (self->made && rmdir(self->group))
		TH_LOG("cannot remove %s: %s", self->group, strerror(errno));
	if (self->mounted && (umount(self->mnt) || rmdir(self->mnt)))
		TH_LOG("cannot unmount %s: %s", self->mnt, strerror(errno));
	if (self->rt_changed) {
		snprintf(rt, sizeof(rt), "%ld", self->saved_rt);
		if (write_string("/proc/sys/kernel/sched_rt_runtime_us", rt))
			TH_LOG("cannot put kernel.sched_rt_runtime_us back to %s",
			       rt);
	}
}

/* Is @word one of the comma-separated items of @list? */
static bool has_item(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, word, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

/* The mount point of a cgroup v1 hierarchy with the cpu controller. */
static bool find_cpu_v1(char *mnt, size_t len)
{
	char line[1024], dir[PATH_MAX], type[64], opts[512];
	const char *tail;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - TYPE SOURCE SUPER */
		tail = strstr(line, " - ");
		if (!tail || sscanf(line, "%*s %*s %*s %*s %4095s", dir) != 1 ||
		    sscanf(tail, " - %63s %*s %511s", type, opts) != 2)
			continue;
		if (!strcmp(type, "cgroup") && has_item(opts, "cpu")) {
			snprintf(mnt, len, "%s", dir);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* cgroup.procs of this process's group in the cpu hierarchy at @mnt. */
static int own_cpu_group(const char *mnt, char *procs, size_t len)
{
	char line[PATH_MAX + 128], *ctrl, *path;
	int ret = -ENOENT;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		/* ID:CONTROLLERS:PATH */
		line[strcspn(line, "\n")] = '\0';
		ctrl = strchr(line, ':');
		path = ctrl ? strchr(ctrl + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		if (has_item(ctrl + 1, "cpu")) {
			ret = snprintf(procs, len, "%s%s/cgroup.procs", mnt,
				       strcmp(path, "/") ? path : "") < (int)len ?
				0 : -ENAMETOOLONG;
		}
	}
	fclose(f);
	return ret;
}

TEST_F(rt_cgroup, refused_fifo_takes_a_deadline_reservation)
{
	const char *const args[] = { "-l", "-S", NULL };
	const char *rt_path = "/proc/sys/kernel/sched_rt_runtime_us";
	struct sched_param other = { 0 };
	struct sched_attr attr = { .size = sizeof(attr) };
	char path[PATH_MAX + 32], pid[32], rt[32];
	int ret;

	if (!find_cpu_v1(self->mnt, sizeof(self->mnt))) {
		snprintf(self->mnt, sizeof(self->mnt),
			 "/tmp/starvd-cpu-cgroup.XXXXXX");
		ASSERT_TRUE(NULL != mkdtemp(self->mnt));
		if (mount("starvd-selftest", self->mnt, "cgroup", 0, "cpu")) {
			ret = errno;
			rmdir(self->mnt);
			if (ret == EBUSY)
				SKIP(return, "the cpu controller is in use by the cgroup v2 hierarchy (a cgroup v1 mount of it: EBUSY), and cgroup v2 has no real-time runtime (cpu.rt_runtime_us) to refuse SCHED_FIFO with: the SCHED_DEADLINE fallback cannot be reached for real here");
			SKIP(return, "no cgroup v1 cpu hierarchy, and mounting one failed (%s): cpu.rt_runtime_us, which refuses SCHED_FIFO, exists only there",
			     strerror(ret));
		}
		self->mounted = true;
	}
	snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", self->mnt);
	if (access(path, F_OK))
		SKIP(return, "%.200s missing: the kernel has no CONFIG_RT_GROUP_SCHED (or was booted with rt_group_sched=0), so no cgroup refuses SCHED_FIFO",
		     path);
	/* With RT throttling off, groups without runtime take SCHED_FIFO. */
	ASSERT_EQ(0, read_line(rt_path, rt, sizeof(rt)));
	self->saved_rt = atol(rt);
	if (self->saved_rt < 0) {
		ASSERT_EQ(0, write_string(rt_path, "950000"));
		self->rt_changed = true;
		TH_LOG("RT throttling turned on for the test (found off)");
	}
	ret = own_cpu_group(self->mnt, self->back, sizeof(self->back));
	ASSERT_EQ(0, ret) TH_LOG("this process's group in %s: %s", self->mnt,
				 strerror(-ret));
	snprintf(self->group, sizeof(self->group), "%.*s/starvd-selftest-%d",
		 (int)(strrchr(self->back, '/') - self->back), self->back,
		 (int)getpid());
	ASSERT_EQ(0, mkdir(self->group, 0755)) TH_LOG("%s: %s", self->group,
						     strerror(errno));
	self->made = true;
	snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", self->group);
	ASSERT_EQ(0, write_string(path, "0"));
	/* A real-time task may not join a group without runtime. */
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_OTHER, &other));
	snprintf(path, sizeof(path), "%s/cgroup.procs", self->group);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	ASSERT_EQ(0, write_string(path, pid));
	self->moved = true;

	/* Unpinned: with RT throttling on, SCHED_DEADLINE needs all CPUs. */
	ASSERT_EQ(0, daemon_start_unpinned(self->d, args, NULL));
	ASSERT_TRUE(daemon_wait_output(self->d, "capabilities: kept", 10000))
		TH_LOG("stderr:\n%s", self->d->err);
	ASSERT_EQ(0, sched_getattr_tid(self->d->pid, &attr));
	EXPECT_EQ(SCHED_DEADLINE, attr.sched_policy) TH_LOG("%s", self->d->err);
	EXPECT_EQ(NSEC_PER_SEC / 20, attr.sched_runtime);
	EXPECT_EQ(NSEC_PER_SEC, attr.sched_period);
	/* Else clone() fails: no log writer thread. */
	EXPECT_TRUE(attr.sched_flags & SCHED_FLAG_RESET_ON_FORK);
	EXPECT_TRUE(daemon_output_has(self->d,
		"cannot run at SCHED_FIFO 10: Operation not permitted (a cgroup without real-time runtime?"));
	EXPECT_TRUE(daemon_output_has(self->d,
		"running with a SCHED_DEADLINE reservation of 5% of a CPU instead"));
	/* What that risks, and what to do about it. */
	EXPECT_TRUE(daemon_output_has(self->d, "for at most 50 ms of each second"));
	EXPECT_TRUE(daemon_output_has(self->d, "up to a second late"));
	EXPECT_TRUE(daemon_output_has(self->d, "cpu.rt_runtime_us"));
	EXPECT_FALSE(daemon_output_has(self->d, "cannot start the log writer"))
		TH_LOG("%s", self->d->err);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	EXPECT_TRUE(daemon_output_has(self->d, "received Terminated"));
}

/* The unit as "make install" writes it, into @dir. */
static int installed_unit(const char *dir, const char *name, char *unit,
			  size_t len)
{
	char src_unit[PATH_MAX];
	char src[PATH_MAX], bindir[PATH_MAX];
	char *slash;

	snprintf(src, sizeof(src), "%s", bin_path("starvd"));
	slash = strrchr(src, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	if (!realpath(src, bindir))
		return -errno;
	snprintf(unit, len, "%s/%s", dir, name);
	snprintf(src_unit, sizeof(src_unit), "../systemd/%s", name);
	return copy_file(src_unit, unit, 0644, "@BINDIR@", bindir);
}

/* @prog is in the PATH and runs here (not another architecture's). */
static bool runs_here(const char *prog)
{
	char out[256];
	const char *const argv[] = { prog, "--version", NULL };

	return run_as(AS_IS, argv, out, sizeof(out)) == 0;
}

/*
 * The sandbox stays at the exposure it was hardened to: a directive
 * removed (or a new capability) raises the score above the threshold.
 */
static void check_unit(struct __test_metadata *_metadata, const char *name,
		       int max)
{
	char dir[] = "/tmp/starvd-unit.XXXXXX", unit[PATH_MAX];
	char threshold[32], out[16384];
	const char *score;
	int ret;

	ASSERT_TRUE(NULL != mkdtemp(dir));
	ret = installed_unit(dir, name, unit, sizeof(unit));
	ASSERT_EQ(0, ret) TH_LOG("cannot write the installed unit: %s",
				 strerror(-ret));
	snprintf(threshold, sizeof(threshold), "--threshold=%d", max);
	ret = RUN_AS(AS_IS, out, "systemd-analyze", "security",
		     "--offline=yes", "--no-pager", threshold, unit);
	if (ret == 127) {
		unlink(unit);
		rmdir(dir);
		SKIP(return, "systemd-analyze cannot run here: %.200s", out);
	}
	score = strstr(out, "Overall exposure level");
	EXPECT_EQ(0, ret) TH_LOG("%s: exposure above %d.%d:\n%s", name,
				 max / 10, max % 10, out);
	ASSERT_TRUE(NULL != score) TH_LOG("%s", out);
	TH_LOG("%.*s", (int)strcspn(score, "\n"), score);

	/* The unit also loads: directives, paths, commands. */
	EXPECT_EQ(0, RUN_AS(AS_IS, out, "systemd-analyze", "verify",
			    "--man=no", unit)) TH_LOG("%s", out);
	unlink(unit);
	rmdir(dir);
}

TEST(unit_sandbox_exposure)
{
	/* Four runs of systemd-analyze can take the test's 30 s in a guest. */
	if (getenv("STARVD_VM_GUEST"))
		SKIP(return, "the unit files are the same on every kernel: their sandbox is checked on the host");
	if (!runs_here("systemd-analyze"))
		SKIP(return, "systemd-analyze is not installed or does not run here (Debian package systemd): the unit's sandbox is not checked");
	check_unit(_metadata, "starvd.service", UNIT_EXPOSURE_MAX);
	check_unit(_metadata, "starvd-metrics.service",
		   METRICS_UNIT_EXPOSURE_MAX);
}

/*
 * The netlink backend's socket hears the kernel alone (backend_netlink.h):
 * connected to port 0, another socket's message to its port is refused by
 * the kernel, while the kernel's replies still come. Needs no module: the
 * request is the generic netlink controller's.
 */
TEST(netlink_socket_hears_only_the_kernel)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		char attrs[64];
	} req = {
		.h = { .nlmsg_type = GENL_ID_CTRL,
		       .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 7 },
		.g = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 },
	}, reply;
	struct sockaddr_nl self_addr = { .nl_family = AF_NETLINK };
	struct sockaddr_nl to = { .nl_family = AF_NETLINK }, from;
	socklen_t alen = sizeof(self_addr);
	struct nlattr *a = (struct nlattr *)req.attrs;
	int client, other;
	ssize_t n;

	client = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	other = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	ASSERT_LE(0, client);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, bind(client, (struct sockaddr *)&self_addr, alen));
	ASSERT_EQ(0, getsockname(client, (struct sockaddr *)&self_addr, &alen));
	ASSERT_EQ(0, nl_hear_kernel_only(client));

	/* A forged reply from another socket to the client's port. */
	to.nl_pid = self_addr.nl_pid;
	req.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	EXPECT_EQ(-1, sendto(other, &req, req.h.nlmsg_len, 0,
			     (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(ECONNREFUSED, errno);

	/* The kernel still answers: the controller's own family. */
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + sizeof("nlctrl");
	memcpy((char *)a + NLA_HDRLEN, "nlctrl", sizeof("nlctrl"));
	req.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a->nla_len);
	to.nl_pid = 0;
	ASSERT_EQ((ssize_t)req.h.nlmsg_len,
		  sendto(client, &req, req.h.nlmsg_len, 0,
			 (struct sockaddr *)&to, sizeof(to)));
	alen = sizeof(from);
	n = recvfrom(client, &reply, sizeof(reply), MSG_TRUNC,
		     (struct sockaddr *)&from, &alen);
	ASSERT_LT((ssize_t)sizeof(struct nlmsghdr), n);
	EXPECT_EQ(GENL_ID_CTRL, reply.h.nlmsg_type);
	EXPECT_TRUE(nl_from_kernel(&from, &reply.h, 7));
	close(client);
	close(other);
}

/* Only the kernel's reply to the request in flight is taken. */
TEST(netlink_reply_from_kernel_only)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct sockaddr_nl user = { .nl_family = AF_NETLINK, .nl_pid = 4242 };
	struct nlmsghdr h = { .nlmsg_seq = 7 };

	EXPECT_TRUE(nl_from_kernel(&kernel, &h, 7));
	EXPECT_FALSE(nl_from_kernel(&user, &h, 7));
	EXPECT_FALSE(nl_from_kernel(&kernel, &h, 8));
}

/*
 * The run directory (docs/security.md, "The run directory"): starvd acts
 * as root on what it reads back from it (a journal entry becomes a
 * sched_setattr(), rt_runtime_us.saved a write to sched_rt_runtime_us),
 * so a directory or file that someone else can write is refused, by name,
 * owner and mode, before anything is applied. Each test plants an entry
 * that gives a task of nobody's SCHED_FIFO 99, and checks the task stays
 * SCHED_OTHER.
 */
FIXTURE(hostile) {
	char dir[64];		/* mkdtemp(): root's, 0700 */
	char parent[96];	/* <dir>/p: root's, 0755 */
	char run[128];		/* <dir>/p/run: the run directory, 0700 */
	char boosts[160];	/* <run>/boosts, 0700 */
	char entry[192];	/* <boosts>/<victim> */
	char out[8192];
	pid_t victim;
	long rt_before, rt_saved;
	bool rt_changed;
};

FIXTURE_SETUP(hostile)
{
	if (geteuid())
		SKIP(return, "needs root");
	snprintf(self->dir, sizeof(self->dir), "/tmp/starvd-rundir.XXXXXX");
	ASSERT_TRUE(NULL != mkdtemp(self->dir));
	snprintf(self->parent, sizeof(self->parent), "%s/p", self->dir);
	snprintf(self->run, sizeof(self->run), "%s/run", self->parent);
	snprintf(self->boosts, sizeof(self->boosts), "%s/boosts", self->run);
	ASSERT_EQ(0, mkdir(self->parent, 0755));
	ASSERT_EQ(0, mkdir(self->run, 0700));
	ASSERT_EQ(0, mkdir(self->boosts, 0700));
	self->victim = nobody_sleeper();
	ASSERT_LT(0, self->victim);
	snprintf(self->entry, sizeof(self->entry), "%s/%d", self->boosts,
		 (int)self->victim);
	ASSERT_EQ(0, rt_runtime_read(&self->rt_before));
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	remove(path);
	return 0;
}

FIXTURE_TEARDOWN(hostile)
{
	if (self->victim > 0) {
		kill(self->victim, SIGKILL);
		waitpid(self->victim, NULL, 0);
	}
	if (self->rt_changed)
		rt_throttle_restore(self->rt_saved);
	if (self->dir[0] == '/')
		nftw(self->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * Write at @path a journal entry that "restores" the victim to SCHED_FIFO
 * 99, as someone who can write there would; owned by @uid, mode @mode.
 */
static int plant_entry(pid_t victim, const char *path, uid_t uid,
		       mode_t mode)
{
	struct journal_entry e = {
		.tid = victim,
		.start_time = task_start_time(victim),
		.comm = "sleep",
		.saved = { .size = sizeof(e.saved),
			   .sched_policy = SCHED_FIFO, .sched_priority = 99 },
		.applied = { .size = sizeof(e.applied) },
	};
	char buf[512];
	int fd, n;

	n = journal_format(&e, buf, sizeof(buf));
	if (n < 0)
		return n;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n || fchown(fd, uid, -1) ||
	    fchmod(fd, mode)) {
		close(fd);
		return -EIO;
	}
	return close(fd) ? -errno : 0;
}

/*
 * starvd with @args (NULL-terminated) exits 1 saying each of @say
 * (NULL-terminated), and nothing is applied: the victim stays SCHED_OTHER,
 * sched_rt_runtime_us as it was. Stopped after RUN_HUNG_MS if it starts
 * instead.
 */
static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(hostile) *self,
			   const char *const *args, const char *const *say)
{
	const char *argv[16] = { bin_path("starvd") };
	size_t n = 1;
	long rt;

	while (*args && n < ARRAY_SIZE(argv) - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	EXPECT_EQ(1, run_capture_for(argv, self->out, sizeof(self->out),
				     NULL, NULL, RUN_HUNG_MS))
		TH_LOG("%s", self->out);
	for (; *say; say++) {
		const char *s = *say;

		EXPECT_TRUE(has(self->out, s))
			TH_LOG("no '%s' in:\n%s", s, self->out);
	}
	EXPECT_EQ(SCHED_OTHER, sched_getscheduler(self->victim))
		TH_LOG("the planted entry was applied:\n%s", self->out);
	ASSERT_EQ(0, rt_runtime_read(&rt));
	EXPECT_EQ(self->rt_changed ? -1 : self->rt_before, rt);
}

#define EXPECT_REFUSED(args, ...) ({ \
	const char *const _say[] = { __VA_ARGS__, NULL }; \
	expect_refused(_metadata, self, args, _say); \
})

static const char *const *restore_args(FIXTURE_DATA(hostile) *self)
{
	static const char *args[4];

	args[0] = "--restore";
	args[1] = "--run-dir";
	args[2] = self->run;
	args[3] = NULL;
	return args;
}

/* A run directory of nobody's, mode 0777, as seen: refused, nothing read. */
TEST_F(hostile, run_dir_of_nobody)
{
	ASSERT_EQ(0, plant_entry(self->victim, self->entry, NOBODY, 0666));
	ASSERT_EQ(0, chown(self->boosts, NOBODY, NOBODY));
	ASSERT_EQ(0, chmod(self->boosts, 0777));
	ASSERT_EQ(0, chown(self->run, NOBODY, NOBODY));
	ASSERT_EQ(0, chmod(self->run, 0777));
	EXPECT_REFUSED(restore_args(self), "refusing the run directory",
		       self->run, "uid 65534 (nobody)", "mode 0777",
		       "chown root");
}

/* The same at start-up: it stops before RT throttling or any restore. */
TEST_F(hostile, run_dir_of_nobody_at_start)
{
	const char *const args[] = { "-f", "-b", test_backend(),
				     "--run-dir", self->run, NULL };

	ASSERT_EQ(0, plant_entry(self->victim, self->entry, NOBODY, 0666));
	ASSERT_EQ(0, chown(self->run, NOBODY, NOBODY));
	ASSERT_EQ(0, chmod(self->run, 0777));
	EXPECT_REFUSED(args, "refusing the run directory", self->run,
		       "uid 65534 (nobody)", "mode 0777");
}

/* boosts/ writable by its group: anyone in it could plant an entry. */
TEST_F(hostile, group_writable_boosts)
{
	ASSERT_EQ(0, plant_entry(self->victim, self->entry, 0, 0600));
	ASSERT_EQ(0, chmod(self->boosts, 0770));
	EXPECT_REFUSED(restore_args(self), self->boosts, "uid 0 (root)",
		       "mode 0770", "chmod go-w");
}

/* A directory on the way that nobody owns: it can swap the run directory. */
TEST_F(hostile, parent_of_nobody)
{
	ASSERT_EQ(0, plant_entry(self->victim, self->entry, 0, 0600));
	ASSERT_EQ(0, chown(self->parent, NOBODY, NOBODY));
	ASSERT_EQ(0, chmod(self->parent, 0777));
	EXPECT_REFUSED(restore_args(self), "refusing the directory",
		       self->parent, "uid 65534 (nobody)", "mode 0777");
}

/* An entry of nobody's in root's boosts/ (put there by root, by mistake). */
TEST_F(hostile, journal_entry_of_nobody)
{
	ASSERT_EQ(0, plant_entry(self->victim, self->entry, NOBODY, 0644));
	EXPECT_REFUSED(restore_args(self), "refusing the file", self->entry,
		       "uid 65534 (nobody)", "rm ");
}

/* A symbolic link as a journal entry: never followed. */
TEST_F(hostile, journal_entry_symlink)
{
	char target[128];

	snprintf(target, sizeof(target), "%s/entry", self->dir);
	ASSERT_EQ(0, plant_entry(self->victim, target, 0, 0600));
	ASSERT_EQ(0, symlink(target, self->entry));
	EXPECT_REFUSED(restore_args(self), self->entry, "a symbolic link");
}

/*
 * rt_runtime_us.saved of nobody's while RT throttling is off (as a killed
 * starvd leaves it): not written to sched_rt_runtime_us.
 */
TEST_F(hostile, saved_rt_runtime_of_nobody)
{
	char path[192];
	int fd;

	snprintf(path, sizeof(path), "%s/rt_runtime_us.saved", self->run);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(7, write(fd, "123456\n", 7));
	ASSERT_EQ(0, fchown(fd, NOBODY, NOBODY));
	close(fd);
	ASSERT_EQ(0, rt_throttle_off(&self->rt_saved));
	self->rt_changed = true;
	EXPECT_REFUSED(restore_args(self), "refusing the file", path,
		       "uid 65534 (nobody)");
}

/* A symbolic link as the pidfile: refused before anything, not written. */
TEST_F(hostile, pidfile_symlink)
{
	char link[128], target[128], buf[16];
	const char *const args[] = { "-f", "-b", test_backend(),
				     "--run-dir", self->run, "-P", link,
				     NULL };
	int fd;

	snprintf(link, sizeof(link), "%s/starvd.pid", self->dir);
	snprintf(target, sizeof(target), "%s/target", self->dir);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "keep\n", 5));
	close(fd);
	ASSERT_EQ(0, symlink(target, link));
	EXPECT_REFUSED(args, "-P/--pidfile", link, "a symbolic link");
	ASSERT_EQ(0, read_line(target, buf, sizeof(buf)));
	EXPECT_STREQ("keep", buf);
}

TEST_HARNESS_MAIN
