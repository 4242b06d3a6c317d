# tools: command-line programs around copvm's extensions.
# copvm-cosched shows the coscheduling pages of this host's tasks and
# writes requests into them (copvm-cosched(1)).
bin_PROGRAMS += tools/copvm-cosched
tools_copvm_cosched_SOURCES = tools/copvm-cosched.c tools/cosched_top.c \
	tools/cosched_top.h
# top enrols as a task and asks the daemons (copvm_cosched_gather); it
# clears the screen through terminfo where there is one, else with the
# ANSI sequence.
tools_copvm_cosched_LDADD = common/libcosched_read.la lib/libpvm3.la
tools_copvm_cosched_SOURCES += tools/top_term.h
if HAVE_TINFO
tools_copvm_cosched_SOURCES += tools/top_term_tinfo.c
tools_copvm_cosched_CFLAGS = $(AM_CFLAGS) $(TINFO_CFLAGS)
tools_copvm_cosched_LDADD += $(TINFO_LIBS)
else
tools_copvm_cosched_SOURCES += tools/top_term_ansi.c
endif
EXTRA_DIST += tools/top_term_tinfo.c tools/top_term_ansi.c
tools_copvm_cosched_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCOPVM_PKGLIBEXECDIR='"$(pkglibexecdir)"'
# copvm-cosched plot TRACE runs copvm-trace-plot (also the benchmarks'
# report's timelines).
tracelibexecdir = $(pkglibexecdir)
dist_tracelibexec_SCRIPTS = tools/copvm-trace-plot

# copvm-run: a command run with copvm's libraries, daemon, console and
# manual pages first (docs/install.md: how stock-built programs select
# copvm's libpvm3.so.3).
bin_SCRIPTS += tools/copvm-run
EXTRA_DIST += tools/copvm-run.in
CLEANFILES += tools/copvm-run
tools/copvm-run: $(srcdir)/tools/copvm-run.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && sed -e 's|@libdir[@]|$(libdir)|g' \
		-e 's|@bindir[@]|$(bindir)|g' -e 's|@mandir[@]|$(mandir)|g' \
		$(srcdir)/tools/copvm-run.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

# copvm-slurm: a virtual machine over the nodes of a Slurm allocation,
# whose remote daemons copvm-srun-rsh starts with srun (docs/slurm.md).
bin_SCRIPTS += tools/copvm-slurm tools/copvm-srun-rsh
EXTRA_DIST += tools/copvm-slurm.in tools/copvm-srun-rsh.in
CLEANFILES += tools/copvm-slurm tools/copvm-srun-rsh
tools/copvm-slurm: $(srcdir)/tools/copvm-slurm.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && sed -e 's|@libdir[@]|$(libdir)|g' \
		-e 's|@bindir[@]|$(bindir)|g' \
		$(srcdir)/tools/copvm-slurm.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
tools/copvm-srun-rsh: $(srcdir)/tools/copvm-srun-rsh.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && cp $(srcdir)/tools/copvm-srun-rsh.in $@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@

# copvm-cc and copvm-f77: the C and Fortran compilers with copvm's flags
# and, outside the loader's default directories, a run path to libdir
# (copvm-cc(1), docs/install.md), from one template.
bin_SCRIPTS += tools/copvm-cc tools/copvm-f77
EXTRA_DIST += tools/copvm-cc.in
CLEANFILES += tools/copvm-cc tools/copvm-f77
wrapper_subst = $(AM_V_GEN)$(MKDIR_P) tools && \
	if $(copvm_rpath_needed); then rp='-Wl,-rpath,$(libdir)'; else rp=; fi; \
	sed -e 's|@libdir[@]|$(libdir)|g' -e "s|@RPATH[@]|$$rp|g"
tools/copvm-cc: $(srcdir)/tools/copvm-cc.in Makefile
	$(wrapper_subst) -e 's|@NAME[@]|copvm-cc|g' -e 's|@LANGUAGE[@]|C|g' \
		-e 's|@HEADER[@]|pvm3.h|g' -e 's|@CCVAR[@]|COPVM_CC|g' \
		-e 's|@DEFCC[@]|cc|g' -e 's|@CFLAGS[@]|-I$(includedir)|g' \
		-e 's|@LIBS[@]|-lgpvm3 -lpvm3|g' \
		$(srcdir)/tools/copvm-cc.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
tools/copvm-f77: $(srcdir)/tools/copvm-cc.in Makefile
	$(wrapper_subst) -e 's|@NAME[@]|copvm-f77|g' -e 's|@LANGUAGE[@]|Fortran 77|g' \
		-e 's|@HEADER[@]|fpvm3.h|g' -e 's|@CCVAR[@]|COPVM_F77|g' \
		-e 's|@DEFCC[@]|gfortran|g' \
		-e 's|@CFLAGS[@]|-I$(includedir)/fortran/include|g' \
		-e 's|@LIBS[@]|-lfpvm3 -lgpvm3 -lpvm3|g' \
		$(srcdir)/tools/copvm-cc.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

# import-graph.sh: the import circles among object files (a developer's
# tool, not installed): tools/import-graph.sh -e daemon/*.o
EXTRA_DIST += tools/import-graph.sh
