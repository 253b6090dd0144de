// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Load/soak test: starvd under 10,000 threads and a fork/exit and
 * context-switch storm for STARVD_LOAD_SECONDS (default 60), while real
 * starvation is injected over and over on the test CPU: a fresh
 * SCHED_FIFO victim queued behind a fresh SCHED_FIFO busy loop that ends
 * by itself after EPISODE_S seconds, then a pause with neither.
 *
 * Checked: every injection is reported (holder: the busy loop) and boosted
 * before its busy loop ends, and every boost is undone; no other task is
 * ever reported or boosted; starvd's VmRSS does not grow and its open file
 * descriptors stay the same between the end of the warm-up and the end of
 * the soak; no boost failed; SIGTERM in the middle of a last boost
 * restores the victim and starvd exits 0. Detection lateness, RSS, file
 * descriptors and the storm's rates are printed as KTAP comments.
 *
 * What runs where (2 CPUs or more; the test CPU is the last one):
 *  - CPU 0: the storm, the 10,000 sleeping threads (SCHED_OTHER, pinned),
 *    this test's controller (SCHED_FIFO CTL_PRIO) and starvd (SCHED_FIFO
 *    60, as daemon_start() runs it);
 *  - test CPU: the injected busy loop and victim, and a SCHED_OTHER busy
 *    loop (the "tenant", see tenant_start()).
 * starvd monitors only the test CPU (-c), so no storm task or sleeper can
 * ever be a waiter it looks at, whatever the threshold: their affinity is
 * CPU 0 alone. The other tasks that can queue on the test CPU behind the
 * injected busy loop are the tenant, per-CPU kernel threads and unpinned
 * tasks of the machine: the SCHED_OTHER ones are run by the kernel's fair
 * server (50 ms every 1 s by default, deferred: they wait at most about a
 * period), and the busy loop's priority (HOG_PRIO 40) is below the
 * threaded interrupt handlers and watchdogd (SCHED_FIFO 50), so they
 * preempt it instead of waiting. A threshold of 3 s is three fair-server
 * periods: only an injected victim can legitimately wait that long there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/daemon_proc.h"
#include "lib/workload.h"
#include "sched_attr.h"
#include "throttle.h"
#include "util.h"

#define DEFAULT_SECONDS	60	/* make check; STARVD_LOAD_SECONDS overrides */
#define STORM_CPU	0
#define NR_SLEEPERS	10000
#define SLEEPER_STACK	(64 * 1024)
#define WAKE_BATCH	500	/* sleepers woken every WAKE_EVERY_MS */
#define WAKE_EVERY_MS	100
#define NR_PAIRS	32	/* ping-pong pairs over socketpairs */
#define NR_FORKERS	4	/* fork/exit loops */

#define THRESHOLD	"3"	/* see the comment at the top */
#define THRESHOLD_NS	(3 * NSEC_PER_SEC)
#define BOOST_S		"1"
#define BOOST_NS	NSEC_PER_SEC
#define EPISODE_S	6	/* the busy loop of one injection ends by itself */
#define GAP_MS		1000	/* neither busy loop nor victim */
#define WARMUP		2	/* injections before the baseline samples */
#define HOG_PRIO	40
#define VICTIM_PRIO	10
#define CTL_PRIO	20	/* the controller: above the storm, below starvd */
#define EVENT_SLACK_NS	(10 * NSEC_PER_SEC)	/* a hang, not a speed */
#define SETUP_S		300	/* bound for everything but the soak itself */

/*
 * starvd's VmRSS after the soak may exceed the baseline by this much: the
 * baseline is taken after WARMUP injections and a status dump, so every
 * code path of the soak (read, report, boost, journal, restore, state
 * file, status) has run and its heap arrays, stdio buffers and stack have
 * their working size. What can still add resident pages is a first touch
 * of a code or data page of a shared library on a rare branch and malloc
 * placing the same small allocations differently: a few pages. 64 KiB (16
 * pages) covers that; a leak of one allocation per read, report or boost
 * over the soak's hundreds of them does not fit in it.
 */
