// SPDX-License-Identifier: GPL-2.0-or-later
/* Command-line parsing and validation: stalld's options and defaults. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "options.h"
#include "util.h"

#define NR_CPUS 4

struct parsed {
	struct config cfg;
	enum parse_result res;
	char err[512];
};

static void parse_as(struct parsed *p, const char *argv0, const char **args)
{
	char *argv[64] = { (char *)argv0 };
	int argc = 1;

	while (*args)
		argv[argc++] = (char *)*args++;
	p->res = parse_options(argc, argv, NR_CPUS, &p->cfg, p->err,
			       sizeof(p->err));
}

static void parse(struct parsed *p, const char **args)
{
	parse_as(p, "starvd", args);
}

#define PARSE(p, ...) do { \
	const char *_a[] = { __VA_ARGS__, NULL }; \
	parse(p, _a); \
} while (0)

TEST(stalld_defaults)
{
	struct parsed p;
	const char *none[] = { NULL };

	parse(&p, none);
	ASSERT_EQ(PARSE_OK, p.res);
	/* stalld's code's default, not its man page's 60 s. */
	EXPECT_EQ(20 * NSEC_PER_SEC, p.cfg.threshold_ns);
	EXPECT_EQ(1000000000ULL, p.cfg.boost_period_ns);
	EXPECT_EQ(20000ULL, p.cfg.boost_runtime_ns);
	EXPECT_EQ(3 * NSEC_PER_SEC, p.cfg.boost_duration_ns);
	EXPECT_EQ(0, p.cfg.granularity_ns);
	EXPECT_TRUE(p.cfg.monitor_all);
	EXPECT_FALSE(p.cfg.log_only);
	EXPECT_FALSE(p.cfg.foreground);
	EXPECT_EQ(BACKEND_AUTO, p.cfg.backend);
	EXPECT_STREQ("/run/starvd", p.cfg.run_dir);
	config_free(&p.cfg);
}

TEST(stalld_long_and_short_options)
{
	struct parsed p;

	PARSE(&p, "-c", "1-2", "--starving_threshold", "20", "-p", "500000000",
	      "--boost_runtime", "10000", "-d", "2", "-F", "-l", "-k", "-s",
	      "-A", "-N", "-g", "1", "-R", "10", "-a", "0",
	      "-i", "kworker.*,ksoftirqd", "-I", "dpdk", "-b", "queue_track",
	      "-S", "--pidfile", "/tmp/starvd-test.pid");
	ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
	EXPECT_FALSE(p.cfg.monitor_all);
	EXPECT_FALSE(cpuset_test(&p.cfg.cpus, 0));
	EXPECT_TRUE(cpuset_test(&p.cfg.cpus, 1));
	EXPECT_TRUE(cpuset_test(&p.cfg.cpus, 2));
	EXPECT_EQ(20 * NSEC_PER_SEC, p.cfg.threshold_ns);
	EXPECT_EQ(500000000ULL, p.cfg.boost_period_ns);
	EXPECT_EQ(10000ULL, p.cfg.boost_runtime_ns);
	EXPECT_EQ(2 * NSEC_PER_SEC, p.cfg.boost_duration_ns);
	EXPECT_EQ(NSEC_PER_SEC, p.cfg.granularity_ns);
	EXPECT_EQ(10, p.cfg.reservation);
	EXPECT_TRUE(p.cfg.force_fifo && p.cfg.log_only && p.cfg.log_kmsg &&
		    p.cfg.log_syslog && p.cfg.systemd && p.cfg.aggressive &&
		    p.cfg.no_idle_detect);
	EXPECT_EQ(BACKEND_BPF, p.cfg.backend);
	EXPECT_EQ(2, p.cfg.ignore_threads.n);
	EXPECT_TRUE(regex_list_match(&p.cfg.ignore_threads, "kworker/3:1"));
	EXPECT_FALSE(regex_list_match(&p.cfg.ignore_threads, "rcuc/3"));
	EXPECT_TRUE(regex_list_match(&p.cfg.ignore_processes, "dpdk-app"));
	config_free(&p.cfg);
}

TEST(verbose_implies_foreground)
{
	struct parsed p;

	PARSE(&p, "-v");
	ASSERT_EQ(PARSE_OK, p.res);
	EXPECT_TRUE(p.cfg.foreground);
	config_free(&p.cfg);
}

