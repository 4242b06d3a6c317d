/*
 * fuzz_kmod_args.c - libFuzzer target for the kernel module's checks of
 * its ioctl arguments and its clamp of a boost to the limits
 * (kmod/pvm_cosched_checks.h, the same code the module runs), built in
 * user space.
 *
 * Input: byte 0 holds flags (bit 0: the kernel honours slices), byte 1
 * the task's base nice (-20 + byte % 40), then the raw bytes of a
 * struct pvm_cosched_limits, a struct pvm_cosched_register, a struct
 * pvm_cosched_report, a struct pvm_cosched_boost, a struct
 * pvm_cosched_watch and a number of users (__u32), each zero-filled where
 * the input ends (REPORT's two unused words are ignored, whatever they
 * hold).  Every request the checks
 * accept is clamped to the limits (when those are valid), and what comes
 * out must be a boost the limits allow: a known level no stronger than
 * the one asked, RT only if allowed, a slice only where the kernel has
 * them, a nice between the floor and the base, a box of 1 ns up to
 * box_max_ns (0 at NONE); clamping it again must change nothing.  A
 * user's part of valid limits, for that many users, must be 1 ppm or
 * more, no more than the user share, and no more than the node budget's
 * even split (or 1 ppm).  A broken invariant aborts, which libFuzzer
 * reports as a crash.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcs_user_space.h"

#include "uapi/pvm_cosched.h"
#include "pvm_cosched_checks.h"

#define CHECK(cond)	do { if (!(cond)) abort(); } while (0)

/* Copies the next `size' bytes of the input into `out', zero-filled
 * past its end. */
static void take(const uint8_t **data, size_t *left, void *out, size_t size)
{
	size_t n = *left < size ? *left : size;

	memset(out, 0, size);
	memcpy(out, *data, n);
	*data += n;
	*left -= n;
}

/* The invariants of a request the checks accepted, clamped to valid
 * limits `l' (see the top). */
