# libfpvm3: the Fortran 77 binding (gfortran calling convention), written
# in C on top of libpvm3 and, for the group routines in f_group.c,
# libgpvm3.  Built static and shared; with the static library a program
# that calls no group routine needs no libgpvm3 (f_group.c is the only
# file that calls it).  Exports are listed in fortran/libfpvm3.map.
lib_LTLIBRARIES += fortran/libfpvm3.la
include_HEADERS += include/fpvm3.h
# fpvm3.h again in a directory named `include' (fpvm3.pc.in says why).
fortranincludedir = $(includedir)/fortran/include
fortraninclude_HEADERS = include/fpvm3.h
fortran_libfpvm3_la_SOURCES = \
	fortran/fpvm.h \
	fortran/f_string.c \
	fortran/f_tasks.c \
	fortran/f_vm.c \
	fortran/f_pack.c \
	fortran/f_msg.c \
	fortran/f_mbox.c \
	fortran/f_group.c
fortran_libfpvm3_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
# Linked with both libraries it calls, so that a program linking the
# shared libfpvm3 needs nothing else.
fortran_libfpvm3_la_LIBADD = group/libgpvm3.la lib/libpvm3.la
fortran_libfpvm3_la_LDFLAGS = -version-info 3:6:0 \
	-Wl,--version-script=$(top_srcdir)/fortran/libfpvm3.map
EXTRA_fortran_libfpvm3_la_DEPENDENCIES = fortran/libfpvm3.map
EXTRA_DIST += fortran/libfpvm3.map
