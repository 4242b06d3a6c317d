/*
 * comms1 - PARKBENCH COMMS1, the ping-pong: the basic point-to-point
 * communication properties of the virtual machine.
 *
 * The master (started from a shell) spawns one copy of itself on the next
 * host of the virtual machine (its own when there is only one) and, for
 * each message length n, sends n bytes, which the slave unpacks into an
 * array and immediately returns; half the round trip is the time t to
 * send a message of length n.  Each length is timed NREPT times after a
 * few untimed round trips; the mean, median and 90th percentile of t are
 * reported with the rate n / t, and the means are fitted by least squares
 * to t = t0 + n / rinf, giving the asymptotic rate RINF, the
 * half-performance length NHALF = RINF * T0, the startup time T0 and the
 * specific performance PI0 = 1 / T0 (PARKBENCH's four parameters).
 *
 * Messages are packed raw (pvm_initsend(PvmDataRaw), pvm_pkbyte) and the
 * tasks talk over direct routes, as in the experiments this reproduces.
 * Only the PVM 3.4 API is used: the binary runs unchanged on stock PVM.
 *
 * usage: comms1 [-m maxlen] [-s lengths] [-r nrept] [-b breakpoint] [-H host]
 *   -m maxlen   lengths 0, 1, 2, 4, ... up to maxlen (default 4M = 4 MiB)
 *   -s lengths  explicit list instead, e.g. 0,8,1k-2k,64k (k, M suffixes)
 *   -r nrept    round trips per length up to 1 KiB (default 1000); longer
 *               messages do nrept * 1 KiB / n of them, at least 10
 *   -b bytes    also fit the lengths below and from this one separately
 *   -H host     put the slave on this host
 * Output ends with RESULT lines (time_s: the timed part, all lengths).
 * Exit status 0, or 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "bench.h"

#define TAG_PING	11
#define TAG_PONG	12
#define TAG_DONE	13
#define TAG_EXIT	14

#define MAX_LENGTHS	64

/* The slave: return every message unchanged until told to stop. */
static int slave(void)
{
	int parent = pvm_parent(), bufid, len, tag;
	size_t cap = 0;
	char *buf = NULL, *nbuf;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	for (;;) {
		bufid = pvm_recv(parent, -1);
		if (bufid < 0 || pvm_bufinfo(bufid, &len, &tag, NULL) < 0 ||
		    tag != TAG_PING)
			break;
		if ((size_t)len > cap) {
			nbuf = realloc(buf, (size_t)len);
			if (nbuf == NULL)
				break;
			buf = nbuf;
			cap = (size_t)len;
		}
		if (len > 0 && pvm_upkbyte(buf, len, 1) < 0)
			break;
		pvm_initsend(PvmDataRaw);
		if (len > 0)
			pvm_pkbyte(buf, len, 1);
		if (pvm_send(parent, TAG_PONG) < 0)
			break;
	}
	free(buf);
	pvm_exit();
	return 0;
}

static int nrept_for(int len, int nrept)
{
	long r = nrept;

	if (len > 1024)
		r = (long)nrept * 1024 / len;
	return r < 10 ? 10 : (int)r;
}

/* Times `reps' round trips of len bytes after `warm' untimed ones; t[]
 * gets half of each round trip in seconds.  0, or -1 on a failure. */
static int pingpong(int peer, char *out, char *in, int len, int warm,
		    int reps, double *t)
{
	int i, bufid, got;
	double t0;

	for (i = -warm; i < reps; i++) {
		if (len > 0) {
			out[0] = (char)i;
			out[len - 1] = (char)(i * 3);
		}
		t0 = bench_now();
		if (pvm_initsend(PvmDataRaw) < 0 ||
		    (len > 0 && pvm_pkbyte(out, len, 1) < 0) ||
		    pvm_send(peer, TAG_PING) < 0)
			return -1;
		bufid = pvm_recv(peer, TAG_PONG);
		if (bufid < 0 || pvm_bufinfo(bufid, &got, NULL, NULL) < 0 ||
		    got != len || (len > 0 && pvm_upkbyte(in, len, 1) < 0))
			return -1;
		if (i >= 0)
			t[i] = (bench_now() - t0) / 2;
		if (len > 0 && (in[0] != out[0] || in[len - 1] != out[len - 1]))
			return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: comms1 [-m maxlen] [-s lengths] [-r nrept] "
		"[-b breakpoint] [-H host]\n");
}

