// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvd: starvation detection and avoidance daemon.
 *
 * Each wake-up reads the waiters once (filtered in the kernel), boosts the
 * ones that have waited for the threshold, and sleeps until the earliest
 * moment another one can cross it, or until a boost needs its next step.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "boost.h"
#include "caps.h"
#include "daemon.h"
#include "detect.h"
#include "episodes.h"
#include "escape.h"
#include "event.h"
#include "journal.h"
#include "log.h"
#include "oneshot.h"
#include "options.h"
#include "proc.h"
#include "read_retry.h"
#include "report.h"
#include "run_dir.h"
#include "stack.h"
#include "starved.h"
#include "status_file.h"
#include "throttle.h"
#include "util.h"
#include "version.h"

struct starvd {
	struct config cfg;
	struct backend backend;
	struct journal journal;
	struct episodes episodes;	/* for starvctl advise */
	struct booster booster;
	struct detect detect;
	struct detect_result result;
	struct task_list tasks;
	struct starvd_cpu *cpus;	/* per CPU: its task (curr), waiters */
	struct cpu_stats *stats;	/* per CPU, for starvctl */
	struct starved starved;		/* what they were, for starvctl */
	uint64_t next_read_ns;
	uint64_t nr_reads, nr_starving;
	struct read_retry retry;	/* failed reads: backoff, logs */
	uint64_t start_time;		/* CLOCK_REALTIME, s */
	char status_path[4096];		/* "": not published */
	bool status_dirty, status_failed;
	bool stacks_write_failed;
	int sfd;
	struct stacks *stacks;		/* --stacks, -v: holder stacks */
	struct stack_episode *captured;	/* per CPU: the last one sampled */
	bool rt_owned;		/* RT throttling turned off by this starvd */
	int stage;		/* enum stage: how far start() got */
};

/*
 * A CPU's open episode: the holders sampled in it, the last one last.
 * More than one when a task of higher priority took the CPU at a read
 * (an IRQ thread on PREEMPT_RT, a stopper thread) and gave it back.
 */
#define EPISODE_HOLDERS 4

struct stack_episode {
	uint32_t holder[EPISODE_HOLDERS];	/* tids; 0: none */
};

enum ignore_match { NOT_IGNORED, IGNORED_THREAD, IGNORED_PROCESS };

/* Which ignore list matches @t; the process name in @pcomm for -I. */
static enum ignore_match ignored(const struct config *cfg,
				 const struct starvd_task *t,
				 char *pcomm, size_t len)
{
	if (regex_list_match(&cfg->ignore_threads, t->comm))
		return IGNORED_THREAD;
	if (!cfg->ignore_processes.n)
		return NOT_IGNORED;
	task_comm(t->tgid, pcomm, len);
	return regex_list_match(&cfg->ignore_processes, pcomm) ?
	       IGNORED_PROCESS : NOT_IGNORED;
}

/*
 * Sample each holder of @t's CPU once an episode: for as long as tasks
 * starve there, however many they are and however often they are
 * reported, and whoever held the CPU at the reads between (a holder
 * preempted for a moment is not sampled again when it is back). The
 * episode ends at a read that finds no task there waiting the threshold
 * (end_episodes()). A request the worker's queue has no room for is
 * asked again at the next report.
 */
static void request_stack(struct starvd *d, const struct starvd_task *t,
			  const struct starvd_task *h)
{
	struct stack_episode *e;
	int i;

	if (!d->stacks || !h || t->cpu < 0 || t->cpu >= d->backend.nr_cpus)
		return;
	e = &d->captured[t->cpu];
	for (i = 0; i < EPISODE_HOLDERS; i++)
		if (e->holder[i] == h->tid)
			return;
	if (!stacks_request(d->stacks, h, t))
		return;
	/* Full: the one sampled first makes room. */
	memmove(e->holder, e->holder + 1,
		(EPISODE_HOLDERS - 1) * sizeof(e->holder[0]));
	e->holder[EPISODE_HOLDERS - 1] = h->tid;
}

/*
 * By what each read shows, not by the time between reports: a daemon
 * held up for longer than a threshold (an emulated machine's stall) is
 * no end of the starvation it watches.
 */
