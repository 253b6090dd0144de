// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <starvd/abi.h>

#include "options.h"
#include "run_dir.h"
#include "util.h"
#include "version.h"

enum {
	OPT_JSON = 0x100,
	OPT_KSTACK,
	OPT_MLOCK,
	OPT_RUN_DIR,
	OPT_BPF_MODE,
	OPT_RESTORE,
	OPT_NO_MLOCK,
	OPT_PRIORITY,
	OPT_RT_THROTTLING,
	OPT_NO_ESCALATION,
	OPT_STACKS,
	OPT_NO_USER_STACKS,
};

static const struct option long_options[] = {
	{ "cpu",		required_argument, NULL, 'c' },
	{ "starving_threshold",	required_argument, NULL, 't' },
	{ "boost_period",	required_argument, NULL, 'p' },
	{ "boost_runtime",	required_argument, NULL, 'r' },
	{ "boost_duration",	required_argument, NULL, 'd' },
	{ "force_fifo",		no_argument,       NULL, 'F' },
	{ "log_only",		no_argument,       NULL, 'l' },
	{ "verbose",		no_argument,       NULL, 'v' },
	{ "log_kmsg",		no_argument,       NULL, 'k' },
	{ "log_syslog",		no_argument,       NULL, 's' },
	{ "foreground",		no_argument,       NULL, 'f' },
	{ "pidfile",		required_argument, NULL, 'P' },
	{ "aggressive_mode",	no_argument,       NULL, 'A' },
	{ "adaptive_mode",	no_argument,       NULL, 'M' },
	{ "power_mode",		no_argument,       NULL, 'O' },
	{ "no_idle_detect",	no_argument,       NULL, 'N' },
	{ "granularity",	required_argument, NULL, 'g' },
	{ "reservation",	required_argument, NULL, 'R' },
	{ "affinity",		required_argument, NULL, 'a' },
	{ "ignore_threads",	required_argument, NULL, 'i' },
	{ "ignore_processes",	required_argument, NULL, 'I' },
	{ "backend",		required_argument, NULL, 'b' },
	{ "systemd",		no_argument,       NULL, 'S' },
	{ "version",		no_argument,       NULL, 'V' },
	{ "help",		no_argument,       NULL, 'h' },
	{ "json",		no_argument,       NULL, OPT_JSON },
	{ "kstack",		no_argument,       NULL, OPT_KSTACK },
	{ "stacks",		no_argument,       NULL, OPT_STACKS },
	{ "no-user-stacks",	no_argument,       NULL, OPT_NO_USER_STACKS },
	{ "mlock",		no_argument,       NULL, OPT_MLOCK },
	{ "no-mlock",		no_argument,       NULL, OPT_NO_MLOCK },
	{ "priority",		required_argument, NULL, OPT_PRIORITY },
	{ "run-dir",		required_argument, NULL, OPT_RUN_DIR },
	{ "bpf-mode",		required_argument, NULL, OPT_BPF_MODE },
	{ "restore",		no_argument,       NULL, OPT_RESTORE },
	{ "rt-throttling",	required_argument, NULL, OPT_RT_THROTTLING },
	{ "no-escalation",	no_argument,       NULL, OPT_NO_ESCALATION },
	{ NULL, 0, NULL, 0 }
};