int main(int argc, char **argv)
{
	int lengths[MAX_LENGTHS], nlen = -1, maxlen = 4 << 20, nrept = 1000;
	int brk = 0, opt, i, peer = 0, status = 1, maxl = 0;
	const char *host = NULL;
	struct bench_stats st[MAX_LENGTHS];
	struct bench_vm vm;
	char *out = NULL, *in = NULL;
	double *t = NULL, start, total;

	if (argc > 1 && strcmp(argv[1], BENCH_CHILD_ARG) == 0)
		return slave();

	while ((opt = getopt(argc, argv, "m:s:r:b:H:")) != -1) {
		switch (opt) {
		case 'm':
			if (bench_parse_list(optarg, &maxlen, 1) != 1)
				return usage(), 1;
			break;
		case 's':
			nlen = bench_parse_list(optarg, lengths, MAX_LENGTHS);
			if (nlen < 1)
				return usage(), 1;
			break;
		case 'r':
			nrept = atoi(optarg);
			break;
		case 'b':
			brk = atoi(optarg);
			break;
		case 'H':
			host = optarg;
			break;
		default:
			return usage(), 1;
		}
	}
	if (nrept < 1 || optind != argc)
		return usage(), 1;
	if (nlen < 0)
		nlen = bench_pow2_sizes(maxlen, lengths, MAX_LENGTHS);
	for (i = 0; i < nlen; i++)
		if (lengths[i] > maxl)
			maxl = lengths[i];

	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (bench_vm_get(&vm) < 0) {
		fprintf(stderr, "comms1: cannot read the host table\n");
		pvm_exit();
		return 1;
	}
	if (host == NULL)
		host = bench_vm_place(&vm, 1);
	peer = bench_spawn_self(host, NULL);
	if (peer < 0) {
		fprintf(stderr, "comms1: cannot spawn the slave on %s (%d)\n",
			host, peer);
		pvm_exit();
		return 1;
	}
	bench_watch(&peer, 1, TAG_EXIT);

	out = malloc((size_t)maxl + 1);
	in = malloc((size_t)maxl + 1);
	t = calloc((size_t)nrept_for(0, nrept), sizeof(*t));
	if (out == NULL || in == NULL || t == NULL)
		goto fail;
	for (i = 0; i < maxl; i++)
		out[i] = (char)(i * 31 + 7);

	bench_print_setup("COMMS1 ping-pong", &vm);
	printf("# master on %s, slave on %s; time per message = round trip / 2\n",
	       vm.names[0], bench_host_of(&vm, peer));
	bench_comms_header();
	start = bench_now();
	for (i = 0; i < nlen; i++) {
		int reps = nrept_for(lengths[i], nrept);

		if (pingpong(peer, out, in, lengths[i], reps / 10 + 2, reps, t) < 0) {
			fprintf(stderr, "comms1: ping-pong of %d bytes failed\n",
				lengths[i]);
			goto fail;
		}
		bench_stats(t, reps, &st[i]);
		bench_comms_row(lengths[i], reps, &st[i]);
	}
	total = bench_now() - start;
	bench_comms_fit(lengths, st, nlen, brk);
	bench_result(total, "time_s");
	status = 0;

	pvm_initsend(PvmDataRaw);
	pvm_send(peer, TAG_DONE);
	if (bench_wait_exits(1, TAG_EXIT, 30) != 1) {
		fprintf(stderr, "comms1: the slave did not exit\n");
		status = 1;
	}
	free(out);
	free(in);
	free(t);
	bench_vm_free(&vm);
	pvm_exit();
	return status;

fail:
	free(out);
	free(in);
	free(t);
	bench_vm_free(&vm);
	bench_abort(&peer, 1);
	return 1;
}
