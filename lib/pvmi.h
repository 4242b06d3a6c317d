/*
 * pvmi.h - state and helpers shared by the modules of libpvm3.
 *
 * The public pvm_* functions validate their arguments and forward to
 * pvmi_* functions declared here or in the module headers (msg.h,
 * conn.h, ...).  Every public function reports failure the same way:
 * return pvmi_error("pvm_name", code), which sets pvm_errno, prints the
 * message when PvmAutoErr asks for it, and returns the negative code.
 */
#ifndef COPVM_PVMI_H
#define COPVM_PVMI_H

#include "pvm3.h"

#if defined(__GNUC__)
#define PVMI_EXPORT __attribute__((visibility("default")))
#else
#define PVMI_EXPORT
#endif

/* Records `code' as the latest error of `fn' and returns it unchanged;
 * prints "libpvm [tNNN]: fn(): text" when PvmAutoErr is on. */
int pvmi_error(const char *fn, int code);

/* Text for an error code, "Unknown error" for codes outside the table. */
const char *pvmi_errtext(int code);

/* The task's state (struct pvmi_state pvmi, pvmi_attached()). */
#include "task_state.h"

/* Tags of the library's own messages (caught task output) in its
 * context, PVMI_SYS_CTX (common/proto.h, with PVMI_TAG_HOSTSTATE); user
 * receives never match that context. */
#define PVMI_TAG_OUTPUT		0x7ffffff1
#define PVMI_TAG_HOSTGONE	0x7ffffff2	/* HostDelete, for output.c */
/* Also reserved, by libgpvm3: context 0x7fffff00 and the mailbox class
 * "###_COPVM_GROUP_SERVER_###" (group/gs_proto.h). */

struct pvmi_msg;
/* Sends message `m' to task `tid' with `tag' in the current context;
 * PvmOk (also for a task that is gone, as stock) or an error code. */
int pvmi_send_msg(struct pvmi_msg *m, int tid, int tag);
/* Notes that spawned task `tid' will send its output to us if caught. */
void pvmi_output_expect(int tid);

#endif /* COPVM_PVMI_H */
