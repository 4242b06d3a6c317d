# Code shared by libpvm3 and pvmd: frame format, the XDR item codec, the
# connection handshake (SHA-256/HMAC) of multi-host virtual machines, and
# the mathematics of explicit coscheduling (EXP).
noinst_LTLIBRARIES += common/libcommon.la
common_libcommon_la_SOURCES = common/be.h common/wire.c common/wire.h \
	common/codec.c common/codec.h common/proto.h \
	common/sha256.c common/sha256.h common/auth.c common/auth.h \
	common/cosched_model.c common/cosched_model.h common/cosched_page.h \
	common/cosched_abi.c common/agent_proto.h kmod/uapi/pvm_cosched.h \
	common/cosched_bucket.h kmod/pvm_cosched_bucket.h \
	common/exp_model.c common/exp_model.h common/sched_attr.h \
	common/exp_sync.c common/exp_sync.h \
	common/procfile.c common/procfile.h \
	common/rundir.c common/rundir.h
common_libcommon_la_LIBADD = -lm

# The observability tools' reader of the coscheduling pages (the console's
# `cosched' and copvm-cosched) and the command they share.  A library of
# its own, so that libpvm3 does not carry it; pvmd links it for COSCHED,
# the pages of its tasks for the live view (daemon/costat.c).
noinst_LTLIBRARIES += common/libcosched_read.la
common_libcosched_read_la_SOURCES = common/cosched_read.c \
	common/cosched_read.h common/cosched_page.h include/copvm.h \
	common/cosched_cmd.c common/cosched_cmd.h \
	common/cosched_snap.c common/cosched_snap.h
# The model table and the names are libcommon's (cosched_model.c).
common_libcosched_read_la_LIBADD = common/libcommon.la