TEST(backend_aliases)
{
	static const struct { const char *name; enum backend_kind kind; } t[] = {
		{ "bpf", BACKEND_BPF }, { "Q", BACKEND_BPF },
		{ "queue_track", BACKEND_BPF }, { "netlink", BACKEND_NETLINK },
		{ "sched_debug", BACKEND_NETLINK_OR_BPF },
		{ "S", BACKEND_NETLINK_OR_BPF },
		{ "auto", BACKEND_AUTO },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		PARSE(&p, "-b", t[i].name);
		ASSERT_EQ(PARSE_OK, p.res);
		EXPECT_EQ(t[i].kind, p.cfg.backend);
		config_free(&p.cfg);
	}
}

TEST(fractional_threshold)
{
	struct parsed p;

	PARSE(&p, "-t", "0.25");
	ASSERT_EQ(PARSE_OK, p.res);
	EXPECT_EQ(NSEC_PER_SEC / 4, p.cfg.threshold_ns);
	config_free(&p.cfg);
}

/* Each invalid value is refused, naming the option. */
TEST(invalid_values_name_the_option)
{
	static const struct { const char *opt, *val, *says; } t[] = {
		{ "-t", "0", "-t/--starving_threshold" },
		{ "-t", "-5", "-t/--starving_threshold" },
		{ "-t", "abc", "-t/--starving_threshold" },
		{ "-d", "0", "-d/--boost_duration" },
		{ "-p", "0", "-p/--boost_period" },
		{ "-p", "-1", "-p/--boost_period" },
		{ "-r", "0", "-r/--boost_runtime" },
		{ "-r", "12x", "-r/--boost_runtime" },
		{ "-r", "2000000000", "must not exceed -p/--boost_period" },
		{ "-g", "0", "-g/--granularity" },
		{ "-R", "0", "-R/--reservation" },
		{ "-R", "9", "at least 10%" },
		{ "-R", "101", "-R/--reservation" },
		{ "-c", "4", "CPU 4 does not exist" },
		{ "-c", "0-9", "CPU 4 does not exist" },
		{ "-c", "1,,2", "-c/--cpu" },
		{ "-c", "3-1", "-c/--cpu" },
		{ "-a", "7", "-a/--affinity: CPU 7 does not exist" },
		{ "-i", "(", "-i/--ignore_threads" },
		{ "-I", "a[", "-I/--ignore_processes" },
		{ "-P", "/nonexistent/dir/starvd.pid", "-P/--pidfile" },
		{ "-b", "debugfs", "-b/--backend" },
		{ "--bpf-mode", "fast", "--bpf-mode" },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		PARSE(&p, t[i].opt, t[i].val);
		EXPECT_EQ(PARSE_ERROR, p.res) TH_LOG("%s %s", t[i].opt, t[i].val);
		EXPECT_TRUE(NULL != strstr(p.err, t[i].says))
			TH_LOG("%s %s: '%s'", t[i].opt, t[i].val, p.err);
		config_free(&p.cfg);
	}
}

/*
 * stalld's ranges, starvd's where it takes more (options.h), each bound
 * accepted and the value just outside refused with its own message.
 */
