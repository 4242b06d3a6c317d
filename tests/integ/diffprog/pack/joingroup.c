/*
 * joingroup.c - joins group "g" once and prints what pvm_joingroup and
 * pvm_gsize return (foreign-pvmgs.sh: the group library meets a group
 * server that is not copvm's).
 */
#include <stdio.h>
#include <pvm3.h>

int main(void)
{
	int inst;

	if (pvm_mytid() < 0)
		return 1;
	inst = pvm_joingroup("g");
	printf("joingroup: %s (%d)\n", inst >= 0 ? "joined" : "failed", inst);
	if (inst >= 0)
		printf("gsize: %d\n", pvm_gsize("g"));
	pvm_exit();
	return inst >= 0 ? 0 : 2;
}
