/*
 * bench.h - what the benchmark programs share (examples/comms1.c, comms2.c,
 * synch1.c, sinring.c, sintree.c, mslave.c, calcula.c, calcula2.c).
 *
 * Two halves.  bench/util.c needs nothing but libc and libm: clocks, the
 * floating-point kernel the local workload and the "compute for a while"
 * steps are made of, order statistics, the least-squares fit of the
 * PARKBENCH timing model, list arguments and the RESULT lines.
 * bench/pvmbench.c uses only the PVM 3.4 API, so that a program built once
 * against our pvm3.h runs on stock PVM or on copvm depending on which
 * libpvm3.so.3 the dynamic linker finds first: where the tasks go (spread
 * over the hosts of the virtual machine), spawning the program itself as
 * its helpers, and waiting for them to go.
 *
 * Every program ends its output with lines
 *	RESULT <name> <value>
 * one per figure, which bench/bench-cluster.sh collects; the rest of
 * the output is for people and follows the PARKBENCH layout where one is
 * documented.
 */
#ifndef COPVM_BENCH_H
#define COPVM_BENCH_H

#include <stddef.h>

/* ---- util.c: no PVM ---- */

/* Seconds on the monotonic clock. */
double bench_now(void);

/* Seconds of CPU time this thread has used. */
double bench_cputime(void);

/* Pins the calling process to CPU `cpu'.  0, or -1 with errno set (the
 * CPU is not there, or not ours to use). */
int bench_pin_cpu(int cpu);

/*
 * The floating-point kernel: `iters' steps of a dependent chain of
 * multiply-adds with no system call inside.  Returns a value that depends
 * on every step, so that the compiler cannot drop the work.
 */
double bench_fp(long iters);

/* Run the kernel until this thread has used `seconds' of CPU time. */
void bench_burn(double seconds);

/* Kernel steps that take `seconds' of CPU time here (measured now). */
long bench_calibrate(double seconds);

/* Order statistics of v[0..n-1]; sorts v.  All zero when n is 0. */
struct bench_stats {
	int n;
	double mean, median, p90, min, max;
};
void bench_stats(double *v, int n, struct bench_stats *st);

/*
 * Least squares of t = t0 + n / rinf over the points (n[i], t[i]), the
 * PARKBENCH timing model; nhalf = rinf * t0 is the message length that
 * reaches half the asymptotic rate.  Returns 0, or -1 when the points do
 * not determine a positive slope (then rinf and nhalf are 0).
 */
struct bench_fit {
	double t0;		/* seconds */
	double rinf;		/* bytes per second */
	double nhalf;		/* bytes */
	int points;
};
int bench_fit(const double *n, const double *t, int count, struct bench_fit *f);

/* The same model fitted to relative residuals, (t - model) / t, i.e.
 * weights 1 / t^2 (at most 64 points): short and long messages count
 * alike, so T0 and NHALF are not at the mercy of the noise of the
 * longest messages.  Same return values. */
int bench_fit_rel(const double *n, const double *t, int count,
		  struct bench_fit *f);

/*
 * Parses "0,8,1k,4M" or "2-8" (or a mix: "0,1-3,16") into out[], at most
 * `max' values; k and M multiply by 1024 and 1024 * 1024.  Returns the
 * count, or -1 on a malformed list.
 */
int bench_parse_list(const char *arg, int *out, int max);

/* Every size of 0, 1, 2, 4, ... up to and including max (a power of 2
 * or not); returns the count (at most `room'). */
int bench_pow2_sizes(int max, int *out, int room);

/*
 * The COMMS1/COMMS2 report: a header, one row per message length (time
 * per message in microseconds: mean, median, 90th percentile; rate from
 * the mean in MB/s of 10^6 bytes), then the fits of the means with their
 * RESULT lines: rinf_MBps, nhalf_B, t0_us (RINF, NHALF, T0 of ordinary
 * least squares, PARKBENCH's) and rinf_rel_MBps, nhalf_rel_B, t0_rel_us
 * (relative residuals).  With brk > 0, lengths below and from brk on are also
 * fitted separately (PARKBENCH's breakpoint for machines whose protocol
 * changes with the length; printed only).
 */
void bench_comms_header(void);
void bench_comms_row(int length, int reps, const struct bench_stats *st);
void bench_comms_fit(const int *lengths, const struct bench_stats *st,
		     int count, int brk);

