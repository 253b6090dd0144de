/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Boost journal: one file per boosted task under <run-dir>/boosts, written
 * (fsync'd, atomic rename) before the task's policy changes and removed
 * after the restore, so a daemon that is killed can put every task back
 * on its next start.
 */
#ifndef STARVD_JOURNAL_H
#define STARVD_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched_attr.h"

struct journal_entry {
	pid_t tid;
	uint64_t start_time;	/* /proc/<tid>/stat starttime: identity */
	char comm[16];
	struct sched_attr saved;	/* before the boost */
	struct sched_attr applied;	/* what the boost set */
};

struct journal {
	int dir_fd;
};

/* Create <run_dir>/boosts if needed; -errno on failure. */
int journal_open(struct journal *j, const char *run_dir);
void journal_close(struct journal *j);
int journal_add(struct journal *j, const struct journal_entry *e);
int journal_remove(struct journal *j, pid_t tid);
/* All entries; the caller frees *v. */
int journal_load(struct journal *j, struct journal_entry **v, size_t *n);
/*
 * Recovery, on start-up and with --restore: hand each entry (a boost a
 * killed starvd left) to @restore, then remove it. -errno, having
 * restored nothing, if the journal cannot be read.
 */
int journal_recover(struct journal *j,
		    void (*restore)(const struct journal_entry *e));

/* Serialisation, exposed for the tests. */
int journal_format(const struct journal_entry *e, char *buf, size_t len);
int journal_parse(const char *buf, struct journal_entry *e);

#endif
