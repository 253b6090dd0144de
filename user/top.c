// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvctl top: what an operator watches during an incident. Each refresh
 * reads the waits from the backend (as starvctl cpus and tasks do) and
 * starvd's state through status_file_read() only, then builds one frame
 * of text lines: a header, a row per CPU with a waiter or a boost, the
 * recent boosts. ncurses draws the frame (erase and redraw: curses sends
 * the terminal only the cells that changed); --once or a standard output
 * that is not a terminal prints it once, as a plain table.
 *
 * The last boost's outcome is seen from outside, as starvd's escalation
 * judges it: when a boost leaves the state, its task made progress if it
 * no longer waits or its current wait began after the boost did.
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef STARVD_NO_NCURSES
#include <curses.h>
#endif

#include "backend.h"
#include "cpuset.h"
#include "holder.h"
#include "sched_attr.h"
#include "status_file.h"
#include "top.h"
#include "util.h"

#define LINE_MAX_LEN	512
#define NR_RECENT	6
#define BAR_WIDTH	10
/* stalld's and starvd's default -t: the yardstick when starvd is away. */
#define DEFAULT_THRESHOLD_NS	(20 * NSEC_PER_SEC)

enum sort_key { SORT_WAIT, SORT_CPU, SORT_WAITERS, NR_SORTS };
static const char *const sort_names[] = { "longest wait", "CPU", "waiters" };

struct line {
	char text[LINE_MAX_LEN];
	bool hot;		/* a wait past the threshold: bold */
};

struct row {
	int cpu;
	unsigned int waiters;
	uint64_t wait_ns;
	bool lower_bound;
	char waiter[40];	/* the longest waiter, comm/tid */
	char holder[64];
	char boosted[64];	/* comm/tid and runtime, or "-" */
	char last[64];		/* the last starving task's kind, cgroup */
};

/* What this view saw of the last boost on a CPU. */
struct seen_boost {
	uint32_t tid;
	char comm[16];
	uint64_t start_ns;
	bool active;
	const char *outcome;	/* of the last one that ended, or NULL */
};

