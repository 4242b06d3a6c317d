/*
 * mslave - the master-slave synthetic benchmark: one master, and slaves
 * of two kinds, r_slave (only receives) and rs_slave (receives and
 * answers).  It tells apart a coscheduler that counts only received
 * messages from one that also counts sent ones: only the rs_slaves are on
 * the master's critical path, so only they should be promoted.
 *
 * Placement as in the experiments it reproduces: the master on its own
 * host, and one r_slave plus one rs_slave on each of the other hosts (one
 * pair per other host by default; all on the master's host when the
 * virtual machine has one host).  Each iteration, the master sends a
 * message to every slave; every slave unpacks it and computes for a fixed
 * time (floating-point kernel, CPU time of the task); each rs_slave then
 * sends the result back; once the master has every rs_slave's answer, it
 * starts the next iteration.  After the last one, the master tells the
 * slaves to stop and waits until all have exited (the r_slaves may still
 * be working through their messages): that is the return time of the
 * application, time_s.
 *
 * usage: mslave [-p pairs] [-s length] [-c compute_ms] [iterations]
 *   -p pairs    (r_slave, rs_slave) pairs, one per host after the
 *               master's (default: hosts - 1, at least 1)
 *   -s length   bytes sent to the slaves each iteration (default 1024)
 *   -c ms       compute time per received message (default 1 ms)
 *   iterations  default 200
 * Output ends with RESULT lines: iter_ms (mean), loop_s (the iterations)
 * and time_s (until every slave has exited).  Exit status 0, or 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "bench.h"

#define TAG_WORK	61	/* master -> slaves */
#define TAG_ANSWER	62	/* rs_slave -> master: one double */
#define TAG_QUIT	63
#define TAG_EXIT	64

#define MAX_PAIRS	32
#define MAX_LENGTH	(1 << 20)

/* A slave; `answers' tells an rs_slave from an r_slave. */
static int slave(int answers, double compute)
{
	int parent = pvm_parent(), bufid, len, tag;
	char *buf = malloc(MAX_LENGTH);
	double result;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	while (buf != NULL) {
		bufid = pvm_recv(parent, -1);
		if (bufid < 0 || pvm_bufinfo(bufid, &len, &tag, NULL) < 0 ||
		    tag != TAG_WORK || len > MAX_LENGTH)
			break;
		if (len > 0 && pvm_upkbyte(buf, len, 1) < 0)
			break;
		bench_burn(compute);
		result = bench_fp(64) + (len > 0 ? buf[0] : 0);
		if (!answers)
			continue;
		pvm_initsend(PvmDataDefault);
		pvm_pkdouble(&result, 1, 1);
		if (pvm_send(parent, TAG_ANSWER) < 0)
			break;
	}
	free(buf);
	pvm_exit();
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: mslave [-p pairs] [-s length] [-c compute_ms] "
		"[iterations]\n");
}

