# Library tests that run against a private pvmd (tests/vm_fixture.c).
if HAVE_CHECK
VM_TEST_CPPFLAGS = $(AM_CPPFLAGS) -DPVMD_PATH='"$(abs_top_builddir)/daemon/pvmd"' \
	-DTASK_CHILD='"$(abs_top_builddir)/tests/task_child"'
VM_TEST_LDADD = lib/libpvm3.la $(CHECK_LIBS)
check_PROGRAMS += tests/task_child tests/check_recv tests/check_conn \
	tests/check_control tests/check_mbox tests/check_getfds
TESTS += tests/check_recv tests/check_conn tests/check_control tests/check_mbox \
	tests/check_getfds
tests_task_child_LDADD = lib/libpvm3.la
tests_task_child_LDFLAGS = -no-install
tests_check_recv_SOURCES = tests/check_recv.c tests/vm_fixture.c tests/vm_fixture.h
tests_check_recv_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_recv_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_recv_LDADD = $(VM_TEST_LDADD)
tests_check_conn_SOURCES = tests/check_conn.c tests/vm_fixture.c tests/vm_fixture.h
tests_check_conn_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_conn_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_conn_LDADD = $(VM_TEST_LDADD)
tests_check_getfds_SOURCES = tests/check_getfds.c tests/vm_fixture.c tests/vm_fixture.h
tests_check_getfds_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_getfds_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_getfds_LDADD = $(VM_TEST_LDADD)
tests_check_control_SOURCES = tests/check_control.c tests/vm_fixture.c tests/vm_fixture.h
tests_check_control_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_control_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_control_LDADD = $(VM_TEST_LDADD)
check_PROGRAMS += tests/check_recv_ring
TESTS += tests/check_recv_ring
tests_check_recv_ring_SOURCES = tests/check_recv_ring.c tests/vm_fixture.c \
	tests/vm_fixture.h
tests_check_recv_ring_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_recv_ring_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_recv_ring_LDADD = $(VM_TEST_LDADD)
check_PROGRAMS += tests/check_shm_keep
TESTS += tests/check_shm_keep
tests_check_shm_keep_SOURCES = tests/check_shm_keep.c tests/vm_fixture.c \
	tests/vm_fixture.h
tests_check_shm_keep_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_shm_keep_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_shm_keep_LDADD = $(VM_TEST_LDADD)
check_PROGRAMS += tests/check_spin_fair
TESTS += tests/check_spin_fair
tests_check_spin_fair_SOURCES = tests/check_spin_fair.c tests/vm_fixture.c \
	tests/vm_fixture.h
tests_check_spin_fair_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_spin_fair_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_spin_fair_LDADD = $(VM_TEST_LDADD)
tests_check_mbox_SOURCES = tests/check_mbox.c tests/vm_fixture.c tests/vm_fixture.h
tests_check_mbox_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_mbox_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_mbox_LDADD = $(VM_TEST_LDADD)
endif

# The shared-memory ring transport and its socket fallback (COPVM_SHM=0).
if HAVE_CHECK
check_PROGRAMS += tests/check_shm_transport
TESTS += tests/check_shm_transport
tests_check_shm_transport_SOURCES = tests/check_shm_transport.c \
	tests/vm_fixture.c tests/vm_fixture.h
tests_check_shm_transport_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_shm_transport_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_shm_transport_LDADD = $(VM_TEST_LDADD)
# pvm_send's short way over a real ring (lib/route.c, send.c).
check_PROGRAMS += tests/check_send_fast
TESTS += tests/check_send_fast
tests_check_send_fast_SOURCES = tests/check_send_fast.c \
	tests/vm_fixture.c tests/vm_fixture.h
tests_check_send_fast_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_send_fast_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_send_fast_LDADD = $(VM_TEST_LDADD)
# A stream between two tasks over a unix socket, read in bounded looks
# (lib/transport/stream.c).
check_PROGRAMS += tests/check_stream_tasks
TESTS += tests/check_stream_tasks
tests_check_stream_tasks_SOURCES = tests/check_stream_tasks.c \
	tests/vm_fixture.c tests/vm_fixture.h
tests_check_stream_tasks_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_stream_tasks_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_stream_tasks_LDADD = $(VM_TEST_LDADD)
# Large bodies lent from the sender's export heap (lib/bufheap.c).
check_PROGRAMS += tests/check_shm_lend
TESTS += tests/check_shm_lend
tests_check_shm_lend_SOURCES = tests/check_shm_lend.c \
	tests/vm_fixture.c tests/vm_fixture.h
tests_check_shm_lend_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_shm_lend_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_shm_lend_LDADD = $(VM_TEST_LDADD)
# A stopped sender, rings that cannot be mapped, memory over 10^6 messages.
check_PROGRAMS += tests/check_shm_robust
TESTS += tests/check_shm_robust
tests_check_shm_robust_SOURCES = tests/check_shm_robust.c \
	tests/vm_fixture.c tests/vm_fixture.h
tests_check_shm_robust_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_shm_robust_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_shm_robust_LDADD = $(VM_TEST_LDADD)
endif
if HAVE_CHECK
TESTS += tests/shm-off.sh
EXTRA_DIST += tests/shm-off.sh
endif

# The io_uring transport of direct routes on loopback (docs/uring.md):
# its sources built in, as libpvm3 keeps their names local.
if HAVE_CHECK
if HAVE_LIBURING
check_PROGRAMS += tests/check_uring_transport
TESTS += tests/check_uring_transport
tests_check_uring_transport_SOURCES = tests/check_uring_transport.c \
	lib/transport/uring.c lib/transport/stream.c lib/transport/sock.c \
	lib/transport/tcp.c lib/transport/uring.h lib/transport/stream.h \
	lib/transport/registry.h lib/bufcache.c lib/bufheap.c lib/bufloan.c \
	lib/task_state.c lib/task_state.h
tests_check_uring_transport_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_uring_transport_LDADD = common/libcommon.la $(LIBURING_LIBS) \
	$(CHECK_LIBS) -lpthread
endif
endif

# pvm_getfds when its list cannot grow: PvmNoMem, *fds untouched, then the
# whole list once memory is back (realloc made to fail by the preloaded
# tests/tools/alloc_count.so, built in tests/vcc.mk; the test preloads it
# itself by running itself again).
if HAVE_CHECK
check_PROGRAMS += tests/check_getfds_nomem
TESTS += tests/check_getfds_nomem
tests_check_getfds_nomem_SOURCES = tests/check_getfds_nomem.c \
	tests/vm_fixture.c tests/vm_fixture.h
tests_check_getfds_nomem_CPPFLAGS = $(VM_TEST_CPPFLAGS) \
	-DALLOC_COUNT_SO='"$(abs_top_builddir)/tests/tools/.libs/alloc_count.so"'
tests_check_getfds_nomem_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_getfds_nomem_LDADD = $(VM_TEST_LDADD) -ldl
endif
