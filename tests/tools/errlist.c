/*
 * errlist - a program that uses libpvm3's data symbols the way an old,
 * non-PIE binary does: through copy relocations, whose size is fixed when
 * the program is linked (against stock PVM).  errlist.sh builds it with
 * -no-pie against Debian's header and library and runs it on both
 * libraries; if copvm's pvm_errlist, pvm_nerr or pvm_errno differed in
 * size, the dynamic linker would complain and the copies would be cut.
 *
 * It prints every error text, then checks that pvm_errno follows the
 * library's errors and that pvm_perror reports them (on stderr).
 */
#include <stdio.h>

#include "pvm3.h"

/* Stock pvm3.h does not declare these. */
extern char *pvm_errlist[];
extern int pvm_nerr;
extern int pvm_errno;

int main(void)
{
	int i, x = 0, cc;

	printf("pvm_nerr = %d\n", pvm_nerr);
	for (i = 0; i < pvm_nerr; i++)
		printf("pvm_errlist[%d] = %s\n", i,
		       pvm_errlist[i] ? pvm_errlist[i] : "(null)");

	pvm_errno = 12345;
	printf("pvm_errno = %d\n", pvm_errno);
	printf("pvm_mytid ok = %d\n", pvm_mytid() > 0);
	cc = pvm_upkint(&x, 1, 1);
	printf("pvm_upkint = %d, pvm_errno = %d\n", cc, pvm_errno);
	cc = pvm_freebuf(-5);
	printf("pvm_freebuf = %d, pvm_errno = %d\n", cc, pvm_errno);
	fflush(stdout);
	pvm_perror("errlist");
	pvm_exit();
	return 0;
}
