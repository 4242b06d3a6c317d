/*
 * opts - handlers, contexts, options, the database and PVM_EXPORT as a
 * program built against stock PVM sees them (diff-opts.sh, issue 13 items
 * 20-29).  Prints each call and its result on stdout; the library's own
 * error lines go to stderr, which the test compares too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"

#define SHOW(call) do { \
	int rc_ = (call); \
	fflush(stderr); \
	printf("%s = %d\n", #call, rc_); \
	fflush(stdout); \
} while (0)

static int handler(int mid)
{
	return 0;
}

static void show_export(const char *when)
{
	const char *e = getenv("PVM_EXPORT");

	printf("%s: PVM_EXPORT %s%s%s\n", when, e ? "\"" : "(unset)",
	       e ? e : "", e ? "\"" : "");
	fflush(stdout);
}

/* Items 20-23. */
static void handlers_contexts_options(void)
{
	int ctx, newctx;

	/* 20: duplicates and overlapping wildcards */
	SHOW(pvm_addmhf(-1, 100, 0, handler) >= 0);
	SHOW(pvm_addmhf(-1, 100, 0, handler));
	SHOW(pvm_addmhf(0x40099, 100, 0, handler));
	SHOW(pvm_addmhf(-1, -1, 0, handler));
	SHOW(pvm_addmhf(-1, 101, 0, handler) >= 0);
	SHOW(pvm_addmhf(-1, 101, 7, handler) >= 0);
	SHOW(pvm_addmhf(-1, 101, -1, handler));

	/* 21: freeing a context that is not allocated */
	SHOW(pvm_freecontext(12345));
	SHOW(pvm_freecontext(-5));
	newctx = pvm_newcontext();
	SHOW(newctx > 0);
	SHOW(pvm_freecontext(newctx));
	SHOW(pvm_freecontext(newctx));

	/* 22: any context value */
	ctx = pvm_getcontext();
	SHOW(pvm_setcontext(-5) == ctx);
	SHOW(pvm_getcontext());
	SHOW(pvm_setcontext(123456789));
	SHOW(pvm_getcontext());
	SHOW(pvm_setcontext(ctx));
	SHOW(pvm_getcontext() == ctx);

	/* 23: options whose value is negative */
	SHOW(pvm_setopt(PvmAutoErr, -1));
	SHOW(pvm_getopt(PvmAutoErr));
	SHOW(pvm_setopt(PvmAutoErr, 1));
	SHOW(pvm_getopt(PvmAutoErr));
	SHOW(pvm_setopt(PvmDebugMask, -1));
	SHOW(pvm_setopt(PvmDebugMask, 0));
	SHOW(pvm_getopt(PvmDebugMask));
	SHOW(pvm_setopt(999, 1));
	SHOW(pvm_getopt(999));
}

/* Items 27-29. */
static void fragsize_database_export(void)
{
	int data = 0;

	/* 27: fragment size limits */
	SHOW(pvm_setopt(PvmFragSize, 1 << 30));
	SHOW(pvm_setopt(PvmFragSize, 1 << 20) > 0);
	SHOW(pvm_setopt(PvmFragSize, (1 << 20) + 1));
	SHOW(pvm_setopt(PvmFragSize, 51));
	SHOW(pvm_setopt(PvmFragSize, 52));
	SHOW(pvm_getopt(PvmFragSize));

	/* 28: pvm_insert on a pair in use */
	SHOW(pvm_insert("diffopts", 3, 33));
	SHOW(pvm_insert("diffopts", 3, 34));
	SHOW(pvm_lookup("diffopts", 3, NULL) >= 0);
	SHOW(pvm_insert("diffopts", -1, 35));
	SHOW(pvm_insert("diffopts", -1, 36));
	SHOW(pvm_lookup("diffopts", 1, &data));
	SHOW(data);
	SHOW(pvm_lookup("diffopts", 7, &data));
	SHOW(pvm_delete("diffopts", 3));
	SHOW(pvm_delete("diffopts", 3));
	SHOW(pvm_delete("diffopts", 1));
	SHOW(pvm_delete("diffopts", 0));

	/* 29: pvm_export("") and empty elements */
	show_export("start");
	SHOW(pvm_export(""));
	show_export("after export \"\"");
	setenv("PVM_EXPORT", "A::B:", 1);
	SHOW(pvm_export("C"));
	show_export("after export C");
	SHOW(pvm_export("A"));
	show_export("after export A");
	SHOW(pvm_unexport("B"));
	show_export("after unexport B");
	SHOW(pvm_unexport("C"));
	show_export("after unexport C");
	SHOW(pvm_unexport(""));
	show_export("after unexport \"\"");
}

int main(void)
{
	if (pvm_mytid() < 0)
		return 1;
	handlers_contexts_options();
	fragsize_database_export();
	pvm_exit();
	return 0;
}
