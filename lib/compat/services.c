/*
 * services.c - registering system services, and the pvmd debug call.
 * Stock's pvmd hands work to a registered hoster (starting remote
 * pvmds), tasker (starting tasks), resource manager (scheduling) or
 * tracer (collecting trace events).  copvm's pvmd does all of this
 * itself and never delegates, so registering would succeed without the
 * registrant ever receiving a request: these calls say so (PvmNotImpl).
 */
#include "pvmi.h"

/* Would make the caller the machine's slave-pvmd starter.
 * Returns PvmNotImpl: copvm's pvmd starts its slaves itself. */
PVMI_EXPORT int pvm_reg_hoster(void)
{
	return pvmi_error("pvm_reg_hoster", PvmNotImpl);
}

/* Would make the caller this host's task starter.
 * Returns PvmNotImpl: copvm's pvmd starts tasks itself. */
PVMI_EXPORT int pvm_reg_tasker(void)
{
	return pvmi_error("pvm_reg_tasker", PvmNotImpl);
}

/* Would make the caller the machine's resource manager (*hip: master
 * host).  Returns PvmNotImpl: copvm's pvmd schedules tasks itself. */
PVMI_EXPORT int pvm_reg_rm(struct pvmhostinfo **hip)
{
	return pvmi_error("pvm_reg_rm", PvmNotImpl);
}

/* Would make the caller the default tracer of new tasks.
 * Returns PvmNotImpl: copvm tasks do not generate trace events. */
PVMI_EXPORT int pvm_reg_tracer(int tctx, int ttag, int octx, int otag,
			       char *tmask, int tbuf, int topt)
{
	return pvmi_error("pvm_reg_tracer", PvmNotImpl);
}

/* The console's "tickle": asks the pvmd to dump tables or set debug masks.
 * Returns PvmNotImpl: copvm's pvmd has no such request (see pvmd.log). */
PVMI_EXPORT int pvm_tickle(int narg, int *argp, int *nresp, int *resp)
{
	if (nresp)
		*nresp = 0;
	return pvmi_error("pvm_tickle", PvmNotImpl);
}