/* After "Usage: NAME [options]", NAME as invoked (starvd or stalld). */
static const char usage_text[] =
"Detect tasks that are runnable but not given a CPU and boost them.\n"
"\n"
"Monitoring:\n"
"  -c, --cpu LIST              CPUs to monitor (default: all)\n"
"  -t, --starving_threshold S  seconds a task may wait before it is\n"
"                              boosted (default 20, decimals allowed,\n"
"                              0.1 to 3600)\n"
"  -g, --granularity S         poll every S seconds (1 to 600) instead of\n"
"                              waking exactly when a waiter can cross the\n"
"                              threshold; -l reports every S (default 5)\n"
"  -i, --ignore_threads RE,..  never boost threads whose name matches\n"
"  -I, --ignore_processes RE,.. never boost threads of matching processes\n"
"  -b, --backend NAME          auto (default), bpf (alias queue_track, Q),\n"
"                              netlink (alias sched_debug, S)\n"
"      --bpf-mode MODE         auto (default), sched_info or tracking\n"
"  -A, -M, -O, -N              accepted for stalld compatibility\n"
"Boosting:\n"
"  -p, --boost_period NS       SCHED_DEADLINE period (default 1000000000,\n"
"                              100000000 to 4000000000)\n"
"  -r, --boost_runtime NS      SCHED_DEADLINE runtime (default 20000, at\n"
"                              least 8000, at most the period)\n"
"  -d, --boost_duration S      how long a boost lasts (default 3, 0.1 to 60)\n"
"  -F, --force_fifo            emulate the boost with SCHED_FIFO\n"
"  -l, --log_only              only report, never boost\n"
"      --no-escalation         every boost gets -r, even when the last one\n"
"                              did not let the task progress (as stalld)\n"
"Logging:\n"
"  -v, --verbose               log to stderr (implies -f)\n"
"  -k, --log_kmsg              log to the kernel log\n"
"  -s, --log_syslog            log to syslog (nothing goes there without it)\n"
"      --json                  one JSON object per event on stdout\n"
"      --kstack                add the starved task's kernel stack\n"
"      --stacks                sample the holder's kernel and user stack when\n"
"                              a wait first crosses the threshold (also -v,\n"
"                              except on PREEMPT_RT)\n"
"      --no-user-stacks        holder stacks without user frames\n"
"Daemon:\n"
"  -f, --foreground            do not daemonize; log to stderr unless -s\n"
"  -P, --pidfile FILE          write the daemon's PID to FILE\n"
"  -a, --affinity LIST         run starvd itself on these CPUs\n"
"  -R, --reservation PCT       run starvd itself with a SCHED_DEADLINE\n"
"                              reservation of PCT% of a CPU (10 to 90)\n"
"      --priority PRIO         run starvd itself at SCHED_FIFO PRIO\n"
"                              (default 10, unless started at a real-time\n"
"                              policy already; 0: SCHED_OTHER)\n"
"      --mlock, --no-mlock     lock starvd's memory (default: locked;\n"
"                              --mlock: a failure to lock is fatal)\n"
"  -S, --systemd               RT throttling is managed by the service (without\n"
"                              -S or -l starvd turns it off while it runs)\n"
"      --run-dir DIR           state and boost journal (default /run/starvd,\n"
"                              /run/stalld when invoked as stalld)\n"
"      --restore               put back every task the journal lists (left\n"
"                              boosted by a killed starvd) and RT throttling\n"
"                              as it was found, and exit\n"
"      --rt-throttling off|on|show  stalld's throttlectl: save the value and\n"
"                              turn RT throttling off, put it back, show it\n"
"  -V, --version, -h, --help\n";

static enum parse_result __attribute__((format(printf, 3, 4)))
fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return PARSE_ERROR;
}

/*
 * glibc's regcomp() expands a repetition into copies of what it repeats:
 * "a+" into "aa*", "(x){1000}" into 1000 x's, so "d+++++++++++++++++++"
 * doubles at each '+' and "((a{99}){99}){99}" is a million atoms, enough
 * to take all the memory before regcomp() returns.
 * An expression matched against 15-byte names never needs more than a
 * few hundred: count what the expansion gives, up to a limit.
 */
#define REGEX_MAX_ATOMS		2000
#define REGEX_MAX_DEPTH		64

struct rx_group {
	size_t done;	/* the branches before the last '|' */
	size_t cur;	/* the branch being read */
	size_t last;	/* the last atom, which a repetition copies */
};

