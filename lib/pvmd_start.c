/*
 * pvmd_start.c - finding and starting copvm's own daemon.
 *
 * The library starts $COPVM_PVMD when it is set (the user's explicit
 * choice), else the first of $PVM_ROOT/lib/pvmd and the installed
 * bindir/pvmd that carries copvm's marker (PVMI_PVMD_MARKER): a user's
 * PVM_ROOT often names stock PVM, whose pvmd speaks another protocol and
 * would never answer us.  Nothing is looked up on $PATH.
 *
 * copvm's pvmd forks and its first process exits once the daemon listens.
 * A program that neither exits nor makes the daemon's socket within
 * PVMD_START_TIMEOUT_MS is not copvm's pvmd at work: it is killed and
 * the start fails with a message, rather than waiting for ever.  The
 * child keeps only stderr (for pvmd's own start-up errors): every other
 * descriptor of the task is closed, so that a daemon started from inside
 * `x=$(prog)' does not hold the caller's pipe open.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <sys/syscall.h>

#include "compat/log.h"
#include "proto.h"
#include "pvmi.h"
#include "pvmd_start.h"
#include "rundir_path.h"

/* How long a started program may take to become a listening pvmd. */
#define PVMD_START_TIMEOUT_MS	10000
/* No pvmd binary is this large; a bound on what we map to look. */
#define PVMD_MAX_SIZE		(64 << 20)


/* Non-zero when `path' is an executable file carrying copvm's marker. */
static int is_copvm_pvmd(const char *path)
{
	struct stat st;
	void *p;
	int fd, found = 0;

	if (access(path, X_OK) < 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    st.st_size < PVMD_MAX_SIZE) {
		p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			found = memmem(p, st.st_size, PVMI_PVMD_MARKER,
				       sizeof(PVMI_PVMD_MARKER)) != NULL;
			munmap(p, st.st_size);
		}
	}
	close(fd);
	return found;
}

/* Writes the pvmd program the library would start into `buf' and
 * returns 1, or 0 (with the installed path in `buf') when no copvm pvmd
 * is there. */
int pvmi_pvmd_path(char *buf, size_t len)
{
	const char *p = getenv("COPVM_PVMD");
	const char *root = getenv("PVM_ROOT");

	if (p && *p) {
		snprintf(buf, len, "%s", p);
		return 1;
	}
	if (root && *root) {
		snprintf(buf, len, "%s/lib/pvmd", root);
		if (is_copvm_pvmd(buf))
			return 1;
	}
	snprintf(buf, len, "%s/pvmd", COPVM_BINDIR);
	return is_copvm_pvmd(buf);
}

/* Non-zero when this user's daemon socket exists. */
static int daemon_sock_exists(void)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", pvmi_rundir(), PVMI_DAEMON_SOCK);
	return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* In the child: only stderr stays; stdin and stdout read and write
 * nothing; then the daemon program. */
static void __attribute__((noreturn)) exec_pvmd(const char *path, char **av)
{
	int null = open("/dev/null", O_RDWR);

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
	}
	if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0) {
		long fd, max = sysconf(_SC_OPEN_MAX);

		for (fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			close((int)fd);
	}
	execvp(path, av);
	_exit(127);
}

/* Waits for the started program `pid' to exit; kills it when it neither
 * exits nor makes the daemon's socket in time.  Returns its wait status,
 * or -1 when killed or lost. */
static int wait_started(pid_t pid, const char *path)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int status, waited = 0;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		if (waited >= PVMD_START_TIMEOUT_MS && !daemon_sock_exists()) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			pvmlogprintf("%s did not start a copvm daemon within "
				     "%d s (is it copvm's pvmd?); stopped it\n",
				     path, PVMD_START_TIMEOUT_MS / 1000);
			return -1;
		}
		nanosleep(&ts, NULL);
		waited += 10;
	}
}

/* Starts copvm's pvmd with `argc' arguments `argv' and waits until it
 * listens.  Returns PvmOk, PvmNoMem, PvmSysErr or PvmCantStart. */
int pvmi_start_daemon(int argc, char **argv)
{
	char path[PATH_MAX];
	char **av;
	pid_t pid;
	int i, status;

	if (!pvmi_pvmd_path(path, sizeof(path))) {
		pvmlogprintf("copvm's pvmd is not at %s%s%s; set COPVM_PVMD "
			     "to its path\n", path,
			     getenv("PVM_ROOT") ? " nor at $PVM_ROOT/lib/pvmd"
			     : "", getenv("PVM_ROOT") ?
			     " (PVM_ROOT is not copvm's)" : "");
		return PvmCantStart;
	}
	av = calloc(argc + 2, sizeof(*av));
	if (!av)
		return PvmNoMem;
	av[0] = path;
	for (i = 0; i < argc; i++)
		av[i + 1] = argv[i];
	pid = fork();
	if (pid < 0) {
		free(av);
		return PvmSysErr;
	}
	if (pid == 0)
		exec_pvmd(path, av);
	free(av);
	status = wait_started(pid, path);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return PvmCantStart;
	return PvmOk;
}
