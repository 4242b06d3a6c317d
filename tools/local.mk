# tools: command-line programs around copvm's extensions.
# copvm-cosched shows the coscheduling pages of this host's tasks and
# writes requests into them (copvm-cosched(1)).
bin_PROGRAMS += tools/copvm-cosched
tools_copvm_cosched_SOURCES = tools/copvm-cosched.c
tools_copvm_cosched_LDADD = common/libcosched_read.la