/* A "{n}", "{n,}", "{n,m}" or "{,m}" at *p: how many copies it makes. */
static bool rx_interval(const char **p, size_t *copies)
{
	const char *q = *p + 1;
	size_t n = 0, m = 0;
	bool have_m = false;

	/* Past the limit, the exact count no longer matters. */
	for (; *q >= '0' && *q <= '9'; q++)
		if (n <= REGEX_MAX_ATOMS)
			n = n * 10 + (*q - '0');
	if (*q == ',') {
		q++;
		have_m = *q >= '0' && *q <= '9';
		for (; *q >= '0' && *q <= '9'; q++)
			if (m <= REGEX_MAX_ATOMS)
				m = m * 10 + (*q - '0');
	} else {
		m = n;
		have_m = true;
	}
	if (*q != '}' || q == *p + 1)
		return false;
	*p = q;
	*copies = have_m ? m : n + 1;
	if (!*copies)
		*copies = 1;
	return true;
}

/* The end of a bracket expression "[...]" starting at @p, or NULL. */
static const char *rx_bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++) {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *end = strchr(p + 2, p[1]);

			while (end && end[1] != ']')
				end = strchr(end + 1, p[1]);
			if (!end)
				return NULL;
			p = end + 1;
		}
	}
	return *p ? p : NULL;
}

static bool regex_too_big(const char *re)
{
	struct rx_group g[REGEX_MAX_DEPTH] = { { 0 } };
	const char *p;
	size_t copies, size;
	int d = 0;

	for (p = re; *p; p++) {
		switch (*p) {
		case '(':
			if (++d == REGEX_MAX_DEPTH)
				return true;
			g[d] = (struct rx_group) { 0 };
			continue;
		case ')':
			if (!d)
				break;	/* an ordinary character */
			size = g[d].done + g[d].cur + 1;
			d--;
			g[d].cur += size;
			g[d].last = size;
			goto check;
		case '|':
			g[d].done += g[d].cur;
			g[d].cur = g[d].last = 0;
			continue;
		case '*':
		case '?':
			g[d].cur++;
			g[d].last++;
			goto check;
		case '+':
			g[d].cur += g[d].last + 1;
			g[d].last = 2 * g[d].last + 1;
			goto check;
		case '{':
			if (!rx_interval(&p, &copies))
				break;
			g[d].cur += g[d].last * (copies - 1) + 1;
			g[d].last = g[d].last * copies + 1;
			goto check;
		case '[':
			/* Unterminated: each character counts then. */
			if (rx_bracket_end(p))
				p = rx_bracket_end(p);
			break;
		case '\\':
			if (p[1])
				p++;
			break;
		}
		/* One atom. */
		g[d].cur++;
		g[d].last = 1;
check:
		if (g[d].done + g[d].cur > REGEX_MAX_ATOMS)
			return true;
	}
	return false;
}

/*
 * Compile the comma-separated @arg into @l. Every item must be a
 * non-empty expression: a stray comma is a mistake in a config file
 * (stalld skipped it silently). The message names @opt and the item.
 */
static int compile_regex_list(const char *opt, const char *arg,
			      struct regex_list *l, char *err, size_t errlen)
{
	const char *p = arg, *end;
	char tok[4096];
	int rc;

	for (;; p = end + 1) {
		regex_t *re;
		size_t n;

		end = strchrnul(p, ',');
		n = end - p;
		if (!n) {
			snprintf(err, errlen,
				 "%s: empty item in '%s' (a list of regular expressions separated by single commas, without spaces)",
				 opt, arg);
			return -EINVAL;
		}
		if (n >= sizeof(tok)) {
			snprintf(err, errlen, "%s: item '%.64s...' is too long",
				 opt, p);
			return -EINVAL;
		}
		memcpy(tok, p, n);
		tok[n] = '\0';
		re = realloc(l->re, (l->n + 1) * sizeof(*re));
		if (!re) {
			snprintf(err, errlen, "%s: out of memory", opt);
			return -ENOMEM;
		}
		l->re = re;
		if (regex_too_big(tok)) {
			snprintf(err, errlen,
				 "%s: item '%.64s%s' of '%.64s%s' is too complex (more than %d atoms once repetitions are expanded)",
				 opt, tok, n > 64 ? "..." : "", arg,
				 strlen(arg) > 64 ? "..." : "", REGEX_MAX_ATOMS);
			return -EINVAL;
		}
		rc = regcomp(&l->re[l->n], tok, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[128];

			regerror(rc, &l->re[l->n], msg, sizeof(msg));
			snprintf(err, errlen,
				 "%s: bad regular expression '%.64s%s' in '%.64s%s': %s",
				 opt, tok, n > 64 ? "..." : "", arg,
				 strlen(arg) > 64 ? "..." : "", msg);
			return -EINVAL;
		}
		l->n++;
		if (!*end)
			return 0;
	}
}

