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

#include "pvm3.h"
#include "bench.h"

#define TAG_PING	11
#define TAG_PONG	12
#define TAG_DONE	13
#define TAG_EXIT	14

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

/* Times `reps' round trips of len bytes after `warm' untimed ones; t[]
 * gets half of each round trip in seconds.  0, or -1 on a failure. */
static int pingpong(int peer, int len, int warm, int reps, double *t)
{
	char *out = malloc((size_t)len + 1), *in = malloc((size_t)len + 1);
	int i, bufid, got, rc = -1;
	double t0;

	if (out == NULL || in == NULL)
		goto out;
	for (i = 0; i < len; i++)
		out[i] = (char)(i * 31 + 7);
	for (i = -warm; i < reps; i++) {
		if (len > 0) {
			out[0] = (char)i;
			out[len - 1] = (char)(i * 3);
		}
		t0 = bench_now();
		if (pvm_initsend(PvmDataRaw) < 0 ||
		    (len > 0 && pvm_pkbyte(out, len, 1) < 0) ||
		    pvm_send(peer, TAG_PING) < 0)
			goto out;
		bufid = pvm_recv(peer, TAG_PONG);
		if (bufid < 0 || pvm_bufinfo(bufid, &got, NULL, NULL) < 0 ||
		    got != len || (len > 0 && pvm_upkbyte(in, len, 1) < 0))
			goto out;
		if (i >= 0)
			t[i] = (bench_now() - t0) / 2;
		if (len > 0 && (in[0] != out[0] || in[len - 1] != out[len - 1]))
			goto out;
	}
	rc = 0;
out:
	free(out);
	free(in);
	return rc;
}

static const struct bench_comms comms1 = {
	.name = "comms1",
	.title = "COMMS1 ping-pong",
	.what = "ping-pong",
	.time_per_message = "round trip / 2",
	.tag_done = TAG_DONE,
	.tag_exit = TAG_EXIT,
	.slave = slave,
	.step = pingpong,
};

int main(int argc, char **argv)
{
	return bench_comms_main(&comms1, argc, argv);
}
