/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The starvation episodes starvd has seen, kept across restarts for
 * starvctl advise: <run-dir>/episodes, one line per starving report, the
 * JSON of its event (event.h) with "unix_time" (seconds) in front. An
 * episode is one wait of one task (its tid and wait_start_ns); its
 * repeated reports are read as one. Bounded: once the file passes
 * EPISODES_MAX_BYTES it becomes episodes.old (one generation kept), so
 * the two hold at most twice that. Mode 0600, as the run directory's
 * other files, and read back only as they are (run_dir.h).
 */
#ifndef STARVD_EPISODES_H
#define STARVD_EPISODES_H

#include <stdbool.h>
#include <stddef.h>

#define EPISODES_FILE		"episodes"
#define EPISODES_OLD		"episodes.old"
#define EPISODES_MAX_BYTES	(256 * 1024)

struct episodes {
	int fd;			/* -1: not kept (closed, or writes fail) */
	size_t size;
	char path[4096], old[4096];
};

/* Append to @run_dir's episodes file; -errno with @err saying why. */
int episodes_open(struct episodes *e, const char *run_dir, char *err,
		  size_t len);
/*
 * Add the JSON object @json (one line, no newline) of a starving event;
 * 0 or -errno (the caller says so once).
 */
int episodes_add(struct episodes *e, long long unix_time, const char *json);
void episodes_close(struct episodes *e);
/*
 * Call @fn for each line of episodes.old, then episodes, of @run_dir
 * (checked as run-directory files): 0, or -errno with @err; a missing
 * file has no lines. @fn returning non-zero stops the walk.
 */
int episodes_each(const char *run_dir, int (*fn)(const char *line, void *arg),
		  void *arg, char *err, size_t len);

#endif
