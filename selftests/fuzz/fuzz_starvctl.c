// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvctl's command line: the input is its arguments, one per line (or
 * NUL-separated). Parsed twice from fresh copies, with the same result;
 * an accepted command line must be valid.
 */
#include <starvd/abi.h>

#include "fuzz.h"
#include "starvctl_args.h"

#define NR_CPUS 16

struct outcome {
	enum parse_result res;
	char err[512];
	struct ctl c;
	char run_dir[256], output[256], command[256];
};

static void copy_arg(char *buf, size_t len, const char *arg)
{
	snprintf(buf, len, "%s", arg ? arg : "(none)");
}

static void parse(const uint8_t *data, size_t size, struct outcome *o)
{
	int argc, i;
	char **argv = fuzz_argv(data, size, "starvctl", &argc);

	memset(o, 0, sizeof(*o));
	o->res = ctl_parse_args(argc, argv, NR_CPUS, &o->c, o->err,
				sizeof(o->err));
	FUZZ_CHECK_PARSE(o->res, o->err);
	if (o->res == PARSE_OK) {
		FUZZ_CHECK(o->c.cpu >= -1 && o->c.cpu < NR_CPUS);
		FUZZ_CHECK(o->c.backend == BACKEND_AUTO ||
			   o->c.backend == BACKEND_BPF ||
			   o->c.backend == BACKEND_NETLINK ||
			   o->c.backend == BACKEND_NETLINK_OR_BPF);
		FUZZ_CHECK(o->c.bpf_mode <= STARVD_MODE_TRACKING);
		FUZZ_CHECK(o->c.run_dir);
		/* The command is one of the arguments, as given. */
		if (o->c.command) {
			for (i = 1; i < argc; i++)
				if (argv[i] == o->c.command)
					break;
			FUZZ_CHECK(i < argc);
		}
		copy_arg(o->run_dir, sizeof(o->run_dir), o->c.run_dir);
		copy_arg(o->output, sizeof(o->output), o->c.output);
		copy_arg(o->command, sizeof(o->command), o->c.command);
	}
	o->c.run_dir = o->c.output = o->c.command = NULL;
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
		FUZZ_CHECK(a.c.backend == b.c.backend);
		FUZZ_CHECK(a.c.bpf_mode == b.c.bpf_mode);
		FUZZ_CHECK(a.c.json == b.c.json);
		FUZZ_CHECK(a.c.cpu == b.c.cpu);
		FUZZ_CHECK(a.c.min_wait_ns == b.c.min_wait_ns);
		FUZZ_CHECK(!strcmp(a.run_dir, b.run_dir));
		FUZZ_CHECK(!strcmp(a.output, b.output));
		FUZZ_CHECK(!strcmp(a.command, b.command));
	}
	return 0;
}
