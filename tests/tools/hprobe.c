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
 * Exit status: 0 when it could enrol, 1 otherwise (with pvm_mytid's
 * code printed as "mytid rc <code>").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pvm3.h"

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

static int recv_for(int seconds)
{
	struct timeval tv = { seconds, 0 };
	int bid = pvm_trecv(-1, -1, &tv), len, tag, src;

	if (bid > 0 && pvm_bufinfo(bid, &len, &tag, &src) == 0)
		printf("got from t%x\n", src);
	else
		printf("got nothing\n");
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

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: hprobe mytid|sender|config|recv SECONDS"
			"|flood PATH N\n");
		return 2;
	}
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
		return recv_for(atoi(argv[2]));
	fprintf(stderr, "hprobe: unknown command %s\n", argv[1]);
	return 2;
}
