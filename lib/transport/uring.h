/*
 * transport/uring.h - the counters of the io_uring transport (uring.c,
 * uring_none.c without liburing), which tests and benchmarks read; the
 * transport itself is its table, pvmi_transport_uring (transport.h).
 */
#ifndef COPVM_TRANSPORT_URING_H
#define COPVM_TRANSPORT_URING_H

/* How many io_uring_enter calls this process made to submit requests
 * (0 without a ring); tests and benchmarks count them. */
unsigned long pvmi_uring_submits(void);
/* How many zero-copy sends (IORING_OP_SENDMSG_ZC, frames of at least
 * COPVM_URING_ZC bytes) this process submitted. */
unsigned long pvmi_uring_zc_sends(void);

#endif /* COPVM_TRANSPORT_URING_H */
