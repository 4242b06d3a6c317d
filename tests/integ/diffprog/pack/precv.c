/*
 * precv.c - what pvm_precv stores and reports (issue 13 items 10-12).
 *
 * The task spawns a copy of itself (pvm_parent() tells which is which).
 * The child sends each case with pvm_psend under its own tag, then two
 * packed messages (XDR, raw) with pvm_send, and exits; the parent
 * receives each with pvm_precv and prints the return code, the tag, the
 * length it reports and the bytes it wrote (unwritten ones stay 0xee).
 * The length is in bytes and is the whole message's; a buffer too small
 * cuts the message short without an error; another type than sent gets
 * the bytes unconverted.  PVM_STR is left out: stock refuses it
 * (PvmNotImpl) although its manual lists it, copvm sends it as bytes.
 */
#include <stdio.h>
#include <string.h>
#include <pvm3.h>

static int peer, child, ntag;

static void hex(const void *p, int n)
{
	const unsigned char *c = p;
	int i;

	printf("  out:");
	for (i = 0; i < n; i++)
		printf(" %02x", c[i]);
	printf("\n");
}

/* The child sends `slen' elements of `stype'; the parent receives them
 * as up to `rlen' elements of `rtype'.  Each case has its own tag. */
static void one(const char *title, void *sbuf, int slen, int stype,
		int rlen, int rtype)
{
	unsigned char out[40];
	int cc, rt = -1, rg = -1, rl = -1;

	ntag++;
	if (child) {
		cc = pvm_psend(peer, ntag, sbuf, slen, stype);
		if (cc)
			fprintf(stderr, "psend %s: %d\n", title, cc);
		return;
	}
	memset(out, 0xee, sizeof(out));
	cc = pvm_precv(peer, ntag, out, rlen, rtype, &rt, &rg, &rl);
	printf("%s: cc=%d from the child %d tag=%d len=%d\n", title, cc,
	       rt == peer, rg, rl);
	hex(out, 20);
}

/* The parent receives the packed message of tag `tag' as ints. */
static void packed(const char *title, int tag)
{
	unsigned char out[40];
	int cc, rl = -1;

	memset(out, 0xee, sizeof(out));
	cc = pvm_precv(peer, tag, out, 8, PVM_INT, NULL, NULL, &rl);
	printf("%s: cc=%d len=%d\n", title, cc, rl);
	hex(out, 20);
}

int main(void)
{
	int iv[4] = { 1, 2, 3, 4 };
	short sv[3] = { 1, -2, 3 };
	double dv[2] = { 1.5, 2.5 };
	long lv[2] = { 0x1122334455667788L, -5 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmAutoErr, 0);
	child = pvm_parent() > 0;
	if (child)
		peer = pvm_parent();
	else if (pvm_spawn("precv", NULL, 0, "", 1, &peer) != 1) {
		printf("spawn failed: %d\n", peer);
		pvm_exit();
		return 1;
	}

	one("int[4] as int[4]", iv, 4, PVM_INT, 4, PVM_INT);
	one("int[4] as int[2]", iv, 4, PVM_INT, 2, PVM_INT);
	one("int[4] as int[8]", iv, 4, PVM_INT, 8, PVM_INT);
	one("int[4] as short[4]", iv, 4, PVM_INT, 4, PVM_SHORT);
	one("int[4] as byte[6]", iv, 4, PVM_INT, 6, PVM_BYTE);
	one("int[4] as double[2]", iv, 4, PVM_INT, 2, PVM_DOUBLE);
	one("short[3] as int[3]", sv, 3, PVM_SHORT, 3, PVM_INT);
	one("double[2] as int[4]", dv, 2, PVM_DOUBLE, 4, PVM_INT);
	one("long[2] as long[2]", lv, 2, PVM_LONG, 2, PVM_LONG);
	one("long[2] as int[4]", lv, 2, PVM_LONG, 4, PVM_INT);
	one("int[0] as int[4]", iv, 0, PVM_INT, 4, PVM_INT);
	one("uint[4] as int[4]", iv, 4, PVM_UINT, 4, PVM_INT);
	one("float[4] as cplx[2]", dv, 4, PVM_FLOAT, 2, PVM_CPLX);
	one("int[4] as int[0]", iv, 4, PVM_INT, 0, PVM_INT);

	if (child) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(iv, 2, 1);
		pvm_pkdouble(dv, 1, 1);
		pvm_send(peer, 100);
		pvm_initsend(PvmDataRaw);
		pvm_pkint(iv, 2, 1);
		pvm_pkdouble(dv, 1, 1);
		pvm_send(peer, 101);
	} else {
		packed("int[2] double, XDR, as int[8]", 100);
		packed("int[2] double, raw, as int[8]", 101);
	}
	pvm_exit();
	return 0;
}
