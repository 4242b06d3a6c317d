# group: dynamic process groups (docs/groups.md).
#
# libgpvm3: the group calls, a client of libpvm3's public API; its exports
# are listed in group/libgpvm3.map (every symbol Debian's libgpvm3.so.3
# exports).  pvmgs: the group server the library starts on first use.
lib_LTLIBRARIES += group/libgpvm3.la
group_libgpvm3_la_SOURCES = \
	group/gs_proto.h \
	group/gpvmi.h \
	group/client.c \
	group/groups.c \
	group/collective.c
# Hidden by default, on top of the version script: GPVMI_EXPORT
# (group/gpvmi.h) marks what is exported.
group_libgpvm3_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
group_libgpvm3_la_LIBADD = lib/libpvm3.la
group_libgpvm3_la_LDFLAGS = -version-info 3:6:0 \
	-Wl,--version-script=$(top_srcdir)/group/libgpvm3.map
EXTRA_group_libgpvm3_la_DEPENDENCIES = group/libgpvm3.map
EXTRA_DIST += group/libgpvm3.map

bin_PROGRAMS += group/pvmgs
group_pvmgs_SOURCES = group/pvmgs.c group/gs_db.c group/gs.h \
	group/gs_proto.h
group_pvmgs_LDADD = lib/libpvm3.la

# As stock installs it, the server is also found by name through the
# daemon's default spawn path, $PVM_ROOT/bin/$PVM_ARCH (PVM_ROOT defaults
# to $(pkglibdir)), and as $PVM_ROOT/lib/pvmgs.
install-exec-hook: group-install-links
uninstall-hook: group-uninstall-links
group-install-links:
	$(MKDIR_P) '$(DESTDIR)$(pkglibdir)/bin/LINUX64' '$(DESTDIR)$(pkglibdir)/lib'
	ln -sf '$(bindir)/pvmgs' '$(DESTDIR)$(pkglibdir)/bin/LINUX64/pvmgs'
	ln -sf '$(bindir)/pvmgs' '$(DESTDIR)$(pkglibdir)/lib/pvmgs'
group-uninstall-links:
	rm -f '$(DESTDIR)$(pkglibdir)/bin/LINUX64/pvmgs' \
		'$(DESTDIR)$(pkglibdir)/lib/pvmgs'
.PHONY: group-install-links group-uninstall-links

# barrier_bench: pvm_barrier timing for 2, 4 and 8 tasks (run by
# bench/bench-barrier.sh; the same source builds against stock).
# -no-install: a real executable the daemon can spawn by name.
noinst_PROGRAMS += group/barrier_bench
group_barrier_bench_SOURCES = group/barrier_bench.c
group_barrier_bench_LDADD = group/libgpvm3.la lib/libpvm3.la
group_barrier_bench_LDFLAGS = -no-install
