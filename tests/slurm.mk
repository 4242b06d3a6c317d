# A copvm virtual machine on a Slurm allocation: copvm-slurm's own
# node-list parser and a one-node machine without Slurm (slurm-tools.sh),
# and a private Slurm cluster of emulated hosts that runs master1 and
# cancels a job (slurm.sh; docs/slurm.md).
SLURM_TESTS = tests/integ/slurm-tools.sh tests/integ/slurm.sh
TESTS += $(SLURM_TESTS)
EXTRA_DIST += $(SLURM_TESTS) docs/slurm.md

# `make check-slurm' runs only these tests.
check-slurm:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SLURM_TESTS)'
.PHONY: check-slurm
