/*
 * cosched_abi.c - the coscheduling constants that cross a process or
 * kernel boundary, checked at compile time against their one source, the
 * module's uapi header (kmod/uapi/pvm_cosched.h): the boost levels of the
 * public copvm.h, which cannot include that uninstalled header, and the
 * capability bits of the agent's protocol (common/agent_proto.h), so that
 * a task, the agent and the module read a level or a capability alike;
 * and the layout of the ioctl structs whose words changed meaning within
 * ABI version 2, which callers built before still use.  No code: a
 * mismatch fails the build.
 */
#include <stddef.h>

#include "agent_proto.h"
#include "copvm.h"
#include "pvm_cosched.h"

_Static_assert(COPVM_BOOST_NONE == PVM_COSCHED_BOOST_NONE &&
	       COPVM_BOOST_SLICE == PVM_COSCHED_BOOST_SLICE &&
	       COPVM_BOOST_NICE == PVM_COSCHED_BOOST_NICE &&
	       COPVM_BOOST_RT == PVM_COSCHED_BOOST_RT,
	       "copvm.h's boost levels are the module's");

_Static_assert(AGENT_CAP_SLICE == PVM_COSCHED_CAP_SLICE &&
	       AGENT_CAP_NICE == PVM_COSCHED_CAP_NICE &&
	       AGENT_CAP_RT == PVM_COSCHED_CAP_RT &&
	       AGENT_CAP_PEERS == PVM_COSCHED_CAP_PEERS,
	       "the agent's capability bits are the module's");

/* Words given a meaning (or none) within version 2 keep their place: the
 * limits' node budget where pad2 was, STATS' users and part where its
 * reserved word was, REPORT's ignored words where its correspondents
 * were.  The sizes are in the ioctl numbers. */
_Static_assert(sizeof(struct pvm_cosched_limits) == 56 &&
	       offsetof(struct pvm_cosched_limits, node_share_ppm) == 44 &&
	       offsetof(struct pvm_cosched_limits, reserved) == 48,
	       "pvm_cosched_limits keeps its layout");
_Static_assert(sizeof(struct pvm_cosched_stats) == 160 &&
	       offsetof(struct pvm_cosched_stats, users) == 152 &&
	       offsetof(struct pvm_cosched_stats, my_part_ppm) == 156,
	       "pvm_cosched_stats keeps its layout");
_Static_assert(sizeof(struct pvm_cosched_report) == 56 &&
	       offsetof(struct pvm_cosched_report, unused_peers_ptr) == 8 &&
	       offsetof(struct pvm_cosched_report, unused_npeers) == 16 &&
	       offsetof(struct pvm_cosched_report, level) == 20,
	       "pvm_cosched_report keeps its layout");