const char *personality(const char *argv0)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	return base && !strcmp(base, "stalld") ? "stalld" : "starvd";
}

bool regex_list_match(const struct regex_list *l, const char *s)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!regexec(&l->re[i], s, 0, NULL, 0))
			return true;
	return false;
}

struct log_config running_log_config(const struct config *cfg)
{
	return (struct log_config) {
		.ident = cfg->name,
		.to_stderr = cfg->verbose ||
			     (cfg->foreground && !cfg->log_syslog),
		.to_syslog = cfg->log_syslog,
		.to_kmsg = cfg->log_kmsg,
		.json = cfg->json,
		.verbose = cfg->verbose,
	};
}

/* $JOURNAL_STREAM is "DEVICE:INODE" of the journal's stream (systemd.exec(5)). */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	       !fstat(STDERR_FILENO, &st) && st.st_dev == dev &&
	       st.st_ino == ino;
}

struct log_config startup_log_config(const struct config *cfg)
{
	struct log_config run = running_log_config(cfg);

	return (struct log_config) {
		.ident = run.ident,
		.to_stderr = !(run.to_syslog && stderr_is_journal()),
		.to_syslog = run.to_syslog,
		.to_kmsg = run.to_kmsg,
	};
}

uint64_t log_only_repeat_ns(const struct config *cfg)
{
	return cfg->granularity_ns ?: STALLD_GRANULARITY_NS;
}

static void regex_list_free(struct regex_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		regfree(&l->re[i]);
	free(l->re);
	l->re = NULL;
	l->n = 0;
}

void config_free(struct config *cfg)
{
	regex_list_free(&cfg->ignore_threads);
	regex_list_free(&cfg->ignore_processes);
}

/* Options without a value: each sets one flag. */
static const struct {
	int opt;
	size_t offset;
} flags[] = {
	{ 'F', offsetof(struct config, force_fifo) },
	{ 'l', offsetof(struct config, log_only) },
	{ 'v', offsetof(struct config, verbose) },
	{ 'k', offsetof(struct config, log_kmsg) },
	{ 's', offsetof(struct config, log_syslog) },
	{ 'f', offsetof(struct config, foreground) },
	{ 'S', offsetof(struct config, systemd) },
	{ 'A', offsetof(struct config, aggressive) },
	{ 'M', offsetof(struct config, adaptive) },
	{ 'O', offsetof(struct config, power) },
	{ 'N', offsetof(struct config, no_idle_detect) },
	{ OPT_JSON, offsetof(struct config, json) },
	{ OPT_KSTACK, offsetof(struct config, kstack) },
	{ OPT_STACKS, offsetof(struct config, stacks_asked) },
	{ OPT_NO_USER_STACKS, offsetof(struct config, no_user_stacks) },
	{ OPT_MLOCK, offsetof(struct config, mlock_required) },
	{ OPT_RESTORE, offsetof(struct config, restore_only) },
	{ OPT_NO_ESCALATION, offsetof(struct config, no_escalation) },
};

static bool set_flag(struct config *cfg, int opt)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		if (flags[i].opt == opt) {
			*(bool *)((char *)cfg + flags[i].offset) = true;
			return true;
		}
	}
	return false;
}

/* -A, -M and -O choose one of stalld's modes: the last one given wins. */
static void last_mode_wins(struct config *cfg, int opt)
{
	if (opt != 'A' && opt != 'M' && opt != 'O')
		return;
	cfg->aggressive = opt == 'A';
	cfg->adaptive = opt == 'M';
	cfg->power = opt == 'O';
}