static void end_episodes(struct starvd *d)
{
	int c;

	for (c = 0; c < d->backend.nr_cpus; c++)
		if (d->cpus[c].max_wait_ns < d->cfg.threshold_ns)
			memset(&d->captured[c], 0, sizeof(d->captured[c]));
}

static struct cpu_stats *cpu_stats_of(struct starvd *d,
				      const struct starvd_task *t,
				      struct cpu_stats *none)
{
	return t->cpu >= 0 && t->cpu < d->backend.nr_cpus ?
	       &d->stats[t->cpu] : none;
}

/* Boost @t, whose CPU @h holds (NULL: unknown). */
static void boost_task(struct starvd *d, const struct starvd_task *t,
		       const struct starvd_task *h, uint64_t now)
{
	uint64_t failures = d->booster.nr_failures;
	struct cpu_stats none, *st = cpu_stats_of(d, t, &none);

	if (!boost_start(&d->booster, t, h ? h->prio : -1, now)) {
		st->boosts++;
		detect_forget(&d->detect, t->tid);
	}
	st->failures += d->booster.nr_failures - failures;
}

/*
 * A wait of starvd's own doing is not boosted (detect_held_by_self()):
 * said once, and looked at again a threshold later, when another task
 * may hold the CPU.
 */
static void held_by_self(struct starvd *d, const struct starvd_task *t)
{
	static bool said;

	if (!said)
		log_msg("pid %u (%s) waits on CPU %d behind starvd itself, which runs there: not boosted (raised above every task, it would keep starvd off that CPU); give starvd a CPU without busy loops with -a",
			t->tid, esc_name(t->comm), t->cpu);
	said = true;
	detect_repeat(&d->detect, t->tid, t->wait_ns + d->cfg.threshold_ns);
}

static void handle_starving(struct starvd *d, const struct starvd_task *t,
			    uint64_t now)
{
	const struct starvd_task *h = NULL;
	struct cpu_stats none = { 0 }, *st = cpu_stats_of(d, t, &none);
	struct task_what what;
	char pcomm[64];
	enum ignore_match ign = ignored(&d->cfg, t, pcomm, sizeof(pcomm));

	h = detect_holder(&d->detect, &d->tasks, d->backend.nr_cpus, t);
	d->nr_starving++;
	st->starving++;
	d->status_dirty = true;
	/* What it waits to run is read once an episode: not for -l's repeats. */
	report_starving(starved_is_new(&d->starved, t, d->tasks.read_time_ns) ?
			&d->backend : NULL, t, d->tasks.read_time_ns, h,
			d->cfg.log_only, d->cfg.kstack, &what);
	starved_report(&d->starved, st, t, d->tasks.read_time_ns, &what);
	request_stack(d, t, h);
	/* As stalld: reported, then said why not boosted, once an episode. */
	if (ign) {
		report_ignored(t, ign == IGNORED_PROCESS ? pcomm : NULL);
		return;
	}
	/*
	 * As stalld: -l reports it again at every granularity while it
	 * waits, with the time waited so far.
	 */
	if (d->cfg.log_only) {
		detect_repeat(&d->detect, t->tid,
			      t->wait_ns + log_only_repeat_ns(&d->cfg));
		return;
	}
	if (detect_held_by_self(&d->detect, &d->tasks, t, h)) {
		held_by_self(d, t);
		return;
	}
	boost_task(d, t, h, now);
}

