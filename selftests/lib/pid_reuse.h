/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tid reused on purpose: a new process given the number of a task that
 * exited and was reaped, by clone3() with set_tid (5.5; CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE over the pid namespace: root's). The kernel
 * hands out pids cyclically, so a freed one stays free long enough: the
 * new process has it or clone3() says why. A thread's number is freed
 * just after its process can be reaped (release_task() frees the pids
 * once it has dropped tasklist_lock): EEXIST is tried again, for a while.
 */
#ifndef STARVD_TEST_PID_REUSE_H
#define STARVD_TEST_PID_REUSE_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sched_attr.h"

#ifndef SYS_clone3
#define SYS_clone3	435
#endif

/* CLONE_ARGS_SIZE_VER1 of <linux/sched.h>, which clashes with <sched.h>. */
struct reuse_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size;
};

#define REUSE_TRIES	1000	/* 1 ms apart */

/*
 * A child of the caller with pid @pid, at @attr, asleep until it is killed
 * (or its parent dies): its pid once it has @attr, or -errno.
 */
static inline pid_t child_with_pid_once(pid_t pid,
					const struct sched_attr *attr)
{
	struct reuse_clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uintptr_t)&pid,
		.set_tid_size = 1,
	};
	int ready[2], err;
	long child;
	char c = 0;

	if (pipe(ready))
		return -errno;
	child = syscall(SYS_clone3, &args, sizeof(args));
	if (child == 0) {
		/* Raw system calls only: no fork handlers ran. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		c = sched_setattr_tid(0, attr) ? 'e' : 'r';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	err = errno;
	close(ready[1]);
	if (child > 0 && (read(ready[0], &c, 1) != 1 || c != 'r')) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
		err = EIO;
	}
	close(ready[0]);
	return child > 0 ? child : -err;
}

static inline pid_t child_with_pid(pid_t pid, const struct sched_attr *attr)
{
	pid_t child = child_with_pid_once(pid, attr);
	int i;

	for (i = 0; i < REUSE_TRIES && child == -EEXIST; i++) {
		usleep(1000);
		child = child_with_pid_once(pid, attr);
	}
	return child;
}

#endif
