#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/kernel-reports.sh FILE...: print the kernel's reports of its own
# faults found in a guest's console or kernel log (vm/guest.sh keeps the
# guest's dmesg next to its console): an oops, a BUG or a WARNING, and
# what the memory checkers vm/check.sh boots the module's guests with
# find (KFENCE, slub_debug: "Redzone overwritten", "Poison overwritten";
# kmemleak where a kernel has it). Only kernel lines count, those with
# printk's timestamp: the tests' own output, which the console carries
# too, may name these words. One warning is the emulator's, not the
# kernel's: qemu's i386 "max" CPU looks to a 32-bit kernel like an AMD K7
# not made for SMP, and booting its second CPU warns so (amd_k7_smp_check(),
# in init_amd()); it is left out. Exit status 1 if there is a report, 2 if
# a file cannot be read, else 0.
[ $# -gt 0 ] || {
	echo "usage: vm/kernel-reports.sh FILE..." >&2
	exit 2
}
st=0
for f in "$@"; do
	if [ ! -r "$f" ]; then
		echo "vm/kernel-reports.sh: cannot read $f" >&2
		exit 2
	fi
	grep -E '^(<[0-9]+>)?\[ *[0-9]+\.[0-9]+\] ' "$f" |
		grep -E '(^|[^A-Za-z_])BUG([^A-Za-z_]|$)|KFENCE:|kmemleak|Redzone|Poison overwritten|WARNING:|Oops' |
		grep -vE 'WARNING: (This combination of AMD processors is not suitable for SMP|CPU: [0-9]+ PID: [0-9]+ at arch/x86/kernel/cpu/amd\.c:[0-9]+ init_amd\+)' |
		sed "s|^|$f: |" | grep . && st=1
done
exit $st
