# Code shared by libpvm3 and pvmd: frame format, the XDR item codec, the
# connection handshake (SHA-256/HMAC) of multi-host virtual machines, and
# the mathematics of explicit coscheduling (EXP).
noinst_LTLIBRARIES += common/libcommon.la
common_libcommon_la_SOURCES = common/wire.c common/wire.h \
	common/codec.c common/codec.h common/proto.h \
	common/sha256.c common/sha256.h common/auth.c common/auth.h \
	common/cosched_model.c common/cosched_model.h common/cosched_page.h \
	common/exp_model.c common/exp_model.h
common_libcommon_la_LIBADD = -lm