#define RSS_SLACK_KB	64

/* Shared with the storm's and the sleepers' processes. */
struct counter {
	volatile uint64_t n;
	char pad[56];
};

struct storm_counters {
	struct counter trips[NR_PAIRS];		/* ping-pong round trips */
	struct counter forks[NR_FORKERS];
	struct counter wakeups;			/* sleepers woken */
	volatile int sleepers;			/* threads created */
	volatile int sleepers_err;		/* pthread_create error */
};

struct injection {
	pid_t tid, hog;
	bool hog_reaped;
	uint64_t start_ns, end_ns;	/* busy loop started / ends */
	uint64_t stuck_count;		/* victim's count once stuck */
	bool stuck_checked, progressed;
	int starving, boosts, restores;
	uint64_t waited_ns, wait_start_ns, boost_ns;
	int64_t holder;
	char holder_comm[32];
	int cpu;
};

struct rate_sample {
	uint64_t t, trips, forks, wakeups, ctxt, procs;
};

struct stats {
	int n;
	uint64_t min, max, sum;
};

FIXTURE(load) {
	long saved_rt;
	bool rt_changed;
	int cpu;
	uint64_t duration_ns;
	struct storm_counters *c;
	pid_t storm, sleepers, tenant;
	struct victim v;
	struct injection *cur;
	struct daemon_proc *d;
	int false_positives;
	struct rate_sample last;
	char line[4096];
};

/* The soak's own bound: the harness's timeout is fixed at build time. */
static volatile long watchdog_rt = 1;

