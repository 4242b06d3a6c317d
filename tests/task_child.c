/*
 * task_child.c - a PVM task the control tests spawn.  argv[1] picks what
 * it does:
 *   echo     receive one int from the parent (tag 1), send it back + 1
 *   print    print two lines on stdout and one on stderr, then leave
 *   sibs     send the parent its sibling count and parent tid (tag 3)
 *   wait     block in pvm_recv until killed
 *   env      send the parent the value of $COPVM_TEST_VAR (tag 4)
 *   pingpong N   N times: receive an int (tag 1), send it back + 1 (tag 2)
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
