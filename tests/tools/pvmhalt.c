/*
 * pvmhalt - stop the virtual machine from a script: enroll, then ask the
 * daemon to halt, which ends every task and every pvmd.
 *
 * The integration tests run it to stop copvm's daemon; it never starts
 * one on purpose, so they call it only when the daemon's socket exists.
 * Exit status: 0 when the daemon accepted the request, 1 otherwise.
 */
#include <stdio.h>

#include "pvm3.h"

int main(void)
{
	int cc;

	if (pvm_mytid() < 0) {
		fprintf(stderr, "pvmhalt: cannot reach the daemon\n");
		return 1;
	}
	cc = pvm_halt();
	if (cc < 0) {
		fprintf(stderr, "pvmhalt: pvm_halt: error %d\n", cc);
		return 1;
	}
	return 0;
}