/* Rewrite <run-dir>/state for starvctl status and metrics. */
static void publish_status(struct starvd *d)
{
	struct daemon_status s = {
		.pid = getpid(),
		.start_time = d->start_time,
		.updated_ns = now_ns(),
		.threshold_ns = d->cfg.threshold_ns,
		.runtime_ns = d->cfg.boost_runtime_ns,
		.period_ns = d->cfg.boost_period_ns,
		.duration_ns = d->cfg.boost_duration_ns,
		.nr_cpus = d->backend.nr_cpus,
		.cpu = d->stats,
	};
	const struct task_what *w;
	size_t i;
	int ret;

	d->status_dirty = false;
	if (!d->status_path[0] || booster_status(&d->booster, &s))
		return;
	for (i = 0; i < s.nr_boosting; i++) {
		w = starved_find(&d->starved, s.boosting[i].tid);
		if (w)
			s.boosting[i].what = *w;
		else
			s.boosting[i].what.irq = -1;
	}
	snprintf(s.version, sizeof(s.version), "%s", STARVD_VERSION);
	snprintf(s.backend, sizeof(s.backend), "%s",
		 d->backend.display_name);
	snprintf(s.cpus, sizeof(s.cpus), "all");
	if (!d->cfg.monitor_all)
		cpuset_format(&d->cfg.cpus, s.cpus, sizeof(s.cpus));
	if (d->cfg.log_only)
		snprintf(s.boost_mode, sizeof(s.boost_mode), "log-only");
	ret = status_file_write(d->status_path, &s);
	booster_status_free(&s);
	if (ret && !d->status_failed)
		log_err("cannot write %s: %s; starvctl status and metrics will not see this starvd",
			d->status_path, strerror(-ret));
	d->status_failed = ret != 0;
}

static int scan(struct starvd *d)
{
	struct read_filter f = {
		.cpus = d->cfg.monitor_all ? NULL : &d->cfg.cpus,
	};
	size_t i;
	int ret;

	ret = backend_read_tasks(&d->backend, &f, &d->tasks);
	if (ret)
		return ret;
	d->nr_reads++;
	/* First: it raises the waits the source could only bound. */
	detect_scan(&d->detect, &d->tasks, &d->result);
	if (d->cfg.verbose)
		report_check(&d->tasks, d->backend.nr_cpus, f.cpus);
	task_list_cpus(&d->tasks, d->cpus, d->backend.nr_cpus);
	end_episodes(d);
	for (i = 0; i < d->result.n_might; i++)
		report_might_starve(&d->tasks.v[d->result.might[i]]);
	for (i = 0; i < d->result.n; i++)
		handle_starving(d, &d->tasks.v[d->result.starving[i]],
				now_ns());
	/*
	 * Still waiting after a boost too short for it: escalate now. Not a
	 * new starvation (its wait restarted when the boost let it run): the
	 * escalation's line says it, no report.
	 */
	for (i = 0; i < d->tasks.n; i++) {
		const struct starvd_task *t = &d->tasks.v[i];

		if (t->state == STARVD_TASK_WAITING &&
		    !detect_handled(&d->detect, t->tid) &&
		    boost_take_again(&d->booster, t->tid))
			boost_task(d, t, detect_holder(&d->detect, &d->tasks,
						       d->backend.nr_cpus, t),
				   now_ns());
	}
	boost_again_clear(&d->booster);
	if (d->cfg.granularity_ns)
		d->next_read_ns = d->tasks.read_time_ns + d->cfg.granularity_ns;
	else
		d->next_read_ns = d->result.next_wake_ns;
	return 0;
}

static void log_status(struct starvd *d)
{
	char cpus[256] = "all";

	if (!d->cfg.monitor_all)
		cpuset_format(&d->cfg.cpus, cpus, sizeof(cpus));
	log_msg("status: backend %s, CPUs %s, threshold %.3f s, %zu boost(s) in progress, %llu reads, %llu starving, %llu boosts, %llu boost failures",
		d->backend.display_name, cpus,
		(double)d->cfg.threshold_ns / NSEC_PER_SEC, d->booster.n,
		(unsigned long long)d->nr_reads,
		(unsigned long long)d->nr_starving,
		(unsigned long long)d->booster.nr_boosts,
		(unsigned long long)d->booster.nr_failures);
	read_retry_log_status(&d->retry, &d->backend, now_ns());
}

/* Publish <run-dir>/state; without it starvd works, unseen by starvctl. */
static void open_status(struct starvd *d)
{
	char err[4096];
	int fd = run_dir_open(d->cfg.run_dir, true, err, sizeof(err));

	d->start_time = time(NULL);
	if (fd < 0) {
		log_err("%s; starvctl status and metrics will not see this starvd",
			err);
		return;
	}
	close(fd);
	snprintf(d->status_path, sizeof(d->status_path), "%s/" STATUS_FILE,
		 d->cfg.run_dir);
	publish_status(d);
	if (episodes_open(&d->episodes, d->cfg.run_dir, err, sizeof(err)))
		log_err("%s; starvctl advise will not see this starvd's episodes",
			err);
	else
		report_keep_episodes(&d->episodes);
}