struct top {
	const struct ctl *c;
	struct backend b;
	bool opened;
	int nr_cpus;
	char backend_err[2048];
	/* This refresh's reads. */
	struct task_list l;
	struct starvd_cpu *cpus;
	bool have_cpus;
	struct daemon_status s;
	bool have_status;
	char status_err[4352];
	/* starvd's CPU use between refreshes. */
	pid_t cpu_pid;
	uint64_t cpu_ticks, cpu_at_ns;
	double cpu_pct;
	/* The view. */
	enum sort_key sort;
	bool paused;
	struct cpuset filter;
	char filter_text[64];
	struct seen_boost *seen;
	char recent[NR_RECENT][LINE_MAX_LEN];
	int nr_recent;
	char message[LINE_MAX_LEN];	/* the answer to the last key */
	struct line *lines;
	int nr_lines, max_lines;
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void __attribute__((format(printf, 3, 4)))
add_line(struct top *t, bool hot, const char *fmt, ...)
{
	va_list ap;

	if (t->nr_lines >= t->max_lines)
		return;
	va_start(ap, fmt);
	vsnprintf(t->lines[t->nr_lines].text, LINE_MAX_LEN, fmt, ap);
	va_end(ap);
	t->lines[t->nr_lines++].hot = hot;
}

static void recent(struct top *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A boost event for the "recent boosts" lines, newest first. */
static void recent(struct top *t, const char *fmt, ...)
{
	time_t now = time(NULL);
	struct tm tm;
	size_t n;
	va_list ap;

	memmove(t->recent[1], t->recent[0],
		sizeof(t->recent[0]) * (NR_RECENT - 1));
	localtime_r(&now, &tm);
	n = strftime(t->recent[0], LINE_MAX_LEN, "%H:%M:%S ", &tm);
	va_start(ap, fmt);
	vsnprintf(t->recent[0] + n, LINE_MAX_LEN - n, fmt, ap);
	va_end(ap);
	if (t->nr_recent < NR_RECENT)
		t->nr_recent++;
}

/* starvd's utime + stime in clock ticks; 0 if unreadable. */
static uint64_t proc_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');	/* comm may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return 0;
	return ut + st;
}

static void read_starvd_cpu(struct top *t)
{
	uint64_t ticks = proc_ticks(t->s.pid), now = now_ns();
	long hz = sysconf(_SC_CLK_TCK);
	time_t up = time(NULL) - (time_t)t->s.start_time;

	if (hz <= 0)
		hz = 100;
	if (t->cpu_pid == t->s.pid && now > t->cpu_at_ns) {
		t->cpu_pct = 100.0 * (ticks - t->cpu_ticks) / hz /
			     ((double)(now - t->cpu_at_ns) / NSEC_PER_SEC);
	} else {
		/* First sight: the average since it started. */
		t->cpu_pct = up > 0 ? 100.0 * ticks / hz / up : 0;
	}
	t->cpu_pid = t->s.pid;
	t->cpu_ticks = ticks;
	t->cpu_at_ns = now;
}

static void read_status(struct top *t)
{
	char path[4096];
	int ret;

	if (t->have_status)
		status_file_free(&t->s);
	t->have_status = false;
	snprintf(path, sizeof(path), "%s/" STATUS_FILE, t->c->run_dir);
	ret = status_file_read(path, &t->s);
	if (ret == -ENOENT) {
		snprintf(t->status_err, sizeof(t->status_err),
			 "starvd is not running (no %s): waits shown without boosts",
			 path);
		return;
	}
	if (ret) {
		snprintf(t->status_err, sizeof(t->status_err),
			 "cannot read starvd's state %s: %s%s", path,
			 strerror(-ret), ret == -EACCES ? " (run as root)" : "");
		return;
	}
	if (!status_daemon_alive(&t->s)) {
		snprintf(t->status_err, sizeof(t->status_err),
			 "starvd is not running: pid %d, which wrote %s, is gone; 'starvd --restore' puts back what it left boosted",
			 (int)t->s.pid, path);
		status_file_free(&t->s);
		return;
	}
	t->have_status = true;
	read_starvd_cpu(t);
}

static void read_waits(struct top *t)
{
	struct read_filter f = { 0 };
	int ret;

	task_list_free(&t->l);
	memset(&t->l, 0, sizeof(t->l));
	t->have_cpus = false;
	if (!t->opened)
		return;
	memset(t->cpus, 0, sizeof(*t->cpus) * t->nr_cpus);
	ret = backend_read_tasks(&t->b, &f, &t->l);
	if (!ret)
		ret = backend_read_cpus(&t->b, &t->l, t->cpus);
	if (ret) {
		snprintf(t->backend_err, sizeof(t->backend_err),
			 "reading from the %s backend failed: %s%s%s",
			 t->b.display_name, strerror(-ret),
			 t->b.read_error_hint[0] ? ": " : "",
			 t->b.read_error_hint);
		return;
	}
	t->have_cpus = true;
}

static const struct starvd_task *find_task(const struct top *t, uint32_t tid)
{
	size_t i;

	for (i = 0; i < t->l.n; i++)
		if (t->l.v[i].tid == tid)
			return &t->l.v[i];
	return NULL;
}

/* Did @tid run after @since (CLOCK_MONOTONIC), as far as the read shows? */
static bool ran_since(const struct top *t, uint32_t tid, uint64_t since)
{
	const struct starvd_task *k = find_task(t, tid);

	if (!t->have_cpus)
		return false;
	if (!k || k->state != STARVD_TASK_WAITING)
		return true;	/* running, or asleep: it ran */
	if (k->flags & STARVD_TASK_WAIT_LOWER_BOUND)
		return false;
	return t->l.read_time_ns - k->wait_ns > since;
}

static const struct boost_info *boost_on(const struct top *t, int cpu)
{
	size_t i;

	if (!t->have_status)
		return NULL;
	for (i = 0; i < t->s.nr_boosting; i++)
		if (t->s.boosting[i].cpu == cpu)
			return &t->s.boosting[i];
	return NULL;
}

/* Boosts that started or ended since the last refresh. */
static void track_boosts(struct top *t)
{
	char kind[24], cg[64], waits[TASK_WAITS_LEN + 16];
	const struct boost_info *b;
	struct seen_boost *sb;
	int cpu;

	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		sb = &t->seen[cpu];
		b = boost_on(t, cpu);
		/*
		 * A boost ended when its task's is gone or another began
		 * (start_ns): a task still waiting when restored is boosted
		 * again within the same refresh.
		 */
		if (sb->active && (!b || b->tid != sb->tid ||
				   b->start_ns != sb->start_ns)) {
			sb->active = false;
			if (!t->have_status) {
				sb->outcome = "unknown";
				recent(t, "CPU %d %s/%u: starvd stopped during the boost",
				       cpu, sb->comm, sb->tid);
			} else {
				sb->outcome = ran_since(t, sb->tid,
							sb->start_ns) ?
					      "progress" : "none";
				recent(t, "CPU %d %s/%u restored, progress: %s",
				       cpu, sb->comm, sb->tid, sb->outcome);
			}
		}
		if (b && !sb->active) {
			sb->active = true;
			sb->tid = b->tid;
			sb->start_ns = b->start_ns;
			snprintf(sb->comm, sizeof(sb->comm), "%s", b->comm);
			recent(t, "CPU %d %s/%u boosted (%s), %s in %s%s",
			       cpu, b->comm, b->tid, b->policy,
			       task_what_kind(&b->what, kind, sizeof(kind)),
			       task_what_cgroup(&b->what, cg, sizeof(cg)),
			       task_what_waits(&b->what, waits, sizeof(waits)));
		}
	}
}

