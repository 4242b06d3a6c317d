# The kernel module pvm_cosched (kmod/), built with kbuild when configure
# found kernel headers (--with-kernel-headers=DIR, or the running
# kernel's /lib/modules/`uname -r`/build).  kbuild writes beside its
# sources, so the module is built in a copy under the build directory:
# the source tree may be read-only (distcheck).  Shipped in any case, with
# its dkms.conf.  KMOD_SRC is what kbuild needs beside the uapi
# header; tests/integ/kmod-qemu.sh copies kmod/*.[ch] and Kbuild, and
# debian/copvm-dkms.install lists them too.
KMOD_SRC = kmod/pcs_internal.h kmod/pcs_state.c kmod/pcs_boost.c \
	kmod/pcs_watch.c kmod/pcs_dev.c kmod/pvm_cosched_checks.h \
	kmod/pvm_cosched_bucket.h kmod/Kbuild
KMOD_FILES = $(KMOD_SRC) kmod/uapi/pvm_cosched.h
EXTRA_DIST += $(KMOD_FILES) kmod/dkms.conf kmod/README.md \
	kmod/pcs_user_space.h

if BUILD_KMOD
all-local: kmod/build/pvm_cosched.ko

kmod/build/pvm_cosched.ko: $(KMOD_FILES)
	$(AM_V_at)rm -rf kmod/build && $(MKDIR_P) kmod/build/uapi
	$(AM_V_at)for f in $(KMOD_SRC); do \
		cp $(srcdir)/$$f kmod/build/ || exit 1; \
	done
	$(AM_V_at)cp $(srcdir)/kmod/uapi/pvm_cosched.h kmod/build/uapi/
	$(AM_V_GEN)$(MAKE) -C $(KERNEL_HEADERS) \
		M=$(abs_top_builddir)/kmod/build modules
endif

clean-local: clean-kmod
clean-kmod:
	-rm -rf kmod/build
.PHONY: clean-kmod
