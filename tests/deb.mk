# Installing copvm and building programs against it: the Debian packages
# (debian/, docs/install.md), `make install', the compiler wrappers.
#
# deb-package.sh builds the packages from a distribution tree with
# dpkg-buildpackage, installs copvm beside Debian's pvm packages, runs
# pvm-examples' master1 on copvm through copvm-run, rebuilds examples
# against copvm-dev through pkg-config and copvm-cc/copvm-f77 and runs
# them alone as an ordinary user (relink-lib.sh), and purges copvm,
# checking that nothing is left.  A package build takes minutes: it runs
# only with COPVM_TEST_DEB=1, as root, with dpkg-buildpackage installed
# (exit 77 otherwise).
TESTS += tests/integ/deb-package.sh

# install-prefix.sh: a `make install' into a temporary prefix (configured
# and built from a distribution tree) serves programs rebuilt through its
# pkg-config files and copvm-cc/copvm-f77 like the packages (relink-lib.sh).
# Root only, with COPVM_TEST_INSTALL=1 or COPVM_TEST_DEB=1.
TESTS += tests/integ/install-prefix.sh
EXTRA_DIST += tests/integ/install-prefix.sh
EXTRA_DIST += tests/integ/deb-package.sh tests/integ/relink-lib.sh \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/copvm.install debian/copvm.links \
	debian/copvm-dev.install debian/copvm-dev.links \
	debian/copvm-dkms.install debian/copvm.prerm \
	debian/copvm-dkms.postinst debian/copvm-dkms.prerm \
	debian/modules-load/pvm_cosched.conf \
	debian/copvm-dkms.dkms docs/install.md

# compiler-wrappers.sh: copvm-cc and copvm-f77 of the build tree, with a
# stand-in compiler: arguments passed unchanged, copvm's flags around
# them, no libraries when not linking, the --showme options.  Needs
# nothing installed; a second or so.
TESTS += tests/integ/compiler-wrappers.sh
EXTRA_DIST += tests/integ/compiler-wrappers.sh
