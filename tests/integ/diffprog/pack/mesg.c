/*
 * mesg.c - encodings, error reports and embedded messages (issue 13
 * items 6, 7, 8, 9).
 *
 * The task sends to itself.  pvm_initsend with a bad encoding reports
 * the error twice (PvmAutoErr: pvm_mkbuf's line, then pvm_initsend's);
 * pvm_pkstr into a PvmDataInPlace buffer is PvmNotImpl while pvm_packf's
 * %s packs; a received in-place message reports the native encoding;
 * pvm_pkmesg / pvm_upkmesg keep the inner message's header (tag, ctx,
 * src, dst, wait id) and an embedded message counts stock's size; the
 * wait id set with pvm_setminfo also travels with an ordinary send, to
 * ourselves and from a spawned copy ("mesg child").
 * Prints what it sees; tids are printed as "me", "0" or "other".
 */
#include <stdio.h>
#include <string.h>
#include <pvm3.h>

static int me;

static const char *who(int tid)
{
	return tid == me ? "me" : tid == 0 ? "0" : tid == -1 ? "-1" : "other";
}

/* Prints buffer `mid's header as pvm_getminfo and pvm_bufinfo give it. */
static void info(const char *what, int mid, int with_len)
{
	struct pvmminfo mi;
	int cc, bytes = -1;

	memset(&mi, 0, sizeof(mi));
	cc = pvm_getminfo(mid, &mi);
	pvm_bufinfo(mid, &bytes, NULL, NULL);
	if (!with_len)
		bytes = mi.len = -1;
	printf("%s: cc=%d bytes=%d len=%d ctx=%d tag=%d wid=%d enc=0x%x "
	       "src=%s dst=%s\n", what, cc, bytes, mi.len, mi.ctx, mi.tag,
	       mi.wid, mi.enc, who(mi.src), who(mi.dst));
}

/* Sends the send buffer to ourselves; returns the received buffer. */
static int loop_back(void)
{
	pvm_send(me, 3);
	return pvm_recv(me, 3);
}

/* Packs `v' into a new send buffer whose wait id is `wid'. */
static int with_wid(int v, int wid)
{
	struct pvmminfo mi;
	int sb = pvm_initsend(PvmDataDefault);

	pvm_pkint(&v, 1, 1);
	memset(&mi, 0, sizeof(mi));
	pvm_getminfo(sb, &mi);
	mi.wid = wid;
	return pvm_setminfo(sb, &mi);
}

/* The spawned copy: two messages to its parent, each with a wait id. */
static int child(void)
{
	int parent = pvm_parent();

	with_wid(1, 77);
	pvm_send(parent, 5);
	with_wid(2, 78);
	pvm_send(parent, 5);
	pvm_exit();
	return 0;
}

/* Item 8's wait id on plain sends: to ourselves, then from a child. */
static void wait_id_travels(void)
{
	char *cargv[] = { "child", NULL };
	int kid, n, v;

	printf("setminfo wid cc=%d\n", with_wid(0, 66));
	info("wid received from me", loop_back(), 1);
	n = pvm_spawn("mesg", cargv, PvmTaskDefault, "", 1, &kid);
	printf("spawned %d\n", n);
	if (n != 1)
		return;
	for (n = 0; n < 2; n++) {
		info("wid received from child", pvm_recv(kid, 5), 1);
		pvm_upkint(&v, 1, 1);
		printf("  data %d\n", v);
	}
}

int main(int argc, char **argv)
{
	int i = 5, j = 0, cc, sb, rb, inner, outer, enc;
	struct pvmminfo mi;
	char s[8];

	setvbuf(stdout, NULL, _IOLBF, 0);
	me = pvm_mytid();
	if (me < 0)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();

	/* item 9: with PvmAutoErr on, as by default */
	fprintf(stderr, "initsend(99):\n");
	cc = pvm_initsend(99);
	printf("initsend(99) cc=%d\n", cc);
	fprintf(stderr, "mkbuf(99):\n");
	cc = pvm_mkbuf(99);
	printf("mkbuf(99) cc=%d\n", cc);

	/* item 6 */
	fprintf(stderr, "pkstr in place:\n");
	pvm_initsend(PvmDataInPlace);
	cc = pvm_pkstr("abc");
	printf("pkstr in place cc=%d\n", cc);
	cc = pvm_packf("%s", "abc");
	printf("packf %%s in place cc=%d\n", cc);
	fprintf(stderr, "done\n");
	pvm_setopt(PvmAutoErr, 0);
	pvm_pkint(&i, 1, 1);

	/* item 7 */
	rb = loop_back();
	/* (its data is left alone: stock's in-place %s string reads back
	 * wrong, the length packed in place from a temporary) */
	info("in place received", rb, 1);
	for (enc = PvmDataDefault; enc <= PvmDataRaw; enc++) {
		sb = pvm_initsend(enc);
		pvm_pkint(&i, 1, 1);
		info(enc ? "raw send buffer" : "xdr send buffer", sb, 1);
		rb = loop_back();
		info(enc ? "raw received" : "xdr received", rb, 1);
	}

	/* item 8 */
	inner = pvm_mkbuf(PvmDataDefault);
	pvm_setsbuf(inner);
	pvm_pkint(&i, 1, 1);
	pvm_pkstr("hey");
	memset(&mi, 0, sizeof(mi));
	pvm_getminfo(inner, &mi);
	mi.wid = 55;
	mi.tag = 9;
	mi.dst = me;
	mi.src = me;
	mi.ctx = 0;
	cc = pvm_setminfo(inner, &mi);
	printf("setminfo cc=%d\n", cc);
	info("inner", inner, 1);
	for (enc = PvmDataDefault; enc <= PvmDataRaw; enc++) {
		outer = pvm_mkbuf(enc);
		pvm_setsbuf(outer);
		pvm_pkint(&i, 1, 1);
		cc = pvm_pkmesg(inner);
		printf("pkmesg cc=%d\n", cc);
		info(enc ? "raw outer" : "xdr outer", outer, 1);
		rb = loop_back();
		info("outer received", rb, 1);
		pvm_upkint(&j, 1, 1);
		cc = pvm_upkmesg();
		printf("upkmesg gave a buffer %d\n", cc > 0);
		if (cc <= 0)
			continue;
		info("unpacked inner", cc, 1);
		pvm_setrbuf(cc);
		j = 0;
		memset(s, 0, sizeof(s));
		pvm_upkint(&j, 1, 1);
		pvm_upkstr(s);
		printf("  inner data %d %s\n", j, s);
		pvm_freebuf(outer);
	}
	wait_id_travels();
	pvm_exit();
	return 0;
}
