/*
 * f_vm.c - Fortran binding: the virtual machine and its hosts, library
 * options, error messages, starting and halting pvmd.
 *
 * pvmfconfig hands out one host per call from a snapshot of pvm_config,
 * like pvmftasks does for tasks.  pvmfaddhost and pvmfdelhost take one
 * host each and report that host's own result.  pvmfstartpvmd splits its
 * one string argument into pvmd's arguments at blanks and tabs.
 */
#include <stdlib.h>
#include <string.h>
#include "fpvm.h"

/* The host list pvmfconfig hands out, valid until the next pvm_config. */
static struct {
	struct pvmhostinfo *list;
	int count;		/* 0: no snapshot, take one */
	int narch;
	int next;		/* index of the host to return next */
} config_snap;

/* pvmfconfig(nhost, narch, dtid, name, arch, speed, info): one host per
 * call; info is 1 when a host is returned, an error code otherwise.
 * nhost = -1 on entry restarts the list. */
FPVM_EXPORT void pvmfconfig_(int *nhost, int *narch, int *dtid, char *name,
			     char *arch, int *speed, int *info,
			     size_t namelen, size_t archlen)
{
	struct pvmhostinfo *h;

	if (nhost && *nhost == -1)
		config_snap.count = 0;
	if (config_snap.count == 0) {
		int n = 0, rc = pvm_config(&n, &config_snap.narch,
					   &config_snap.list);

		if (rc < 0) {
			*info = rc;
			return;
		}
		config_snap.count = n;
		config_snap.next = 0;
		if (n <= 0) {
			if (nhost)
				*nhost = 0;
			*info = PvmOk;
			config_snap.count = 0;
			return;
		}
	}
	h = &config_snap.list[config_snap.next];
	if (nhost)
		*nhost = config_snap.count;
	if (narch)
		*narch = config_snap.narch;
	if (dtid)
		*dtid = h->hi_tid;
	if (name)
		fpvmi_fstr_out(name, namelen, h->hi_name);
	if (arch)
		fpvmi_fstr_out(arch, archlen, h->hi_arch);
	if (speed)
		*speed = h->hi_speed;
	*info = 1;
	/* after the last host, the next call takes a fresh snapshot */
	if (++config_snap.next >= config_snap.count)
		config_snap.count = 0;
}

/* Adds (add != 0) or deletes the host named by Fortran string `host';
 * returns that host's result (its pvmd tid when added) or an error. */
static int one_host(int add, char *host, size_t hostlen)
{
	char name[FPVM_NAMELEN + 1];
	char *names[1] = { name };
	int result = 0, rc;

	if (fpvmi_fstr_in(name, sizeof(name), host, hostlen))
		return PvmBadParam;
	rc = add ? pvm_addhosts(names, 1, &result) :
		   pvm_delhosts(names, 1, &result);
	return rc < 0 ? rc : result;
}

/* pvmfaddhost(host, info): adds one host; info is its pvmd's tid, or an
 * error code. */
FPVM_EXPORT void pvmfaddhost_(char *host, int *info, size_t hostlen)
{
	*info = one_host(1, host, hostlen);
}

/* pvmfdelhost(host, info): deletes one host; info is 0 or an error
 * code. */
FPVM_EXPORT void pvmfdelhost_(char *host, int *info, size_t hostlen)
{
	*info = one_host(0, host, hostlen);
}

/* pvmfmstat(host, mstat): PvmOk if host is in the virtual machine and
 * running, PvmNoHost, PvmHostFail or another error otherwise. */
FPVM_EXPORT void pvmfmstat_(char *host, int *mstat, size_t hostlen)
{
	char name[FPVM_NAMELEN + 1];

	if (fpvmi_fstr_in(name, sizeof(name), host, hostlen))
		*mstat = PvmBadParam;
	else
		*mstat = pvm_mstat(name);
}

/* pvmfarchcode(arch, cod): the data format code of architecture arch
 * (hosts with the same code need no conversion), or an error code. */
