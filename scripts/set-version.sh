#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# set-version.sh NEW: make NEW (MAJOR.MINOR.PATCH) the version. VERSION is
# where it is defined; the files that cannot read it (the module's Kbuild
# and dkms.conf, which DKMS reads alone; the packages' changelogs; the man
# pages; the fallback in user/version.h; commands in the documents) are
# rewritten here, and make check's unit-version test checks they agree.
# Add the packages' changelog entries for NEW yourself (dch, rpmdev-bumpspec):
# their version is that of their newest entry.
set -eu
new=${1:?usage: set-version.sh MAJOR.MINOR.PATCH}
[[ $new =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "set-version.sh: '$new' is not MAJOR.MINOR.PATCH" >&2; exit 2; }
cd "$(dirname "$0")/.."
old=$(cat VERSION)
echo "$new" > VERSION
sed -i "s/^#define STARVD_VERSION \"$old\"/#define STARVD_VERSION \"$new\"/" user/version.h
sed -i "s/^STARVD_MOD_VERSION := $old\$/STARVD_MOD_VERSION := $new/" kmod/Kbuild
sed -i -e "s/^PACKAGE_VERSION=\"$old\"/PACKAGE_VERSION=\"$new\"/" \
	-e "s#starvd/$old#starvd/$new#g" dkms.conf
sed -i "s/\"starvd $old\"/\"starvd $new\"/" man/starvd.8 man/starvctl.8
sed -i "s/^Version:\([[:space:]]*\)$old\$/Version:\1$new/" starvd.spec
git ls-files -z '*.md' | xargs -0 -r sed -i -E "s#(starvd(-dkms)?[/_-])$old\\b#\\1$new#g"
echo "version $old -> $new; now add debian/changelog and starvd.spec %changelog entries for $new"
