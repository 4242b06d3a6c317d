/*
 * spawn.c - starting the tasks of a spawn on this host: finding the
 * program, and forking and exec'ing each task.  The SPAWN request itself,
 * and which hosts start how many, are place.c's business; a request from
 * another daemon (flag PVMD_SPAWN_PART) is that host's share of a spawn
 * spread by the daemon of the asking task.
 *
 * The program is found as stock's default ep= does: a name with a '/' is
 * used as is (relative names from $HOME, the daemon's directory), any
 * other name is looked up in $HOME/pvm3/bin/$PVM_ARCH and then in
 * $PVM_ROOT/bin/$PVM_ARCH (and, when the daemon found PVM_ROOT unset, in
 * Debian's /usr/lib/pvm3/bin/$PVM_ARCH last), or in the hostfile's ep=
 * list for this host (':' separated, $VAR and ${VAR} expanded, relative
 * to $HOME).
 *
 * Each task gets its tid and its listening socket before it exists: the
 * socket is bound and listening before fork(), so a message sent to the
 * new tid right after pvm_spawn() returns waits in its backlog.  The
 * child gets the socket (COPVM_LISTEN_FD) and its tid (COPVM_TID), the
 * request's environment strings, /dev/null as stdin, and one pipe as
 * stdout and stderr (output.c reads it).  An exec failure comes back
 * through a close-on-exec pipe, so the slot gets PvmNoFile and no task
 * entry is left behind.  The reply lists the started tids first, then
 * the error codes, as pvm_spawn() promises its caller.
 *
 * A task gets SIGTERM if its daemon dies (PR_SET_PDEATHSIG): the machine
 * then reports it gone, and it could not reach anyone any more anyway
 * (stock leaves it running until its next PVM call fails).
 *
 * In a machine of several hosts each task also gets a TCP socket,
 * already listening (COPVM_TCP_FD), whose port the daemon records: a task
 * of another host that wants a direct route to it can connect before it
 * has even started (PVMI_OP_ROUTE).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include "pvmd.h"

#define DEFAULT_EP	"$HOME/pvm3/bin/$PVM_ARCH:$PVM_ROOT/bin/$PVM_ARCH"
/* Without a PVM_ROOT of the user's, the directory where Debian's PVM
 * applications keep their workers too: stock's daemon, started by
 * Debian's console, has PVM_ROOT=/usr/lib/pvm3. */
#ifndef COPVM_STOCK_PVM_ROOT
#define COPVM_STOCK_PVM_ROOT	"/usr/lib/pvm3"
#endif
#define DEFAULT_EP_NO_ROOT	DEFAULT_EP ":" COPVM_STOCK_PVM_ROOT "/bin/$PVM_ARCH"
#define PATH_BUF	4096

static pid_t daemon_pid;		/* the parent its children expect */