static void refresh_data(struct top *t)
{
	read_waits(t);
	read_status(t);
	track_boosts(t);
}

/* The runtime @tid's boost gets: escalated ("+") or the configured one. */
static void boost_runtime(const struct top *t, uint32_t tid, char *buf,
			  size_t len)
{
	char rt[24];
	size_t i;

	for (i = 0; i < t->s.nr_escalated; i++) {
		if (t->s.escalated[i].tid == tid) {
			format_ns(t->s.escalated[i].runtime_ns, rt, sizeof(rt));
			snprintf(buf, len, "%s+", rt);
			return;
		}
	}
	format_ns(t->s.runtime_ns, buf, len);
}

static uint64_t threshold_ns(const struct top *t)
{
	return t->have_status && t->s.threshold_ns ? t->s.threshold_ns :
						     DEFAULT_THRESHOLD_NS;
}

/* "kind cgroup" of @cpu's last starving task, "-" if none. */
static void last_starving(const struct top *t, int cpu, char *buf,
			  size_t len)
{
	const struct starved_info *l;
	char kind[24], cg[24];

	l = t->have_status && cpu < t->s.nr_cpus ? &t->s.cpu[cpu].last : NULL;
	if (!l || !l->tid)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s %s",
			 task_what_kind(&l->what, kind, sizeof(kind)),
			 task_what_cgroup(&l->what, cg, sizeof(cg)));
}

static void fill_row(const struct top *t, int cpu, struct row *r)
{
	const struct starvd_cpu *s = &t->cpus[cpu];
	const struct starvd_task *w = NULL;
	const struct boost_info *b = boost_on(t, cpu);
	char rt[32];
	size_t i;

	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->waiters = s->nr_waiters;
	r->wait_ns = s->max_wait_ns;
	for (i = 0; i < t->l.n; i++) {
		const struct starvd_task *k = &t->l.v[i];

		if (k->cpu == cpu && k->state == STARVD_TASK_WAITING &&
		    (!w || k->wait_ns > w->wait_ns))
			w = k;
	}
	if (w) {
		snprintf(r->waiter, sizeof(r->waiter), "%s/%u", w->comm,
			 w->tid);
		r->lower_bound = w->flags & STARVD_TASK_WAIT_LOWER_BOUND;
	} else {
		snprintf(r->waiter, sizeof(r->waiter), "-");
	}
	if (s->curr.tid)
		format_holder(&s->curr, r->holder, sizeof(r->holder));
	else
		snprintf(r->holder, sizeof(r->holder), "idle");
	if (b) {
		boost_runtime(t, b->tid, rt, sizeof(rt));
		snprintf(r->boosted, sizeof(r->boosted), "%s/%u %s", b->comm,
			 b->tid, rt);
	} else {
		snprintf(r->boosted, sizeof(r->boosted), "-");
	}
	last_starving(t, cpu, r->last, sizeof(r->last));
}

static enum sort_key sort_by;

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	switch (sort_by) {
	case SORT_WAIT:
		if (x->wait_ns != y->wait_ns)
			return x->wait_ns < y->wait_ns ? 1 : -1;
		break;
	case SORT_WAITERS:
		if (x->waiters != y->waiters)
			return x->waiters < y->waiters ? 1 : -1;
		break;
	default:
		break;
	}
	return x->cpu - y->cpu;
}

