/*
 * gather.c - copvm_cosched_gather, the live view's snapshot: the
 * coscheduling pages of the machine's tasks, gathered by the daemons
 * (COSCHED, daemon/costat.c), handed to the caller as text: one line per
 * host, then that host's copvm-cosched -r lines.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "copvm.h"
#include "proto.h"
#include "pvmi.h"
#include "task.h"

/* The word a host's status shows as. */
static const char *status_word(int st, char *buf, size_t len)
{
	if (st == PvmOk)
		return "ok";
	if (st == PvmHostFail)
		return "down";
	if (st == PvmBadParam)
		return "old";
	snprintf(buf, len, "error%d", st);
	return buf;
}

/* Appends the host records of reply `r' (n of them) to `f'; 0 or -1
 * when the reply is malformed. */
static int print_records(FILE *f, struct pvmi_rbuf *r, int n)
{
	char *name, *lines, buf[24];
	int32_t dtid, st;
	uint64_t ns;
	size_t len;
	int i;

	for (i = 0; i < n; i++) {
		dtid = pvmi_r_int(r);
		st = pvmi_r_int(r);
		name = pvmi_r_str(r);
		ns = pvmi_r_u64(r);
		lines = pvmi_r_str(r);
		if (!r->failed) {
			fprintf(f, "host=%s dtid=t%x status=%s time_ns=%" PRIu64
				"\n", *name ? name : "-", (unsigned)dtid,
				status_word(st, buf, sizeof(buf)), ns);
			len = strlen(lines);
			fputs(lines, f);
			if (len && lines[len - 1] != '\n')
				fputc('\n', f);
		}
		free(name);
		free(lines);
		if (r->failed)
			return -1;
	}
	return 0;
}

/* The coscheduling state of the machine's tasks as text (copvm.h);
 * the number of hosts, or a PVM error. */
PVMI_EXPORT int copvm_cosched_gather(int where, char **text)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	size_t len = 0;
	char *out = NULL;
	FILE *f;
	int rc;

	if (text)
		*text = NULL;
	if (!text || where < 0)
		return pvmi_error("copvm_cosched_gather", PvmBadParam);
	pvmi_w_int(&w, where);
	rc = pvmi_request(PVMI_OP_COSCHED, &w, &r);
	if (rc < 0)
		return pvmi_error("copvm_cosched_gather", rc);
	f = open_memstream(&out, &len);
	if (!f)
		return pvmi_error("copvm_cosched_gather", PvmNoMem);
	if (print_records(f, &r, rc) < 0) {
		fclose(f);
		free(out);
		return pvmi_error("copvm_cosched_gather", PvmSysErr);
	}
	if (fclose(f)) {
		free(out);
		return pvmi_error("copvm_cosched_gather", PvmNoMem);
	}
	*text = out;
	return rc;
}