FPVM_EXPORT void pvmfarchcode_(char *arch, int *cod, size_t archlen)
{
	char name[FPVM_NAMELEN + 1];

	if (fpvmi_fstr_in(name, sizeof(name), arch, archlen))
		*cod = PvmBadParam;
	else
		*cod = pvm_archcode(name);
}

/* pvmfhostsync(host, clksec, clkusec, deltasec, deltausec, info): the
 * clock of host (a pvmd tid) and its difference to the local clock. */
FPVM_EXPORT void pvmfhostsync_(int *host, int *clksec, int *clkusec,
			       int *deltasec, int *deltausec, int *info)
{
	struct timeval clk = { 0, 0 }, delta = { 0, 0 };

	*info = pvm_hostsync(*host, &clk, &delta);
	*clksec = (int)clk.tv_sec;
	*clkusec = (int)clk.tv_usec;
	*deltasec = (int)delta.tv_sec;
	*deltausec = (int)delta.tv_usec;
}

/* pvmfhalt(info): stops the whole virtual machine, this task included. */
FPVM_EXPORT void pvmfhalt_(int *info)
{
	*info = pvm_halt();
}

/* Frees the first `argc' strings of `argv', then argv itself. */
static void free_args(char **argv, int argc)
{
	while (argc > 0)
		free(argv[--argc]);
	free(argv);
}

/* Splits the `len' bytes at `s' at blanks and tabs into a NULL-ended
 * vector in *argvp.  Returns the number of words, or -1 (no memory). */
static int split_args(const char *s, size_t len, char ***argvp)
{
	char **argv = calloc(len / 2 + 2, sizeof(*argv));
	int argc = 0;
	size_t i = 0, start;

	if (!argv)
		return -1;
	for (;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= len || s[i] == '\0')
			break;
		start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\0')
			i++;
		argv[argc] = strndup(s + start, i - start);
		if (!argv[argc]) {
			free_args(argv, argc);
			return -1;
		}
		argc++;
	}
	*argvp = argv;
	return argc;
}

/* pvmfstartpvmd(args, block, info): starts a pvmd with the blank-separated
 * arguments in args; non-zero block waits until it answers. */
FPVM_EXPORT void pvmfstartpvmd_(char *args, int *block, int *info,
				size_t argslen)
{
	char **argv = NULL;
	int argc = split_args(args, args ? argslen : 0, &argv);

	if (argc < 0) {
		*info = PvmNoMem;
		return;
	}
	*info = pvm_start_pvmd(argc, argc ? argv : NULL, *block);
	free_args(argv, argc);
}

/* pvmfgetopt(what, val): the value of library option what (PVMROUTE,
 * PVMAUTOERR, ...), or an error code. */
FPVM_EXPORT void pvmfgetopt_(int *what, int *val)
{
	*val = pvm_getopt(*what);
}

/* pvmfsetopt(what, val, oldval): sets library option what to val;
 * oldval gets the previous value, or an error code. */
FPVM_EXPORT void pvmfsetopt_(int *what, int *val, int *oldval)
{
	*oldval = pvm_setopt(*what, *val);
}

/* pvmfperror(msg, info): prints msg and the text of the latest PVM error
 * on stderr.  msg keeps its trailing blanks, as with PVM 3.4.6. */
FPVM_EXPORT void pvmfperror_(char *msg, int *info, size_t msglen)
{
	char *s = malloc(msglen + 1);

	if (!s) {
		*info = PvmNoMem;
		return;
	}
	/* the whole variable, blanks included, up to a NUL if it has one */
	if (msglen)
		memcpy(s, msg, msglen);
	s[msglen] = '\0';
	*info = pvm_perror(s);
	free(s);
}

/* pvmfsleep(secs): sleeps secs seconds. */
FPVM_EXPORT void pvmfsleep_(int *secs)
{
	pvmsleep(*secs);
}