static void watchdog(int sig)
{
	static const char msg[] =
		"# load: past the time bound (STARVD_LOAD_SECONDS + 300 s): stopping\n";
	char buf[32];
	int fd, n;

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		n = 0;
	if (watchdog_rt != 1) {
		n = snprintf(buf, sizeof(buf), "%ld", watchdog_rt);
		fd = open(RT_RUNTIME_PATH, O_WRONLY);
		if (fd >= 0) {
			if (write(fd, buf, n) < 0)
				n = 0;
			close(fd);
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void diag(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# %s\n", buf);
}

/* Each line of @text as a KTAP comment. */
static void diag_lines(const char *prefix, const char *text)
{
	size_t n;

	while (*text) {
		n = strcspn(text, "\n");
		if (n)
			diag("%s%.*s", prefix, (int)n, text);
		text += n + !!text[n];
	}
}

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* A process of the load: dies with @parent, SCHED_OTHER, on @cpu. */
static void load_child(const char *name, pid_t parent, int cpu)
{
	struct sched_attr other = other_attr(0);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, name);
	if (sched_setattr_tid(0, &other) || pin_self(cpu))
		_exit(1);
}

static void storm_child(const char *name, pid_t parent)
{
	load_child(name, parent, STORM_CPU);
}

/*
 * A SCHED_OTHER busy loop on the test CPU. Behind an injected busy loop
 * only the fair server runs it, 50 ms a second: it waits less than a
 * second at a time (never reported), and now and then it is the task on
 * the CPU when starvd reads, while the injected busy loop waits a moment:
 * the holder reported must still be the injected busy loop.
 */
static pid_t tenant_start(int cpu)
{
	pid_t parent = getpid(), pid = fork();

	if (pid)
		return pid;
	load_child("stv-tenant", parent, cpu);
	for (;;)
		;
}

static uint32_t sleep_gen;	/* futex word, in the sleepers' process */

static void *sleeper(void *arg)
{
	struct storm_counters *c = arg;
	uint32_t g;

	for (;;) {
		g = __atomic_load_n(&sleep_gen, __ATOMIC_ACQUIRE);
		syscall(SYS_futex, &sleep_gen, FUTEX_WAIT_PRIVATE, g, NULL,
			NULL, 0);
		__atomic_fetch_add(&c->wakeups.n, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* NR_SLEEPERS threads blocked on a futex; a few are woken at a time. */
static pid_t sleepers_start(struct storm_counters *c)
{
	pid_t parent = getpid(), pid = fork();
	pthread_attr_t attr;
	pthread_t th;
	int i, ret;

	if (pid)
		return pid;
	storm_child("stv-sleepers", parent);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, SLEEPER_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 0; i < NR_SLEEPERS; i++) {
		ret = pthread_create(&th, &attr, sleeper, c);
		if (ret) {
			c->sleepers_err = ret;
			for (;;)
				pause();
		}
		c->sleepers = i + 1;
	}
	for (;;) {
		usleep(WAKE_EVERY_MS * 1000);
		__atomic_fetch_add(&sleep_gen, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &sleep_gen, FUTEX_WAKE_PRIVATE, WAKE_BATCH,
			NULL, NULL, 0);
	}
}

/* One side of a pair: one byte back and forth, a switch each way. */
static void pinger(int fd, volatile uint64_t *n, bool first)
{
	char b = 0;

	for (;;) {
		if (first && write(fd, &b, 1) != 1)
			_exit(0);
		if (read(fd, &b, 1) != 1)
			_exit(0);
		if (!first && write(fd, &b, 1) != 1)
			_exit(0);
		if (first)
			(*n)++;
	}
}

/*
 * The storm, an equivalent of hackbench's process mode written here so
 * that every process dies with the test: NR_PAIRS pairs of processes
 * ping-pong a byte over socketpairs, NR_FORKERS processes fork and reap
 * children that exit at once. Everything on CPU 0.
 */
static pid_t storm_start(struct storm_counters *c)
{
	pid_t parent = getpid(), pid = fork(), me;
	int i, sv[2];

	if (pid)
		return pid;
	storm_child("stv-storm", parent);
	me = getpid();
	for (i = 0; i < NR_PAIRS; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			_exit(1);
		if (fork() == 0) {
			storm_child("stv-ping", me);
			close(sv[1]);
			pinger(sv[0], &c->trips[i].n, true);
		}
		if (fork() == 0) {
			storm_child("stv-pong", me);
			close(sv[0]);
			pinger(sv[1], &c->trips[i].n, false);
		}
		close(sv[0]);
		close(sv[1]);
	}
	for (i = 0; i < NR_FORKERS; i++) {
		if (fork())
			continue;
		storm_child("stv-forker", me);
		for (;;) {
			pid_t p = fork();

			if (p == 0)
				_exit(0);
			if (p > 0)
				waitpid(p, NULL, 0);
			c->forks[i].n++;
		}
	}
	for (;;)
		pause();
}

static void sample_rates(struct storm_counters *c, struct rate_sample *s)
{
	char line[256];
	FILE *f;
	int i;

	memset(s, 0, sizeof(*s));
	s->t = now_ns();
	for (i = 0; i < NR_PAIRS; i++)
		s->trips += c->trips[i].n;
	for (i = 0; i < NR_FORKERS; i++)
		s->forks += c->forks[i].n;
	s->wakeups = c->wakeups.n;
	f = fopen("/proc/stat", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %" SCNu64, &s->ctxt) != 1)
			sscanf(line, "processes %" SCNu64, &s->procs);
	fclose(f);
}

static long vm_rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int count_fds(pid_t pid)
{
	char path[64];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

static void stats_add(struct stats *s, uint64_t v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->sum += v;
	s->n++;
}

static void stats_print(const char *what, const struct stats *s)
{
	if (!s->n)
		return;
	diag("load: %s: min %.3f ms, avg %.3f ms, max %.3f ms (%d injections)",
	     what, (double)s->min / NSEC_PER_MSEC,
	     (double)s->sum / s->n / NSEC_PER_MSEC,
	     (double)s->max / NSEC_PER_MSEC, s->n);
}

/* What starvd said on stderr so far, into the log. */
static void flush_err(FIXTURE_DATA(load) *self)
{
	diag_lines("load: ", self->d->err);
	daemon_trim(self->d, 0);
}

FIXTURE_SETUP(load)
{
	struct sched_attr ctl = fifo_attr(CTL_PRIO);
	const char *env = getenv("STARVD_LOAD_SECONDS");
	uint64_t end;
	long secs = DEFAULT_SECONDS;

	if (geteuid())
		SKIP(return, "needs root");
	self->cpu = test_cpu();
	if (self->cpu == 0)
		SKIP(return, "needs two CPUs");
	if (!kernel_has_fair_server())
		SKIP(return, "needs the kernel's fair server (6.12 or later): without it SCHED_OTHER kernel threads on the test CPU really starve behind the busy loop, and no report of another task could be called false");
	if (env && *env) {
		ASSERT_EQ(0, parse_int(env, 1, 30 * 24 * 3600, &secs))
			TH_LOG("STARVD_LOAD_SECONDS=%s: want seconds", env);
	}
	self->duration_ns = secs * NSEC_PER_SEC;
	signal(SIGALRM, watchdog);
	alarm(secs + SETUP_S);

	self->c = mmap(NULL, sizeof(*self->c), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(MAP_FAILED != self->c);
	self->d = calloc(1, sizeof(*self->d));
	ASSERT_TRUE(NULL != self->d);

	/* The load first: starvd starts, calibrates and reads under it. */
	self->sleepers = sleepers_start(self->c);
	ASSERT_LT(0, self->sleepers);
	end = now_ns() + 120 * NSEC_PER_SEC;
	while (self->c->sleepers < NR_SLEEPERS && !self->c->sleepers_err &&
	       now_ns() < end)
		usleep(10000);
	ASSERT_EQ(NR_SLEEPERS, self->c->sleepers)
		TH_LOG("created %d sleeping threads: %s", self->c->sleepers,
		       strerror(self->c->sleepers_err));
	self->storm = storm_start(self->c);
	ASSERT_LT(0, self->storm);
	self->tenant = tenant_start(self->cpu);
	ASSERT_LT(0, self->tenant);

	/* The controller must not wait behind the storm for its turn. */
	ASSERT_EQ(0, pin_self(STORM_CPU));
	ASSERT_EQ(0, sched_setattr_tid(0, &ctl));
	diag("load: %d sleeping threads, %d ping-pong pairs, %d fork loops on CPU %d; a SCHED_OTHER busy loop and the injections on CPU %d for %ld s",
	     NR_SLEEPERS, NR_PAIRS, NR_FORKERS, STORM_CPU, self->cpu, secs);
}

FIXTURE_TEARDOWN(load)
{
	/* Never a reaped pid: the fork storm recycles them at once. */
	if (self->cur && self->cur->hog > 0 && !self->cur->hog_reaped)
		kill_and_reap(self->cur->hog);
	if (self->rt_changed)
		rt_throttle_restore(self->saved_rt);
	watchdog_rt = 1;
	if (self->d && self->d->pid)
		daemon_stop(self->d, SIGKILL, 2000);
	if (self->v.pid)
		victim_stop(&self->v);
	kill_and_reap(self->tenant);
	kill_and_reap(self->storm);
	kill_and_reap(self->sleepers);
	free(self->d);
	alarm(0);
}

/* Every event: the current victim's, or a false positive. */
static void handle_event(FIXTURE_DATA(load) *self, const char *line)
{
	struct injection *in = self->cur;
	const char *holder;
	char ev[32];
	pid_t tid = json_int(line, "tid");

	json_str(line, "event", ev, sizeof(ev));
	if (!in || tid != in->tid) {
		if (!strcmp(ev, "starving") || !strcmp(ev, "boost")) {
			self->false_positives++;
			diag("load: FALSE POSITIVE: %s", line);
		}
		return;
	}
	if (!strcmp(ev, "starving")) {
		if (!in->starving++) {
			in->waited_ns = json_int(line, "wait_ns");
			in->cpu = json_int(line, "cpu");
			holder = strstr(line, "\"holder\"");
			if (holder) {
				in->holder = json_int(holder, "tid");
				json_str(holder, "comm", in->holder_comm,
					 sizeof(in->holder_comm));
			}
			in->wait_start_ns = json_int(line, "wait_start_ns");
		}
	} else if (!strcmp(ev, "boost")) {
		if (!in->boosts++)
			in->boost_ns = json_int(line, "time_ns");
	} else if (!strcmp(ev, "restore")) {
		in->restores++;
		if (self->v.st && self->v.st->count > in->stuck_count)
			in->progressed = true;
	}
}

/* Handle events for @ms; drop what was handled from the buffers. */
static void pump_events(FIXTURE_DATA(load) *self, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * NSEC_PER_MSEC, left;

	while ((left = now_ns()) < end) {
		left = (end - left) / NSEC_PER_MSEC + 1;
		if (daemon_wait_event(self->d, NULL, 0, left, self->line,
				      sizeof(self->line)) == 0)
			handle_event(self, self->line);
	}
	daemon_trim(self->d, sizeof(self->d->err));
}


static bool daemon_alive(FIXTURE_DATA(load) *self)
{
	return self->d->pid > 0 && waitpid(self->d->pid, NULL, WNOHANG) == 0;
}

/*
 * Start a victim and a busy loop behind it; handle events until the busy
 * loop has ended and every boost is undone (or, @final, until the first
 * boost).
 */
static void inject(struct __test_metadata *_metadata,
		   FIXTURE_DATA(load) *self, struct injection *in, bool final)
{
	struct victim_spec spec = {
		.proc_name = "stv-load",
		.thread_name = "stv-loadvictim",
		.cpu = self->cpu,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 5 * NSEC_PER_MSEC,
	};
	uint64_t deadline, t;

	memset(in, 0, sizeof(*in));
	ASSERT_EQ(0, victim_start(&spec, &self->v));
	in->tid = self->v.st->tid;
	self->cur = in;
	in->start_ns = now_ns();
	in->end_ns = in->start_ns + EPISODE_S * NSEC_PER_SEC;
	in->hog = hog_start(self->cpu, HOG_PRIO, EPISODE_S);
	ASSERT_LT(0, in->hog);
	deadline = in->end_ns + BOOST_NS + EVENT_SLACK_NS;
	while ((t = now_ns()) < deadline) {
		pump_events(self, 100);
		/*
		 * Positive control: stuck from shortly after the busy loop
		 * started until well before the threshold (no boost yet).
		 */
		if (!in->stuck_count && t >= in->start_ns + NSEC_PER_SEC / 2)
			in->stuck_count = self->v.st->count;
		if (!in->stuck_checked && t >= in->start_ns + 2 * NSEC_PER_SEC) {
			in->stuck_checked = true;
			EXPECT_EQ(in->stuck_count, self->v.st->count)
				TH_LOG("injection on tid %d: the victim was not starving", in->tid);
		}
		if (final && in->boosts)
			return;
		if (!in->hog_reaped &&
		    waitpid(in->hog, NULL, WNOHANG) == in->hog)
			in->hog_reaped = true;
		if (in->hog_reaped && in->boosts && in->restores >= in->boosts)
			break;
		if (!daemon_alive(self))
			break;
	}
	ASSERT_TRUE(daemon_alive(self)) TH_LOG("starvd died: %s", self->d->err);
}

/* The victim is back to what it was, then goes; checks the injection. */
static void finish_injection(struct __test_metadata *_metadata,
			     FIXTURE_DATA(load) *self, struct injection *in,
			     int nr, struct stats *late, struct stats *lag)
{
	struct sched_attr cur = {};
	bool in_time = in->boosts && in->boost_ns < in->end_ns;
	struct rate_sample s;
	double dt;

	EXPECT_EQ(0, sched_getattr_tid(in->tid, &cur));
	EXPECT_EQ(SCHED_FIFO, (int)cur.sched_policy)
		TH_LOG("injection %d: victim %d not restored", nr, in->tid);
	EXPECT_EQ(VICTIM_PRIO, (int)cur.sched_priority);
	if (!in->hog_reaped)
		kill_and_reap(in->hog);
	in->hog_reaped = true;
	victim_stop(&self->v);
	self->cur = NULL;
	flush_err(self);

	sample_rates(self->c, &s);
	dt = (double)(s.t - self->last.t) / NSEC_PER_SEC;
	diag("load: injection %d, victim %d: %d starving (waited %.4f s, behind %s-%lld on CPU %d), %d boost(s)%s, %d restore(s); starvd VmRSS %ld KiB, %d fds; storm %.0f switches/s (%.0f ping-pongs/s), %.0f forks/s, %.0f sleeper wakeups/s",
	     nr, in->tid, in->starving, (double)in->waited_ns / NSEC_PER_SEC,
	     in->holder_comm, (long long)in->holder, in->cpu, in->boosts,
	     in->boosts && !in_time ? " TOO LATE" : "", in->restores,
	     vm_rss_kb(self->d->pid), count_fds(self->d->pid),
	     (s.ctxt - self->last.ctxt) / dt,
	     (s.trips - self->last.trips) / dt,
	     (s.procs - self->last.procs) / dt,
	     (s.wakeups - self->last.wakeups) / dt);
	self->last = s;

	EXPECT_LE(1, in->starving) TH_LOG("injection %d: victim %d never reported", nr, in->tid);
	EXPECT_TRUE(in_time)
		TH_LOG("injection %d: victim %d not boosted before its busy loop ended (%d boosts)",
		       nr, in->tid, in->boosts);
	EXPECT_EQ(in->boosts, in->restores);
	EXPECT_TRUE(in->progressed)
		TH_LOG("injection %d: victim %d made no progress from its boost", nr, in->tid);
	if (in->starving) {
		EXPECT_EQ(self->cpu, in->cpu);
		EXPECT_EQ(in->hog, in->holder) TH_LOG("injection %d: holder %s-%lld, busy loop %d",
						       nr, in->holder_comm, (long long)in->holder, in->hog);
		EXPECT_LE(THRESHOLD_NS, in->waited_ns);
		stats_add(late, in->waited_ns - THRESHOLD_NS);
	}
	if (in_time && in->starving &&
	    in->boost_ns >= in->wait_start_ns + THRESHOLD_NS)
		stats_add(lag, in->boost_ns - in->wait_start_ns - THRESHOLD_NS);
}

struct daemon_sample {
	long rss_kb;
	int fds;
	unsigned long long reads, starving, boosts, failures;
};

/* SIGUSR1: starvd's counters from its status line, then RSS and fds. */
static void daemon_sample(struct __test_metadata *_metadata,
			  FIXTURE_DATA(load) *self, const char *when,
			  struct daemon_sample *s)
{
	uint64_t end = now_ns() + 10 * NSEC_PER_SEC;
	const char *st = NULL;

	flush_err(self);
	ASSERT_EQ(0, kill(self->d->pid, SIGUSR1));
	while (now_ns() < end) {
		pump_events(self, 50);
		st = strstr(self->d->err, "in progress, ");
		if (st && strchr(st, '\n'))
			break;
		st = NULL;
	}
	ASSERT_TRUE(NULL != st)
		TH_LOG("no status line after SIGUSR1: %s", self->d->err);
	ASSERT_EQ(4, sscanf(st, "in progress, %llu reads, %llu starving, %llu boosts, %llu boost failures",
			    &s->reads, &s->starving, &s->boosts, &s->failures))
		TH_LOG("%s", st);
	flush_err(self);
	s->rss_kb = vm_rss_kb(self->d->pid);
	s->fds = count_fds(self->d->pid);
	ASSERT_LT(0, s->rss_kb);
	ASSERT_LT(0, s->fds);
	diag("load: %s: starvd VmRSS %ld KiB, %d fds, %llu reads, %llu starving, %llu boosts, %llu boost failures",
	     when, s->rss_kb, s->fds, s->reads, s->starving, s->boosts,
	     s->failures);
}

/* In the test, not the setup: a failed setup gets no teardown. */
static void start_starvd(struct __test_metadata *_metadata,
			 FIXTURE_DATA(load) *self)
{
	char cpu[16];
	const char *args[] = {
		"-t", THRESHOLD, "-d", BOOST_S,
		/* As the fixture of test_starvation.c: enough under TCG. */
		"-r", "1000000", "-p", "100000000", "-c", cpu, NULL,
	};

	ASSERT_EQ(0, rt_throttle_off(&self->saved_rt));
	self->rt_changed = true;
	watchdog_rt = self->saved_rt;
	snprintf(cpu, sizeof(cpu), "%d", self->cpu);
	ASSERT_EQ(0, daemon_start(self->d, args));
	ASSERT_TRUE(daemon_wait_output(self->d, "monitoring CPUs", 20000))
		TH_LOG("starvd did not start: %s", self->d->err);
	sample_rates(self->c, &self->last);
	flush_err(self);
}

TEST_F_TIMEOUT(load, soak, 30 * 24 * 3600)	/* bounded by the watchdog */
{
	struct daemon_sample base = {}, last = {};
	struct stats late = {}, lag = {};
	struct sched_attr cur = {};
	struct injection in;
	uint64_t soak_end = now_ns() + self->duration_ns;
	int nr = 0, restored = 0, status;
	char ev[32], reason[64];

	start_starvd(_metadata, self);
	while (nr < WARMUP + 1 || now_ns() < soak_end) {
		nr++;
		inject(_metadata, self, &in, false);
		finish_injection(_metadata, self, &in, nr, &late, &lag);
		pump_events(self, GAP_MS);
		if (nr == WARMUP)
			daemon_sample(_metadata, self, "after the warm-up",
				      &base);
	}
	daemon_sample(_metadata, self, "at the end", &last);

	/* SIGTERM in the middle of a last boost: restored, exit 0. */
	inject(_metadata, self, &in, true);
	ASSERT_LE(1, in.boosts) TH_LOG("last injection not boosted");
	status = daemon_stop(self->d, SIGTERM, 10000);
	while (daemon_wait_event(self->d, NULL, 0, 0, self->line,
				 sizeof(self->line)) == 0) {
		json_str(self->line, "event", ev, sizeof(ev));
		json_str(self->line, "reason", reason, sizeof(reason));
		if (!strcmp(ev, "restore") && !strcmp(reason, "starvd stopping") &&
		    json_int(self->line, "tid") == in.tid)
			restored++;
		handle_event(self, self->line);
	}
	flush_err(self);
	EXPECT_EQ(0, status);
	ASSERT_EQ(0, sched_getattr_tid(in.tid, &cur));
	EXPECT_EQ(SCHED_FIFO, (int)cur.sched_policy);
	EXPECT_EQ(VICTIM_PRIO, (int)cur.sched_priority);
	EXPECT_EQ(in.boosts, in.restores);
	diag("load: SIGTERM during the boost of victim %d: exit status %d, %d restore(s) on the way out",
	     in.tid, status, restored);
	kill_and_reap(in.hog);
	in.hog_reaped = true;
	victim_stop(&self->v);
	self->cur = NULL;

	diag("load: %d injections over %.0f s, all under 10,000 sleeping threads and the storm",
	     nr, (double)self->duration_ns / NSEC_PER_SEC);
	stats_print("detection lateness (wait_ns - threshold)", &late);
	stats_print("boost lag (boost time - start of the wait - threshold)", &lag);
	diag("load: starvd VmRSS %ld -> %ld KiB (slack %d KiB), fds %d -> %d, %llu reads and %llu boosts in between",
	     base.rss_kb, last.rss_kb, RSS_SLACK_KB, base.fds, last.fds,
	     last.reads - base.reads, last.boosts - base.boosts);
	EXPECT_EQ(0, self->false_positives);
	EXPECT_LE(last.rss_kb, base.rss_kb + RSS_SLACK_KB);
	EXPECT_EQ(base.fds, last.fds);
	EXPECT_EQ(0, last.failures);
}

TEST_HARNESS_MAIN
