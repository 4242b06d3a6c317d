# copvm-agent: the privileged boost helper (docs/agent.md).  The library's
# side is lib/cosched/backend_agent.c; the protocol is common/agent_proto.h.
sbin_PROGRAMS += agent/copvm-agent
agent_copvm_agent_SOURCES = \
	agent/agent.h \
	common/agent_proto.h \
	agent/main.c \
	agent/serve.c \
	agent/boost.c \
	agent/table.c \
	agent/priv.c \
	agent/users.c
# The share's token bucket is header-only (kmod/pvm_cosched_bucket.h,
# through common/cosched_bucket.h): the kernel module runs the same code.
EXTRA_DIST += docs/agent.md

# The systemd unit, with the installed path of the agent.  Debian's
# package enables and starts it (debian/rules: dh_installsystemd).
systemdunitdir = $(prefix)/lib/systemd/system
systemdunit_DATA = agent/copvm-agent.service
agent/copvm-agent.service: agent/copvm-agent.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) agent && \
	sed -e 's|@sbindir[@]|$(sbindir)|g' $(srcdir)/agent/copvm-agent.service.in > $@
CLEANFILES += agent/copvm-agent.service
EXTRA_DIST += agent/copvm-agent.service.in