/* "[#####.....]" against the threshold, "!" once past it. */
static void bar(uint64_t wait, uint64_t thr, char *buf)
{
	int n = thr ? (int)(wait * BAR_WIDTH / thr) : BAR_WIDTH, i;

	if (n > BAR_WIDTH)
		n = BAR_WIDTH;
	buf[0] = '[';
	for (i = 0; i < BAR_WIDTH; i++)
		buf[i + 1] = i < n ? '#' : '.';
	buf[BAR_WIDTH + 1] = ']';
	buf[BAR_WIDTH + 2] = wait >= thr ? '!' : ' ';
	buf[BAR_WIDTH + 3] = '\0';
}

static void header_lines(struct top *t, bool live)
{
	char clock[16], rt[32], per[32], dur[32], thr[32];
	time_t now = time(NULL);
	long up;
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	if (live)
		add_line(t, false, "starvctl top - %s  refresh %.1f s  sort: %s  CPUs: %s%s",
			 clock, (double)t->c->delay_ns / NSEC_PER_SEC,
			 sort_names[t->sort],
			 t->filter_text[0] ? t->filter_text : "all",
			 t->paused ? "  [PAUSED: p resumes]" : "");
	else
		add_line(t, false, "starvctl top - %s", clock);
	if (t->opened)
		add_line(t, false, "backend: %s%s%s", t->b.display_name,
			 t->have_cpus ? "" : ": ",
			 t->have_cpus ? "" : t->backend_err);
	else
		add_line(t, false, "backend: none: %s", t->backend_err);
	if (!t->have_status) {
		format_ns(DEFAULT_THRESHOLD_NS, thr, sizeof(thr));
		add_line(t, false, "%s; bars against the default threshold, %s",
			 t->status_err, thr);
		return;
	}
	up = (long)(now - (time_t)t->s.start_time);
	add_line(t, false, "starvd %s pid %d up %ldh%02ldm%02lds, CPU use %.1f%%, monitoring CPUs %s",
		 t->s.version, (int)t->s.pid, up / 3600, up / 60 % 60,
		 up % 60, t->cpu_pct, t->s.cpus);
	format_ns(t->s.runtime_ns, rt, sizeof(rt));
	format_ns(t->s.period_ns, per, sizeof(per));
	format_ns(t->s.duration_ns, dur, sizeof(dur));
	if (!strcmp(t->s.boost_mode, "log-only"))
		add_line(t, false, "threshold %.3f s, boosts: none (log only)",
			 (double)t->s.threshold_ns / NSEC_PER_SEC);
	else
		add_line(t, false, "threshold %.3f s, boosts: %s %s every %s for %s",
			 (double)t->s.threshold_ns / NSEC_PER_SEC,
			 !strcmp(t->s.boost_mode, "fifo") ?
			 "SCHED_FIFO emulation" : "SCHED_DEADLINE", rt, per,
			 dur);
}

static void counter_line(struct top *t)
{
	uint64_t starving = 0, boosts = 0, failures = 0;
	char max[32];
	int i;

	if (!t->have_status)
		return;
	for (i = 0; i < t->s.nr_cpus; i++) {
		starving += t->s.cpu[i].starving;
		boosts += t->s.cpu[i].boosts;
		failures += t->s.cpu[i].failures;
	}
	format_ns(t->s.max_runtime_ns, max, sizeof(max));
	add_line(t, failures > 0,
		 "so far: %llu starving, %llu boosts, %llu failed, %llu escalations (largest runtime %s); %zu boosting now",
		 (unsigned long long)starving, (unsigned long long)boosts,
		 (unsigned long long)failures,
		 (unsigned long long)t->s.nr_escalations,
		 t->s.max_runtime_ns ? max : "none", t->s.nr_boosting);
}

