#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/kernel-reports.sh against logs with one report each injected into a
# clean console, and against the tests' own output naming the same words
# and the emulated CPU's warning, which it must leave alone. KTAP, for
# selftests/run.sh unit.
here=$(cd "$(dirname "$0")" && pwd)
scan=$here/../../vm/kernel-reports.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n=0
fail=0

ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		fail=$((fail + 1))
		echo "not ok $n $2"
	fi
}

cat >"$dir/clean" <<'LOG'
[    0.000000] Linux version 6.1.0-41-amd64 (debian-kernel@lists.debian.org)
[    0.000000] Command line: console=ttyS0 quiet loglevel=3 slub_debug=FZPU kfence.sample_interval=10
[    0.912345] kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)-0x(____ptrval____)
[    1.234567] DEBUG_BUGVERBOSE is set; CONFIG_BUG_ON_DATA_CORRUPTION too
[   12.000000] starvd: unknown parameter 'unprivileged' ignored
[    0.000000] WARNING: This combination of AMD processors is not suitable for SMP.
[    0.000000] WARNING: CPU: 1 PID: 0 at arch/x86/kernel/cpu/amd.c:355 init_amd+0x9da/0xa50
ok 4 - no kernel WARNING: or BUG: or Oops in dmesg
# KFENCE: and Redzone are what the guest checks for
not ok 5 - Poison overwritten (test output, no timestamp)
STARVD-VM-RC=0
LOG
"$scan" "$dir/clean" >"$dir/out"
st=$?
[ $st = 0 ] && [ ! -s "$dir/out" ]
ok $? "a clean console: exit 0, nothing printed (got $st)"

for line in \
	'[   33.123456] BUG: unable to handle page fault for address: ffffc90000a3e000' \
	'[   33.123456] BUG kmalloc-2k (Not tainted): Redzone overwritten' \
	'[   33.123456] BUG kmalloc-64 (Tainted: G           O): Poison overwritten' \
	'[   33.123456] BUG: KFENCE: out-of-bounds read in starvd_tasks_dump+0x8f/0x1b0 [starvd]' \
	'[   33.123456] KFENCE: use-after-free read in starvd_cpus_dump' \
	'[   33.123456] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)' \
	'[   33.123456] WARNING: CPU: 1 PID: 231 at kernel/rcu/tree.c:1234 rcu_note_context_switch+0x3e/0x4f0' \
	'[    0.000000] WARNING: CPU: 1 PID: 0 at arch/x86/kernel/cpu/amd.c:612 early_init_amd+0x20/0x30' \
	'[   33.123456] Oops: 0000 [#1] PREEMPT SMP NOPTI' \
	'<4>[   33.123456] Redzone  ffff888004c1e800: cc cc cc cc cc cc cc cc'; do
	{ head -n 3 "$dir/clean"; echo "$line"; tail -n +4 "$dir/clean"; } >"$dir/bad"
	"$scan" "$dir/clean" "$dir/bad" >"$dir/out"
	st=$?
	[ $st = 1 ] && [ "$(cat "$dir/out")" = "$dir/bad: $line" ]
	ok $? "found and printed alone, exit 1 (got $st): $line"
done

"$scan" "$dir/none" >"$dir/out" 2>&1
st=$?
[ $st = 2 ] && grep -q "cannot read $dir/none" "$dir/out"
ok $? "a missing file: exit 2, saying which (got $st)"

echo "1..$n"
echo "# Totals: pass:$((n - fail)) fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ $fail = 0 ]