static int is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* Expands $NAME and ${NAME} from the environment into `out'; 0 or -1. */
static int expand(const char *in, size_t n, char *out, size_t size)
{
	size_t o = 0, k;
	const char *val, *end;
	char name[256];

	while (n > 0) {
		if (*in == '$' && n > 1) {
			in++;
			n--;
			if (*in == '{') {
				end = memchr(in, '}', n);
				if (!end)
					return -1;
				k = (size_t)(end - in - 1);
				if (k >= sizeof(name))
					return -1;
				memcpy(name, in + 1, k);
				in = end + 1;
				n -= k + 2;
			} else {
				for (k = 0; k < n && k < sizeof(name) - 1 &&
				     (in[k] == '_' || (in[k] >= 'A' &&
				      in[k] <= 'Z') || (in[k] >= 'a' &&
				      in[k] <= 'z') || (in[k] >= '0' &&
				      in[k] <= '9')); k++)
					name[k] = in[k];
				in += k;
				n -= k;
			}
			name[k] = '\0';
			val = !strcmp(name, "HOME") ? pvmd.home : getenv(name);
			if (!val)
				val = "";
			k = strlen(val);
			if (o + k >= size)
				return -1;
			memcpy(out + o, val, k);
			o += k;
			continue;
		}
		if (o + 1 >= size)
			return -1;
		out[o++] = *in++;
		n--;
	}
	out[o] = '\0';
	return 0;
}

/* Returns the malloc'd path of the program to start, or NULL. */
static char *resolve(const char *file)
{
	const char *ep = pvmd.opts.ep ? pvmd.opts.ep :
			 pvmd.root_defaulted ? DEFAULT_EP_NO_ROOT : DEFAULT_EP;
	const char *p, *colon;
	char dir[PATH_BUF], path[PATH_BUF];
	size_t n;
	int len;

	if (!*file)
		return NULL;
	if (strchr(file, '/'))
		return is_executable(file) ? strdup(file) : NULL;
	for (p = ep;; p = colon + 1) {
		colon = strchr(p, ':');
		n = colon ? (size_t)(colon - p) : strlen(p);
		if (n > 0 && expand(p, n, dir, sizeof(dir)) == 0) {
			if (dir[0] == '/')
				len = snprintf(path, sizeof(path), "%s/%s",
					       dir, file);
			else
				len = snprintf(path, sizeof(path), "%s/%s/%s",
					       pvmd.home, dir, file);
			if (len > 0 && (size_t)len < sizeof(path) &&
			    is_executable(path))
				return strdup(path);
		}
		if (!colon)
			return NULL;
	}
}

/* A TCP socket listening for a task's direct routes, on the address the
 * daemon listens on for daemons (every address if it does); the fd, its
 * port in *port, or -1. */
static int tcp_listener(int *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	char addr[64];
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	if (pvmd_peer_listen_addr(addr, sizeof(addr)) < 0 ||
	    inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);	/* length checked by the caller */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 128) < 0) {
		close(fd);
		unlink(path);
		return -1;
	}
	chmod(path, 0600);
	return fd;
}

/* In the child: set up and exec; reports errno on `errfd' on failure. */
static void __attribute__((noreturn))
exec_child(const struct spawn_req *q, char **argv, int via_path, int tid,
	   int lfd, int tfd, int outfd, int errfd)
{
	sigset_t none;
	char buf[32];
	int null, err, i;
	char *eq;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != daemon_pid)
		_exit(127);		/* the daemon died already */
	null = open("/dev/null", O_RDONLY);
	if (null >= 0 && null != STDIN_FILENO)
		dup2(null, STDIN_FILENO);
	dup2(outfd, STDOUT_FILENO);
	dup2(outfd, STDERR_FILENO);
	fcntl(lfd, F_SETFD, 0);
	for (i = 0; i < q->envc; i++) {
		eq = strchr(q->env[i], '=');
		if (!eq || eq == q->env[i])
			continue;
		*eq = '\0';
		setenv(q->env[i], eq + 1, 1);
		*eq = '=';
	}
	snprintf(buf, sizeof(buf), "%d", tid);
	setenv(PVMI_ENV_TID, buf, 1);
	snprintf(buf, sizeof(buf), "%d", lfd);
	setenv(PVMI_ENV_LFD, buf, 1);
	setenv(PVMI_ENV_SESSION, pvmd.sessname, 1);
	if (tfd >= 0) {
		fcntl(tfd, F_SETFD, 0);
		snprintf(buf, sizeof(buf), "%d", tfd);
		setenv(PVMI_ENV_TCPFD, buf, 1);
	} else {
		unsetenv(PVMI_ENV_TCPFD);
	}
	if (pvmd.opts.wd && chdir(pvmd.opts.wd) < 0)
		goto fail;
	if (via_path)
		execvp(argv[0], argv);	/* the debugger may be on PATH */
	else
		execv(argv[0], argv);
fail:
	err = errno;
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* Builds the child's argv: [debugger] path args...; NULL on no memory.
 * *with_dbg tells whether a debugger leads the list. */
static char **build_argv(const struct spawn_req *q, const char *path,
			 int *with_dbg)
{
	const char *dbg = NULL;
	char **v;
	int i, k = 0;

	if (q->flags & PvmTaskDebug) {
		dbg = pvmd.opts.bx ? pvmd.opts.bx : getenv("PVM_DEBUGGER");
		if (dbg && !*dbg)
			dbg = NULL;
	}
	v = calloc((size_t)q->argc + 3, sizeof(*v));
	if (!v)
		return NULL;
	*with_dbg = dbg != NULL;
	if (dbg)
		v[k++] = (char *)dbg;
	v[k++] = (char *)path;
	for (i = 0; i < q->argc; i++)
		v[k++] = q->argv[i];
	return v;
}

