// SPDX-License-Identifier: GPL-2.0-or-later
/* starvd's one-shot modes (oneshot.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boost_restore.h"
#include "journal.h"
#include "log.h"
#include "oneshot.h"
#include "proc.h"
#include "run_dir.h"
#include "throttle.h"

int oneshot_rt_throttling(struct config *cfg)
{
	int status = rt_throttling_command(cfg);

	config_free(cfg);
	return status;
}

int run_files_check(const struct config *cfg)
{
	char err[4096];
	int ret;

	if (cfg->pidfile && !cfg->restore_only) {
		ret = run_file_check(cfg->pidfile, err, sizeof(err));
		if (ret && ret != -ENOENT) {
			log_err("-P/--pidfile: %s", err);
			return ret;
		}
	}
	if (cfg->log_only && !cfg->restore_only)
		return 0;
	ret = run_dir_check(cfg->run_dir, err, sizeof(err));
	if (ret)
		log_err("%s", err);
	return ret;
}

int pid_ns_check(const struct config *cfg)
{
	unsigned long ino = 0;
	int ret = proc_in_initial_pid_ns(&ino);

	if (ret == 1)
		return 0;
	if (ret < 0)
		log_err("cannot tell which pid namespace %s runs in: /proc/self/ns/pid: %s. Mount /proc (the host's pid namespace's).",
			cfg->name, strerror(-ret));
	else
		log_err("%s runs in a pid namespace of its own (pid:[%lu]), not the host's: the kernel names the tasks it reports by their ids in the host's namespace, which here name other tasks or none, so %s could neither see nor boost the right ones. Run it in the host's pid namespace (a container: --pid=host; Kubernetes: hostPID: true).",
			cfg->name, ino, cfg->name);
	return -1;
}

int oneshot_restore(struct config *cfg)
{
	struct journal journal;
	int ret = pid_ns_check(cfg) ?: run_files_check(cfg);

	if (ret) {
		config_free(cfg);
		return EXIT_FAILURE;
	}
	ret = journal_open(&journal, cfg->run_dir);
	if (ret) {
		log_err("cannot open the boost journal in %s/boosts: %s",
			cfg->run_dir, strerror(-ret));
		config_free(cfg);
		return EXIT_FAILURE;
	}
	boost_recover(&journal, cfg->run_dir);
	journal_close(&journal);
	/* RT throttling as a killed starvd found it (no-op if none). */
	ret = rt_throttling_restore(cfg->run_dir, RT_SAVED_ONLY);
	config_free(cfg);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