/* A holder stack's JSON line, then its text, for starvctl stacks. */
static void fill_stack(FILE *f, const void *arg)
{
	const struct event *ev = arg;
	char json[LOG_JSON_LEN], text[LOG_TEXT_LEN], safe[LOG_TEXT_LEN];
	unsigned int i;

	if (!event_json(ev, now_ns(), json, sizeof(json)))
		fprintf(f, "%s\n", json);
	else
		fprintf(f, "{}\n");
	for (i = 0; stack_line(ev->holder_stack.stack, i, text, sizeof(text));
	     i++)
		fprintf(f, "%s\n", str_escape_ctl(text, safe, sizeof(safe)));
}

/* Log the holder stacks sampled since the last look, and keep each. */
static void log_stacks(struct starvd *d)
{
	struct holder_stack *h;
	char path[4200];
	int ret;

	while ((h = stacks_take(d->stacks))) {
		struct event ev = {
			.kind = EVENT_HOLDER_STACK, .task = h->holder,
			.holder_stack.stack = h,
		};

		if (h->once_note[0])
			log_msg("%s", h->once_note);
		event_log(&ev);
		snprintf(path, sizeof(path), "%s/" STACK_FILE_PREFIX "%d",
			 d->cfg.run_dir, h->holder.cpu);
		ret = d->status_path[0] ?
		      write_file_atomic_mode(path, STACK_FILE_MODE, fill_stack,
					     &ev) : 0;
		if (ret && !d->stacks_write_failed)
			log_err("cannot write %s: %s; starvctl stacks will not show it",
				path, strerror(-ret));
		d->stacks_write_failed = ret != 0;
		free(h);
	}
}

/*
 * Sleep until @deadline, a signal, the end of an emulation run on its
 * task's CPU (boost.h) or a holder stack; returns the signal number or 0.
 */
