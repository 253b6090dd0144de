#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make run: the daemon in the foreground, verbose, BPF backend. starvd turns
# RT throttling off while it runs and puts it back when it stops, as stalld
# does (after a crash: starvd --restore). Extra arguments: ARGS="-t 5".
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "make run: run as root (starvd loads BPF programs and changes scheduling policies)" >&2; exit 1; }
echo "== user/starvd -v -b bpf $* (Ctrl-C stops it and restores what it boosted and RT throttling)"
exec user/starvd -v -b bpf "$@"