static void check_clamp(const struct pvm_cosched_limits *l, bool have_slice,
			s32 base_nice, s32 level, s32 nice, u64 box_ns)
{
	struct pcs_request r = { level, nice, box_ns, false };
	struct pcs_request again;

	pcs_clamp_request(l, have_slice, base_nice, &r);
	CHECK(r.level >= PVM_COSCHED_BOOST_NONE &&
	      r.level <= PVM_COSCHED_BOOST_RT);
	CHECK(r.level <= level);	/* never a stronger kind than asked */
	CHECK(r.level != PVM_COSCHED_BOOST_RT || l->allow_rt);
	CHECK(r.level != PVM_COSCHED_BOOST_SLICE || have_slice);
	if (r.level == PVM_COSCHED_BOOST_NICE) {
		CHECK(r.nice >= l->nice_floor && r.nice >= MIN_NICE);
		CHECK(r.nice < base_nice);
		CHECK(level == PVM_COSCHED_BOOST_RT || r.nice >= nice);
	}
	if (r.level == PVM_COSCHED_BOOST_NONE)
		CHECK(r.box_ns == 0);
	else
		CHECK(r.box_ns >= 1 && r.box_ns <= l->box_max_ns &&
		      r.box_ns <= box_ns);
	CHECK(r.clamped == (r.level != level || r.box_ns != box_ns ||
			    (r.level == PVM_COSCHED_BOOST_NICE &&
			     r.nice != nice)));
	/* what is in force passes the checks and is a fixed point */
	if (r.level != PVM_COSCHED_BOOST_NONE) {
		CHECK(pcs_check_request(r.level, r.nice, r.box_ns) == 0);
		again = r;
		pcs_clamp_request(l, have_slice, base_nice, &again);
		CHECK(!again.clamped && again.level == r.level &&
		      again.box_ns == r.box_ns &&
		      (r.level != PVM_COSCHED_BOOST_NICE ||
		       again.nice == r.nice));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvm_cosched_limits l;
	struct pvm_cosched_register reg;
	struct pvm_cosched_report rep;
	struct pvm_cosched_boost b;
	struct pvm_cosched_watch w;
	bool have_slice, valid;
	s32 base_nice;
	u32 users, part;
	int rc;

	if (size < 2)
		return 0;
	have_slice = data[0] & 1;
	base_nice = MIN_NICE + data[1] % 40;
	data += 2;
	size -= 2;
	take(&data, &size, &l, sizeof(l));
	take(&data, &size, &reg, sizeof(reg));
	take(&data, &size, &rep, sizeof(rep));
	take(&data, &size, &b, sizeof(b));
	take(&data, &size, &w, sizeof(w));
	take(&data, &size, &users, sizeof(users));

	valid = pcs_limits_valid(&l);
	if (valid) {
		CHECK(l.nice_floor >= MIN_NICE && l.nice_floor <= 0);
		CHECK(l.box_max_ns >= NSEC_PER_USEC &&
		      l.box_max_ns <= NSEC_PER_SEC);
		CHECK(l.share_max_ppm >= 1 &&
		      l.share_max_ppm <= PCS_SHARE_ONE);
		CHECK(l.user_share_ppm >= 1 &&
		      l.user_share_ppm <= PCS_SHARE_ONE);
		CHECK(l.node_share_ppm <= PCS_SHARE_ONE);
		CHECK(l.sample_ns >= NSEC_PER_MSEC);
		/* a bucket's debt x 10^6 (cosched_bucket_wait_ns) cannot
		 * overflow: share x window is below 2^64 / 10^6 */
		CHECK(l.window_ns <= UINT64_MAX / PCS_SHARE_ONE);
		/* a share granted is within the limit, whatever was asked */
		CHECK(pcs_share_for(&l, reg.share_ppm) >= 1 &&
		      pcs_share_for(&l, reg.share_ppm) <= l.share_max_ppm);
		/* a user's part: within the user share, and all users'
		 * parts together within the node budget, but for the 1 ppm
		 * that no part goes below */
		part = pcs_user_part(&l, users);
		CHECK(part >= 1 && part <= l.user_share_ppm);
		if (l.node_share_ppm)
			CHECK(part == 1 || (u64)part * (users ? users : 1) <=
			      l.node_share_ppm);
		else
			CHECK(part == l.user_share_ppm);
	}

	rc = pcs_check_register(&reg);
	CHECK(rc == 0 || rc == -EINVAL);
	CHECK((rc == 0) == (reg.flags == 0 && reg.pad == 0 &&
			    reg.reserved[0] == 0));

	rc = pcs_check_report(&rep);
	CHECK(rc == 0 || rc == -EINVAL);
	CHECK((rc == 0) == (rep.flags == 0 && rep.reserved[0] == 0 &&
			    rep.reserved[1] == 0 &&
			    pcs_check_request(rep.level, rep.nice,
					      rep.box_ns) == 0));
	if (rc == 0) {
		if (valid)
			check_clamp(&l, have_slice, base_nice, rep.level,
				    rep.nice, rep.box_ns);
	}

	/* WATCH: an ADD names a real boost with a box of at most 10 s, a
	 * DEL nothing but the fd. */
	rc = pcs_check_watch(&w);
	CHECK(rc == 0 || rc == -EINVAL);
	if (rc == 0) {
		CHECK(w.reserved[0] == 0);
		if (w.op == PVM_COSCHED_WATCH_ADD) {
			CHECK(w.level > PVM_COSCHED_BOOST_NONE &&
			      w.level <= PVM_COSCHED_BOOST_RT);
			CHECK(w.box_ns > 0 && w.box_ns <= PCS_WATCH_BOX_MAX_NS);
			CHECK(w.nice >= MIN_NICE && w.nice <= MAX_NICE);
			if (valid)
				check_clamp(&l, have_slice, base_nice, w.level,
					    w.nice, w.box_ns);
		} else {
			CHECK(w.op == PVM_COSCHED_WATCH_DEL && !w.level &&
			      !w.nice && !w.box_ns);
		}
	}

	rc = pcs_check_boost(&b);
	CHECK(rc == 0 || rc == -EINVAL);
	if (rc == 0) {
		CHECK(b.pid > 0 && b.flags == 0);
		CHECK(b.level == PVM_COSCHED_BOOST_NONE || b.box_ns > 0);
		CHECK(b.nice >= MIN_NICE && b.nice <= MAX_NICE);
		if (valid)
			check_clamp(&l, have_slice, base_nice, b.level, b.nice,
				    b.box_ns);
	}
	return 0;
}
