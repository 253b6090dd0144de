# SPDX-License-Identifier: GPL-2.0-or-later
#
# Packages, built from a copy of the tree's files (tracked and untracked,
# not ignored: no build outputs) in $(PKG_DIR); included by the top-level
# Makefile.
#   make deb            dpkg-buildpackage -us -uc -b: starvd,
#                       starvd-stalld-compat, starvd-dkms
#   make rpm            rpmbuild -bb starvd.spec: the same three
#   make check-pkg      both, lintian, the payloads compared, the
#                       relations to stalld (scripts/pkg-compare.sh)
#   make check-pkg-vm   the .debs installed with dpkg in the 6.12 guest
#                       (selftests/kmod/guest-pkg.sh; root, qemu)
# check-pkg and check-pkg-vm append a results line to $(RESULTS) when set.

PKG_DIR		:= $(abspath $(O))/pkg
PKG_SRC		:= $(PKG_DIR)/starvd-$(VERSION)
PKG_GUEST	?= 6.12
# On Debian, rpm's database is empty (dpkg holds the build dependencies:
# --nodeps) and there is no find-debuginfo (no debuginfo package).
RPMBUILD_FLAGS	?= $(if $(wildcard /etc/debian_version),--nodeps --define "debug_package %{nil}")

pkg-src:
	@git rev-parse --git-dir >/dev/null 2>&1 || { echo "make deb and make rpm package the files git knows: run them in a git checkout (or run dpkg-buildpackage / rpmbuild yourself)"; exit 1; }
	@rm -rf $(PKG_DIR) && mkdir -p $(PKG_SRC)
	@git ls-files -z --cached --others --exclude-standard | \
		tar --null -T - -cf - | tar -xf - -C $(PKG_SRC)
	@tar -czf $(PKG_DIR)/starvd-$(VERSION).tar.gz -C $(PKG_DIR) starvd-$(VERSION)

deb: pkg-src
	cd $(PKG_SRC) && env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS dpkg-buildpackage -us -uc -b >$(PKG_DIR)/deb.log 2>&1 || \
		{ tail -n 40 $(PKG_DIR)/deb.log; echo "dpkg-buildpackage failed: $(PKG_DIR)/deb.log"; exit 1; }
	@ls $(PKG_DIR)/*.deb

rpm: pkg-src
	cd $(PKG_SRC) && env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS \
		rpmbuild -bb $(RPMBUILD_FLAGS) --define "_topdir $(PKG_DIR)/rpm" \
		--define "_sourcedir $(PKG_DIR)" starvd.spec \
		>$(PKG_DIR)/rpm.log 2>&1 || \
		{ tail -n 40 $(PKG_DIR)/rpm.log; echo "rpmbuild failed: $(PKG_DIR)/rpm.log"; exit 1; }
	@ls $(PKG_DIR)/rpm/RPMS/*/*.rpm

check-pkg: deb rpm
	scripts/pkg-compare.sh $(PKG_DIR)

check-pkg-vm: deb
	scripts/deps-vm.sh
	vm/pkg-guest.sh $(PKG_GUEST) $(PKG_DIR)

.PHONY: pkg-src deb rpm check-pkg check-pkg-vm
