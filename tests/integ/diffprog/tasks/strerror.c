/*
 * strerror - pvm_strerror and pvm_perror as a program built against stock
 * PVM's header calls them (diff-errors.sh).  Stock's pvm_strerror takes no
 * argument and returns the text of pvm_errno; pvm_perror(NULL) prints
 * "(null): " before the text; codes outside the table read "Unknown
 * Error".  Texts go to stdout, pvm_perror's lines to stderr.
 */
#include <stdio.h>

#include "pvm3.h"

extern int pvm_errno;

static const int codes[] = {
	0, PvmBadParam, PvmNoSuchBuf, PvmIPLoopback, -37, -1000, 5, 1
};

int main(void)
{
	unsigned i;

	if (pvm_mytid() < 0)
		return 1;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		pvm_errno = codes[i];
		printf("pvm_errno %d: pvm_strerror() = %s\n", codes[i],
		       pvm_strerror());
		fflush(stdout);
		pvm_perror("perror");
		pvm_perror(NULL);
	}
	pvm_errno = 0;
	pvm_exit();
	return 0;
}
