# Differential tests of issue 13's items 13-31 (tasks, signals, notify;
# handlers, contexts, options, mailbox, errors): small programs under
# tests/integ/diffprog/tasks/, built by the tests against stock PVM, run
# on stock and on copvm, outputs compared (tests/integ/lib.sh).  Each
# script exits 0, 1 or 77 (stock PVM not installed).
DIFF_TASKS_TESTS = \
	tests/integ/diff-errors.sh \
	tests/integ/diff-opts.sh \
	tests/integ/diff-tasks.sh
TESTS += $(DIFF_TASKS_TESTS)

EXTRA_DIST += $(DIFF_TASKS_TESTS) \
	tests/integ/diffprog/tasks/build.sh \
	tests/integ/diffprog/tasks/strerror.c \
	tests/integ/diffprog/tasks/opts.c \
	tests/integ/diffprog/tasks/tasks.c \
	tests/integ/diffprog/tasks/hosts.c \
	tests/integ/diffprog/tasks/kill.c \
	tests/integ/diffprog/tasks/trace.c
