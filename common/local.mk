# Code shared by libpvm3 and pvmd: frame format and the XDR item codec.
noinst_LTLIBRARIES += common/libcommon.la
common_libcommon_la_SOURCES = common/wire.c common/wire.h \
	common/codec.c common/codec.h common/proto.h
