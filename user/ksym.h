/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel addresses to function names, from /proc/kallsyms, for the
 * kernel frames of holder stacks (stack.c).
 *
 * The text symbols of the kernel and of its loaded modules are read once
 * into a sorted table and read again only when /proc/modules changes:
 * a pass over /proc/kallsyms costs tens of milliseconds on hardware and
 * seconds in an emulated guest, too much for each stack. Addresses the
 * table cannot vouch for (code made after it was read: BPF programs,
 * ftrace and kprobe trampolines; a module's last function, whose end is
 * not known) are named by a pass over the file, as perf and
 * libbpf-tools' ksyms__load() do once.
 */
#ifndef STARVD_KSYM_H
#define STARVD_KSYM_H

#include <stdbool.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;		/* in: the address to name */
	uint64_t start;		/* out: of the text symbol at or below it */
	uint64_t size;		/* out: up to the next symbol; 0: unknown */
	char name[128];		/* out: "" if none */
	char module[64];	/* out: "" for the kernel itself */
};

struct ksyms;

/*
 * @kallsyms_fd, @modules_fd: /proc/kallsyms and /proc/modules (or files
 * in their format), opened with the capabilities whose view of addresses
 * is wanted (kptr_restrict); @modules_fd may be -1 (no modules). Taken
 * over: ksyms_close() closes them. NULL if out of memory.
 */
struct ksyms *ksyms_open(int kallsyms_fd, int modules_fd);
/*
 * Name the @n addresses of @w. 0; -ENODATA if the file gives no
 * addresses (kptr_restrict for the opener); -EBADF if it was not open;
 * -ENOMEM. A long read ends early, with names missing, once *@stop is
 * true. Not thread-safe: one caller at a time.
 */
int ksyms_name(struct ksyms *k, struct ksym *w, unsigned int n,
	       const bool *stop);
/*
 * Why the table could not be read at the last try (-errno), or 0: until
 * it can, each call to ksyms_name() costs a pass over the file.
 */
int ksyms_table_error(const struct ksyms *k);
/* Bytes held by the table, for the log; 0 before the first read. */
size_t ksyms_bytes(const struct ksyms *k);
void ksyms_close(struct ksyms *k);

#endif
