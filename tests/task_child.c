/*
 * task_child.c - a PVM task the control tests spawn.  argv[1] picks what
 * it does:
 *   echo     receive one int from the parent (tag 1), send it back + 1
 *   print    print two lines on stdout and one on stderr, then leave
 *   sibs     send the parent its sibling count and parent tid (tag 3)
 *   wait     block in pvm_recv until killed
 *   env      send the parent the value of $COPVM_TEST_VAR (tag 4)
 *   pingpong N   N times: receive an int (tag 1), send it back + 1 (tag 2)
 *   mirror   for every message of the parent until tag 99 (a body of
 *            (int n, n bytes) pairs): send back (tag 100) its source,
 *            tag, total length and the bytes joined
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"

int main(int argc, char **argv)
{
	int parent = pvm_parent(), v, *sibs;
	const char *mode = argc > 1 ? argv[1] : "";

	if (pvm_mytid() < 0)
		return 2;
	if (!strcmp(mode, "echo")) {
		pvm_recv(parent, 1);
		pvm_upkint(&v, 1, 1);
		v++;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&v, 1, 1);
		pvm_send(parent, 2);
	} else if (!strcmp(mode, "print")) {
		printf("line one\nline two\n");
		fflush(stdout);
		fprintf(stderr, "line three\n");
	} else if (!strcmp(mode, "sibs")) {
		int n = pvm_siblings(&sibs);

		pvm_initsend(PvmDataDefault);
		pvm_pkint(&n, 1, 1);
		pvm_pkint(&parent, 1, 1);
		pvm_pkint(sibs, n, 1);
		pvm_send(parent, 3);
	} else if (!strcmp(mode, "mirror")) {
		int b, n, info[3];
		char *buf = NULL, *nb;

		while ((b = pvm_recv(parent, -1)) > 0) {
			pvm_bufinfo(b, &n, &info[1], &info[0]);
			if (info[1] == 99)
				break;
			info[2] = 0;
			pvm_setopt(PvmAutoErr, 0);
			while (pvm_upkint(&n, 1, 1) == PvmOk && n >= 0) {
				nb = realloc(buf, info[2] + n + 1);
				if (!nb)
					return 2;
				buf = nb;
				if (pvm_upkbyte(buf + info[2], n, 1) < 0)
					return 2;
				info[2] += n;
			}
			pvm_initsend(PvmDataDefault);
			pvm_pkint(info, 3, 1);
			if (info[2] > 0)
				pvm_pkbyte(buf, info[2], 1);
			pvm_send(parent, 100);
		}
		free(buf);
	} else if (!strcmp(mode, "pingpong")) {
		int i, n = argc > 2 ? atoi(argv[2]) : 1;

		for (i = 0; i < n; i++) {
			pvm_recv(parent, 1);
			pvm_upkint(&v, 1, 1);
			v++;
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&v, 1, 1);
			pvm_send(parent, 2);
		}
	} else if (!strcmp(mode, "wait")) {
		pvm_recv(-1, 12345);
	} else if (!strcmp(mode, "env")) {
		const char *e = getenv("COPVM_TEST_VAR");

		pvm_initsend(PvmDataDefault);
		pvm_pkstr((char *)(e ? e : "(unset)"));
		pvm_send(parent, 4);
	}
	pvm_exit();
	return 0;
}
