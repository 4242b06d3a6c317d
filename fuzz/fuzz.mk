# fuzz.mk - builds the libFuzzer targets (fuzz/fuzz_*.c) with clang,
# -fsanitize=fuzzer,address,undefined.  Run by fuzz/run.sh (`make fuzz'),
# not by automake: the fuzzers need clang whatever compiler configure
# chose, so copvm's sources are compiled again here, with clang and the
# sanitizers, into static archives that each target links.
#   SRC: the source tree; OUT: where objects and targets go;
#   CONFIG_DIR: where configure wrote config.h.
SRC ?= ..
OUT ?= build
CONFIG_DIR ?= $(SRC)
CLANG ?= clang
SAN = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
CFLAGS_FZ = -g -O1 -fno-omit-frame-pointer $(SAN) -D_GNU_SOURCE \
	-DCOPVM_BINDIR='"/usr/local/bin"' -DCOPVM_PVM_ROOT='"/usr/local/lib/pvm3"' \
	-I$(CONFIG_DIR) -I$(SRC)/include -I$(SRC)/common -I$(SRC)/lib \
	-I$(SRC)/kmod/uapi -I$(SRC)/kmod -I$(SRC)/daemon -I$(SRC)/console -I$(SRC)/fuzz \
	-w
LDFLAGS_FZ = -fsanitize=fuzzer,address,undefined

TARGETS = $(patsubst $(SRC)/fuzz/%.c,%,$(wildcard $(SRC)/fuzz/fuzz_*.c))

COMMON_SRC = $(wildcard $(SRC)/common/*.c)
# The fuzzers take the io_uring stand-ins (plain sockets, the daemon's
# writev): no liburing, and not both of the two files that define the
# same functions.
LIB_SRC = $(filter-out $(SRC)/lib/transport/uring.c, \
	$(wildcard $(SRC)/lib/*.c $(SRC)/lib/transport/*.c \
	$(SRC)/lib/cosched/*.c $(SRC)/lib/compat/*.c))
DAEMON_SRC = $(filter-out $(SRC)/daemon/ring.c, $(wildcard $(SRC)/daemon/*.c))
CONSOLE_SRC = $(wildcard $(SRC)/console/*.c)

obj = $(patsubst $(SRC)/%.c,$(OUT)/obj/%.o,$(1))

all: $(addprefix $(OUT)/,$(TARGETS))

$(OUT)/obj/%.o: $(SRC)/%.c
	@mkdir -p $(dir $@)
	$(CLANG) $(CFLAGS_FZ) -c $< -o $@

# a program's main() would clash with libFuzzer's
$(OUT)/obj/daemon/main.o $(OUT)/obj/console/main.o: CFLAGS_FZ += -Dmain=copvm_real_main

$(OUT)/libcommon.a: $(call obj,$(COMMON_SRC))
$(OUT)/libpvm3.a: $(call obj,$(LIB_SRC))
$(OUT)/libpvmd.a: $(call obj,$(DAEMON_SRC))
$(OUT)/libconsole.a: $(call obj,$(CONSOLE_SRC))
$(OUT)/%.a:
	@rm -f $@
	ar rcs $@ $^

LIBS_FZ = $(OUT)/libpvmd.a $(OUT)/libconsole.a $(OUT)/libpvm3.a \
	$(OUT)/libcommon.a

# the kernel module's checks are a header only (fuzz_kmod_args)
$(OUT)/fuzz_%: $(SRC)/fuzz/fuzz_%.c $(SRC)/fuzz/fuzz_common.h $(LIBS_FZ) \
		$(wildcard $(SRC)/kmod/*.h)
	$(CLANG) $(CFLAGS_FZ) $(LDFLAGS_FZ) $< -o $@ $(LIBS_FZ) \
		$(FUZZ_LIBS) -lm -lpthread

.PHONY: all