static void set_defaults(struct config *cfg, const char *argv0)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name = personality(argv0);
	cfg->stalld = !strcmp(cfg->name, "stalld");
	cfg->monitor_all = true;
	/* stalld's code (config_starving_threshold), not its man page. */
	cfg->threshold_ns = 20 * NSEC_PER_SEC;
	cfg->boost_period_ns = 1000000000ULL;
	cfg->boost_runtime_ns = 20000;
	cfg->boost_duration_ns = 3 * NSEC_PER_SEC;
	cfg->run_dir = cfg->stalld ? RUN_DIR_STALLD : RUN_DIR_STARVD;
	cfg->backend = BACKEND_AUTO;
	cfg->bpf_mode = STARVD_MODE_AUTO;
	cfg->mlock = true;
	cfg->priority = -1;
}

static enum parse_result parse_cpu_opt(const char *opt, const char *arg,
				       int nr_cpus, struct cpuset *set,
				       char *err, size_t len)
{
	int bad, ret = cpuset_parse(arg, nr_cpus, set, &bad);

	if (ret == -ENODEV)
		return fail(err, len,
			    "%s: CPU %d does not exist (this machine has CPUs 0-%d)",
			    opt, bad, nr_cpus - 1);
	if (ret)
		return fail(err, len,
			    "%s: '%s' is not a CPU list (example: 0-3,8)",
			    opt, arg);
	return PARSE_OK;
}

/* Backend names, with stalld's for the same sources. */
static const struct {
	const char *name;
	enum backend_kind kind;
} backend_names[] = {
	{ "auto", BACKEND_AUTO },
	{ "bpf", BACKEND_BPF }, { "queue_track", BACKEND_BPF }, { "Q", BACKEND_BPF },
	{ "netlink", BACKEND_NETLINK }, { "sched_debug", BACKEND_NETLINK_OR_BPF },
	{ "S", BACKEND_NETLINK_OR_BPF },
};

static const char *const bpf_mode_names[] = {
	[STARVD_MODE_AUTO] = "auto",
	[STARVD_MODE_SCHED_INFO] = "sched_info",
	[STARVD_MODE_TRACKING] = "tracking",
};

