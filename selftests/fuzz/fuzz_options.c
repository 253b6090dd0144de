// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's command line: the input is its arguments, one per line
 * (or NUL-separated). Every input is parsed twice, from fresh copies, and
 * must give the same result both times; an accepted configuration must
 * be valid; parse_options() frees what it allocated unless it returns
 * PARSE_OK, when config_free() does.
 */
#include <starvd/abi.h>

#include "fuzz.h"
#include "options.h"

#define NR_CPUS 16

struct outcome {
	enum parse_result res;
	char err[512];
	struct config cfg;
	char pidfile[256], run_dir[256];
};

static void check_config(const struct config *cfg)
{
	int c;

	FUZZ_CHECK(cfg->threshold_ns >= THRESHOLD_MIN_NS &&
		   cfg->threshold_ns <= 3600 * NSEC_PER_SEC);
	FUZZ_CHECK(cfg->boost_duration_ns >= DURATION_MIN_NS &&
		   cfg->boost_duration_ns <= 60 * NSEC_PER_SEC);
	FUZZ_CHECK(cfg->boost_period_ns >= PERIOD_MIN_NS &&
		   cfg->boost_period_ns <= 4 * NSEC_PER_SEC);
	FUZZ_CHECK(!cfg->granularity_ns ||
		   (cfg->granularity_ns >= NSEC_PER_SEC &&
		    cfg->granularity_ns <= 600 * NSEC_PER_SEC));
	FUZZ_CHECK(cfg->boost_runtime_ns >= 8 * NSEC_PER_USEC);
	FUZZ_CHECK(cfg->boost_runtime_ns <= cfg->boost_period_ns);
	FUZZ_CHECK(!cfg->reservation ||
		   (cfg->reservation >= 10 && cfg->reservation <= 90));
	FUZZ_CHECK(cfg->aggressive + cfg->adaptive + cfg->power <= 1);
	FUZZ_CHECK(cfg->backend == BACKEND_AUTO ||
		   cfg->backend == BACKEND_BPF ||
		   cfg->backend == BACKEND_NETLINK);
	FUZZ_CHECK(cfg->bpf_mode <= STARVD_MODE_TRACKING);
	FUZZ_CHECK(!cfg->verbose || cfg->foreground);
	FUZZ_CHECK(cfg->run_dir);
	FUZZ_CHECK(cfg->monitor_all == !cpuset_count(&cfg->cpus));
	FUZZ_CHECK(cfg->have_affinity == !!cpuset_count(&cfg->affinity));
	for (c = NR_CPUS; c < STARVD_MAX_CPUS; c++)
		FUZZ_CHECK(!cpuset_test(&cfg->cpus, c) &&
			   !cpuset_test(&cfg->affinity, c));
	FUZZ_CHECK(cfg->ignore_threads.n >= 0);
	FUZZ_CHECK(cfg->ignore_processes.n >= 0);
	/* Every compiled expression must be usable. */
	regex_list_match(&cfg->ignore_threads, "kworker/0:1");
	regex_list_match(&cfg->ignore_processes, "kworker/0:1");
}

static void parse(const uint8_t *data, size_t size, struct outcome *o)
{
	int argc;
	char **argv = fuzz_argv(data, size, "starvd", &argc);

	memset(o, 0, sizeof(*o));
	o->res = parse_options(argc, argv, NR_CPUS, &o->cfg, o->err,
			       sizeof(o->err));
	FUZZ_CHECK_PARSE(o->res, o->err);
	if (o->res == PARSE_OK) {
		check_config(&o->cfg);
		/* These point into argv, which goes away. */
		snprintf(o->pidfile, sizeof(o->pidfile), "%s",
			 o->cfg.pidfile ? o->cfg.pidfile : "(none)");
		snprintf(o->run_dir, sizeof(o->run_dir), "%s",
			 o->cfg.run_dir);
		config_free(&o->cfg);
		FUZZ_CHECK(!o->cfg.ignore_threads.n &&
			   !o->cfg.ignore_threads.re);
		FUZZ_CHECK(!o->cfg.ignore_processes.n &&
			   !o->cfg.ignore_processes.re);
	}
	o->cfg.pidfile = o->cfg.run_dir = NULL;
	/* Forgotten, as starvd does on errors: anything left there leaks. */
	memset(&o->cfg.ignore_threads, 0, sizeof(o->cfg.ignore_threads));
	memset(&o->cfg.ignore_processes, 0,
	       sizeof(o->cfg.ignore_processes));
	fuzz_argv_free(argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct outcome a, b;

	parse(data, size, &a);
	parse(data, size, &b);
	FUZZ_CHECK(a.res == b.res);
	FUZZ_CHECK(!strcmp(a.err, b.err));
	if (a.res == PARSE_OK) {
		FUZZ_CHECK(!memcmp(&a.cfg, &b.cfg, sizeof(a.cfg)));
		FUZZ_CHECK(!strcmp(a.pidfile, b.pidfile));
		FUZZ_CHECK(!strcmp(a.run_dir, b.run_dir));
	}
	return 0;
}
