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
