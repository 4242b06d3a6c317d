/*
 * cosched_bucket.h - the CPU share of a boost, as a token bucket, for
 * user space (copvm-agent and the tests).  The arithmetic is the kernel
 * module's own, header-only in kmod/pvm_cosched_bucket.h, so that the
 * agent and the module run one implementation of the same policy.
 */
#ifndef COPVM_COSCHED_BUCKET_H
#define COPVM_COSCHED_BUCKET_H

#include "../kmod/pvm_cosched_bucket.h"

#endif /* COPVM_COSCHED_BUCKET_H */