/* Prints "RESULT <name> <value>" (name built from a printf format). */
void bench_result(double value, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- pvmbench.c: PVM 3.4 API only ---- */

/* argv[1] of a copy the program spawned of itself. */
#define BENCH_CHILD_ARG	"--bench-child"

/* The hosts of the virtual machine, the caller's own first. */
struct bench_vm {
	int nhost;
	char **names;		/* nhost names, own host first */
	int *dtids;		/* the tid of each host's daemon */
};

/* Fills vm from pvm_config; returns 0 or a PVM error code. */
int bench_vm_get(struct bench_vm *vm);
void bench_vm_free(struct bench_vm *vm);

/* The host task number i (0: the caller) goes to: tasks are dealt out
 * round-robin starting with the caller's host. */
const char *bench_vm_place(const struct bench_vm *vm, int i);

/*
 * Spawns one copy of this program on `host' (NULL: wherever the daemon
 * chooses) with argv[1] = BENCH_CHILD_ARG and the given further arguments
 * (NULL-terminated, may be NULL).  Returns the tid (> 0) or an error code.
 */
int bench_spawn_self(const char *host, char **args);

/* Asks for a message with `tag' when each of tids[0..n-1] exits. */
void bench_watch(const int *tids, int n, int tag);

/* Waits for n exit notices with `tag', at most `timeout' seconds;
 * returns how many arrived. */
int bench_wait_exits(int n, int tag, double timeout);

/* Tells the n tasks to leave (an empty message with `tag_quit') and waits
 * up to 30 s for their exit notices; 0, or 1 after saying on stderr that
 * not every task exited. */
int bench_dismiss(const char *name, const int *tids, int n, int tag_quit,
		  int tag_exit);

/* Kills the tasks that were spawned (after a failure) and leaves PVM. */
void bench_abort(const int *tids, int n);

/* Name of the host a task runs on ("?" when unknown). */
const char *bench_host_of(const struct bench_vm *vm, int tid);

/* One line naming the PVM version, the route and the hosts in use. */
void bench_print_setup(const char *bench, const struct bench_vm *vm);

/* Sends one message with `tag' carrying the n ints v[] to tid. */
int bench_send_ints(int tid, int tag, const int *v, int n);

/* Receives a message with `tag' from `from' (-1: anyone) and unpacks
 * n ints into v[]; returns the sender's tid or an error code. */
int bench_recv_ints(int from, int tag, int *v, int n);

/* ---- comms_driver.c: the driver of COMMS1 and COMMS2 ---- */

/* What one of the two adds to the common driver. */
struct bench_comms {
	const char *name;	/* the program, for messages */
	const char *title;	/* its setup line: "COMMS1 ping-pong" */
	const char *what;	/* one step, for messages: "ping-pong" */
	const char *time_per_message;	/* how t comes from a step */
	int tag_done;		/* master -> slave: leave */
	int tag_exit;		/* the slave's exit notice */
	/* What the spawned copy runs; returns its exit status. */
	int (*slave)(void);
	/* Times `reps' steps of `len' bytes with `peer' after `warm' untimed
	 * ones; t[i] gets the time per message in seconds.  0 or -1. */
	int (*step)(int peer, int len, int warm, int reps, double *t);
};

/* The whole program: `[-m maxlen] [-s lengths] [-r nrept] [-b brk]
 * [-H host]', the slave, the table, the fit; returns the exit status. */
int bench_comms_main(const struct bench_comms *c, int argc, char **argv);

/* ---- synthetic.c: the driver of sinring and sintree ---- */

#define BENCH_SYN_MAX_LENGTH	8192	/* longest message, bytes */

/* What one synthetic benchmark adds to the common driver. */
struct bench_synthetic {
	const char *name;	/* the program, for messages */
	const char *title;	/* its setup line: "SINRING logical ring" */
	int tag_quit;		/* master -> task: leave */
	int tag_exit;		/* the tasks' exit notices */
	/* What a spawned copy runs (compute: seconds per received message);
	 * returns its exit status. */
	int (*member)(double compute);
	/* After the spawn, before the first iteration (NULL: nothing);
	 * 0 or -1. */
	int (*start)(const int *tids, int n);
	/* One timed iteration of the master with messages of `len' bytes
	 * (buf holds BENCH_SYN_MAX_LENGTH); 0 or -1. */
	int (*iteration)(const int *tids, int n, char *buf, int len,
			 double compute);
};

/* The whole program: `[-n tasks] [-s lengths] [-c compute_ms]
 * [iterations]', spawning, the timed loop, the report; returns the exit
 * status. */
int bench_synthetic_main(const struct bench_synthetic *s, int argc,
			 char **argv);

#endif /* COPVM_BENCH_H */
