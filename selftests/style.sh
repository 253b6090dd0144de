#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CHECKPATCH=PATH style.sh: the kernel's checkpatch.pl over the code that
# follows the kernel coding style (kmod/, bpf/ and the shared ABI header;
# not include/starvd/starvd.h, the kernel's ynl-gen-c.py writes it),
# one KTAP test per file. The script comes from Debian's linux-source
# package (selftests/Makefile extracts it). Anything it reports fails,
# --strict CHECKs too: on whole files (-f) it reports lines longer than 80
# columns only as CHECKs.
set -u
checkpatch=${CHECKPATCH:?set CHECKPATCH to the path of checkpatch.pl}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

files=()
for f in kmod/*.[ch] bpf/*.[ch] include/starvd/abi.h; do
	case $f in
	*.mod.c) ;;	# kbuild's, after make kmod
	*) files+=("$f") ;;
	esac
done
echo "TAP version 13"
echo "1..${#files[@]}"
pass=0 fail=0 n=0
for f in "${files[@]}"; do
	n=$((n + 1))
	# BPF programs: load-time settings are "const volatile" globals
	# (.rodata the loader sets before the load, as libbpf documents),
	# and kernel variables are "extern ... __ksym" declarations.
	ignore=
	case $f in *.bpf.c) ignore=--ignore=VOLATILE,AVOID_EXTERNS ;; esac
	out=$(perl "$checkpatch" --no-tree --strict --max-line-length=80 --terse \
		--show-types --no-summary $ignore -f "$f" 2>&1)
	[ -z "$out" ] || sed 's/^/# /' <<<"$out"
	if [ -z "$out" ]; then
		echo "ok $n checkpatch $f"
		pass=$((pass + 1))
	else
		echo "not ok $n checkpatch $f"
		fail=$((fail + 1))
	fi
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ $fail = 0 ]
