# libpvm3: the PVM 3.4 API.  Exports are listed in lib/libpvm3.map.
lib_LTLIBRARIES += lib/libpvm3.la
lib_libpvm3_la_SOURCES = \
	lib/pvmi.h \
	lib/errors.c lib/task_state.c lib/task_state.h \
	lib/bufcache.c lib/bufcache.h lib/bufheap.c lib/bufloan.c lib/bufheap.h \
	lib/msg.c lib/msg.h \
	lib/pack.c lib/pack_codec.c lib/pack_codec.h lib/pack_api.c \
	lib/pack_view.c \
	lib/packf.c \
	lib/buffers.c \
	lib/transport/transport.h lib/transport/stream.c lib/transport/sock.c \
	lib/transport/stream.h lib/transport/registry.c \
	lib/transport/registry.h lib/transport/uring.h \
	lib/transport/unix.c lib/transport/tcp.c lib/transport/shm.c \
	lib/transport/shm_setup.c lib/transport/shm_keep.c \
	lib/transport/shm_pipe.h \
	lib/route.c lib/route.h \
	lib/conn.c lib/conn.h lib/conn_send.c lib/conn_frame.c \
	lib/pollset.c lib/pollset.h \
	lib/conn_unix.c lib/conn_unix.h \
	lib/conn_tcp.c lib/conn_tcp.h \
	lib/daemon_link.c lib/daemon_link.h \
	lib/task.c lib/task.h lib/task_hooks.c lib/task_hooks.h \
	lib/rundir_check.c lib/rundir_check.h \
	lib/rundir_path.c lib/rundir_path.h \
	lib/pvmd_start.c lib/pvmd_start.h lib/daemon_watch.c lib/daemon_watch.h \
	lib/send.c \
	lib/precomm.c lib/precomm.h \
	lib/recv.c lib/recv.h lib/hostwatch.c \
	lib/wait.c lib/wait.h \
	lib/output.c \
	lib/control.c \
	lib/mbox.c \
	lib/options.c lib/options.h \
	lib/compat/compat.h lib/compat/alloc.c lib/compat/bytes.c \
	lib/compat/data.c lib/compat/env.c lib/compat/fds.c \
	lib/compat/log.c lib/compat/log.h lib/compat/messages.c \
	lib/compat/paths.c lib/compat/services.c lib/compat/tasks.c \
	lib/compat/text.c lib/compat/trace.c \
	lib/cosched/cosched.h lib/cosched/backend.h \
	lib/cosched/cosched.c lib/cosched/settings.c lib/cosched/page.c \
	lib/cosched/state.c lib/cosched/freq.c lib/cosched/ctxsw.c \
	lib/cosched/arrival.c lib/cosched/arrival.h lib/cosched/gather.c \
	lib/cosched/backend_none.c lib/cosched/backend_self.c
# Direct TCP routes through io_uring when liburing is there (uring.c),
# else the stand-in that always says "plain sockets" (uring_none.c).
if HAVE_LIBURING
lib_libpvm3_la_SOURCES += lib/transport/uring.c
else
lib_libpvm3_la_SOURCES += lib/transport/uring_none.c
endif
EXTRA_DIST += lib/transport/uring.c lib/transport/uring_none.c docs/uring.md \
	docs/results/uring.md
# Hidden by default, on top of the version script: only what PVMI_EXPORT
# marks (lib/pvmi.h) can be exported, and calls between the library's
# own files need no PLT.
lib_libpvm3_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
# The shared-memory ring (lib/transport/shm.mk); its names stay local
# (libpvm3.map lists none of them).
lib_libpvm3_la_LIBADD = common/libcommon.la lib/transport/libshmring.la \
	$(LIBURING_LIBS) -lm -lpthread
lib_libpvm3_la_LDFLAGS = -version-info 3:6:0 \
	-Wl,--version-script=$(top_srcdir)/lib/libpvm3.map
EXTRA_lib_libpvm3_la_DEPENDENCIES = lib/libpvm3.map
EXTRA_DIST += lib/libpvm3.map
# The copvm-agent boost backend (docs/agent.md).
lib_libpvm3_la_SOURCES += lib/cosched/backend_agent.c common/agent_proto.h
# The pvm_cosched kernel module's boost backend (kmod/README.md).
lib_libpvm3_la_SOURCES += lib/cosched/backend_kmod.c kmod/uapi/pvm_cosched.h
