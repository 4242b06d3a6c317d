/*
 * precomm.h - precommunication (precomm.c): the hooks the receive and
 * send calls use to stage and release indicated messages.
 */
#ifndef COPVM_PRECOMM_H
#define COPVM_PRECOMM_H

#include "msg.h"
#include "task_state.h"	/* PVMI_HIDDEN */

/* A blocking receive begins: expires the indications a receive already
 * saw, and marks the others. */
void pvmi_precomm_recv_begin(void);
/* A blocking receive is about to wait: stages the marked indications on
 * their circuits (sent held).  Returns how many it tried: non-zero means
 * the pump may have run, so the caller looks at its queue again before
 * waiting. */
int pvmi_precomm_stage(void);
/* Indications pending now (precomm.c's count, read inline). */
extern int pvmi_precomm_n PVMI_HIDDEN;
/* pvmi_precomm_release() once an indication is pending. */
int pvmi_precomm_release_pending(const struct pvmi_msg *m, int tid, int tag,
				 int *rc);
/* pvm_send of `m' to (tid, tag): 1 when it went as a staged packet (*rc
 * then holds pvmi_route_send()'s result), 0 for a plain send (a stale
 * indication for (tid, tag) is dropped).  With none pending, the usual
 * case, a load and no call. */
static inline int pvmi_precomm_release(const struct pvmi_msg *m, int tid,
				       int tag, int *rc)
{
	return pvmi_precomm_n ? pvmi_precomm_release_pending(m, tid, tag, rc)
			      : 0;
}
/* Drops every indication and frees the staged packets. */
void pvmi_precomm_reset(void);
/* Indications pending now. */
int pvmi_precomm_pending(void);

#endif /* COPVM_PRECOMM_H */
