# Tests of the console (pvm): a session typed into a pseudo-terminal
# through tmux, and scripts piped in, each on stock PVM (Debian's console
# and library), on Debian's console running on copvm's library, and with
# copvm's console.  They need stock PVM and tmux; without them they skip
# (exit 77).  See docs/console.md.
CONSOLE_TESTS = \
	tests/integ/console-session.sh \
	tests/integ/console-pipe.sh \
	tests/integ/mh-console.sh
TESTS += $(CONSOLE_TESTS)
EXTRA_DIST += $(CONSOLE_TESTS) \
	tests/integ/console/tmux.sh \
	tests/integ/console/script.in

# `make check-console' runs only these tests.
check-console:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(CONSOLE_TESTS)'
.PHONY: check-console
