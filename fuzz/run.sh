#!/bin/bash
# run.sh - `make fuzz': builds the libFuzzer targets (fuzz.mk) and runs
# each for FUZZ_SECONDS (default 60) from a copy of its committed seed
# corpus (fuzz/corpus/<target>/).  Exits non-zero when a target crashes,
# leaks, times out on an input or fails to build; the crashing input is
# left in $OUT/artifacts/.  Without clang or libFuzzer it says so and
# exits 77 (skip), or 1 when CI=true, where the fuzzers must run.
# Usage: run.sh SRC OUT CONFIG_DIR [TARGET...]
set -u
src=$1 out=$2 config=$3
shift 3
secs=${FUZZ_SECONDS:-60}
clang=${CLANG:-clang}

missing() {
	echo "make fuzz: $*" >&2
	if [ "${CI:-}" = true ]; then
		echo "make fuzz: CI=true: the fuzzers must run; failing" >&2
		exit 1
	fi
	echo "make fuzz: skipped (install clang and libclang-rt-14-dev)" >&2
	exit 77
}

command -v "$clang" >/dev/null 2>&1 || missing "no $clang"
mkdir -p "$out" || exit 1
probe=$out/probe
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return 0; }\n' \
	> "$probe.c"
"$clang" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" \
	>/dev/null 2>&1 || missing "$clang cannot link -fsanitize=fuzzer (no libFuzzer)"

libs=
if pkg-config --exists libedit 2>/dev/null; then
	libs=$(pkg-config --libs libedit)
fi
make -f "$src/fuzz/fuzz.mk" SRC="$src" OUT="$out" CONFIG_DIR="$config" \
	CLANG="$clang" FUZZ_LIBS="$libs" || { echo "make fuzz: build failed" >&2; exit 1; }

if [ $# -eq 0 ]; then
	set -- $(cd "$src/fuzz" && ls fuzz_*.c | sed 's/\.c$//')
fi
failed=()
mkdir -p "$out/artifacts"
for t in "$@"; do
	work=$out/corpus/$t
	mkdir -p "$work"
	if [ -d "$src/fuzz/corpus/$t" ]; then
		cp -f "$src/fuzz/corpus/$t"/* "$work"/ 2>/dev/null
	fi
	echo "=== $t: ${secs}s"
	"$out/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" \
		"$work" > "$out/$t.log" 2>&1
	rc=$?
	grep -E '^(Done|stat::number_of_executed_units)' "$out/$t.log"
	if [ $rc -ne 0 ]; then
		echo "$t: FAILED (exit $rc); its log:"
		grep -A40 -E '^==[0-9]+==ERROR|runtime error|deadly signal|ERROR: libFuzzer' \
			"$out/$t.log" | head -60
		ls "$out/artifacts/$t-"* 2>/dev/null
		failed+=("$t")
	fi
done
if [ ${#failed[@]} -ne 0 ]; then
	echo "make fuzz: crashes in: ${failed[*]}"
	exit 1
fi
echo "make fuzz: $# targets, ${secs}s each, no crash"
