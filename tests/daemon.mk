# Unit tests of the wire format, the codec and pvmd.  The pvmd tests talk
# to a private daemon over its socket with common/ only (no libpvm3).
if HAVE_CHECK
check_PROGRAMS += tests/check_codec tests/check_pvmd tests/check_pvmd_mbox
TESTS += tests/check_codec tests/check_pvmd tests/check_pvmd_mbox

tests_check_codec_SOURCES = tests/check_codec.c
tests_check_codec_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_codec_LDADD = common/libcommon.la $(CHECK_LIBS)

PVMD_TEST_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPVMD_PATH='"$(abs_top_builddir)/daemon/pvmd"'
PVMD_TEST_SOURCES = tests/pvmd_fixture.c tests/pvmd_fixture.h

tests_check_pvmd_SOURCES = tests/check_pvmd.c $(PVMD_TEST_SOURCES)
tests_check_pvmd_CPPFLAGS = $(PVMD_TEST_CPPFLAGS)
tests_check_pvmd_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_pvmd_LDADD = common/libcommon.la $(CHECK_LIBS)
EXTRA_tests_check_pvmd_DEPENDENCIES = daemon/pvmd

tests_check_pvmd_mbox_SOURCES = tests/check_pvmd_mbox.c $(PVMD_TEST_SOURCES)
tests_check_pvmd_mbox_CPPFLAGS = $(PVMD_TEST_CPPFLAGS)
tests_check_pvmd_mbox_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_pvmd_mbox_LDADD = common/libcommon.la $(CHECK_LIBS)
EXTRA_tests_check_pvmd_mbox_DEPENDENCIES = daemon/pvmd

# The task table alone (daemon/tasktab.c): a leaf, it links with the
# daemon's state and log only.
check_PROGRAMS += tests/check_pvmd_tasktab
TESTS += tests/check_pvmd_tasktab
tests_check_pvmd_tasktab_SOURCES = tests/check_pvmd_tasktab.c \
	daemon/tasktab.c daemon/state.c daemon/log.c
tests_check_pvmd_tasktab_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_check_pvmd_tasktab_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_pvmd_tasktab_LDADD = common/libcommon.la $(CHECK_LIBS)

# The daemon's batched writes through io_uring (daemon/ring.c), alone.
if HAVE_LIBURING
check_PROGRAMS += tests/check_pvmd_ring
TESTS += tests/check_pvmd_ring
tests_check_pvmd_ring_SOURCES = tests/check_pvmd_ring.c daemon/ring.c
tests_check_pvmd_ring_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_check_pvmd_ring_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_pvmd_ring_LDADD = common/libcommon.la $(LIBURING_LIBS) $(CHECK_LIBS)
endif
endif