static int wait_until(struct starvd *d, uint64_t deadline)
{
	struct pollfd pfd[3] = {
		{ .fd = d->sfd, .events = POLLIN },
		{ .fd = boost_poll_fd(&d->booster), .events = POLLIN },
		{ .fd = stacks_poll_fd(d->stacks), .events = POLLIN },
	};
	struct signalfd_siginfo si;
	struct timespec ts;
	uint64_t now = now_ns(), delta;

	delta = deadline > now ? deadline - now : 0;
	ts.tv_sec = delta / NSEC_PER_SEC;
	ts.tv_nsec = delta % NSEC_PER_SEC;
	if (ppoll(pfd, 3, &ts, NULL) <= 0)
		return 0;
	if (pfd[1].revents & POLLIN)
		boost_poll_ack(&d->booster);
	if (pfd[2].revents & POLLIN)
		log_stacks(d);
	if (!(pfd[0].revents & POLLIN) ||
	    read(d->sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	return si.ssi_signo;
}

/*
 * SIGHUP does not stop starvd (stalld blocks it): it reopens syslog and
 * /dev/kmsg. The ignore lists come from the command line: there is
 * nothing to re-read.
 */
static void hangup(struct starvd *d)
{
	log_reopen();
	log_msg("received SIGHUP: logs reopened, still running (SIGTERM or SIGINT stop %s)",
		d->cfg.name);
}

/* One read and what it finds; a failed read is retried (read_retry.h). */
static void read_and_handle(struct starvd *d, uint64_t now)
{
	int ret = scan(d);

	if (ret)
		d->next_read_ns = read_retry_failed(&d->retry, &d->backend,
						    ret, now);
	else
		read_retry_ok(&d->retry, &d->backend, now);
}

static int run(struct starvd *d)
{
	uint64_t deadline;
	int sig;

	d->next_read_ns = 0;
	read_retry_init(&d->retry);
	for (;;) {
		uint64_t now = now_ns();

		/* A task whose boost ended may starve again: look now. */
		if (boost_run(&d->booster, now)) {
			d->next_read_ns = now;
			d->status_dirty = true;
		}
		if (now >= d->next_read_ns)
			read_and_handle(d, now);
		if (d->status_dirty)
			publish_status(d);
		deadline = boost_next_event(&d->booster);
		if (d->next_read_ns < deadline)
			deadline = d->next_read_ns;
		sig = wait_until(d, deadline);
		if (sig == SIGUSR1) {
			log_status(d);
			publish_status(d);
		} else if (sig == SIGHUP) {
			hangup(d);
		} else if (sig) {
			return sig;
		}
	}
}

/*
 * The signals run() waits for, taken from their default action (which
 * ends the process without stop()) before start() changes anything: one
 * that comes during start-up waits, and run() handles it first.
 */
static int setup_signals(struct starvd *d)
{
	sigset_t set;
	int ret = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		ret = -errno;
	if (!ret) {
		d->sfd = signalfd(-1, &set, SFD_CLOEXEC);
		if (d->sfd < 0)
			ret = -errno;
	}
	if (ret)
		log_err("cannot set up signal handling: %s", strerror(-ret));
	return ret;
}

/* --rt-throttling off|on|show: stalld's throttlectl. */
/*
 * How far start() got, so that stop() undoes exactly that much, in the
 * reverse order.
 */
enum stage {
	STAGE_NONE,
	STAGE_RT,		/* RT throttling handled (rt_owned says how) */
	STAGE_JOURNAL,		/* the boost journal is open (unless -l) */
	STAGE_BACKEND,		/* the backend is open */
	STAGE_PIDFILE,		/* daemonized, pidfile written (-P) */
	STAGE_RUNNING,		/* booster, detection and state are set up */
};

/*
 * The journal (old boosts put back), the backend, daemonizing and the
 * pidfile; @d->stage says how far.
 */
static int open_resources(struct starvd *d)
{
	struct log_config lc = running_log_config(&d->cfg);
	struct log_config start = startup_log_config(&d->cfg);
	char err[1024];
	int ret;

	log_init(&start);
	if (pid_ns_check(&d->cfg) || pin_self(&d->cfg) ||
	    caps_check_start(&d->cfg) || run_files_check(&d->cfg) ||
	    rt_throttling_start(&d->cfg, &d->rt_owned))
		return -1;
	d->stage = STAGE_RT;
	if (!d->cfg.log_only) {
		ret = journal_open(&d->journal, d->cfg.run_dir);
		if (ret) {
			log_err("cannot create the boost journal in %s/boosts: %s (use --run-dir to choose another directory)",
				d->cfg.run_dir, strerror(-ret));
			return -1;
		}
		if (!on_memory_fs(d->cfg.run_dir))
			log_msg("note: %s is not on tmpfs: every boost waits for the journal's fsync, which can take long when kernel threads starve; use a tmpfs --run-dir (/run normally is one)",
				d->cfg.run_dir);
		/*
		 * What a killed starvd left boosted goes back first: opening
		 * the backend can wait for kernel threads (BPF attachment,
		 * RCU), and a kernel thread left at a boost's SCHED_DEADLINE
		 * reservation, throttled after an overrun, may not run again
		 * for minutes (docs/design.md, "The journal").
		 */
		boost_recover(&d->journal, d->cfg.run_dir);
	}
	d->stage = STAGE_JOURNAL;
	ret = backend_open(&d->backend, d->cfg.backend, d->cfg.bpf_mode, err,
			   sizeof(err));
	if (ret) {
		log_err("%s", err);
		return -1;
	}
	d->stage = STAGE_BACKEND;
	if (!d->cfg.foreground) {
		if (!lc.to_syslog && !lc.to_kmsg)
			log_msg("note: as a daemon without -s/--log_syslog or -k/--log_kmsg, %s logs nothing from now on (syslog is opt-in, as in stalld 1.27.1 on)",
				d->cfg.name);
		ret = daemonize();
		if (ret) {
			log_err("cannot daemonize: %s", strerror(-ret));
			return -1;
		}
	}
	log_init(&lc);
	if (d->cfg.pidfile) {
		if (pidfile_write(d->cfg.pidfile, err, sizeof(err))) {
			log_err("-P/--pidfile: %s", err);
			return -1;
		}
	}
	d->stage = STAGE_PIDFILE;
	return 0;
}

/* Self-protection (pin_self() came first), capabilities, the log writer. */
static int protect_process(struct starvd *d)
{
	int ret;

	/*
	 * On PREEMPT_RT closing a perf event waits for an RCU grace period
	 * (irq_work_sync()), which a CPU's starved rcuc/N holds up: with
	 * holder stacks, starvd cannot exit while such a starvation lasts
	 * (everything else is restored first, stop()). -v, stalld's verbose
	 * mode, must not change that: it takes them there only with --stacks.
	 */
	if (d->cfg.stacks && kernel_preempt_rt()) {
		if (!d->cfg.stacks_asked) {
			d->cfg.stacks = false;
			log_msg("-v: holder stacks are not taken on PREEMPT_RT unless --stacks is given: closing their perf events waits for an RCU grace period, which a starving rcuc/N thread holds up, and starvd could not exit while a starvation lasts");
		} else {
			log_msg("note: --stacks on PREEMPT_RT: closing the holder stacks' perf events waits for an RCU grace period, so while an rcuc/N thread starves (with -l/--log_only, until the starvation ends) starvd's exit waits too, after it has restored everything else");
		}
	}
	/* /proc/kallsyms: opened with the capabilities start-up has. */
	if (d->cfg.stacks)
		d->stacks = stacks_open(!d->cfg.no_user_stacks);
	if (protect_self(&d->cfg) || caps_drop(&d->cfg, &d->backend))
		return -1;
	/* From here on no log sink can block the daemon (log.c). */
	ret = log_start_async();
	if (ret)
		log_err("cannot start the log writer thread: %s; logging directly (a blocked console can then stall starvd)",
			strerror(-ret));
	/* After caps_drop(): the sampling thread has only what is kept. */
	ret = d->stacks ? stacks_start(d->stacks) : 0;
	if (ret)
		log_err("holder stacks are off: cannot start their thread: %s",
			strerror(-ret));
	/* Boost steps are tens of microseconds: no timer slack. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	return 0;
}

/* The booster, detection and published state. */
static int init_monitoring(struct starvd *d)
{
	struct boost_params bp = {
		.runtime_ns = d->cfg.boost_runtime_ns,
		.period_ns = d->cfg.boost_period_ns,
		.duration_ns = d->cfg.boost_duration_ns,
		.force_fifo = d->cfg.force_fifo,
		.no_escalation = d->cfg.no_escalation,
		.threshold_ns = d->cfg.threshold_ns,
		.run_dir = d->cfg.log_only ? NULL : d->cfg.run_dir,
	};

	d->cpus = calloc(d->backend.nr_cpus, sizeof(*d->cpus));
	d->stats = calloc(d->backend.nr_cpus, sizeof(*d->stats));
	d->captured = calloc(d->backend.nr_cpus, sizeof(*d->captured));
	if (!d->cpus || !d->stats || !d->captured) {
		log_err("out of memory for %d CPUs", d->backend.nr_cpus);
		return -1;
	}
	booster_init(&d->booster, &bp, d->cfg.log_only ? NULL : &d->journal);
	detect_init(&d->detect, d->cfg.threshold_ns, boost_active,
		    &d->booster);
	/* stalld's adaptive mode says who might starve, at half the threshold. */
	if (d->cfg.adaptive)
		d->detect.warn_ns = d->cfg.threshold_ns / 2;
	d->detect.self_tgid = getpid();	/* final: after daemonizing */
	d->stage = STAGE_RUNNING;
	report_start(&d->cfg, &d->backend);
	if (d->backend.fallback_note[0])
		log_msg("%s", d->backend.fallback_note);
	open_status(d);
	if (!d->cfg.log_only && d->cfg.boost_duration_ns < d->cfg.boost_period_ns)
		log_msg("note: -d/--boost_duration is shorter than -p/--boost_period: a task boosted again soon after a boost may get no runtime until its previous SCHED_DEADLINE period ends");
	return 0;
}

/* Undo what start() did, in reverse; non-zero if something stays changed. */
static int stop(struct starvd *d)
{
	int ret = 0;

	switch (d->stage) {
	case STAGE_RUNNING:
		boost_stop_all(&d->booster);
		if (d->status_path[0])
			unlink(d->status_path);
		report_keep_episodes(NULL);
		episodes_close(&d->episodes);
		booster_free(&d->booster);
		detect_free(&d->detect);
		detect_result_free(&d->result);
		task_list_free(&d->tasks);
		fallthrough;
	case STAGE_PIDFILE:
		free(d->cpus);
		free(d->stats);
		free(d->captured);
		pidfile_remove(d->cfg.pidfile);
		fallthrough;
	case STAGE_BACKEND:
		backend_close(&d->backend);
		fallthrough;
	case STAGE_JOURNAL:
		if (!d->cfg.log_only)
			journal_close(&d->journal);
		fallthrough;
	case STAGE_RT:
		if (d->rt_owned &&
		    rt_throttling_restore(d->cfg.run_dir, RT_SAVED_ONLY))
			ret = -1;
		fallthrough;
	case STAGE_NONE:
		break;
	}
	/*
	 * Last, once nothing stays changed: on PREEMPT_RT closing the
	 * holder stacks' perf events waits for an RCU grace period, which a
	 * starved rcuc/N holds up for as long as its starvation lasts.
	 */
	stacks_close(d->stacks);
	d->stacks = NULL;
	config_free(&d->cfg);
	log_close();
	return ret;
}

static struct starvd *oom_daemon;

/*
 * Out of memory (grow_array()), from the first thing start() does to the
 * exit: nothing can go on, but nothing starvd changed may stay changed.
 * stop() puts back what start() reached, in reverse (boosted tasks,
 * HRTICK_DL, RT throttling), after a line where the operator looks
 * (the terminal before daemonizing, syslog and the kernel log after); then
 * starvd exits non-zero: the unit restarts it.
 */
static void out_of_memory(void)
{
	static bool once;
	struct starvd *d = oom_daemon;

	if (once)
		_exit(EXIT_FAILURE);
	once = true;
	log_err("out of memory: restoring %zu boosted task(s)%s, then exiting",
		d->booster.n, d->rt_owned ? " and RT throttling" : "");
	stop(d);
	_exit(EXIT_FAILURE);
}

/*
 * Everything run() needs; on failure stop() undoes what was done, and
 * so does out_of_memory() at any point.
 */
static int start(struct starvd *d)
{
	oom_daemon = d;
	set_oom_handler(out_of_memory);
	malloc_map_large_blocks();
	if (setup_signals(d) || open_resources(d) || protect_process(d) ||
	    init_monitoring(d))
		return -1;
	daemon_ready();
	return 0;
}

int main(int argc, char **argv)
{
	struct starvd d = { .sfd = -1, .episodes.fd = -1 };
	int sig, status = EXIT_FAILURE;
	char err[1024];

	switch (parse_options(argc, argv, cpus_possible(), &d.cfg, err,
			      sizeof(err))) {
	case PARSE_EXIT:
		return EXIT_SUCCESS;
	case PARSE_ERROR:
		fprintf(stderr, "%s: %s\n", personality(argv[0]), err);
		return 2;
	case PARSE_OK:
		break;
	}
	log_init(&(struct log_config){ .ident = d.cfg.name, .to_stderr = true });
	if (d.cfg.restore_only)
		return oneshot_restore(&d.cfg);
	if (d.cfg.rt_throttling)
		return oneshot_rt_throttling(&d.cfg);

	if (!start(&d)) {
		sig = run(&d);
		log_msg("received signal %d, starting shutdown", sig);
		log_msg("received %s, restoring %zu boosted task(s) and exiting",
			strsignal(sig), d.booster.n);
		log_msg("%s shutting down", d.cfg.name);
		status = EXIT_SUCCESS;
	}
	if (stop(&d))
		status = EXIT_FAILURE;
	return status;
}