int parse_backend_name(const char *arg, enum backend_kind *kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(backend_names); i++) {
		if (!strcmp(arg, backend_names[i].name)) {
			*kind = backend_names[i].kind;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_bpf_mode_name(const char *arg, unsigned int *mode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bpf_mode_names); i++) {
		if (!strcmp(arg, bpf_mode_names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

static enum parse_result check_pidfile(const char *path, char *err, size_t len)
{
	char *copy = strdup(path);
	struct stat st;
	int ret;

	if (!copy)
		return fail(err, len, "out of memory");
	ret = stat(dirname(copy), &st);
	free(copy);
	if (ret || !S_ISDIR(st.st_mode))
		return fail(err, len,
			    "-P/--pidfile: the directory of '%s' does not exist",
			    path);
	return PARSE_OK;
}

static enum parse_result validate(struct config *cfg, char *err, size_t len)
{
	if (cfg->boost_runtime_ns > cfg->boost_period_ns)
		return fail(err, len,
			    "-r/--boost_runtime (%llu ns) must not exceed -p/--boost_period (%llu ns): runtime is longer than the period",
			    (unsigned long long)cfg->boost_runtime_ns,
			    (unsigned long long)cfg->boost_period_ns);
	if (cfg->pidfile && check_pidfile(cfg->pidfile, err, len))
		return PARSE_ERROR;
	if (cfg->stacks_asked)
		cfg->stacks = true;
	if (cfg->verbose) {
		cfg->foreground = true;
		cfg->stacks = true;
	}
	return PARSE_OK;
}

const char *getopt_bad_option(int c, char **argv, const char *optstring,
			      char *buf, size_t len)
{
	const char *arg = argv[optind - 1];
	bool is_long = !strncmp(arg, "--", 2), is_short;

	if (c == ':')	/* a missing value: always in the last element */
		is_short = !is_long;
	else		/* '?': optopt is 0 or a long option's value if long */
		is_short = optopt < 0 ||
			   (optopt > 0 && optopt < 0x100 &&
			    (optopt == ':' || !strchr(optstring, optopt)));
	if (!is_short)
		return arg;
	snprintf(buf, len, "-%c", (unsigned char)optopt);
	return buf;
}

/*
 * Options that take a time: seconds (decimals allowed) or nanoseconds,
 * each within a range; a value outside is refused with stalld's words
 * for that bound. starvd(8) ("Different, and why") says where a range is
 * wider than stalld's, and why.
 */
static const struct {
	int opt;
	const char *name;
	bool seconds;
	size_t offset;
	uint64_t min_ns, max_ns;
	const char *too_small, *too_large;
} times[] = {
	{ 't', "-t/--starving_threshold", true,
	  offsetof(struct config, threshold_ns),
	  THRESHOLD_MIN_NS, 3600 * NSEC_PER_SEC,
	  "starving_threshold should be at least 0.1 seconds",
	  "starving_threshold should be at most one hour (3600 seconds)" },
	{ 'g', "-g/--granularity", true,
	  offsetof(struct config, granularity_ns),
	  NSEC_PER_SEC, 600 * NSEC_PER_SEC,
	  "granularity should be at least 1 second",
	  "granularity should not be more than 10 minutes (600 seconds)" },
	{ 'd', "-d/--boost_duration", true,
	  offsetof(struct config, boost_duration_ns),
	  DURATION_MIN_NS, 60 * NSEC_PER_SEC,
	  "boost_duration should be at least 0.1 seconds",
	  "boost_duration should be at most 60 seconds" },
	{ 'p', "-p/--boost_period", false,
	  offsetof(struct config, boost_period_ns),
	  PERIOD_MIN_NS, 4 * NSEC_PER_SEC,
	  "boost_period should be at least 100 ms (100000000 ns)",
	  "boost_period should be at most 4 s (4000000000 ns)" },
	/* At most the period: validate(). */
	{ 'r', "-r/--boost_runtime", false,
	  offsetof(struct config, boost_runtime_ns),
	  8 * NSEC_PER_USEC, UINT64_MAX,
	  "boost_runtime should be at least 8 us (8000 ns)", NULL },
};

/* PARSE_OK if @opt takes a time and @arg is one; -1 if @opt takes none. */
static int set_time(struct config *cfg, int opt, const char *arg,
		    char *err, size_t len)
{
	uint64_t *ns;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(times); i++) {
		if (times[i].opt != opt)
			continue;
		ns = (uint64_t *)((char *)cfg + times[i].offset);
		if (times[i].seconds ? parse_seconds(arg, ns) :
		    parse_ns(arg, ns))
			return fail(err, len,
				    "%s: '%s' is not a positive number of %s",
				    times[i].name, arg,
				    times[i].seconds ? "seconds" : "nanoseconds");
		if (*ns < times[i].min_ns)
			return fail(err, len, "%s: %s, not '%s'",
				    times[i].name, times[i].too_small, arg);
		if (*ns > times[i].max_ns)
			return fail(err, len, "%s: %s, not '%s'",
				    times[i].name, times[i].too_large, arg);
		return PARSE_OK;
	}
	return -1;
}

/*
 * The other options with a value: PARSE_OK or PARSE_ERROR (with @err);
 * -1 if @opt is none of them.
 */
static int set_value(struct config *cfg, int opt, const char *arg,
		     int nr_cpus, char *err, size_t len)
{
	long v;

	switch (opt) {
	case 'c':
		cfg->monitor_all = false;
		return parse_cpu_opt("-c/--cpu", arg, nr_cpus, &cfg->cpus,
				     err, len);
	case 'a':
		cfg->have_affinity = true;
		return parse_cpu_opt("-a/--affinity", arg, nr_cpus,
				     &cfg->affinity, err, len);
	case 'R':
		if (parse_int(arg, 10, 90, &v))
			return fail(err, len,
				    "-R/--reservation: '%s' is not a percentage from 10 to 90 (Reservation needs to be at least 10%% and at most 90%%)",
				    arg);
		cfg->reservation = v;
		return PARSE_OK;
	case OPT_PRIORITY:
		if (parse_int(arg, 0, 99, &v))
			return fail(err, len,
				    "--priority: '%s' is not a SCHED_FIFO priority from 1 to 99 (or 0 for SCHED_OTHER)",
				    arg);
		cfg->priority = v;
		return PARSE_OK;
	case 'i':
		return compile_regex_list("-i/--ignore_threads", arg,
					  &cfg->ignore_threads, err, len) ?
		       PARSE_ERROR : PARSE_OK;
	case 'I':
		return compile_regex_list("-I/--ignore_processes", arg,
					  &cfg->ignore_processes, err, len) ?
		       PARSE_ERROR : PARSE_OK;
	case OPT_RT_THROTTLING:
		if (!strcmp(arg, "off"))
			cfg->rt_throttling = RT_CMD_OFF;
		else if (!strcmp(arg, "on"))
			cfg->rt_throttling = RT_CMD_ON;
		else if (!strcmp(arg, "show"))
			cfg->rt_throttling = RT_CMD_SHOW;
		else
			return fail(err, len,
				    "--rt-throttling: '%s' is not off, on or show",
				    arg);
		return PARSE_OK;
	case 'b':
		if (parse_backend_name(arg, &cfg->backend))
			return fail(err, len, "-b/--backend: " BACKEND_NAMES_HELP,
				    arg);
		return PARSE_OK;
	case OPT_BPF_MODE:
		if (parse_bpf_mode_name(arg, &cfg->bpf_mode))
			return fail(err, len, "--bpf-mode: " BPF_MODE_NAMES_HELP,
				    arg);
		return PARSE_OK;
	case 'P':
		cfg->pidfile = arg;
		return PARSE_OK;
	case OPT_RUN_DIR:
		cfg->run_dir = arg;
		return PARSE_OK;
	case OPT_NO_MLOCK:
		cfg->mlock = false;
		cfg->mlock_required = false;
		return PARSE_OK;
	}
	return -1;
}

static enum parse_result parse(int argc, char **argv, int nr_cpus,
			       struct config *cfg, char *err, size_t len)
{
	static const char optstring[] =
		":c:t:p:r:d:FlvksfP:AMONg:R:a:i:I:b:SVh";
	char opt[4];
	int c, ret;

	set_defaults(cfg, argc > 0 ? argv[0] : NULL);
	/*
	 * 0, not 1: glibc then forgets where it was inside an element, which
	 * a previous call that returned early (-h in "-hv") leaves behind.
	 */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, optstring, long_options,
				NULL)) != -1) {
		switch (c) {
		case 'V':
			printf("starvd %s\n", STARVD_VERSION);
			return PARSE_EXIT;
		case 'h':
			printf("Usage: %s [options]\n", cfg->name);
			fputs(usage_text, stdout);
			return PARSE_EXIT;
		case ':':
			return fail(err, len, "option '%s' needs a value (see %s --help)",
				    getopt_bad_option(c, argv, optstring, opt,
						      sizeof(opt)), cfg->name);
		}
		if (set_flag(cfg, c)) {
			last_mode_wins(cfg, c);
			continue;
		}
		ret = set_time(cfg, c, optarg, err, len);
		if (ret < 0)
			ret = set_value(cfg, c, optarg, nr_cpus, err, len);
		if (ret == PARSE_OK)
			continue;
		if (ret > 0)
			return ret;
		return fail(err, len, "unknown option '%s' (see %s --help)",
			    getopt_bad_option(c, argv, optstring, opt,
					      sizeof(opt)), cfg->name);
	}
	if (optind < argc)
		return fail(err, len, "unexpected argument '%s' (see %s --help)",
			    argv[optind], cfg->name);
	return validate(cfg, err, len);
}

enum parse_result parse_options(int argc, char **argv, int nr_cpus,
				struct config *cfg, char *err, size_t len)
{
	enum parse_result res = parse(argc, argv, nr_cpus, cfg, err, len);

	/* Only a configuration that is used needs config_free(). */
	if (res != PARSE_OK)
		config_free(cfg);
	return res;
}
