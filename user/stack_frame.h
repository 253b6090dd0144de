/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A frame of a holder stack as it is shown (stack.h): by name, or by
 * file and offset, never by its address, which would give whoever reads
 * the log the kernel's KASLR base or the holder's ASLR layout. What the
 * sampler (stack_sample.h) and the unwinder (stack_unwind.h) fill, and
 * stack_line() renders.
 */
#ifndef STARVD_STACK_FRAME_H
#define STARVD_STACK_FRAME_H

#include <stdint.h>

#define STACK_MAX_FRAMES	24	/* kernel and user, each */

/* The first frame is where it ran, the others return addresses. */
struct stack_frame {
	uint64_t offset;	/* from the symbol's start */
	uint64_t size;		/* the symbol's, 0: unknown */
	/* User frames: where the frame is in its file, for eu-addr2line. */
	uint64_t elf_addr;	/* address in the ELF file's own layout */
	uint64_t file_offset;	/* offset in the file, ~0: not in a segment */
	char symbol[128];	/* "": none known */
	char module[160];	/* kernel: module ("": vmlinux); user: file */
	char build_id[64];	/* user: hex, "": none */
};

#endif
