# The shared-memory ring of the same-host fast path (issue 11,
# docs/shm.md): a small convenience library, linked into its tests and
# benchmark here and into libpvm3 (lib/local.mk, lib/transport/shm.c).
noinst_LTLIBRARIES += lib/transport/libshmring.la
lib_transport_libshmring_la_SOURCES = lib/transport/shm_ring.h \
	lib/transport/shm_layout.h lib/transport/shm_ring.c \
	lib/transport/shm_ring_impl.h lib/transport/shm_ring_wait.c \
	lib/transport/shm_ring_setup.c \
	lib/transport/shm_seg.c
EXTRA_DIST += docs/shm.md

if HAVE_CHECK
SHM_FIXTURE = tests/shm_fixture.c tests/shm_fixture.h
check_PROGRAMS += tests/check_shm_ring tests/check_shm_ring_ends \
	tests/check_shm_ring_put tests/check_shm_ring_keep
TESTS += tests/check_shm_ring tests/check_shm_ring_ends \
	tests/check_shm_ring_put tests/check_shm_ring_keep
tests_check_shm_ring_SOURCES = tests/check_shm_ring.c $(SHM_FIXTURE)
tests_check_shm_ring_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_shm_ring_LDADD = lib/transport/libshmring.la $(CHECK_LIBS)
tests_check_shm_ring_ends_SOURCES = tests/check_shm_ring_ends.c $(SHM_FIXTURE)
tests_check_shm_ring_ends_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_shm_ring_ends_LDADD = lib/transport/libshmring.la $(CHECK_LIBS)
tests_check_shm_ring_put_SOURCES = tests/check_shm_ring_put.c $(SHM_FIXTURE)
tests_check_shm_ring_put_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_shm_ring_put_LDADD = lib/transport/libshmring.la $(CHECK_LIBS)
tests_check_shm_ring_keep_SOURCES = tests/check_shm_ring_keep.c $(SHM_FIXTURE)
tests_check_shm_ring_keep_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_shm_ring_keep_LDADD = lib/transport/libshmring.la $(CHECK_LIBS)
endif

# Two processes ping-ponging over a pair of rings (docs/results/shm_ring.txt).
noinst_PROGRAMS += bench/shm_pingpong
bench_shm_pingpong_SOURCES = bench/shm_pingpong.c
bench_shm_pingpong_LDADD = lib/transport/libshmring.la
