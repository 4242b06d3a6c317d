# tools: command-line programs around copvm's extensions.
# copvm-cosched shows the coscheduling pages of this host's tasks and
# writes requests into them (copvm-cosched(1)).
bin_PROGRAMS += tools/copvm-cosched
tools_copvm_cosched_SOURCES = tools/copvm-cosched.c
tools_copvm_cosched_LDADD = common/libcosched_read.la

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
