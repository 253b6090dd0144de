// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Holder stacks as text (stack_line(), stack.h): kernel style, a header
 * line, then one frame a line, by names and offsets, never an address.
 */
#include <inttypes.h>
#include <stdio.h>

#include "escape.h"
#include "holder.h"
#include "stack.h"

static void kernel_frame(const struct stack_frame *f, char *buf, size_t len)
{
	char size[32] = "";

	if (!f->symbol[0]) {
		snprintf(buf, len, "  kernel: ? (no symbol covers it)");
		return;
	}
	if (f->size)
		snprintf(size, sizeof(size), "/0x%" PRIx64, f->size);
	snprintf(buf, len, "  kernel: %s+0x%" PRIx64 "%s%s%s%s", f->symbol,
		 f->offset, size, f->module[0] ? " [" : "", f->module,
		 f->module[0] ? "]" : "");
}

static void user_frame(const struct stack_frame *f, char *buf, size_t len)
{
	char id[96] = "", size[32] = "";

	if (f->build_id[0])
		snprintf(id, sizeof(id), "build ID %s, ", f->build_id);
	if (f->symbol[0]) {
		if (f->size)
			snprintf(size, sizeof(size), "/0x%" PRIx64, f->size);
		snprintf(buf, len, "  user: %s+0x%" PRIx64 "%s (%s)", f->symbol,
			 f->offset, size, f->module[0] ? f->module : "?");
	} else if (f->module[0] && f->file_offset != UINT64_MAX) {
		snprintf(buf, len,
			 "  user: file offset 0x%" PRIx64 " of %s (%sno symbol; ELF address 0x%" PRIx64 ")",
			 f->file_offset, f->module, id, f->elf_addr);
	} else if (f->module[0]) {
		snprintf(buf, len, "  user: ? (%s, %sno symbol, in none of its segments)",
			 f->module, id);
	} else {
		snprintf(buf, len, "  user: ? (in no mapped file: anonymous memory, such as JIT code)");
	}
}

/* Line @i of one kind of frames: the frames, then the note if any. */
static bool section_line(const struct stack_frame *f, unsigned int n,
			 const char *note, const char *kind,
			 void (*frame)(const struct stack_frame *, char *,
				       size_t),
			 unsigned int i, char *buf, size_t len)
{
	if (i < n)
		frame(&f[i], buf, len);
	else if (i == n && *note)
		snprintf(buf, len, "  %s stack: %s", kind, note);
	else
		return false;
	return true;
}

bool stack_line(const struct holder_stack *h, unsigned int i, char *buf,
		size_t len)
{
	unsigned int nk = h->nr_kernel + !!h->kernel_note[0];

	if (!i) {
		char who[128];

		format_holder(&h->holder, who, sizeof(who));
		snprintf(buf, len,
			 "holder stack on CPU %d: %s, which kept %s-%u waiting (%u sample(s), %u with this stack)",
			 h->holder.cpu, who, esc_name(h->victim.comm),
			 h->victim.tid, h->nr_samples, h->nr_same);
		return true;
	}
	i--;
	if (section_line(h->kernel, h->nr_kernel, h->kernel_note, "kernel",
			 kernel_frame, i, buf, len))
		return true;
	return section_line(h->user, h->nr_user, h->user_note, "user",
			    user_frame, i - nk, buf, len);
}
