/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run directory (--run-dir) and what starvd reads back from it: each
 * journal entry becomes a sched_setattr() as root, rt_runtime_us.saved a
 * write to kernel.sched_rt_runtime_us. So only starvd's own user may have
 * written any of it (docs/security.md, "The run directory"):
 *
 * - the run directory and boosts/ are owned by starvd's uid and writable
 *   by no one else;
 * - every directory on the way to them is owned by root or starvd's uid,
 *   and writable by no one else unless sticky (as /tmp): nobody else can
 *   rename it away or put another in its place;
 * - each file read back is a regular file (not a symbolic link) owned by
 *   starvd's uid and writable by no one else.
 *
 * Each check is made by fstat() on a descriptor opened with O_NOFOLLOW,
 * and the walk goes from "/" by openat(): a path swapped meanwhile is
 * refused, never followed. Symbolic links on the way to the run directory
 * (/var/run) are followed, their targets' directories checked in turn; the
 * run directory itself must not be one.
 *
 * Each function returns 0 (or a descriptor) or -errno, with @err saying
 * what is wrong, with the path, owner and mode, and what to do.
 */
#ifndef STARVD_RUN_DIR_H
#define STARVD_RUN_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* The default run directories: starvd's, and its own under the stalld name. */
#define RUN_DIR_STARVD	"/run/starvd"
#define RUN_DIR_STALLD	"/run/stalld"

/*
 * The files of a run directory besides boosts/ (journal.h): the RT
 * runtime found at start-up (throttle.h) and the HRTICK_DL feature's
 * journal (hrtick.h).
 */
#define RT_SAVED_FILE	"rt_runtime_us.saved"
#define HRTICK_JOURNAL	"hrtick_dl"

/*
 * An O_DIRECTORY descriptor of the run directory @path, created (mode
 * 0700, each missing component too) if @create; -ENOENT if it does not
 * exist and !@create.
 */
int run_dir_open(const char *path, bool create, char *err, size_t len);

/*
 * Open the file @name of the directory @dir_fd (shown as @dir) for
 * reading, checked; -ENOENT if there is none.
 */
int run_file_open(int dir_fd, const char *dir, const char *name, char *err,
		  size_t len);

/*
 * Check the existing file @path, not followed if a symbolic link (and so
 * refused), or the one open as @fd (opened with O_NOFOLLOW).
 */
int run_file_check(const char *path, char *err, size_t len);
int run_file_check_fd(int fd, const char *path, char *err, size_t len);

/*
 * Everything starvd reads back from @path before it acts on any of it:
 * the run directory (created if missing), boosts/ (created too), each
 * journal entry, rt_runtime_us.saved and the HRTICK_DL journal.
 */
int run_dir_check(const char *path, char *err, size_t len);

#endif
