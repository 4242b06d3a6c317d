/*
 * rundir_path.c - the path of the per-user run directory: $PVM_TMP (or
 * /tmp) followed by "copvm-<uid>", computed at the first call and kept.
 * It calls nothing else of the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "proto.h"
#include "rundir_path.h"

/* The per-user directory, computed once (rundir_path.h). */
const char *pvmi_rundir(void)
{
	static char dir[256];
	const char *tmp;

	if (!dir[0]) {
		tmp = getenv("PVM_TMP");
		if (!tmp || !*tmp)
			tmp = "/tmp";
		snprintf(dir, sizeof(dir), PVMI_DIR_FMT, tmp,
			 (unsigned)getuid());
	}
	return dir;
}
