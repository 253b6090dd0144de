/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's command line: stalld-compatible options plus starvd's own. */
#ifndef STARVD_OPTIONS_H
#define STARVD_OPTIONS_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"
#include "log.h"
#include "util.h"

/*
 * The lower bounds where starvd takes less than stalld (1 s, 1 s, 200 ms;
 * starvd(8), "Different, and why"); every other bound is stalld's.
 */
#define THRESHOLD_MIN_NS	(NSEC_PER_SEC / 10)	/* -t */
#define DURATION_MIN_NS		(NSEC_PER_SEC / 10)	/* -d */
#define PERIOD_MIN_NS		(NSEC_PER_SEC / 10)	/* -p */
/*
 * stalld's default granularity: without -g, how often -l reports a task
 * that still waits (with -g, every granularity, as stalld).
 */
#define STALLD_GRANULARITY_NS	(5 * NSEC_PER_SEC)

enum backend_kind {
	BACKEND_AUTO,
	BACKEND_BPF,
	BACKEND_NETLINK,
	/*
	 * stalld's "-b sched_debug"/"S": the module, else BPF (an existing
	 * stalld config must not become a restart loop without the module).
	 */
	BACKEND_NETLINK_OR_BPF,
};

/* --rt-throttling: stalld's throttlectl. */
enum rt_throttling_cmd {
	RT_CMD_NONE,
	RT_CMD_OFF,
	RT_CMD_ON,
	RT_CMD_SHOW,
};

struct regex_list {
	regex_t *re;
	int n;
};

struct config {
	/*
	 * "stalld" when invoked under that name (argv[0]): the log ident and
	 * prefix, and the run directory /run/stalld; else "starvd".
	 */
	const char *name;
	bool stalld;
	bool monitor_all;
	struct cpuset cpus;		/* -c */
	bool have_affinity;
	struct cpuset affinity;		/* -a */
	uint64_t threshold_ns;		/* -t */
	uint64_t boost_period_ns;	/* -p */
	uint64_t boost_runtime_ns;	/* -r */
	uint64_t boost_duration_ns;	/* -d */
	uint64_t granularity_ns;	/* -g; 0: wake on threshold crossings */
	int reservation;		/* -R, percent; 0: none */
	bool force_fifo;		/* -F */
	bool log_only;			/* -l */
	bool verbose;			/* -v */
	bool log_kmsg;			/* -k */
	bool log_syslog;		/* -s */
	bool foreground;		/* -f */
	bool systemd;			/* -S */
	bool aggressive;		/* -A: accepted, see starvd(8) */
	bool adaptive;			/* -M: accepted, see starvd(8) */
	bool power;			/* -O: accepted, see starvd(8) */
	bool no_idle_detect;		/* -N: accepted, see starvd(8) */
	bool json;			/* --json */
	bool kstack;			/* --kstack */
	bool stacks;			/* holder stacks: --stacks, or -v */
	bool stacks_asked;		/* --stacks itself (-v alone: not on PREEMPT_RT) */
	bool no_user_stacks;		/* --no-user-stacks */
	bool mlock;			/* locked unless --no-mlock */
	bool mlock_required;		/* --mlock: failing to lock is fatal */
	int priority;			/* --priority; -1: default, see daemon.c */
	bool restore_only;		/* --restore */
	enum rt_throttling_cmd rt_throttling;	/* --rt-throttling */
	bool no_escalation;		/* --no-escalation */
	const char *pidfile;		/* -P */
	const char *run_dir;		/* --run-dir */
	enum backend_kind backend;	/* -b */
	unsigned int bpf_mode;		/* --bpf-mode: enum starvd_bpf_mode */
	struct regex_list ignore_threads;	/* -i */
	struct regex_list ignore_processes;	/* -I */
};

enum parse_result {
	PARSE_OK,
	PARSE_EXIT,	/* --help or --version handled */
	PARSE_ERROR,	/* message in err */
};

/*
 * Parse and validate the command line into @cfg (defaults first).
 * @nr_cpus is the number of possible CPUs used to validate CPU lists.
 * Never exits and never prints except for --help/--version on stdout.
 * Unless it returns PARSE_OK, nothing is left for config_free() to free.
 * Resets getopt's state: it may be called any number of times.
 */
enum parse_result parse_options(int argc, char **argv, int nr_cpus,
				struct config *cfg, char *err, size_t errlen);
void config_free(struct config *cfg);

/*
 * Where the daemon's lines go once it runs, by stalld's rules: syslog only
 * with -s (stalld 1.27.1 on), the kernel log with -k, standard error with
 * -v, and with -f unless -s sends them to syslog (under systemd both end
 * in the journal: once is enough).
 */
struct log_config running_log_config(const struct config *cfg);

/*
 * Where its lines go while it starts, until it daemonizes: those of the
 * running daemon, and standard error too (stalld shows them there),
 * unless standard error is the journal ($JOURNAL_STREAM names it, as
 * systemd sets it for a service) and -s already sends them there.
 */
struct log_config startup_log_config(const struct config *cfg);

/* How often -l reports a task again while it keeps waiting. */
uint64_t log_only_repeat_ns(const struct config *cfg);

/* -b and --bpf-mode values, shared with starvctl; -EINVAL if unknown. */
#define BACKEND_NAMES_HELP "unknown backend '%s' (use auto, bpf or netlink)"
#define BPF_MODE_NAMES_HELP "unknown mode '%s' (use auto, sched_info or tracking)"
int parse_backend_name(const char *arg, enum backend_kind *kind);
int parse_bpf_mode_name(const char *arg, unsigned int *mode);

/*
 * The option getopt_long() just returned '?' or ':' for, as the user gave
 * it: "-x" (also from inside "-vx", where argv[optind - 1] is another
 * element), "--name" or "--name=value". @optstring is getopt_long()'s;
 * @buf (4 bytes) may hold the result.
 */
const char *getopt_bad_option(int c, char **argv, const char *optstring,
			      char *buf, size_t len);

/* "stalld" if @argv0's base name is stalld, else "starvd". */
const char *personality(const char *argv0);

bool regex_list_match(const struct regex_list *l, const char *s);

#endif
