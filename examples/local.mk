# Example and benchmark PVM programs (built, not installed).

# pingpong: round-trip time and bandwidth between two tasks (one binary
# that spawns itself).  -no-install makes it a real executable that finds
# our libpvm3 by its run path, not a libtool wrapper script: the copy the
# daemon spawns gets the daemon's environment, not the wrapper's.
noinst_PROGRAMS += examples/pingpong
examples_pingpong_SOURCES = examples/pingpong.c examples/pingpong_reps.h
examples_pingpong_LDADD = lib/libpvm3.la
examples_pingpong_LDFLAGS = -no-install
