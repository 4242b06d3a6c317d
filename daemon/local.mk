# pvmd: the per-user, per-host daemon.
bin_PROGRAMS += daemon/pvmd
daemon_pvmd_SOURCES = daemon/pvmd.c
daemon_pvmd_LDADD = common/libcommon.la