TEST(ranges)
{
	static const struct {
		const char *opt, *lowest, *below, *low_says;
		const char *highest, *above, *high_says;
		size_t offset;
		uint64_t low_ns, high_ns;
	} t[] = {
		{ "-t", "0.1", "0.09", "starving_threshold should be at least 0.1 seconds",
		  "3600", "3600.001", "starving_threshold should be at most one hour",
		  offsetof(struct config, threshold_ns),
		  THRESHOLD_MIN_NS, 3600 * NSEC_PER_SEC },
		{ "-g", "1", "0.999", "granularity should be at least 1 second",
		  "600", "600.5", "granularity should not be more than 10 minutes",
		  offsetof(struct config, granularity_ns),
		  NSEC_PER_SEC, 600 * NSEC_PER_SEC },
		{ "-d", "0.1", "0.099", "boost_duration should be at least 0.1 seconds",
		  "60", "60.01", "boost_duration should be at most 60 seconds",
		  offsetof(struct config, boost_duration_ns),
		  DURATION_MIN_NS, 60 * NSEC_PER_SEC },
		{ "-p", "100000000", "99999999", "boost_period should be at least 100 ms",
		  "4000000000", "4000000001", "boost_period should be at most 4 s",
		  offsetof(struct config, boost_period_ns),
		  PERIOD_MIN_NS, 4 * NSEC_PER_SEC },
		{ "-r", "8000", "7999", "boost_runtime should be at least 8 us",
		  "1000000000", "1000000001", "must not exceed -p/--boost_period",
		  offsetof(struct config, boost_runtime_ns),
		  8000, NSEC_PER_SEC },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		PARSE(&p, t[i].opt, t[i].lowest);
		ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s %s: %s", t[i].opt,
						  t[i].lowest, p.err);
		EXPECT_EQ(t[i].low_ns,
			  *(uint64_t *)((char *)&p.cfg + t[i].offset));
		config_free(&p.cfg);
		PARSE(&p, t[i].opt, t[i].highest);
		ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s %s: %s", t[i].opt,
						  t[i].highest, p.err);
		EXPECT_EQ(t[i].high_ns,
			  *(uint64_t *)((char *)&p.cfg + t[i].offset));
		config_free(&p.cfg);
		PARSE(&p, t[i].opt, t[i].below);
		EXPECT_EQ(PARSE_ERROR, p.res) TH_LOG("%s %s", t[i].opt,
						     t[i].below);
		EXPECT_TRUE(NULL != strstr(p.err, t[i].low_says))
			TH_LOG("%s %s: '%s'", t[i].opt, t[i].below, p.err);
		PARSE(&p, t[i].opt, t[i].above);
		EXPECT_EQ(PARSE_ERROR, p.res) TH_LOG("%s %s", t[i].opt,
						     t[i].above);
		EXPECT_TRUE(NULL != strstr(p.err, t[i].high_says))
			TH_LOG("%s %s: '%s'", t[i].opt, t[i].above, p.err);
	}
	PARSE(&p, "-R", "10");
	ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
	EXPECT_EQ(10, p.cfg.reservation);
	config_free(&p.cfg);
	PARSE(&p, "-R", "90");
	ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
	EXPECT_EQ(90, p.cfg.reservation);
	config_free(&p.cfg);
	PARSE(&p, "-R", "91");
	EXPECT_EQ(PARSE_ERROR, p.res);
	EXPECT_TRUE(NULL != strstr(p.err, "at most 90%")) TH_LOG("%s", p.err);
}

/* A value whose arithmetic would wrap is refused, not started with. */
TEST(period_that_wraps_is_refused)
{
	struct parsed p;

	PARSE(&p, "-p", "18446744073709551615");
	EXPECT_EQ(PARSE_ERROR, p.res);
	EXPECT_TRUE(NULL != strstr(p.err, "-p/--boost_period: boost_period should be at most 4 s"))
		TH_LOG("%s", p.err);
}

/*
 * What starvd takes where stalld refuses it: -F in stalld's
 * single-threaded mode, -R with -A or -M, a boost longer than the
 * threshold, a period longer than the boost (starvd(8), "Different, and
 * why").
 */
TEST(starvd_takes_more_than_stalld)
{
	static const char *const ok[][6] = {
		{ "-F", "-O" },
		{ "-R", "20", "-A" },
		{ "-R", "20", "-M" },
		{ "-t", "1", "-d", "60" },
		{ "-d", "0.5", "-p", "1000000000" },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		char *argv[8] = { "starvd" };
		int argc = 1;

		while (argc <= 6 && ok[i][argc - 1]) {
			argv[argc] = (char *)ok[i][argc - 1];
			argc++;
		}
		p.res = parse_options(argc, argv, NR_CPUS, &p.cfg, p.err,
				      sizeof(p.err));
		EXPECT_EQ(PARSE_OK, p.res) TH_LOG("%s %s: %s", ok[i][0],
						  ok[i][1], p.err);
		if (p.res == PARSE_OK)
			config_free(&p.cfg);
	}
}

