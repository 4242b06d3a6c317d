/*
 * hprobe - a task for the hardening tests (tests/harden.mk): it enrols
 * and then does what its command line says, printing what happened on
 * stdout, one fact per line, for a shell script to check.
 *
 *   hprobe mytid          enrol, print "tid t<hex>", leave
 *   hprobe sender         enrol, print the tid, then for each line
 *                         "send <hex tid>" on stdin send one message
 *                         (tag 7) and print "send rc <code>"; exits at
 *                         end of input without leaving (its daemon may
 *                         be gone)
 *   hprobe recv SECONDS   enrol, print the tid, wait up to SECONDS for a
 *                         message: "got from t<hex>" or "got nothing"
 *   hprobe config         enrol, print the tid, wait for a line on stdin,
 *                         then ask the daemon (pvm_config) and print
 *                         "config rc <code>"
 *   hprobe flood PATH N   (no enrolment) open N connections to the unix
 *                         socket PATH, print "flooded <count>", keep
 *                         them open, idle, until stdin ends
 *   hprobe bighdr PATH N  (no enrolment) on each of N connections to
 *                         PATH write one frame header declaring a 1 GiB
 *                         body, and nothing after it; print "read" once
 *                         the receiver has read every header (SIOCOUTQ
 *                         0), keep them open until stdin ends
 *   hprobe junk PATH N    (no enrolment) N times: connect to PATH, write
 *                         32 bytes that are no frame header, wait for
 *                         the peer to close; print "junk <count>"
 *   hprobe recvmem SECONDS as recv, printing "vmdata0 <kB>" and
 *                         "vmrss0 <kB>" of this process before the wait,
 *                         "vmdata1", "vmrss1" after it
 * Exit status: 0 when it could enrol, 1 otherwise (with pvm_mytid's
 * code printed as "mytid rc <code>").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pvm3.h"
#include "wire.h"	/* and be.h's put_be32 */

static int enrol(void)
{
	int tid = pvm_mytid();

	if (tid < 0) {
		printf("mytid rc %d\n", tid);
		return -1;
	}
	printf("tid t%x\n", tid);
	fflush(stdout);
	return tid;
}

static int sender(void)
{
	char line[128];
	unsigned dst;
	int one = 1, rc;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "send %x", &dst) != 1)
			continue;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&one, 1, 1);
		rc = pvm_send((int)dst, 7);
		printf("send rc %d\n", rc);
		fflush(stdout);
	}
	return 0;
}

/* Prints the "VmData:" and "VmRSS:" figures of /proc/self/status, in kB,
 * as "vmdata<when> N" and "vmrss<when> N". */
static void print_mem(const char *when)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmData: %ld", &kb) == 1)
			printf("vmdata%s %ld\n", when, kb);
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			printf("vmrss%s %ld\n", when, kb);
	}
	fclose(f);
}

static int recv_for(int seconds, int mem)
{
	struct timeval tv = { seconds, 0 };
	int bid, len, tag, src;

	if (mem) {
		print_mem("0");
		fflush(stdout);
	}
	bid = pvm_trecv(-1, -1, &tv);
	if (bid > 0 && pvm_bufinfo(bid, &len, &tag, &src) == 0)
		printf("got from t%x\n", src);
	else
		printf("got nothing\n");
	if (mem)
		print_mem("1");
	pvm_exit();
	return 0;
}

static int config_later(void)
{
	struct pvmhostinfo *hi;
	char line[128];
	int nhost, narch, rc;

	if (!fgets(line, sizeof(line), stdin))
		return 1;
	rc = pvm_config(&nhost, &narch, &hi);
	printf("config rc %d\n", rc);
	return 0;
}

/* Opens `n' idle connections to unix socket `path' and keeps them until
 * stdin ends: a peer that never sends (issue 15, fd exhaustion). */
static int flood(const char *path, int n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[16];
	int i, s, count = 0;

	if (strlen(path) >= sizeof(sa.sun_path))
		return 2;
	strcpy(sa.sun_path, path);
	for (i = 0; i < n; i++) {
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (s < 0)
			break;
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(s);
			break;
		}
		count++;
	}
	printf("flooded %d\n", count);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}

/* Sends a frame header declaring a 1 GiB body on each of `n' connections
 * to `path', waits until the receiver has read them all, then idles. */
static int big_header(const char *path, int n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned char hdr[PVMI_FRAME_HDR_LEN] = { 0 };
	char line[16];
	int i, s, left, fds[64];

	if (strlen(path) >= sizeof(sa.sun_path) || n > 64)
		return 2;
	strcpy(sa.sun_path, path);
	put_be32(hdr, PVMI_FRAME_MAGIC);
	put_be32(hdr + 4, PVMI_FRAME_MAX_BODY);
	put_be32(hdr + 16, 7);		/* tag; kind 0: a user message */
	for (i = 0; i < n; i++) {
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&sa,
				     sizeof(sa)) < 0 ||
		    write(s, hdr, sizeof(hdr)) != sizeof(hdr)) {
			perror("hprobe bighdr");
			return 1;
		}
		fds[i] = s;
	}
	do {				/* until the receiver read them */
		usleep(10000);
		for (i = left = 0; i < n; i++)
			if (ioctl(fds[i], SIOCOUTQ, &s) < 0 || s > 0)
				left++;
	} while (left);
	printf("read\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}

/* Sends `n' connections' worth of garbage to `path', each refused by
 * the peer with a log line (the daemon's log cap test); 64 bytes, more
 * than a frame header, so the daemon has a header to refuse. */
static int junk(const char *path, int n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[64];
	int i, s, count = 0;

	if (strlen(path) >= sizeof(sa.sun_path))
		return 2;
	strcpy(sa.sun_path, path);
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < n; i++) {
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0)
			break;
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
		    write(s, buf, sizeof(buf)) == sizeof(buf)) {
			while (read(s, buf, sizeof(buf)) > 0)
				;	/* until the peer closes */
			count++;
		}
		close(s);
	}
	printf("junk %d\n", count);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: hprobe mytid|sender|config|recv SECONDS"
			"|recvmem SECONDS|flood PATH N|bighdr PATH N"
			"|junk PATH N\n");
		return 2;
	}
	if (!strcmp(argv[1], "junk") && argc > 3)
		return junk(argv[2], atoi(argv[3]));
	if (!strcmp(argv[1], "bighdr") && argc > 3)
		return big_header(argv[2], atoi(argv[3]));
	if (!strcmp(argv[1], "flood") && argc > 3)
		return flood(argv[2], atoi(argv[3]));
	if (enrol() < 0)
		return 1;
	if (!strcmp(argv[1], "mytid")) {
		pvm_exit();
		return 0;
	}
	if (!strcmp(argv[1], "config"))
		return config_later();
	if (!strcmp(argv[1], "sender"))
		return sender();
	if (!strcmp(argv[1], "recv") && argc > 2)
		return recv_for(atoi(argv[2]), 0);
	if (!strcmp(argv[1], "recvmem") && argc > 2)
		return recv_for(atoi(argv[2]), 1);
	fprintf(stderr, "hprobe: unknown command %s\n", argv[1]);
	return 2;
}
