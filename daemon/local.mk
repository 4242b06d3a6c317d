# pvmd: the per-user, per-host daemon.
bin_PROGRAMS += daemon/pvmd
daemon_pvmd_SOURCES = \
	daemon/pvmd.h \
	daemon/log.h \
	daemon/main.c \
	daemon/state.c \
	daemon/ready.c \
	daemon/wiring.c \
	daemon/hostfile.c \
	daemon/log.c \
	daemon/loop.c \
	daemon/conn.c \
	daemon/dispatch.c \
	daemon/reply.c \
	daemon/ops.c \
	daemon/tasktab.c \
	daemon/tasks.c \
	daemon/contexts.c \
	daemon/session.c \
	daemon/spawn.c \
	daemon/place.c \
	daemon/output.c \
	daemon/notify.c \
	daemon/mbox.c \
	daemon/hosttab.c \
	daemon/hosts.c \
	daemon/peer.c \
	daemon/remote.c \
	daemon/dd.c \
	daemon/addhost.c \
	daemon/slave.c \
	daemon/gang.c \
	daemon/gang_jobs.c \
	daemon/gang_sync.c \
	daemon/cosched_watch.c \
	daemon/costat.c
# COSCHED reads and formats the pages as copvm-cosched -r does.
daemon_pvmd_LDADD = common/libcosched_read.la common/libcommon.la
# The links' writes batched through io_uring (COPVM_URING=1) when
# liburing is there, else the stand-in that always says writev.
if HAVE_LIBURING
daemon_pvmd_SOURCES += daemon/ring.c
daemon_pvmd_LDADD += $(LIBURING_LIBS)
else
daemon_pvmd_SOURCES += daemon/ring_none.c
endif
EXTRA_DIST += daemon/ring.c daemon/ring_none.c