/* The frame: @room lines at most for the CPU rows (-1: no limit). */
static void build_frame(struct top *t, bool live, int room)
{
	struct cpuset online;
	struct row *rows;
	uint64_t thr = threshold_ns(t);
	char b[BAR_WIDTH + 4], wait[32];
	int i, n = 0, shown;

	t->nr_lines = 0;
	header_lines(t, live);
	counter_line(t);
	add_line(t, false, "%s", "");
	if (!t->have_cpus) {
		add_line(t, true, "no wait data: %s",
			 t->opened ? t->backend_err : "the backend could not be opened (see above)");
		goto recent;
	}
	rows = calloc(t->nr_cpus, sizeof(*rows));
	if (!rows) {
		add_line(t, true, "out of memory");
		return;
	}
	cpus_online(&online);
	for (i = 0; i < t->nr_cpus; i++) {
		if (!cpuset_test(&online, i) ||
		    (t->filter_text[0] && !cpuset_test(&t->filter, i)))
			continue;
		if (!t->cpus[i].nr_waiters && !boost_on(t, i))
			continue;
		fill_row(t, i, &rows[n++]);
	}
	sort_by = t->sort;
	qsort(rows, n, sizeof(*rows), row_cmp);
	add_line(t, false, "%3s %-22s %11s %-13s %4s %4s %-28s %-22s %-40s %s",
		 "CPU", "LONGEST WAITER", "WAITED(s)", "VS THRESHOLD", "PCT",
		 "WAIT", "ON CPU", "BOOSTED, RUNTIME",
		 "LAST STARVING: KIND, CGROUP", "LAST BOOST");
	if (!n)
		add_line(t, false, "    no CPU has a waiting task or a boost");
	shown = room >= 0 && n > room ? room - 1 : n;
	for (i = 0; i < shown; i++) {
		const struct row *r = &rows[i];
		const struct seen_boost *sb = &t->seen[r->cpu];

		bar(r->wait_ns, thr, b);
		snprintf(wait, sizeof(wait), "%s%.3f",
			 r->lower_bound ? ">=" : "",
			 (double)r->wait_ns / NSEC_PER_SEC);
		add_line(t, r->wait_ns >= thr,
			 "%3d %-22.22s %11s %s %3.0f%% %4u %-28.28s %-22.22s %-40.40s %s",
			 r->cpu, r->waiter, wait, b,
			 100.0 * r->wait_ns / thr, r->waiters, r->holder,
			 r->boosted, r->last, sb->active ? "(boosting)" :
			 sb->outcome ? sb->outcome : "-");
	}
	if (shown < n)
		add_line(t, false, "    ... %d more CPUs (c shows only some)",
			 n - shown);
	free(rows);
recent:
	if (!t->nr_recent)
		return;
	add_line(t, false, "%s", "");
	add_line(t, false, "recent boosts (seen by this view):");
	for (i = 0; i < t->nr_recent; i++)
		add_line(t, false, "  %s", t->recent[i]);
}

static int print_once(struct top *t)
{
	int i;

	build_frame(t, false, -1);
	for (i = 0; i < t->nr_lines; i++)
		printf("%s\n", t->lines[i].text);
	return t->have_cpus || t->have_status ? 0 : 1;
}

#ifndef STARVD_NO_NCURSES
static bool curses_on;

static void curses_end(void)
{
	if (curses_on) {
		endwin();
		curses_on = false;
	}
}

static void draw(struct top *t)
{
	int y, room = LINES - 10 - (t->nr_recent ? t->nr_recent + 2 : 0);

	build_frame(t, true, room < 1 ? 1 : room);
	erase();
	for (y = 0; y < t->nr_lines && y < LINES - 1; y++) {
		if (t->lines[y].hot)
			attron(A_BOLD);
		mvaddnstr(y, 0, t->lines[y].text, COLS);
		if (t->lines[y].hot)
			attroff(A_BOLD);
	}
	attron(A_REVERSE);
	mvaddnstr(LINES - 1, 0, t->message[0] ? t->message :
		  "q quit  s sort  c CPUs  p pause", COLS);
	attroff(A_REVERSE);
	refresh();
}

/* "c": read a CPU list on the bottom line; empty: all CPUs. */
static void ask_cpus(struct top *t)
{
	char buf[64] = "";
	struct cpuset set = { 0 };
	size_t n = 0;
	int ch, bad;

	timeout(-1);
	for (;;) {
		move(LINES - 1, 0);
		clrtoeol();
		mvprintw(LINES - 1, 0, "CPUs to show (e.g. 1,3-5; empty: all): %s",
			 buf);
		curs_set(1);
		refresh();
		ch = getch();
		if (stop_signal || ch == '\n' || ch == KEY_ENTER || ch == 27)
			break;
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
			buf[--n] = '\0';
		else if (ch > 31 && ch < 127 && n < sizeof(buf) - 1)
			buf[n++] = ch, buf[n] = '\0';
	}
	curs_set(0);
	if (ch == 27 || stop_signal)
		return;
	if (!buf[0]) {
		t->filter_text[0] = '\0';
		snprintf(t->message, sizeof(t->message), "showing all CPUs");
		return;
	}
	if (cpuset_parse(buf, t->nr_cpus, &set, &bad)) {
		if (bad >= 0)
			snprintf(t->message, sizeof(t->message),
				 "no CPU %d here (CPUs 0-%d): filter unchanged",
				 bad, t->nr_cpus - 1);
		else
			snprintf(t->message, sizeof(t->message),
				 "'%.30s' is not a CPU list (e.g. 1,3-5): filter unchanged",
				 buf);
		return;
	}
	t->filter = set;
	snprintf(t->filter_text, sizeof(t->filter_text), "%s", buf);
	t->message[0] = '\0';
}

