/*
 * reinterpret.c - unpacking with another type than packed, and past the
 * end of the body (issue 13 items 1, 2, 3).
 *
 * Usage: reinterpret ENCODING (0 PvmDataDefault, 1 PvmDataRaw,
 * 2 PvmDataInPlace).  Each case packs, sends the buffer to the task
 * itself, receives it and unpacks it as other types, printing each
 * return code and the bytes it wrote (unwritten bytes stay 0xee).  Left
 * out, as stock plainly corrupts them: XDR longs outside 0..2^31-1 (read
 * back as longs), bytes of one XDR item read into the pad of the next,
 * and a string read from a body that ends within its length (stock copies
 * stale bytes of its own buffers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

static int me, enc;

static void hex(const char *what, const void *p, int n)
{
	const unsigned char *c = p;
	int i;

	printf("  %s:", what);
	for (i = 0; i < n; i++)
		printf(" %02x", c[i]);
	printf("\n");
}

/* Sends the send buffer to ourselves and makes it the receive buffer. */
static void loop_back(const char *title)
{
	int bytes = -1;

	pvm_send(me, 1);
	pvm_recv(me, 1);
	pvm_bufinfo(pvm_getrbuf(), &bytes, NULL, NULL);
	printf("%s (%d bytes)\n", title, bytes);
}

#define FILL(x) memset(x, 0xee, sizeof(x))

