# Unit tests (Check) and integration tests (shell scripts).

# Differential tests of issue 13, items 13-31 (see the file).
include $(top_srcdir)/tests/diff_tasks.mk

if HAVE_CHECK
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
TEST_LIBS = lib/libpvm3.la $(CHECK_LIBS)

# Unit tests of the message layer.  They compile the library sources they
# test directly, so they reach the internal pvmi_* functions and need no
# daemon and no other part of libpvm3.
MSG_UNIT_SOURCES = lib/errors.c lib/task_state.c lib/task_state.h \
	lib/msg.c lib/msg.h lib/pvmi.h \
	lib/pack.c lib/pack_codec.c lib/pack_codec.h lib/pack_api.c \
	lib/pack_view.c lib/packf.c lib/buffers.c lib/bufcache.c \
	lib/bufheap.c lib/bufloan.c lib/bufcache.h lib/bufheap.h
check_PROGRAMS += tests/check_pack tests/check_buffers tests/check_errors \
	tests/check_bufcache tests/check_bufheap tests/check_pack_api
TESTS += tests/check_pack tests/check_buffers tests/check_errors \
	tests/check_bufcache tests/check_bufheap tests/check_pack_api

tests_check_bufheap_SOURCES = tests/check_bufheap.c lib/bufcache.c \
	lib/bufheap.c lib/bufloan.c lib/bufcache.h lib/bufheap.h \
	lib/task_state.c lib/task_state.h
tests_check_bufheap_CFLAGS = $(TEST_CFLAGS)
tests_check_bufheap_LDADD = $(CHECK_LIBS)

tests_check_bufcache_SOURCES = tests/check_bufcache.c $(MSG_UNIT_SOURCES)
tests_check_bufcache_CFLAGS = $(TEST_CFLAGS)
tests_check_bufcache_LDADD = common/libcommon.la $(CHECK_LIBS) -lm

tests_check_pack_SOURCES = tests/check_pack.c $(MSG_UNIT_SOURCES)
tests_check_pack_CFLAGS = $(TEST_CFLAGS)
tests_check_pack_LDADD = $(CHECK_LIBS) -lm

tests_check_pack_api_SOURCES = tests/check_pack_api.c $(MSG_UNIT_SOURCES)
tests_check_pack_api_CFLAGS = $(TEST_CFLAGS)
tests_check_pack_api_LDADD = $(CHECK_LIBS) -lm

tests_check_buffers_SOURCES = tests/check_buffers.c $(MSG_UNIT_SOURCES)
tests_check_buffers_CFLAGS = $(TEST_CFLAGS)
tests_check_buffers_LDADD = $(CHECK_LIBS)

# -export-dynamic: the test reads pvm_errlist's size from the symbol table.
tests_check_errors_SOURCES = tests/check_errors.c $(MSG_UNIT_SOURCES)
tests_check_errors_CFLAGS = $(TEST_CFLAGS)
tests_check_errors_LDFLAGS = -export-dynamic
tests_check_errors_LDADD = $(CHECK_LIBS) -ldl

# The task's state (lib/task_state.c), with errors.c only.
check_PROGRAMS += tests/check_task_state
TESTS += tests/check_task_state
tests_check_task_state_SOURCES = tests/check_task_state.c lib/task_state.c \
	lib/task_state.h lib/errors.c lib/pvmi.h
tests_check_task_state_CFLAGS = $(TEST_CFLAGS)
tests_check_task_state_LDADD = $(CHECK_LIBS) -lpthread

# The registry of enrolment hooks (lib/task_hooks.c), alone.
check_PROGRAMS += tests/check_task_hooks
TESTS += tests/check_task_hooks
tests_check_task_hooks_SOURCES = tests/check_task_hooks.c lib/task_hooks.c \
	lib/task_hooks.h
tests_check_task_hooks_CFLAGS = $(TEST_CFLAGS)
tests_check_task_hooks_LDADD = $(CHECK_LIBS)
endif

# The framing of the stream transports (lib/transport/stream.c) over a
# socket pair, compiled in from its sources.
if HAVE_CHECK
check_PROGRAMS += tests/check_stream
TESTS += tests/check_stream
tests_check_stream_SOURCES = tests/check_stream.c lib/transport/stream.c \
	lib/transport/stream.h lib/transport/registry.h \
	lib/transport/sock.c lib/transport/transport.h \
	lib/bufcache.c lib/bufcache.h lib/bufheap.c lib/bufloan.c lib/bufheap.h \
	lib/task_state.c lib/task_state.h
tests_check_stream_CFLAGS = $(TEST_CFLAGS)
tests_check_stream_LDADD = common/libcommon.la $(CHECK_LIBS)
endif

# transport.h declares only the table and its types; every table is
# registered once (lib/transport/registry.c).
TESTS += tests/transport-header.sh
EXTRA_DIST += tests/transport-header.sh

# The virtual circuit of every destination (lib/route.c), compiled in
# from its source against stand-ins for the modules below it.
if HAVE_CHECK
check_PROGRAMS += tests/check_route
TESTS += tests/check_route
tests_check_route_SOURCES = tests/check_route.c lib/route.c lib/route.h \
	$(MSG_UNIT_SOURCES)
tests_check_route_CFLAGS = $(TEST_CFLAGS)
tests_check_route_LDADD = common/libcommon.la $(CHECK_LIBS) -lm
# What a link does with the frames of its pipe (lib/conn_frame.c),
# against stand-ins for conn.c.
check_PROGRAMS += tests/check_conn_frame
TESTS += tests/check_conn_frame
tests_check_conn_frame_SOURCES = tests/check_conn_frame.c lib/conn_frame.c \
	$(MSG_UNIT_SOURCES)
tests_check_conn_frame_CFLAGS = $(TEST_CFLAGS)
tests_check_conn_frame_LDADD = common/libcommon.la $(CHECK_LIBS) -lm
# The short way of route.c (pvmi_route_send_fast) against stand-ins.
check_PROGRAMS += tests/check_route_fast
TESTS += tests/check_route_fast
tests_check_route_fast_SOURCES = tests/check_route_fast.c lib/route.c \
	lib/route.h $(MSG_UNIT_SOURCES)
tests_check_route_fast_CFLAGS = $(TEST_CFLAGS)
tests_check_route_fast_LDADD = common/libcommon.la $(CHECK_LIBS) -lm
endif

# Issue 13 differential tests of packing and psend/precv.
include $(top_srcdir)/tests/diff_pack.mk

# The documentation: no Markdown file links to a file that does not
# exist (tests/integ/doc-links.sh; skipped outside a git checkout).
TESTS += tests/integ/doc-links.sh
EXTRA_DIST += tests/integ/doc-links.sh

# The tree's shape (tests/integ/layout.sh): files of at most 800 lines in
# lib/, daemon/, common/, agent/, kmod/ and bench/ (not tests/), no lib/
# header included from common/, only the table and its types in
# lib/transport/transport.h, and no import circle of more than two files
# among the objects of lib/ and of daemon/ (tools/import-graph.sh).
TESTS += tests/integ/layout.sh
EXTRA_DIST += tests/integ/layout.sh