/* -A, -M and -O are one choice, stalld's: the last one wins. */
TEST(last_mode_wins)
{
	struct parsed p;

	PARSE(&p, "-A", "-M");
	ASSERT_EQ(PARSE_OK, p.res);
	EXPECT_TRUE(p.cfg.adaptive);
	EXPECT_FALSE(p.cfg.aggressive || p.cfg.power);
	config_free(&p.cfg);
	PARSE(&p, "-M", "-O");
	ASSERT_EQ(PARSE_OK, p.res);
	EXPECT_TRUE(p.cfg.power);
	EXPECT_FALSE(p.cfg.aggressive || p.cfg.adaptive);
	config_free(&p.cfg);
}

/*
 * Syslog only with -s (stalld 1.27.1 on), a daemon too; with -f,
 * standard error unless -s (one copy in the journal); -v always.
 */
TEST(syslog_is_opt_in)
{
	static const struct {
		const char *args[3];
		bool to_syslog, to_stderr;
	} t[] = {
		{ { NULL }, false, false },
		{ { "-s" }, true, false },
		{ { "-f" }, false, true },
		{ { "-f", "-s" }, true, false },
		{ { "-v" }, false, true },
		{ { "-v", "-s" }, true, true },
	};
	struct log_config lc;
	struct parsed p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		parse(&p, (const char **)t[i].args);
		ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
		lc = running_log_config(&p.cfg);
		EXPECT_EQ(t[i].to_syslog, lc.to_syslog)
			TH_LOG("%s %s", t[i].args[0] ?: "", t[i].args[1] ?: "");
		EXPECT_EQ(t[i].to_stderr, lc.to_stderr)
			TH_LOG("%s %s", t[i].args[0] ?: "", t[i].args[1] ?: "");
		config_free(&p.cfg);
	}
}

/*
 * While it starts, standard error too, but not where standard error is
 * the journal (systemd's $JOURNAL_STREAM names it) and -s sends the
 * lines there already: each line reaches the journal once.
 */
TEST(startup_stderr_unless_it_is_the_journal)
{
	static const struct {
		const char *args[3];
		int stream;	/* 0: no JOURNAL_STREAM, 1: stderr's, 2: another */
		bool to_stderr;
	} t[] = {
		{ { "-f", "-s" }, 0, true },
		{ { "-f", "-s" }, 1, false },
		{ { "-f", "-s" }, 2, true },
		{ { "-s" }, 1, false },
		{ { "-f" }, 1, true },
		{ { "-f", "-k" }, 1, true },
	};
	char js[64];
	struct log_config lc;
	struct parsed p;
	struct stat st;
	size_t i;

	ASSERT_EQ(0, fstat(STDERR_FILENO, &st));
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		snprintf(js, sizeof(js), "%llu:%llu",
			 (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino + (t[i].stream == 2));
		ASSERT_EQ(0, t[i].stream ? setenv("JOURNAL_STREAM", js, 1) :
					   unsetenv("JOURNAL_STREAM"));
		parse(&p, (const char **)t[i].args);
		ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
		lc = startup_log_config(&p.cfg);
		EXPECT_EQ(t[i].to_stderr, lc.to_stderr)
			TH_LOG("%s %s, JOURNAL_STREAM %s", t[i].args[0],
			       t[i].args[1] ?: "", t[i].stream ? js : "unset");
		EXPECT_EQ(running_log_config(&p.cfg).to_syslog, lc.to_syslog);
		config_free(&p.cfg);
	}
	unsetenv("JOURNAL_STREAM");
}

/* -l reports again at every granularity, stalld's 5 s without -g. */
TEST(log_only_repeats_every_granularity)
{
	struct parsed p;

	PARSE(&p, "-l", "-t", "3", "-g", "1");
	ASSERT_EQ(PARSE_OK, p.res);
	EXPECT_EQ(NSEC_PER_SEC, log_only_repeat_ns(&p.cfg));
	config_free(&p.cfg);
	PARSE(&p, "-l", "-t", "3");
	ASSERT_EQ(PARSE_OK, p.res);
	EXPECT_EQ(5 * NSEC_PER_SEC, log_only_repeat_ns(&p.cfg));
	config_free(&p.cfg);
}

