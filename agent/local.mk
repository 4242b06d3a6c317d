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
# Only the share's token bucket (common/cosched_bucket.c) is taken.
agent_copvm_agent_LDADD = common/libcommon.la
EXTRA_DIST += docs/agent.md
