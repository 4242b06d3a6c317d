# copvm-agent and the library's agent backend, tested together against a
# private agent (tests/check_agent.c).  The suite needs root and skips
# (77) otherwise; it compiles the backend in to call its ops directly.
if HAVE_CHECK
check_PROGRAMS += tests/check_agent
TESTS += tests/check_agent
tests_check_agent_SOURCES = tests/check_agent.c lib/cosched/backend_agent.c \
	lib/cosched/backend.h common/agent_proto.h
tests_check_agent_CPPFLAGS = $(AM_CPPFLAGS) \
	-DAGENT_PATH='"$(abs_top_builddir)/agent/copvm-agent"'
tests_check_agent_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_agent_LDADD = $(CHECK_LIBS)
endif
