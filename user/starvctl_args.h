/* SPDX-License-Identifier: GPL-2.0-or-later */
/* starvctl's command line, apart from main() so that it can be tested. */
#ifndef STARVD_STARVCTL_ARGS_H
#define STARVD_STARVCTL_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

struct ctl {
	enum backend_kind backend;
	unsigned int bpf_mode;
	bool json;
	int cpu;		/* -1: all */
	uint64_t min_wait_ns;
	const char *run_dir;	/* the daemon's, for status and metrics */
	const char *output;	/* metrics: file to replace atomically */
	uint64_t delay_ns;	/* top: between refreshes */
	bool once;		/* top: print the table once */
	const char *command;	/* the one operand; NULL: none or several */
	bool help;		/* --help: the caller prints the usage */
};

/* The options' part of starvctl --help, after the commands'. */
extern const char ctl_options_help[];

/*
 * Parse starvctl's command line into @c (defaults first). @nr_cpus is the
 * number of possible CPUs, for --cpu. The command itself is not checked.
 * Never exits and never prints except for --version on stdout; --help
 * sets c->help and returns PARSE_EXIT, for the caller to print the usage
 * (the commands are its own). PARSE_ERROR with the message in @err.
 */
enum parse_result ctl_parse_args(int argc, char **argv, int nr_cpus,
				 struct ctl *c, char *err, size_t errlen);

#endif