TEST(unknown_option_and_missing_value)
{
	struct parsed p;

	PARSE(&p, "--no-such-option");
	EXPECT_EQ(PARSE_ERROR, p.res);
	EXPECT_TRUE(NULL != strstr(p.err, "--no-such-option"));
	PARSE(&p, "-t");
	EXPECT_EQ(PARSE_ERROR, p.res);
	EXPECT_TRUE(NULL != strstr(p.err, "needs a value"));
	PARSE(&p, "extra");
	EXPECT_EQ(PARSE_ERROR, p.res);
	EXPECT_TRUE(NULL != strstr(p.err, "extra"));
	config_free(&p.cfg);
}

/* Found by fuzzing: the option named is the one at fault. */
TEST(bad_option_inside_a_group)
{
	static const struct { const char *args[3], *says; } t[] = {
		{ { "-vx" }, "unknown option '-x'" },
		{ { "--json", "-vx" }, "unknown option '-x'" },
		{ { "-l", "-:" }, "unknown option '-:'" },
		{ { "-vc" }, "option '-c' needs a value" },
		{ { "-v", "--cpu" }, "option '--cpu' needs a value" },
		{ { "--force_fifo=1" }, "'--force_fifo=1'" },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		const char *const *a = t[i].args;

		if (a[1])
			PARSE(&p, a[0], a[1]);
		else
			PARSE(&p, a[0]);
		EXPECT_EQ(PARSE_ERROR, p.res);
		EXPECT_TRUE(NULL != strstr(p.err, t[i].says))
			TH_LOG("%s %s: '%s'", a[0], a[1] ? a[1] : "", p.err);
	}
}

/* Usage errors name the help of the program as invoked: the stalld link's. */
TEST(usage_errors_name_the_invoked_program)
{
	static const char *const names[][2] = {
		{ "starvd", "see starvd --help" },
		{ "/usr/local/sbin/starvd", "see starvd --help" },
		{ "/usr/bin/stalld", "see stalld --help" },
		{ "stalld", "see stalld --help" },
	};
	static const char *bad[][2] = {
		{ "-x", NULL }, { "-t", NULL }, { "extra", NULL },
	};
	struct parsed p;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		for (j = 0; j < ARRAY_SIZE(bad); j++) {
			parse_as(&p, names[i][0], bad[j]);
			EXPECT_EQ(PARSE_ERROR, p.res);
			EXPECT_TRUE(NULL != strstr(p.err, names[i][1]))
				TH_LOG("%s %s: '%s'", names[i][0], bad[j][0],
				       p.err);
		}
	}
}

/*
 * Found by fuzzing: a parse that stopped inside "-hv" left getopt there,
 * and the next parse went on with the "v" of the old command line.
 */
TEST(parse_again_after_an_early_return)
{
	struct parsed p;

	PARSE(&p, "-hv");
	ASSERT_EQ(PARSE_EXIT, p.res);
	PARSE(&p, "-c", "1");
	ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
	EXPECT_FALSE(p.cfg.verbose);
	EXPECT_FALSE(p.cfg.foreground);
	config_free(&p.cfg);
	PARSE(&p, "-xk");
	ASSERT_EQ(PARSE_ERROR, p.res);
	PARSE(&p, "-f");
	ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
	EXPECT_FALSE(p.cfg.log_kmsg);
	config_free(&p.cfg);
}

/* Found by fuzzing: a refused command line leaves nothing allocated. */
TEST(refused_command_line_frees_its_regexes)
{
	struct parsed p;

	PARSE(&p, "-i", "kworker,ksoftirqd", "-I", "(");
	ASSERT_EQ(PARSE_ERROR, p.res);
	EXPECT_EQ(0, p.cfg.ignore_threads.n);
	EXPECT_TRUE(NULL == p.cfg.ignore_threads.re);
	EXPECT_TRUE(NULL == p.cfg.ignore_processes.re);
	/* An empty list is refused after another one too. */
	PARSE(&p, "-i", "kworker", "-i", ",");
	EXPECT_EQ(PARSE_ERROR, p.res);
	EXPECT_TRUE(NULL != strstr(p.err, "empty item")) TH_LOG("%s", p.err);
}

