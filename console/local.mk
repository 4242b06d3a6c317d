# console: `pvm', the interactive PVM console (see docs/console.md).
# Built only when libedit is found (line editing and history on a
# terminal); configure says so otherwise.  It uses nothing but the public
# PVM API, so it links against libpvm3 like any PVM program.
if HAVE_LIBEDIT
bin_PROGRAMS += console/pvm
dist_man1_MANS = console/pvm.1
endif
console_pvm_SOURCES = \
	console/console.h \
	console/main.c \
	console/input.c \
	console/parse.c \
	console/cmdtab.c \
	console/hosts.c \
	console/tasks.c \
	console/spawn.c \
	console/env.c \
	console/cosched.c
console_pvm_CFLAGS = $(AM_CFLAGS) $(LIBEDIT_CFLAGS)
console_pvm_LDADD = lib/libpvm3.la common/libcosched_read.la $(LIBEDIT_LIBS)
EXTRA_DIST += console/pvm.1 docs/console.md
