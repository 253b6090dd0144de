/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the CPU went: the stack of the task holding a CPU when a wait on
 * it first crosses the threshold (docs/design.md, "Holder stacks").
 *
 * A capture is a software cpu-clock perf event on the holder's CPU,
 * sampling every millisecond with the kernel's callchain and (unless
 * user stacks are off) a copy of the user stack and registers, the
 * holder's samples kept; after a few it is disabled: nothing samples
 * between episodes.
 * Kernel frames are named from /proc/kallsyms, and not shown where it
 * hides addresses from starvd; user frames are unwound from the copied
 * stack with elfutils' libdwfl (DWARF CFI, .eh_frame) and named from the
 * binaries' symbols, or given as file, build ID and file offset where a
 * binary has none. No frame is shown by its address (struct stack_frame).
 *
 * The sampling and naming run in a thread of their own at SCHED_OTHER
 * (stack.c), never in the main loop; the main thread takes finished
 * stacks when stacks_poll_fd() is readable and logs them itself (the log
 * has one producer). The kernel's symbols are read when the thread
 * starts.
 */
#ifndef STARVD_STACK_H
#define STARVD_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include <starvd/abi.h>

#include "stack_frame.h"

/*
 * <run-dir>/holder-stack.cpuN: the last stack sampled on CPU N, for
 * starvctl stacks: its holder_stack JSON event on the first line, then
 * the lines the log got (escaped). Root's alone, from its creation on: it
 * names other users' binaries and where they ran.
 */
#define STACK_FILE_PREFIX	"holder-stack.cpu"
#define STACK_FILE_MODE		0600

struct holder_stack {
	struct starvd_task holder;
	struct starvd_task victim;	/* the task that starved behind it */
	unsigned int nr_samples;	/* taken */
	unsigned int nr_same;		/* of them with this stack */
	unsigned int nr_kernel, nr_user;
	struct stack_frame kernel[STACK_MAX_FRAMES];
	struct stack_frame user[STACK_MAX_FRAMES];
	/* Why there are no or few frames of a kind, "" if complete. */
	char kernel_note[192];
	char user_note[256];
	/* Said once per daemon, not per stack (the main thread logs it). */
	char once_note[640];
};

/*
 * The capture thread's stack, locked whole (mlockall) like every other:
 * its deepest capture (libdwfl unwinding and naming, the kernel's symbols
 * read) touches about 20 KiB of it, the size of a few of its frames
 * (struct ksym[], the samples) included; the rest is room for what
 * libdw may do with binaries unlike the tests' (decompressing sections).
 */
#define STACKS_THREAD_STACK	(256 * 1024)

struct stacks;

/*
 * Before capabilities are dropped: opens /proc/kallsyms (kept open: its
 * addresses are shown per the opener's CAP_SYSLOG under kptr_restrict).
 * @user: user stacks too. NULL if out of memory.
 */
struct stacks *stacks_open(bool user);
/* Can this build unwind user stacks (libdw, x86_64)? Else none is copied. */
bool stacks_unwind_supported(void);
/* After they are dropped (the thread inherits what is kept); -errno. */
int stacks_start(struct stacks *s);
/* Ask for @holder's stack (once per episode); false if none is taken. */
bool stacks_request(struct stacks *s, const struct starvd_task *holder,
		    const struct starvd_task *victim);
/* Readable when a stack is ready. */
int stacks_poll_fd(const struct stacks *s);
/* A finished stack (free() it), or NULL. */
struct holder_stack *stacks_take(struct stacks *s);
void stacks_close(struct stacks *s);

/*
 * The lines of @h as logged, kernel style: a header, then one frame a
 * line. @i: 0 for the header, then each frame; false after the last.
 */
bool stack_line(const struct holder_stack *h, unsigned int i, char *buf,
		size_t len);

#endif
