/*
 * bufstate.c - which buffer is active, and what a buffer's header says,
 * across sends and receives (issue 13 items 4 and 5).
 *
 * The task sends to itself.  After pvm_send the send buffer shows that
 * send's tag and destination; pvm_mcast's does not.  pvm_setsbuf() of
 * the receive buffer (forwarding a received message) takes it off the
 * receive side, so the next receive leaves it alone; pvm_setrbuf() of
 * the send buffer takes it off the send side.  Prints what it sees; tids
 * are printed as "me", "0" or "other".  A pvm_nrecv or pvm_trecv that
 * finds nothing leaves no receive buffer.
 */
#include <stdio.h>
#include <sys/time.h>
#include <string.h>
#include <pvm3.h>

static int me;

static const char *who(int tid)
{
	return tid == me ? "me" : tid == 0 ? "0" : tid == -1 ? "-1" : "other";
}

/* Prints buffer `mid's fields as pvm_bufinfo and pvm_getminfo give them. */
static void info(const char *what, int mid)
{
	int bytes = -1, tag = -1, tid = -1, cc;
	struct pvmminfo mi;

	cc = pvm_bufinfo(mid, &bytes, &tag, &tid);
	if (cc < 0)
		printf("%s: bufinfo cc=%d\n", what, cc);
	else
		printf("%s: bufinfo bytes=%d tag=%d src=%s\n", what, bytes,
		       tag, who(tid));
	memset(&mi, 0, sizeof(mi));
	cc = pvm_getminfo(mid, &mi);
	if (cc < 0)
		printf("%s: getminfo cc=%d\n", what, cc);
	else
		printf("%s: getminfo len=%d tag=%d ctx=%d wid=%d dst=%s src=%s\n",
		       what, mi.len, mi.tag, mi.ctx, mi.wid, who(mi.dst),
		       who(mi.src));
}

int main(void)
{
	int i = 42, j, sb, rb, rb2, cc, t[1];
	struct timeval tv = { 0, 1000 };

	me = pvm_mytid();
	if (me < 0)
		return 1;
	pvm_setopt(PvmAutoErr, 0);

	sb = pvm_initsend(PvmDataDefault);
	info("fresh", sb);
	pvm_pkint(&i, 1, 1);
	cc = pvm_send(me, 7);
	printf("send cc=%d\n", cc);
	info("after send", sb);
	printf("send buffer unchanged: %d\n", pvm_getsbuf() == sb);

	/* the forwarding pattern */
	rb = pvm_recv(me, 7);
	info("received", rb);
	cc = pvm_setsbuf(rb);
	printf("setsbuf(rbuf): returned old sbuf %d, getrbuf()=%d, "
	       "getsbuf() is it %d\n", cc == sb, pvm_getrbuf(),
	       pvm_getsbuf() == rb);
	cc = pvm_send(me, 8);
	printf("forward cc=%d\n", cc);
	info("forwarded", rb);
	rb2 = pvm_recv(me, 8);
	printf("new rbuf %d, sbuf still the forwarded one %d\n", rb2 != rb,
	       pvm_getsbuf() == rb);
	info("forwarded after the next receive", rb);
	j = 0;
	cc = pvm_upkint(&j, 1, 1);
	printf("unpack the copy: cc=%d j=%d\n", cc, j);
	cc = pvm_setrbuf(rb);
	printf("setrbuf(forwarded) returned the copy %d, getsbuf()=%d\n",
	       cc == rb2, pvm_getsbuf());
	j = 0;
	cc = pvm_upkint(&j, 1, 1);
	printf("unpack the forwarded one: cc=%d j=%d\n", cc, j);
	cc = pvm_pkint(&i, 1, 1);
	printf("pack with no send buffer: cc=%d\n", cc);

	/* the send buffer made the receive buffer */
	sb = pvm_initsend(PvmDataDefault);
	pvm_pkint(&i, 1, 1);
	cc = pvm_setrbuf(sb);
	printf("setrbuf(sbuf): returned the old rbuf %d, getsbuf()=%d, "
	       "getrbuf() is it %d\n", cc == rb, pvm_getsbuf(),
	       pvm_getrbuf() == sb);
	j = 0;
	cc = pvm_upkint(&j, 1, 1);
	printf("unpack what was packed: cc=%d j=%d\n", cc, j);
	cc = pvm_freebuf(rb);
	printf("free the forwarded one: cc=%d\n", cc);

	/* pvm_mcast leaves the header alone */
	sb = pvm_initsend(PvmDataRaw);
	pvm_pkint(&i, 1, 1);
	t[0] = me;
	cc = pvm_mcast(t, 1, 9);
	printf("mcast cc=%d\n", cc);
	info("after mcast", sb);

	/* a receive clears the receive buffer as it starts: one that finds
	 * nothing leaves none, and the old id is gone */
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&i, 1, 1);
	pvm_send(me, 10);
	rb = pvm_recv(me, 10);
	cc = pvm_nrecv(me, 99);
	printf("nrecv of nothing: cc=%d, no rbuf %d, old id gone %d\n", cc,
	       pvm_getrbuf() == 0, pvm_bufinfo(rb, &j, &j, &j) == PvmNoSuchBuf);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&i, 1, 1);
	pvm_send(me, 10);
	rb = pvm_recv(me, 10);
	cc = pvm_trecv(me, 99, &tv);
	printf("trecv of nothing: cc=%d, no rbuf %d, old id gone %d\n", cc,
	       pvm_getrbuf() == 0, pvm_bufinfo(rb, &j, &j, &j) == PvmNoSuchBuf);

	pvm_exit();
	return 0;
}