int main(int argc, char **argv)
{
	int iv[4] = { 0x01020304, 0x05060708, -3, 7 }, io[8], cc;
	double dv[2] = { 1.5, -2.25 }, dout[2];
	long lv[2] = { 0x1122334455667788L, -5 }, lsmall[2] = { 0x11223344, 5 };
	long lo[4];
	short sv[3] = { 1, -2, 3 }, so[4];
	float fo[2];
	char bo[16];

	if (argc != 2)
		return 2;
	enc = atoi(argv[1]);
	me = pvm_mytid();
	if (me < 0)
		return 1;
	pvm_setopt(PvmAutoErr, 0);

	pvm_initsend(enc);
	pvm_pkint(iv, 2, 1);
	loop_back("int[2] read as int[3], then int[1]");
	FILL(io);
	cc = pvm_upkint(io, 3, 1);
	printf("  cc=%d\n", cc);
	hex("io", io, 12);
	FILL(io);
	cc = pvm_upkint(io, 1, 1);
	printf("  cc=%d\n", cc);
	hex("io", io, 4);

	pvm_initsend(enc);
	pvm_pkint(iv, 4, 1);
	loop_back("int[4] read as float, short[2], byte[4], int, int");
	FILL(fo);
	cc = pvm_upkfloat(fo, 1, 1);
	printf("  float cc=%d\n", cc);
	hex("fo", fo, 4);
	FILL(so);
	cc = pvm_upkshort(so, 2, 1);
	printf("  short cc=%d\n", cc);
	hex("so", so, 6);
	FILL(bo);
	cc = pvm_upkbyte(bo, 4, 1);
	printf("  byte cc=%d\n", cc);
	hex("bo", bo, 6);
	FILL(io);
	cc = pvm_upkint(io, 1, 1);
	printf("  int cc=%d\n", cc);
	hex("io", io, 4);
	FILL(io);
	cc = pvm_upkint(io, 1, 1);
	printf("  int cc=%d\n", cc);
	hex("io", io, 4);

	pvm_initsend(enc);
	pvm_pkdouble(dv, 2, 1);
	loop_back("double[2] read as int[2], double");
	FILL(io);
	cc = pvm_upkint(io, 2, 1);
	printf("  int cc=%d\n", cc);
	hex("io", io, 8);
	FILL(dout);
	cc = pvm_upkdouble(dout, 1, 1);
	printf("  double cc=%d %g\n", cc, dout[0]);

	pvm_initsend(enc);
	pvm_pkbyte("abcdefgh", 8, 1);
	loop_back("byte[8] read as int[2]");
	FILL(io);
	cc = pvm_upkint(io, 2, 1);
	printf("  int cc=%d\n", cc);
	hex("io", io, 8);

	pvm_initsend(enc);
	pvm_pkbyte("abcd", 4, 1);
	pvm_pkbyte("efgh", 4, 1);
	loop_back("byte[4] byte[4] read as byte[6], byte[2]");
	FILL(bo);
	cc = pvm_upkbyte(bo, 6, 1);
	printf("  cc=%d\n", cc);
	hex("bo", bo, 8);
	FILL(bo);
	cc = pvm_upkbyte(bo, 2, 1);
	printf("  cc=%d\n", cc);
	hex("bo", bo, 3);

	pvm_initsend(enc);
	pvm_pkbyte("abc", 3, 1);
	pvm_pkbyte("de", 2, 1);
	loop_back("byte[3] byte[2] read as byte[1], byte[2], byte[2]");
	FILL(bo);
	cc = pvm_upkbyte(bo, 1, 1);
	printf("  cc=%d\n", cc);
	hex("bo", bo, 2);
	FILL(bo);
	cc = pvm_upkbyte(bo, 2, 1);
	printf("  cc=%d\n", cc);
	hex("bo", bo, 3);
	FILL(bo);
	cc = pvm_upkbyte(bo, 2, 1);
	printf("  cc=%d\n", cc);
	hex("bo", bo, 3);

	cc = pvm_initsend(enc);
	cc = pvm_pkstr("hello");
	printf("pkstr cc=%d\n", cc);
	loop_back("str read as byte[12]");
	FILL(bo);
	cc = pvm_upkbyte(bo, 12, 1);
	printf("  cc=%d\n", cc);
	if (enc == PvmDataDefault)	/* the string's XDR padding, as below */
		bo[10] = bo[11] = 0;
	hex("bo", bo, 13);

	pvm_initsend(enc);
	pvm_pkstr("hello");
	pvm_pkstr("world");
	loop_back("str str read as int, byte[8], str");
	FILL(io);
	cc = pvm_upkint(io, 1, 1);
	printf("  cc=%d\n", cc);
	hex("io", io, 4);
	FILL(bo);
	cc = pvm_upkbyte(bo, enc == PvmDataDefault ? 8 : 6, 1);
	printf("  cc=%d\n", cc);
	if (enc == PvmDataDefault)	/* XDR padding: stock's is whatever
					 * its buffer held, copvm's zeros */
		bo[6] = bo[7] = 0;
	hex("bo", bo, 9);
	FILL(bo);
	cc = pvm_upkstr(bo);
	printf("  str cc=%d %s\n", cc, cc ? "" : bo);

	pvm_initsend(enc);
	pvm_pkint(&(int){ 3 }, 1, 1);
	pvm_pkbyte("hi", 3, 1);
	loop_back("int byte[3] read as str");
	FILL(bo);
	cc = pvm_upkstr(bo);
	printf("  str cc=%d %s\n", cc, cc ? "" : bo);

	pvm_initsend(enc);
	pvm_pklong(lv, 2, 1);
	loop_back("long[2] read as int[2], then long");
	FILL(io);
	cc = pvm_upkint(io, 2, 1);
	printf("  int cc=%d\n", cc);
	hex("io", io, 8);
	FILL(lo);
	cc = pvm_upklong(lo, 1, 1);
	printf("  long cc=%d\n", cc);

	pvm_initsend(enc);
	pvm_pklong(lsmall, 2, 1);
	loop_back("long[2] in 0..2^31-1 read as long[2]");
	FILL(lo);
	cc = pvm_upklong(lo, 2, 1);
	printf("  long cc=%d %lx %ld\n", cc, lo[0], lo[1]);

	pvm_initsend(enc);
	pvm_pkint(iv + 3, 1, 1);
	pvm_pkint(iv + 2, 1, 1);
	loop_back("int int read as long, ulong");
	FILL(lo);
	cc = pvm_upklong(lo, 1, 1);
	printf("  long cc=%d\n", cc);
	if (enc == PvmDataDefault)
		printf("  value %ld\n", lo[0]);
	else
		hex("lo", lo, 8);

	pvm_initsend(enc);
	pvm_pkshort(sv, 3, 1);
	loop_back("short[3] read as int[3]");
	FILL(io);
	cc = pvm_upkint(io, 3, 1);
	printf("  int cc=%d\n", cc);
	hex("io", io, 12);

	pvm_initsend(enc);
	pvm_pkint(iv, 3, 1);
	loop_back("int[3] read as str");
	FILL(bo);
	cc = pvm_upkstr(bo);
	printf("  str cc=%d\n", cc);
	hex("bo", bo, 8);

	pvm_initsend(enc);
	pvm_pkint(iv, 2, 1);
	loop_back("int[2] read as int, then int[3] every 2nd");
	FILL(io);
	cc = pvm_upkint(io, 1, 1);
	printf("  cc=%d\n", cc);
	FILL(io);
	cc = pvm_upkint(io, 3, 2);
	printf("  cc=%d\n", cc);
	hex("io", io, 24);

	pvm_initsend(enc);
	pvm_pkfloat((float[]){ 1.0f, -2.0f }, 2, 1);
	loop_back("float[2] read as cplx");
	FILL(fo);
	cc = pvm_upkcplx(fo, 1, 1);
	printf("  cc=%d %g %g\n", cc, fo[0], fo[1]);

	pvm_initsend(enc);
	loop_back("empty read as int, str");
	FILL(io);
	cc = pvm_upkint(io, 1, 1);
	printf("  cc=%d\n", cc);
	hex("io", io, 4);
	FILL(bo);
	cc = pvm_upkstr(bo);
	printf("  cc=%d\n", cc);
	hex("bo", bo, 4);

	pvm_exit();
	return 0;
}
