/*
 * comms_driver.c - what COMMS1 and COMMS2 share: the arguments, the slave
 * spawned on the next host, the repetitions per length, the table, the
 * fit and the shutdown.  Each program brings its timed step (struct
 * bench_comms, bench.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "bench.h"

#define MAX_LENGTHS	64

struct run {
	int lengths[MAX_LENGTHS], nlen, nrept, brk;
	const char *host;	/* the slave's host, NULL: the next one */
};

static void usage(const struct bench_comms *c)
{
	fprintf(stderr, "usage: %s [-m maxlen] [-s lengths] [-r nrept] "
		"[-b breakpoint] [-H host]\n", c->name);
}

/* Reads the command line into r; 0, or -1 after printing the usage. */
static int parse(const struct bench_comms *c, int argc, char **argv,
		 struct run *r)
{
	int opt, maxlen = 4 << 20;

	r->nlen = -1;
	r->nrept = 1000;
	r->brk = 0;
	r->host = NULL;
	while ((opt = getopt(argc, argv, "m:s:r:b:H:")) != -1) {
		switch (opt) {
		case 'm':
			if (bench_parse_list(optarg, &maxlen, 1) != 1)
				return usage(c), -1;
			break;
		case 's':
			r->nlen = bench_parse_list(optarg, r->lengths,
						   MAX_LENGTHS);
			if (r->nlen < 1)
				return usage(c), -1;
			break;
		case 'r':
			r->nrept = atoi(optarg);
			break;
		case 'b':
			r->brk = atoi(optarg);
			break;
		case 'H':
			r->host = optarg;
			break;
		default:
			return usage(c), -1;
		}
	}
	if (r->nrept < 1 || optind != argc)
		return usage(c), -1;
	if (r->nlen < 0)
		r->nlen = bench_pow2_sizes(maxlen, r->lengths, MAX_LENGTHS);
	return 0;
}

/* Repetitions for a length: nrept up to 1 KiB, then nrept * 1 KiB / len,
 * at least 10. */
static int nrept_for(int len, int nrept)
{
	long r = nrept;

	if (len > 1024)
		r = (long)nrept * 1024 / len;
	return r < 10 ? 10 : (int)r;
}

/* Times every length, prints the rows, the fit and time_s; 0 or -1. */
static int measure(const struct bench_comms *c, const struct run *r,
		   int peer, double *t)
{
	struct bench_stats st[MAX_LENGTHS];
	double start = bench_now();
	int i, reps;

	bench_comms_header();
	for (i = 0; i < r->nlen; i++) {
		reps = nrept_for(r->lengths[i], r->nrept);
		if (c->step(peer, r->lengths[i], reps / 10 + 2, reps, t) < 0) {
			fprintf(stderr, "%s: %s of %d bytes failed\n", c->name,
				c->what, r->lengths[i]);
			return -1;
		}
		bench_stats(t, reps, &st[i]);
		bench_comms_row(r->lengths[i], reps, &st[i]);
	}
	start = bench_now() - start;
	bench_comms_fit(r->lengths, st, r->nlen, r->brk);
	bench_result(start, "time_s");
	return 0;
}

int bench_comms_main(const struct bench_comms *c, int argc, char **argv)
{
	int peer, status = 1;
	double *t = NULL;
	struct bench_vm vm;
	struct run r;

	if (argc > 1 && strcmp(argv[1], BENCH_CHILD_ARG) == 0)
		return c->slave();
	if (parse(c, argc, argv, &r) < 0)
		return 1;
	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (bench_vm_get(&vm) < 0) {
		fprintf(stderr, "%s: cannot read the host table\n", c->name);
		pvm_exit();
		return 1;
	}
	if (r.host == NULL)
		r.host = bench_vm_place(&vm, 1);
	peer = bench_spawn_self(r.host, NULL);
	if (peer < 0) {
		fprintf(stderr, "%s: cannot spawn the slave on %s (%d)\n",
			c->name, r.host, peer);
		bench_vm_free(&vm);
		pvm_exit();
		return 1;
	}
	bench_watch(&peer, 1, c->tag_exit);
	t = calloc((size_t)nrept_for(0, r.nrept), sizeof(*t));
	if (t == NULL)
		goto fail;

	bench_print_setup(c->title, &vm);
	printf("# master on %s, slave on %s; time per message = %s\n",
	       vm.names[0], bench_host_of(&vm, peer), c->time_per_message);
	if (measure(c, &r, peer, t) < 0)
		goto fail;
	status = bench_dismiss(c->name, &peer, 1, c->tag_done, c->tag_exit);
	free(t);
	bench_vm_free(&vm);
	pvm_exit();
	return status;

fail:
	free(t);
	bench_vm_free(&vm);
	bench_abort(&peer, 1);
	return 1;
}
