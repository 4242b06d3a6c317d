/*
 * main.c - pvmd start-up and shutdown.
 *
 *   pvmd [-dMASK] [-nNAME] [-f] [hostfile]
 *   pvmd -s [-dMASK] -nNAME          (a slave, started by a master)
 *
 * Start-up prepares the per-user directory $PVM_TMP/copvm-<uid> (0700,
 * ours, nobody else's), takes an exclusive lock on the pid file so that
 * only one daemon runs per user, binds and listens on the control socket
 * and only then detaches: without -f the process forks and the parent
 * exits 0 once the child is ready to serve, so a starter can wait for
 * that exit and connect straight away; it exits 1 with a message on
 * stderr if anything failed, notably when a daemon already runs.  The
 * daemon then moves to $HOME, where spawned tasks start, as stock does.
 *
 * A master (no -s) with a hostfile starts the hosts it lists before it
 * says it is ready (addhost.c).  A slave reads the master's instructions
 * on stdin and joins the machine before it detaches (slave.c).
 *
 * pvmd_cleanup_exit() removes everything the daemon made in the
 * directory (sockets, pid file; the log stays) and is the only exit path
 * after start-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "auth.h"
#include "pvmd.h"
#include "rundir.h"

#ifndef COPVM_PVM_ROOT
#define COPVM_PVM_ROOT "/usr/local/lib/copvm"
#endif

/* How the library knows this program for copvm's pvmd (proto.h). */
const char pvmd_marker[] __attribute__((used)) = PVMI_PVMD_MARKER;

static int pid_fd = -1;

static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pvmd: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pvmd [-dMASK] [-nNAME] [-f] [hostfile]\n"
		"       pvmd -s [-dMASK] -nNAME   (started by a master)\n"
		"  -dMASK  debug mask (hex 0x.., octal 0.. or decimal)\n"
		"  -nNAME  name to use for this host\n"
		"  -f      stay in the foreground\n"
		"  -s      slave: read the master's instructions on stdin\n");
	exit(1);
}

/* Closes every descriptor but stdin, stdout and stderr: a daemon
 * started from a task must not hold that task's pipes and files open. */
static void close_inherited(void)
{
	int fd;

	if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
		for (fd = 3; fd < 65536; fd++)
			close(fd);
}

/* Parses the command line; returns the hostfile or NULL. */
static const char *parse_args(int argc, char **argv)
{
	const char *hostfile = NULL, *val;
	char *end;
	int i, opt;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-' || argv[i][1] == '\0') {
			if (hostfile)
				usage();
			hostfile = argv[i];
			continue;
		}
		switch (argv[i][1]) {
		case 'd':
		case 'n':
			opt = argv[i][1];
			val = argv[i][2] ? argv[i] + 2 :
			      (i + 1 < argc ? argv[++i] : NULL);
			if (!val)
				usage();
			if (opt == 'n') {
				snprintf(pvmd.hostname, sizeof(pvmd.hostname),
					 "%s", val);
				break;
			}
			errno = 0;
			pvmd.debug = (int)strtol(val, &end, 0);
			if (errno || *end)
				die("bad debug mask \"%s\"", val);
			break;
		case 'f':
			if (argv[i][2])
				usage();
			pvmd.foreground = 1;
			break;
		case 's':
		case 'S':
			if (argv[i][2])
				usage();
			pvmd.slave = 1;
			break;
		default:
			usage();
		}
	}
	return hostfile;
}

/* Creates or checks the per-user directory and PVM_TMP (rundir.h):
 * nobody but us may control either. */
static void prepare_dir(void)
{
	char why[COPVM_WHY_LEN];

	pvmd.dirfd = copvm_rundir_open(pvmd.uid, pvmd.dir, sizeof(pvmd.dir),
				       why, sizeof(why));
	if (pvmd.dirfd < 0)
		die("%s", why);
}

static void make_path(char *buf, size_t size, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", pvmd.dir, name);

	if (n < 0 || (size_t)n >= size)
		die("path too long under %s", pvmd.dir);
}

/* Takes the one-daemon-per-user lock on the pid file. */
static void take_lock(void)
{
	char buf[32];
	ssize_t n;

	pid_fd = open(pvmd.pidpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	if (pid_fd < 0)
		die("cannot open %s: %s", pvmd.pidpath, strerror(errno));
	if (flock(pid_fd, LOCK_EX | LOCK_NB) < 0) {
		n = pread(pid_fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		fprintf(stderr, "pvmd: a pvmd is already running for uid %u"
			" (pid %s)\n", (unsigned)pvmd.uid,
			*buf ? buf : "unknown");
		exit(1);
	}
}

/* Binds the control socket, replacing a stale one; exits if a live
 * daemon answers on it (the lock should make that impossible). */
static int listen_socket(void)
{
	struct sockaddr_un sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(pvmd.sockpath) >= sizeof(sa.sun_path))
		die("socket path too long: %s", pvmd.sockpath);
	strcpy(sa.sun_path, pvmd.sockpath);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		die("a pvmd is already answering on %s", pvmd.sockpath);
	close(fd);
	unlink(pvmd.sockpath);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("cannot bind %s: %s", pvmd.sockpath, strerror(errno));
	chmod(pvmd.sockpath, 0600);
	if (listen(fd, 128) < 0)
		die("listen: %s", strerror(errno));
	return fd;
}

static void write_pid(void)
{
	char buf[32];
	int n;

	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(pid_fd, 0) < 0 || pwrite(pid_fd, buf, n, 0) != n)
		pvmd_log("cannot write %s: %s", pvmd.pidpath, strerror(errno));
}

