# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by guest-pkg.sh and guest-pkg-systemd.sh, the package guest's
# two halves: the tests both run, and where the scratch root's overlay
# upper layer is seen from inside it.
pkg_tests=22
upper=/run/pkg-upper
