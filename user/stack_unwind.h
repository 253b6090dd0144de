/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User frames of a holder stack (stack.h): the stack copied in a sample
 * (stack_sample.h) unwound from its registers with elfutils' libdwfl and
 * the binaries' DWARF CFI (.eh_frame), as eu-stack and perf's
 * unwind-libdw.c do, and each frame named from the binaries' symbols, or
 * given as file, build ID and file offset where a binary has none.
 *
 * It reads the holder's mappings (/proc/PID/maps) and binaries, never
 * its memory: a read outside the copy ends the unwinding, and frame
 * pointers are not needed. A sample needs no perf event: one recorded
 * any other way, with the registers in perf's order, unwinds the same.
 *
 * It unwinds where starvd is built with libdw (LIBDW=1) for x86_64 and
 * libdw.so.1 can be loaded (dlopen(), on the first call of
 * stack_unwind_supported()); elsewhere the functions below do nothing,
 * and no user stack is copied.
 */
#ifndef STARVD_STACK_UNWIND_H
#define STARVD_STACK_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stack_frame.h"
#include "stack_sample.h"

struct stack_unwinder;

/*
 * Does this starvd unwind (built with libdw for x86_64, libdw loaded)?
 * Else the functions do nothing. The first call loads libdw.
 */
bool stack_unwind_supported(void);
/* Why it does not, and what to do, as a user stack's note; "" if it does. */
const char *stack_unwind_why_not(void);
/*
 * The mappings of process @tgid, read once for the samples of its thread
 * @tid; NULL, and why in @note, if they cannot be read (another user's
 * process without CAP_SYS_PTRACE).
 */
struct stack_unwinder *stack_unwinder_open(pid_t tgid, pid_t tid,
					   char *note, size_t len);
/*
 * Unwind @smp's copied stack into smp->user; where it stopped early,
 * smp->user_note says why.
 */
void stack_unwind(struct stack_unwinder *u, struct stack_sample *smp);
/*
 * Name the user frame at @pc into @f; @first: the frame where it ran
 * (the others are return addresses, named by the call before them).
 */
void stack_unwind_name(struct stack_unwinder *u, uint64_t pc, bool first,
		       struct stack_frame *f);
void stack_unwinder_close(struct stack_unwinder *u);

#endif
