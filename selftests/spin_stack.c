// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A holder for test_stacks, built with frame pointers, without, and
 * stripped (selftests/Makefile): "user" spins in starvd_spin_inner(),
 * called by starvd_spin_outer(); "syscall" spins in read() of /dev/zero
 * from starvd_spin_syscall(); "deep" spins in starvd_spin_inner() below
 * 32 calls of starvd_spin_deep(), 64 KiB of stack, more than starvd
 * copies. Each ends after MAX_S seconds. Built with SPIN_PAD_MIB, it
 * carries that many MiB in a section it never loads.
 *
 * Usage: spin_stack user|syscall|deep MAX_S
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

#ifdef SPIN_PAD_MIB
#define STR(x)	#x
#define XSTR(x)	STR(x)
/* Not allocated (no "a" flag): in the file, never in memory. */
asm(".pushsection .starvd_pad, \"\", %progbits\n"
    ".fill " XSTR(SPIN_PAD_MIB) " * 1024 * 1024, 1, 0\n"
    ".popsection\n");
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The function the report must name: no call in its loop. */
__attribute__((noinline)) unsigned long starvd_spin_inner(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i;
	return sink;
}

__attribute__((noinline)) unsigned long starvd_spin_outer(double end)
{
	unsigned long r = 0;

	while (now() < end)
		r += starvd_spin_inner(100000000UL);
	return r;
}

/* 2 KiB of stack a call, @depth calls deep, then the spin. */
__attribute__((noinline)) unsigned long starvd_spin_deep(int depth,
							 double end)
{
	volatile char pad[2048];
	unsigned long r;

	pad[0] = depth;
	if (depth > 0)
		r = starvd_spin_deep(depth - 1, end);
	else
		r = starvd_spin_outer(end);
	return r + pad[0];
}

/* Nearly all of its time in the kernel, zeroing the buffer. */
__attribute__((noinline)) unsigned long starvd_spin_syscall(double end)
{
	static char buf[8 << 20];
	unsigned long r = 0;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 0;
	memset(buf, 1, sizeof(buf));
	while (now() < end)
		r += read(fd, buf, sizeof(buf));
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	double end;

	if (argc != 3) {
		fprintf(stderr, "usage: %s user|syscall|deep MAX_S\n",
			argv[0]);
		return 2;
	}
	/*
	 * Its code read in now: a page fault that waits for the guests' 9p
	 * root while it holds the CPU would let the victim run.
	 */
	mlockall(MCL_CURRENT);
	end = now() + atof(argv[2]);
	if (!strcmp(argv[1], "syscall"))
		sink = starvd_spin_syscall(end);
	else if (!strcmp(argv[1], "deep"))
		sink = starvd_spin_deep(32, end);
	else
		sink = starvd_spin_outer(end);
	return 0;
}
