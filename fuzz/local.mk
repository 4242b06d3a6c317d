# Fuzzing (docs/fuzzing.md): `make fuzz' builds the libFuzzer targets
# fuzz/fuzz_*.c with clang (fuzz/fuzz.mk, outside automake: the targets
# need clang whatever compiler configure chose) and runs each for
# FUZZ_SECONDS (default 60) from its seed corpus fuzz/corpus/<target>/.
# Not part of `make check'; CI runs it as its own step.
FUZZ_SECONDS = 60
EXTRA_DIST += fuzz docs/fuzzing.md

fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(SHELL) $(top_srcdir)/fuzz/run.sh \
		$(abs_top_srcdir) $(abs_top_builddir)/fuzz-build \
		$(abs_top_builddir)

clean-local: clean-fuzz
clean-fuzz:
	-rm -rf fuzz-build
.PHONY: fuzz clean-fuzz