/* Forks; the parent waits for the child's "ready" byte and exits with 0
 * when it comes, 1 otherwise.  Returns the write end in the child. */
static int detach(void)
{
	int p[2];
	pid_t pid;
	char c;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid > 0) {
		close(p[1]);
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 && c == 'R' ? 0 : 1);
	}
	close(p[0]);
	setsid();
	return p[1];
}

static void setup_env(void)
{
	struct passwd *pw;
	const char *h = getenv("HOME");

	if (!getenv("PVM_ARCH"))
		setenv("PVM_ARCH", PVMI_ARCH_NAME, 1);
	if (!getenv("PVM_ROOT")) {
		setenv("PVM_ROOT", COPVM_PVM_ROOT, 1);
		pvmd.root_defaulted = 1;
	}
	if (!h || !*h) {
		pw = getpwuid(pvmd.uid);
		h = pw && pw->pw_dir ? pw->pw_dir : "/";
	}
	pvmd.home = strdup(h);
	if (!pvmd.home)
		die("out of memory");
}

/* Removes every file the daemon made and exits with `status'. */
void pvmd_cleanup_exit(int status)
{
	pvmd_gang_release();
	pvmd_cwatch_report();
	pvmd_task_unlink_all();
	pvmd_session_end();
	pvmd_conn_close_all();
	if (pvmd_ring_batches())
		pvmd_log("%lu batches of link writes through io_uring",
			 pvmd_ring_batches());
	unlink(pvmd.sockpath);
	unlink(pvmd.pidpath);
	pvmd_log("pvmd exiting (status %d)", status);
	/* the lock goes with the process */
	_exit(status);
}

int main(int argc, char **argv)
{
	const char *hostfile;
	char **hosts = NULL;
	int lfd, nhosts = 0;
	ssize_t n;

	pvmd_wire();
	close_inherited();
	pvmd.epfd = -1;
	pvmd.dirfd = -1;
	pvmd.uid = getuid();
	pvmd.opts.speed = PVMD_SPEED_DEFAULT;
	pvmd.index = PVMI_MASTER_INDEX;
	hostfile = parse_args(argc, argv);
	if (pvmd.slave && hostfile)
		usage();
	if (!pvmd.hostname[0] &&
	    gethostname(pvmd.hostname, sizeof(pvmd.hostname) - 1) < 0)
		strcpy(pvmd.hostname, "localhost");
	n = readlink("/proc/self/exe", pvmd.exe, sizeof(pvmd.exe) - 1);
	pvmd.exe[n > 0 ? n : 0] = '\0';
	if (pvmd.slave)
		pvmd_slave_read_config();
	else if (pvmi_random(pvmd.secret, sizeof(pvmd.secret)) < 0)
		die("no randomness for the machine's secret");
	pvmd.dtid = PVMI_DAEMON_TID(pvmd.index);
	setup_env();
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);

	prepare_dir();
	make_path(pvmd.sockpath, sizeof(pvmd.sockpath), PVMI_DAEMON_SOCK);
	make_path(pvmd.pidpath, sizeof(pvmd.pidpath), PVMI_DAEMON_PID);
	make_path(pvmd.logpath, sizeof(pvmd.logpath), PVMI_DAEMON_LOG);
	take_lock();
	if (pvmd_session_start() < 0)
		die("cannot make the session directory under %s: %s",
		    pvmd.dir, strerror(errno));
	if (pvmd_log_open(pvmd.logpath, pvmd.foreground && pvmd.debug) < 0)
		die("cannot open the log: %s", strerror(errno));
	if (hostfile && pvmd_hostfile_load(hostfile, &hosts, &nhosts) < 0)
		die("cannot read hostfile %s: %s", hostfile, strerror(errno));
	lfd = listen_socket();
	if (pvmd.slave)
		pvmd_slave_connect();

	if (!pvmd.foreground)
		pvmd_ready_set_fd(detach());
	write_pid();
	if (chdir(pvmd.home) < 0)
		pvmd_log("cannot chdir to %s: %s", pvmd.home, strerror(errno));
	if (pvmd_hosts_init() < 0 || pvmd_loop_init(lfd) < 0) {
		fprintf(stderr, "pvmd: cannot set up the event loop: %s\n",
			strerror(errno));
		unlink(pvmd.sockpath);
		unlink(pvmd.pidpath);
		exit(1);
	}
	pvmd_peer_loop_ready();
	pvmd_gang_init();
	pvmd_cwatch_init();
	pvmd_log("pvmd ready: host %s, tid t%x, arch %s, pid %ld, dir %s%s",
		 pvmd.hostname, (unsigned)pvmd.dtid, PVMI_ARCH_NAME,
		 (long)getpid(), pvmd.dir, pvmd.slave ? " (slave)" : "");
	if (pvmd.slave)
		pvmd_slave_start();
	pvmd_addhost_startup(hosts, nhosts);
	while (nhosts > 0)
		free(hosts[--nhosts]);
	free(hosts);
	if (!pvmd_ready_is_held())
		pvmd_ready();
	pvmd_cleanup_exit(pvmd_loop_run());
}