/* One key; false to quit. */
static bool key(struct top *t, int ch)
{
	switch (ch) {
	case 'q':
	case 'Q':
		return false;
	case 's':
		t->sort = (t->sort + 1) % NR_SORTS;
		snprintf(t->message, sizeof(t->message), "sorted by %s",
			 sort_names[t->sort]);
		break;
	case 'c':
		ask_cpus(t);
		break;
	case 'p':
		t->paused = !t->paused;
		snprintf(t->message, sizeof(t->message), "%s",
			 t->paused ? "paused: p resumes" : "resumed");
		break;
	case KEY_RESIZE:
		break;
	default:
		snprintf(t->message, sizeof(t->message),
			 "keys: q quit  s sort  c CPUs  p pause");
		break;
	}
	return true;
}

static int run_live(struct top *t)
{
	uint64_t next = 0, now;
	SCREEN *scr;
	int ch;

	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fprintf(stderr, "starvctl: cannot drive the terminal (TERM=%s): printing the table once\n",
			getenv("TERM") ? getenv("TERM") : "unset");
		refresh_data(t);
		return print_once(t);
	}
	curses_on = true;
	atexit(curses_end);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	while (!stop_signal) {
		now = now_ns();
		if (now >= next) {
			if (!t->paused)
				refresh_data(t);
			next = now + t->c->delay_ns;
			draw(t);
		}
		now = now_ns();
		timeout(next > now ? (int)((next - now) / NSEC_PER_MSEC) + 1 : 0);
		ch = getch();
		if (ch == ERR)
			continue;	/* the refresh is due, or a signal */
		if (!key(t, ch))
			break;
		draw(t);
	}
	curses_end();
	delscreen(scr);
	return 0;
}
#else
static int run_live(struct top *t)
{
	fprintf(stderr, "starvctl: built without ncurses (libncurses-dev): printing the table once\n");
	refresh_data(t);
	return print_once(t);
}
#endif

int cmd_top(const struct ctl *c)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct top *t = calloc(1, sizeof(*t));
	int ret;

	if (!t) {
		fprintf(stderr, "starvctl: out of memory\n");
		return 1;
	}
	t->c = c;
	if (backend_open(&t->b, c->backend, c->bpf_mode, t->backend_err,
			 sizeof(t->backend_err)) == 0) {
		t->opened = true;
		t->nr_cpus = t->b.nr_cpus;
	} else {
		t->nr_cpus = cpus_possible();
	}
	t->cpus = calloc(t->nr_cpus, sizeof(*t->cpus));
	t->seen = calloc(t->nr_cpus, sizeof(*t->seen));
	t->max_lines = t->nr_cpus + 16 + NR_RECENT;
	t->lines = calloc(t->max_lines, sizeof(*t->lines));
	if (!t->cpus || !t->seen || !t->lines) {
		fprintf(stderr, "starvctl: out of memory\n");
		ret = 1;
		goto out;
	}
	if (c->cpu >= 0) {
		cpuset_set(&t->filter, c->cpu);
		snprintf(t->filter_text, sizeof(t->filter_text), "%d", c->cpu);
	}
	setlocale(LC_ALL, "");
	if (c->once || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		refresh_data(t);
		ret = print_once(t);
		goto out;
	}
	/* Before curses: it then leaves them to us (and restores on exit). */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = run_live(t);
out:
	if (t->have_status)
		status_file_free(&t->s);
	task_list_free(&t->l);
	if (t->opened)
		backend_close(&t->b);
	free(t->cpus);
	free(t->seen);
	free(t->lines);
	free(t);
	return ret;
}
