/*
 * comms2 - PARKBENCH COMMS2, the message exchange: like COMMS1, but both
 * tasks send at the same time, so a system that moves data both ways at
 * once shows a higher rate than in the ping-pong.
 *
 * The master spawns one copy of itself on the next host of the virtual
 * machine and, for each message length n, tells it the length and the
 * number of exchanges.  One timed step is an exchange and its return:
 * both tasks send n bytes to each other, each receives the other's
 * message into an array, then both send back what they received and
 * receive it again.  Four messages of n bytes have moved (two each way),
 * so the time per message is t = step / 4, and the rate n / t counts the
 * bytes moved in both directions.  Mean, median and 90th percentile of t
 * are reported per length, and the means are fitted to t = t0 + n / rinf
 * as in COMMS1 (RINF, NHALF, T0, PI0).
 *
 * Both sides send before they receive: a PVM whose sends cannot progress
 * while the peer's data is waiting to be read would deadlock here on long
 * messages, which is part of what the benchmark checks.
 *
 * usage: comms2 [-m maxlen] [-s lengths] [-r nrept] [-b breakpoint] [-H host]
 *   options as for comms1 (nrept: exchanges per length up to 1 KiB)
 * Output ends with RESULT lines (time_s: the timed part, all lengths).
 * Exit status 0, or 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pvm3.h"
#include "bench.h"

#define TAG_SETUP	21	/* master -> slave: length, count (ints) */
#define TAG_DATA	22	/* both ways: the exchanged messages */
#define TAG_DONE	23
#define TAG_EXIT	24

/* Sends len bytes of buf to peer. */
static int put(int peer, const char *buf, int len)
{
	if (pvm_initsend(PvmDataRaw) < 0)
		return -1;
	if (len > 0 && pvm_pkbyte((char *)buf, len, 1) < 0)
		return -1;
	return pvm_send(peer, TAG_DATA) < 0 ? -1 : 0;
}

/* Receives peer's next message of len bytes into buf. */
static int get(int peer, char *buf, int len)
{
	int bufid, got;

	bufid = pvm_recv(peer, TAG_DATA);
	if (bufid < 0 || pvm_bufinfo(bufid, &got, NULL, NULL) < 0 || got != len)
		return -1;
	if (len > 0 && pvm_upkbyte(buf, len, 1) < 0)
		return -1;
	return 0;
}

/* One exchange and its return; `mine' is sent first, `theirs' gets the
 * peer's message and is what goes back. */
static int step(int peer, const char *mine, char *theirs, char *back, int len)
{
	if (put(peer, mine, len) < 0 || get(peer, theirs, len) < 0)
		return -1;
	if (put(peer, theirs, len) < 0 || get(peer, back, len) < 0)
		return -1;
	return 0;
}

static char *alloc_pattern(int len, int seed)
{
	char *p = malloc((size_t)len + 1);
	int i;

	if (p != NULL)
		for (i = 0; i < len; i++)
			p[i] = (char)(i * seed + 5);
	return p;
}

/* The slave: for each SETUP (length, count) do count steps, until DONE. */
static int slave(void)
{
	int parent = pvm_parent(), bufid, tag, v[2], i, rc = 0;
	char *mine = NULL, *theirs = NULL, *back = NULL;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	for (;;) {
		bufid = pvm_recv(parent, -1);
		if (bufid < 0 || pvm_bufinfo(bufid, NULL, &tag, NULL) < 0 ||
		    tag != TAG_SETUP || pvm_upkint(v, 2, 1) < 0)
			break;
		free(mine);
		free(theirs);
		free(back);
		mine = alloc_pattern(v[0], 13);
		theirs = malloc((size_t)v[0] + 1);
		back = malloc((size_t)v[0] + 1);
		if (mine == NULL || theirs == NULL || back == NULL) {
			rc = 1;
			break;
		}
		for (i = 0; i < v[1]; i++)
			if (step(parent, mine, theirs, back, v[0]) < 0) {
				rc = 1;
				break;
			}
		if (rc)
			break;
	}
	free(mine);
	free(theirs);
	free(back);
	pvm_exit();
	return rc;
}

/* Times `reps' steps of len bytes after `warm' untimed ones; t[] gets a
 * quarter of each step.  0, or -1 on a failure. */
static int exchange(int peer, int len, int warm, int reps, double *t)
{
	char *mine = alloc_pattern(len, 31), *theirs, *back;
	int v[2] = { len, warm + reps }, i, rc = -1;
	double t0;

	theirs = malloc((size_t)len + 1);
	back = malloc((size_t)len + 1);
	if (mine == NULL || theirs == NULL || back == NULL)
		goto out;
	if (bench_send_ints(peer, TAG_SETUP, v, 2) < 0)
		goto out;
	for (i = -warm; i < reps; i++) {
		t0 = bench_now();
		if (step(peer, mine, theirs, back, len) < 0)
			goto out;
		if (i >= 0)
			t[i] = (bench_now() - t0) / 4;
		if (len > 0 && (back[0] != mine[0] || back[len - 1] != mine[len - 1]))
			goto out;
	}
	rc = 0;
out:
	free(mine);
	free(theirs);
	free(back);
	return rc;
}

static const struct bench_comms comms2 = {
	.name = "comms2",
	.title = "COMMS2 exchange",
	.what = "exchange",
	.time_per_message = "(exchange + return) / 4",
	.tag_done = TAG_DONE,
	.tag_exit = TAG_EXIT,
	.slave = slave,
	.step = exchange,
};

int main(int argc, char **argv)
{
	return bench_comms_main(&comms2, argc, argv);
}
