# Differential tests of issue 13's packing, buffer and psend/precv
# behaviours: small programs (tests/integ/diffprog/pack/) built against
# stock PVM and against copvm, run on each, outputs compared; and the
# group library's start-up trap, a stock pvmgs first on the spawn path
# (foreign-pvmgs.sh).  Like the other integration tests they skip (77)
# without stock PVM installed.
DIFF_PACK_TESTS = \
	tests/integ/diff-pack.sh \
	tests/integ/diff-precv.sh \
	tests/integ/foreign-pvmgs.sh
TESTS += $(DIFF_PACK_TESTS)
EXTRA_DIST += $(DIFF_PACK_TESTS) \
	tests/integ/diff-pack-lib.sh \
	tests/integ/diffprog/pack/bufstate.c \
	tests/integ/diffprog/pack/reinterpret.c \
	tests/integ/diffprog/pack/precv.c \
	tests/integ/diffprog/pack/mesg.c \
	tests/integ/diffprog/pack/joingroup.c

# `make check-diff-pack' runs only these tests.
check-diff-pack:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(DIFF_PACK_TESTS)'
.PHONY: check-diff-pack
