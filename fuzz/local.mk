# Fuzzing (docs/fuzzing.md): `make fuzz' builds the libFuzzer targets
# fuzz/fuzz_*.c with clang (fuzz/fuzz.mk, outside automake: the targets
# need clang whatever compiler configure chose) and runs each for
# FUZZ_SECONDS (default 60) from its seed corpus fuzz/corpus/<target>/.
# Not part of `make check'; CI runs it as its own step.
FUZZ_SECONDS = 60
# Listed file by file: the directory's name `fuzz' is also the phony
# target below, which `make dist' would otherwise run.
EXTRA_DIST += docs/fuzzing.md fuzz/fuzz.mk fuzz/fuzz_common.h \
	fuzz/fuzz_codec.c fuzz/fuzz_console.c fuzz/fuzz_dispatch.c \
	fuzz/fuzz_frame.c fuzz/fuzz_hostfile.c fuzz/fuzz_kmod_args.c \
	fuzz/fuzz_shm_ring.c \
	fuzz/fuzz_unpack.c fuzz/fuzz_unpackf.c fuzz/lsan.supp \
	fuzz/make_seeds.py fuzz/run.sh fuzz/corpus

fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(SHELL) $(top_srcdir)/fuzz/run.sh \
		$(abs_top_srcdir) $(abs_top_builddir)/fuzz-build \
		$(abs_top_builddir)

clean-local: clean-fuzz
clean-fuzz:
	-rm -rf fuzz-build
.PHONY: fuzz clean-fuzz
