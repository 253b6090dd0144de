// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "run_dir.h"
#include "starvctl_args.h"
#include "util.h"
#include "version.h"

const char ctl_options_help[] =
"Options:\n"
"  -c, --cpu N          only CPU N\n"
"  -m, --min-wait S     only waits of at least S seconds (decimals allowed)\n"
"  -j, --json           JSON output\n"
"  -b, --backend NAME   auto (default), bpf or netlink\n"
"      --bpf-mode MODE  auto, sched_info or tracking\n"
"      --run-dir DIR    the daemon's --run-dir (default /run/starvd, or\n"
"                       /run/stalld where only that one exists)\n"
"  -o, --output FILE    metrics: replace FILE atomically instead of stdout\n"
"  -d, --delay S        top: seconds between refreshes (default 1)\n"
"      --once           top: print the table once (also when not a tty)\n"
"  -V, --version, -h, --help\n";

static enum parse_result __attribute__((format(printf, 3, 4)))
usage_error(char *err, size_t len, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	n = strlen(err);
	snprintf(err + n, len - n, " (see starvctl --help)");
	return PARSE_ERROR;
}

static const struct option ctl_options[] = {
	{ "cpu", required_argument, NULL, 'c' },
	{ "min-wait", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "backend", required_argument, NULL, 'b' },
	{ "bpf-mode", required_argument, NULL, 'B' },
	{ "run-dir", required_argument, NULL, 'R' },
	{ "output", required_argument, NULL, 'o' },
	{ "delay", required_argument, NULL, 'd' },
	{ "once", no_argument, NULL, '1' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};
static const char ctl_optstring[] = ":c:m:jb:o:d:Vh";

/* The options that take a value: @arg into @c. */
static enum parse_result parse_value(int opt, const char *arg, int nr_cpus,
				     struct ctl *c, char *err, size_t len)
{
	long v;

	switch (opt) {
	case 'c':
		if (parse_int(arg, 0, nr_cpus - 1, &v)) {
			snprintf(err, len,
				 "--cpu: CPU '%s' does not exist (this machine has CPUs 0-%d)",
				 arg, nr_cpus - 1);
			return PARSE_ERROR;
		}
		c->cpu = v;
		break;
	case 'm':
		if (parse_seconds(arg, &c->min_wait_ns))
			return usage_error(err, len,
					   "--min-wait: '%s' is not a positive number of seconds",
					   arg);
		break;
	case 'b':
		if (parse_backend_name(arg, &c->backend))
			return usage_error(err, len, "--backend: "
					   BACKEND_NAMES_HELP, arg);
		break;
	case 'B':
		if (parse_bpf_mode_name(arg, &c->bpf_mode))
			return usage_error(err, len, "--bpf-mode: "
					   BPF_MODE_NAMES_HELP, arg);
		break;
	case 'R':
		c->run_dir = arg;
		break;
	case 'o':
		c->output = arg;
		break;
	case 'd':
		if (parse_seconds(arg, &c->delay_ns) ||
		    c->delay_ns < NSEC_PER_SEC / 10)
			return usage_error(err, len,
					   "--delay: '%s' is not a number of seconds of at least 0.1",
					   arg);
		break;
	}
	return PARSE_OK;
}

/* One option, as getopt_long() returned it. */
static enum parse_result parse_option(int opt, char **argv, int nr_cpus,
				      struct ctl *c, char *err, size_t len)
{
	const char *what;
	char name[4];

	switch (opt) {
	case 'j':
		c->json = true;
		return PARSE_OK;
	case '1':
		c->once = true;
		return PARSE_OK;
	case 'V':
		printf("starvctl %s\n", STARVD_VERSION);
		return PARSE_EXIT;
	case 'h':
		c->help = true;
		return PARSE_EXIT;
	case ':':
		what = getopt_bad_option(opt, argv, ctl_optstring, name,
					 sizeof(name));
		return usage_error(err, len, "option '%s' needs a value",
				   what);
	case 'c':
	case 'm':
	case 'b':
	case 'B':
	case 'R':
	case 'o':
	case 'd':
		return parse_value(opt, optarg, nr_cpus, c, err, len);
	default:
		what = getopt_bad_option(opt, argv, ctl_optstring, name,
					 sizeof(name));
		return usage_error(err, len, "unknown option '%s'", what);
	}
}

/*
 * The run directory of the daemon on this machine, without --run-dir:
 * RUN_DIR_STALLD where only that one exists (starvd runs as stalld, as
 * from the compat package), RUN_DIR_STARVD otherwise.
 */
static const char *default_run_dir(void)
{
	struct stat st;

	if (lstat(RUN_DIR_STARVD, &st) && errno == ENOENT &&
	    !lstat(RUN_DIR_STALLD, &st) && S_ISDIR(st.st_mode))
		return RUN_DIR_STALLD;
	return RUN_DIR_STARVD;
}

enum parse_result ctl_parse_args(int argc, char **argv, int nr_cpus,
				 struct ctl *c, char *err, size_t len)
{
	enum parse_result ret;
	int opt;

	*c = (struct ctl) { .cpu = -1, .run_dir = default_run_dir(),
			  .delay_ns = NSEC_PER_SEC };
	optind = 0;	/* 0: see parse_options() */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ctl_optstring, ctl_options,
				  NULL)) != -1) {
		ret = parse_option(opt, argv, nr_cpus, c, err, len);
		if (ret != PARSE_OK)
			return ret;
	}
	if (optind == argc - 1)
		c->command = argv[optind];
	return PARSE_OK;
}