/* Starts one task; returns its tid or a PVM error code. */
static int spawn_one(const struct spawn_req *q, char **argv, int with_dbg,
		     int ptid)
{
	char sock[PATH_BUF];
	struct pvmd_task *t;
	int lfd, tfd = -1, port = 0, out[2], err[2], e;
	ssize_t n;
	pid_t pid;

	t = pvmd_task_new(0, q->file, PVMD_TF_SPAWNED);
	if (!t)
		return PvmOutOfRes;
	if (pvmd_task_sockpath(t->tid, sock, sizeof(sock)) < 0) {
		pvmd_task_discard(t);
		return PvmSysErr;
	}
	lfd = listen_at(sock);
	if (lfd < 0) {
		pvmd_log("cannot listen on %s: %s", sock, strerror(errno));
		pvmd_task_discard(t);
		return PvmOutOfRes;
	}
	if (pvmd.tcp_port && (tfd = tcp_listener(&port)) < 0)
		pvmd_log("t%x gets no TCP listener: %s", (unsigned)t->tid,
			 strerror(errno));
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(lfd);
		goto fail_sock;
	}
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(lfd);
		close(out[0]);
		close(out[1]);
		goto fail_sock;
	}
	daemon_pid = getpid();
	pid = fork();
	if (pid == 0)
		exec_child(q, argv, with_dbg, t->tid, lfd, tfd, out[1],
			   err[1]);
	close(lfd);
	if (tfd >= 0)
		close(tfd);
	close(out[1]);
	close(err[1]);
	if (pid < 0) {
		pvmd_log("fork: %s", strerror(errno));
		close(out[0]);
		close(err[0]);
		goto fail_sock;
	}
	do
		n = read(err[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(err[0]);
	if (n == sizeof(e)) {
		pvmd_log("cannot start %s: %s", argv[0], strerror(e));
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(out[0]);
		unlink(sock);
		pvmd_task_discard(t);
		return PvmNoFile;
	}
	t->pid = pid;
	t->ptid = ptid;
	t->tcp_port = tfd >= 0 ? port : 0;
	t->ctx = q->ctx;
	t->outtid = q->outtid;
	t->outcode = q->outcode;
	t->outctx = q->outctx;
	t->trctid = q->trctid;
	t->trccode = q->trccode;
	t->trcctx = q->trcctx;
	pvmd_child_add(pid, t->tid);
	if (pvmd_output_start(out[0], t->tid, ptid, q->outtid, q->outcode,
			      q->outctx) < 0)
		close(out[0]);
	pvmd_log("t%x started: %s (pid %ld, parent t%x)", (unsigned)t->tid,
		 argv[0], (long)pid, (unsigned)ptid);
	return t->tid;

fail_sock:
	if (tfd >= 0)
		close(tfd);
	unlink(sock);
	pvmd_task_discard(t);
	return PvmOutOfRes;
}

/* Starts `n' tasks of `q' here for parent `ptid' (see pvmd.h); with
 * `sibs_host', their sibling list will come from that host's daemon. */
int pvmd_spawn_here(const struct spawn_req *q, int ptid, int sibs_host,
		    int32_t *res, int n)
{
	struct pvmd_task *t;
	char **argv = NULL, *path = NULL;
	int i, nok = 0, nerr = 0, with_dbg = 0, v, code = PvmOk;

	if (!(path = resolve(q->file))) {
		pvmd_log("spawn %s: not found or not executable", q->file);
		code = PvmNoFile;
	} else if (!(argv = build_argv(q, path, &with_dbg))) {
		code = PvmNoMem;
	}
	for (i = 0; i < n; i++) {
		v = code == PvmOk ? spawn_one(q, argv, with_dbg, ptid) : code;
		if (v > 0) {
			res[nok++] = v;
			if (sibs_host && (t = pvmd_task_find(v)))
				t->sibs_host = sibs_host;
		} else {
			res[n - 1 - nerr++] = v;
		}
	}
	free(argv);
	free(path);
	return nok;
}
