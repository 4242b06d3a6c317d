/*
 * wait.c - the wait of a receive: a short spin, then a blocking poll().
 *
 * A reply that comes within the spin is picked up without a wake-up
 * (tens of microseconds on these machines).  The spin never yields: on a
 * CPU shared with a CPU-bound job, sched_yield() hands that job a whole
 * time slice.  Instead the spin stops as soon as the kernel has switched
 * us out (someone else wants this CPU), and spinning is then left off
 * for a while, as it is after a spin that found nothing: blocking at
 * once lets the other work run and the wake-up on arrival brings us
 * back.  A switch is seen without a system call, as a gap between two
 * looks at the vDSO clock longer than any round of the spin takes.
 * docs/stock-behaviour.md ("Waiting in a receive") has the figures
 * behind this policy.
 *
 * The coscheduling model (lib/cosched/) sets the spin bound: IMP spins
 * for two context switches and always spins first (the papers'
 * two-phase spin-block, without the skipping above).  So does a task
 * that holds a nice or real-time boost which its backend charges to a
 * bounded share (the agent's and the module's token bucket), as long as
 * its recent spins mostly found their message: that share, enforced from
 * outside the task, is what keeps the local jobs' CPU, and a boosted
 * task that skipped blocked on a third to half of its waits, so that
 * most replies woke a busy CPU; spins that mostly miss (a barrier's
 * reply that takes hundreds of microseconds) would only spend the share
 * (docs/results/two-users).  Around the block the model is told, so DCS
 * can see who is waiting.
 */
#include <time.h>

#include "conn.h"
#include "daemon_link.h"
#include "cosched/cosched.h"
#include "cosched_model.h"
#include "precomm.h"
#include "pvmi.h"
#include "wait.h"

/* Spin budget before blocking, in ns. */
static long spin_ns = 40000;
/* Waits that block at once, without spinning. */
static int spin_skip;
/* How long the last wait spun before it gave up (0: it did not). */
static long spin_spent;
/* The recent spins' hit rate, in 1/COSCHED_HIT_ONE: each spin moves it
 * an eighth of the way to one (found input) or to zero (did not). */
static unsigned hit_rate = COSCHED_HIT_ONE;
/* Waits in a row that the look before the clock (pvmi_wait_input) may
 * end; the next takes the whole way, whose rounds poll the sockets when
 * their gap has passed (conn.c). */
#define LOOKS_IN_A_ROW		16
static int looks_in_a_row;
/* After a spin that found nothing. */
#define SKIP_AFTER_IDLE_SPIN	32
/* After a spin cut short because another task wanted the CPU. */
#define SKIP_AFTER_PREEMPTION	256
/* A spin round longer than this was switched out (a round that finds
 * nothing takes under a microsecond, one that polls a few). */
#define SWITCHED_GAP_NS		50000

/* Looks at the rings between two pump rounds of a spin: a round costs
 * a clock read and a walk over every link, endpoint and wait fd, a look
 * one load of a ring's shared index per ring. */
#define SPIN_LOOKS		32

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	do { } while (0)
#endif

long pvmi_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Moves the recent spins' hit rate towards this spin's outcome. */
static void spin_outcome(int hit)
{
	if (hit)
		hit_rate += (COSCHED_HIT_ONE - hit_rate) / 8;
	else
		hit_rate -= hit_rate / 8;
}

/* Spins until input arrives, the budget or `deadline' runs out, or the
 * CPU turns out to be shared.  Returns what pvmi_pump(0) returned last
 * (0: nothing yet); `*now' is the time the spin ended.  A spin makes no
 * system call of its own: being switched out shows as a gap of more
 * than SWITCHED_GAP_NS between two rounds.  One clock read per round,
 * which the pump's round shares. */
static int spin(long bound, long deadline, long *now)
{
	long start = pvmi_now_ns(), t = start, prev;
	int r, k, skipped = 0;

	while (t - start < bound && (deadline < 0 || t < deadline)) {
		r = pvmi_pump_spin(t);
		if (r != 0) {
			/* the round's reading, not a new one: the found
			 * message is not kept waiting for the clock */
			*now = t;
			spin_outcome(1);
			pvmi_cosched_waited(t - start, 1, -1);
			return r;
		}
		/* between rounds, look at the rings only (a few ns each);
		 * when one has input, go round at once without reading the
		 * clock, but never twice in a row, so that a round that
		 * finds nothing cannot keep the clock from being read */
		for (k = 0; k < SPIN_LOOKS && !pvmi_conn_spin_hint(); k++)
			cpu_relax();
		if (k < SPIN_LOOKS && !skipped) {
			skipped = 1;
			continue;
		}
		skipped = 0;
		prev = t;
		t = pvmi_now_ns();
		if (t - prev > SWITCHED_GAP_NS) {
			spin_skip = SKIP_AFTER_PREEMPTION;
			spin_outcome(0);
			*now = t;
			spin_spent = t - start;
			return 0;
		}
	}
	*now = t;
	spin_spent = t - start;
	if (t - start >= bound) {
		spin_skip = SKIP_AFTER_IDLE_SPIN;
		spin_outcome(0);
	}
	return 0;
}

/* Blocks in the pump until input or `deadline' (-1: none), `t' being
 * the time now; returns what pvmi_pump returned. */
static int block(long deadline, long t)
{
	int r;

	if (deadline >= 0 && t >= deadline) {
		pvmi_cosched_waited(spin_spent, 0, -1);
		return 0;
	}
	pvmi_cosched_blocking(1);
	if (deadline < 0)
		r = pvmi_pump(-1);
	else
		r = pvmi_pump((int)((deadline - t + 999999) / 1000000));
	pvmi_cosched_blocking(0);
	pvmi_cosched_waited(spin_spent, 0, pvmi_now_ns() - t);
	return r;
}

int pvmi_wait_input(long deadline)
{
	long t, bound;
	int r;

	/* input already in a ring ends the wait before the spin's bound
	 * and the clock are read: a spin of no time that found it */
	if (deadline < 0 && looks_in_a_row < LOOKS_IN_A_ROW) {
		r = pvmi_conn_spin_hint() ? pvmi_pump_spin(0) : 0;
		if (r != 0) {
			looks_in_a_row++;
			if (spin_skip == 0)
				spin_outcome(1);
			pvmi_cosched_waited(0, 1, -1);
			return r;
		}
	}
	/* about to wait: precommunication first (precomm.h), only now that
	 * the look found nothing; a send pumps, so the caller looks at its
	 * queue again before it waits */
	if (pvmi_precomm_stage())
		return 1;
	looks_in_a_row = 0;
	bound = pvmi_cosched_recv_spin_ns(spin_ns);
	if (spin_skip > 0 && !pvmi_cosched_spin_rationed(hit_rate))
		spin_skip = 0;
	spin_spent = 0;
	if (spin_skip > 0 || bound == 0) {
		if (spin_skip > 0)
			spin_skip--;
		t = pvmi_now_ns();
	} else {
		r = spin(bound, deadline, &t);
		if (r != 0)
			return r;
	}
	if (!pvmi_conn_daemon_up())
		return PvmSysErr;
	return block(deadline, t);
}

void pvmi_set_spin_ns(long ns)
{
	spin_ns = ns < 0 ? 0 : ns;
}
