/*
 * cosched_abi.c - the coscheduling constants that cross a process or
 * kernel boundary, checked at compile time against their one source, the
 * module's uapi header (kmod/uapi/pvm_cosched.h): the boost levels of the
 * public copvm.h, which cannot include that uninstalled header, and the
 * capability bits of the agent's protocol (common/agent_proto.h), so that
 * a task, the agent and the module read a level or a capability alike.
 * No code: a mismatch fails the build.
 */
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