/* Errors in a list name the option, the item and the list. */
TEST(regex_list_errors_name_option_and_item)
{
	static const struct {
		const char *opt, *arg, *want[3];
	} cases[] = {
		{ "-i", "a,,b", { "-i/--ignore_threads", "empty item", "'a,,b'" } },
		{ "-I", "a,", { "-I/--ignore_processes", "empty item", "'a,'" } },
		{ "-i", "", { "-i/--ignore_threads", "empty item", "''" } },
		{ "-I", "ok,(x", { "-I/--ignore_processes", "'(x'", "'ok,(x'" } },
		{ "--ignore_threads", "[z", { "-i/--ignore_threads", "'[z'", "bad regular expression" } },
	};
	struct parsed p;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		PARSE(&p, cases[i].opt, cases[i].arg);
		EXPECT_EQ(PARSE_ERROR, p.res) TH_LOG("%s", cases[i].arg);
		for (j = 0; j < ARRAY_SIZE(cases[i].want); j++) {
			const char *w = cases[i].want[j];

			EXPECT_TRUE(NULL != strstr(p.err, w))
				TH_LOG("'%s' not in '%s'", w, p.err);
		}
	}
}

/* Invoked as stalld (the link): stalld's names and paths. */
TEST(stalld_personality)
{
	struct parsed p;

	EXPECT_STREQ("stalld", personality("/usr/bin/stalld"));
	EXPECT_STREQ("stalld", personality("stalld"));
	EXPECT_STREQ("starvd", personality("/usr/bin/starvd"));
	EXPECT_STREQ("starvd", personality("/opt/stalld/bin/stalld-x"));
	EXPECT_STREQ("starvd", personality(NULL));
	PARSE(&p, "-l");
	ASSERT_EQ(PARSE_OK, p.res);
	EXPECT_STREQ("/run/starvd", p.cfg.run_dir);
	EXPECT_FALSE(p.cfg.stalld);
	config_free(&p.cfg);
	{
		char *argv[] = { "/usr/bin/stalld", "-l", NULL };

		ASSERT_EQ(PARSE_OK, parse_options(2, argv, NR_CPUS, &p.cfg,
						  p.err, sizeof(p.err)));
		EXPECT_TRUE(p.cfg.stalld);
		EXPECT_STREQ("stalld", p.cfg.name);
		EXPECT_STREQ("/run/stalld", p.cfg.run_dir);
		EXPECT_EQ(20 * NSEC_PER_SEC, p.cfg.threshold_ns);
		config_free(&p.cfg);
	}
}

TEST(rt_throttling_command)
{
	static const struct {
		const char *arg;
		enum rt_throttling_cmd cmd;
	} ok[] = {
		{ "off", RT_CMD_OFF }, { "on", RT_CMD_ON }, { "show", RT_CMD_SHOW },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		PARSE(&p, "--rt-throttling", ok[i].arg);
		ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
		EXPECT_EQ(ok[i].cmd, p.cfg.rt_throttling);
		config_free(&p.cfg);
	}
	PARSE(&p, "--rt-throttling", "maybe");
	EXPECT_EQ(PARSE_ERROR, p.res);
	EXPECT_TRUE(NULL != strstr(p.err, "--rt-throttling")) TH_LOG("%s", p.err);
}

/*
 * glibc's regcomp() copies what a repetition repeats, and takes all the
 * memory for "d+++...". Refused, but not real lists.
 */
TEST(regex_too_complex)
{
	static const char *const bad[] = {
		"d++++++++++++++++++++++++++++++++++++++++++++++++pdk",
		"((a{99}){99}){99}",
		"(a{20001}){20001}",
		"((((((((((((x+)+)+)+)+)+)+)+)+)+)+)+)",
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		PARSE(&p, "-I", bad[i]);
		EXPECT_EQ(PARSE_ERROR, p.res) TH_LOG("%s", bad[i]);
		EXPECT_TRUE(NULL != strstr(p.err, "too complex"))
			TH_LOG("%s: '%s'", bad[i], p.err);
	}
	PARSE(&p, "-i", "kworker/[0-9]+:[0-9]+(H)?,(ksoftirqd|rcuc)/[[:digit:]]{1}[0-9]*",
	      "-I", "(a?){600},x{1999}");
	ASSERT_EQ(PARSE_OK, p.res) TH_LOG("%s", p.err);
	EXPECT_TRUE(regex_list_match(&p.cfg.ignore_threads, "kworker/3:1H"));
	EXPECT_TRUE(regex_list_match(&p.cfg.ignore_threads, "rcuc/12"));
	config_free(&p.cfg);
}

TEST_HARNESS_MAIN