/* One iteration; 0 or -1. */
static int iteration(const int *tids, int n, int npairs, char *buf, int len)
{
	double answer;
	int i;

	for (i = 0; i < n; i++) {
		if (pvm_initsend(PvmDataRaw) < 0 ||
		    (len > 0 && pvm_pkbyte(buf, len, 1) < 0) ||
		    pvm_send(tids[i], TAG_WORK) < 0)
			return -1;
	}
	for (i = 0; i < npairs; i++)
		if (pvm_recv(-1, TAG_ANSWER) < 0 || pvm_upkdouble(&answer, 1, 1) < 0)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	int npairs = 0, len = 1024, iters = 200, opt, i, status = 1;
	int tids[2 * MAX_PAIRS], nspawned = 0;
	double compute = 1e-3, *t = NULL, start, loop, total, t0;
	struct bench_stats st;
	struct bench_vm vm;
	char *buf = NULL;

	if (argc > 2 && strcmp(argv[1], BENCH_CHILD_ARG) == 0)
		return slave(strcmp(argv[2], "rs") == 0,
			     argc > 3 ? atof(argv[3]) : 1e-3);

	while ((opt = getopt(argc, argv, "p:s:c:")) != -1) {
		switch (opt) {
		case 'p':
			npairs = atoi(optarg);
			if (npairs < 1 || npairs > MAX_PAIRS)
				return usage(), 1;
			break;
		case 's':
			if (bench_parse_list(optarg, &len, 1) != 1 || len > MAX_LENGTH)
				return usage(), 1;
			break;
		case 'c':
			compute = atof(optarg) / 1e3;
			break;
		default:
			return usage(), 1;
		}
	}
	if (optind < argc)
		iters = atoi(argv[optind++]);
	if (iters < 1 || compute < 0 || optind != argc)
		return usage(), 1;

	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (bench_vm_get(&vm) < 0) {
		fprintf(stderr, "mslave: cannot read the host table\n");
		pvm_exit();
		return 1;
	}
	if (npairs == 0)
		npairs = vm.nhost > 1 ? (vm.nhost - 1 < MAX_PAIRS ?
					 vm.nhost - 1 : MAX_PAIRS) : 1;
	/* tids[0..npairs) are the rs_slaves, then the r_slaves. */
	for (i = 0; i < 2 * npairs; i++) {
		char arg[32], *args[] = { i < npairs ? "rs" : "r", arg, NULL };
		const char *host = bench_vm_place(&vm, 1 + i % npairs);

		snprintf(arg, sizeof(arg), "%.9g", compute);
		tids[i] = bench_spawn_self(host, args);
		if (tids[i] < 0) {
			fprintf(stderr, "mslave: cannot spawn a slave on %s (%d)\n",
				host, tids[i]);
			goto fail;
		}
		nspawned++;
	}
	bench_watch(tids, nspawned, TAG_EXIT);
	t = calloc((size_t)iters, sizeof(*t));
	buf = malloc((size_t)len + 1);
	if (t == NULL || buf == NULL)
		goto fail;
	for (i = 0; i < len; i++)
		buf[i] = (char)(i * 7 + 1);

	bench_print_setup("MASTER-SLAVE", &vm);
	printf("# master on %s; %d pairs:", vm.names[0], npairs);
	for (i = 0; i < npairs; i++)
		printf(" (r_slave %s, rs_slave %s)",
		       bench_host_of(&vm, tids[npairs + i]),
		       bench_host_of(&vm, tids[i]));
	printf("; %d bytes, compute %.3f ms per received message\n", len,
	       compute * 1e3);

	for (i = 0; i < 2; i++)
		if (iteration(tids, nspawned, npairs, buf, len) < 0)
			goto broken;
	start = bench_now();
	for (i = 0; i < iters; i++) {
		t0 = bench_now();
		if (iteration(tids, nspawned, npairs, buf, len) < 0)
			goto broken;
		t[i] = bench_now() - t0;
	}
	loop = bench_now() - start;
	for (i = 0; i < nspawned; i++) {
		pvm_initsend(PvmDataDefault);
		pvm_send(tids[i], TAG_QUIT);
	}
	if (bench_wait_exits(nspawned, TAG_EXIT, 120) != nspawned) {
		fprintf(stderr, "mslave: not every slave exited\n");
		goto fail;
	}
	total = bench_now() - start;
	bench_stats(t, iters, &st);
	printf("%8s %12s %12s %12s %10s %10s\n", "ITERS", "ITER(ms)",
	       "MEDIAN(ms)", "P90(ms)", "LOOP(s)", "RETURN(s)");
	printf("%8d %12.3f %12.3f %12.3f %10.3f %10.3f\n", iters, st.mean * 1e3,
	       st.median * 1e3, st.p90 * 1e3, loop, total);
	bench_result(st.mean * 1e3, "iter_ms");
	bench_result(loop, "loop_s");
	bench_result(total, "time_s");
	status = 0;
	free(t);
	free(buf);
	bench_vm_free(&vm);
	pvm_exit();
	return status;

broken:
	fprintf(stderr, "mslave: an iteration failed\n");
fail:
	free(t);
	free(buf);
	bench_vm_free(&vm);
	bench_abort(tids, nspawned);
	return 1;
}
