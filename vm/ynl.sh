#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/ynl.sh: extract the kernel's ynl CLI (tools/net/ynl) and netlink spec
# schemas (Documentation/netlink) from Debian's linux-source-6.12 into the
# cache, once; prints the directory of cli.py.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dst=$STARVD_CACHE/src
if [ ! -f "$dst/linux-source-6.12/tools/net/ynl/cli.py" ] ||
   [ ! -f "$dst/linux-source-6.12/Documentation/netlink/genetlink.yaml" ]; then
	src=/usr/src/linux-source-6.12.tar.xz
	[ -f "$src" ] || die "$src missing: run scripts/deps-vm.sh (installs linux-source-6.12)"
	echo "ynl: extracting tools/net/ynl and Documentation/netlink from $src" >&2
	mkdir -p "$dst"
	tar -xJf "$src" -C "$dst" --wildcards \
		'linux-source-6.12/tools/net/ynl/*' \
		'linux-source-6.12/Documentation/netlink/*'
fi
echo "$dst/linux-source-6.12/tools/net/ynl"
