/*
 * kmod_watch.c - the ioctl suite's cases on WATCH, the module's boost on
 * arrival: input on a socket or an eventfd that a registered task
 * watches, arriving while the task is blocked, boosts it before it runs;
 * input that finds it running, or on a file it does not watch, boosts
 * nothing; a watched file the task closed, or whose device fd it closed,
 * is let go; and bad arguments get their errors.
 *
 * The boosted task, the writer and the module's undo thread share CPU 1
 * for these cases, so the task cannot run between the input and the
 * undo thread (SCHED_FIFO, woken by the input ahead of the task) putting
 * the boost in force: what the task reads back as its nice once its read
 * returns is what it ran with.  (Elsewhere the thread may run on another
 * CPU, and the boost lands a few microseconds after the wake.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmod_watch.h"
#include "ktest.h"
#include "pvm_cosched.h"

#define MS	1000000ULL
#define BOX_NS	(500 * MS)

static int watch(int dev, int fd, int op, int level, int nice, uint64_t box)
{
	struct pvm_cosched_watch w = { .fd = fd, .op = op, .level = level,
				       .nice = nice, .box_ns = box };

	return kt_ioctl(dev, PVM_COSCHED_IOC_WATCH, &w);
}

/* Opens the device and registers the caller; -1 on failure. */
static int registered(void)
{
	struct pvm_cosched_register reg = {
		.abi_version = PVM_COSCHED_ABI_VERSION };
	int fd = open(PVM_COSCHED_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0 || kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg) < 0)
		return -1;
	return fd;
}

static uint64_t arrivals(int dev)
{
	struct pvm_cosched_stats st = { .flags = 0 };

	return kt_ioctl(dev, PVM_COSCHED_IOC_STATS, &st) ? ~0ULL :
	       st.my_arrivals;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Sets the limits in force with boxes of up to 1 s (a boost must last
 * until the task reads its nice back on an emulated, loaded machine);
 * the previous limits in *old.  0 or -errno. */
static int long_boxes(struct pvm_cosched_limits *old)
{
	struct pvm_cosched_stats st = { .flags = 0 };
	struct pvm_cosched_limits l;
	int fd = open(PVM_COSCHED_DEVICE, O_RDWR | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = kt_ioctl(fd, PVM_COSCHED_IOC_STATS, &st);
	if (rc == 0) {
		*old = st.limits;
		l = st.limits;
		l.box_max_ns = 1000 * MS;
		rc = kt_ioctl(fd, PVM_COSCHED_IOC_SET_LIMITS, &l);
	}
	close(fd);
	return rc;
}

static void set_limits_back(const struct pvm_cosched_limits *old)
{
	int fd = open(PVM_COSCHED_DEVICE, O_RDWR | O_CLOEXEC);

	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_SET_LIMITS, (void *)old), 0);
	close(fd);
}

/* Pins the module's undo thread (the kthread named pvm_cosched) to CPU
 * `cpu', or lets it run anywhere with cpu < 0; 0, or -1 if not found. */
static int pin_undo_thread(int cpu)
{
	struct dirent *d;
	char path[300], comm[32];
	cpu_set_t set;
	DIR *proc = opendir("/proc");
	int found = -1;
	FILE *f;

	if (!proc)
		return -1;
	CPU_ZERO(&set);
	for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
		CPU_SET(i, &set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	while ((d = readdir(proc)) && found < 0) {
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strcmp(comm, "pvm_cosched\n") &&
		    sched_setaffinity(atoi(d->d_name), sizeof(set), &set) == 0)
			found = 0;
		fclose(f);
	}
	closedir(proc);
	return found;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Whether `fd' shows the peer's hang-up within `ms'. */
static int hung_up_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	return (p.revents & POLLHUP) || read(fd, &c, 1) == 0;
}

int case_watch_arguments(void)
{
	struct pvm_cosched_watch w;
	int dev, sv[17][2], ev, reg, i;
	char path[] = "/tmp/kmod-watch-XXXXXX";

	KT_SKIP_IF(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[0]) < 0,
		   "no socketpair");
	dev = open(PVM_COSCHED_DEVICE, O_RDWR | O_CLOEXEC);
	KT_CHECK(dev >= 0);
	/* Before REGISTER. */
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), -ENOTCONN);
	close(dev);
	dev = registered();
	KT_CHECK(dev >= 0);
	KT_EQ_ERR(watch(dev, 1000, PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), -EBADF);
	KT_EQ_ERR(watch(dev, -1, PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), -EBADF);
	KT_EQ_ERR(watch(dev, sv[0][0], 0, PVM_COSCHED_BOOST_NICE, -3, BOX_NS),
		  -EINVAL);
	KT_EQ_ERR(watch(dev, sv[0][0], 3, PVM_COSCHED_BOOST_NICE, -3, BOX_NS),
		  -EINVAL);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NONE, 0, BOX_NS), -EINVAL);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_ADD, 4, 0, BOX_NS),
		  -EINVAL);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, 0), -EINVAL);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, 20, BOX_NS), -EINVAL);
	memset(&w, 0, sizeof(w));
	w.fd = sv[0][0];
	w.op = PVM_COSCHED_WATCH_ADD;
	w.level = PVM_COSCHED_BOOST_NICE;
	w.box_ns = BOX_NS;
	w.reserved[0] = 1;
	KT_EQ_ERR(kt_ioctl(dev, PVM_COSCHED_IOC_WATCH, &w), -EINVAL);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_DEL,
			PVM_COSCHED_BOOST_NICE, 0, 0), -EINVAL);
	/* Files that do not poll: a regular file, the device itself. */
	reg = mkstemp(path);
	KT_CHECK(reg >= 0);
	KT_EQ_ERR(watch(dev, reg, PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), -EINVAL);
	close(reg);
	unlink(path);
	KT_EQ_ERR(watch(dev, dev, PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), -EINVAL);
	/* Add, add again, delete, delete again. */
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_DEL, 0, 0, 0),
		  -ENOENT);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), 0);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), -EEXIST);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_DEL, 0, 0, 0), 0);
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_DEL, 0, 0, 0),
		  -ENOENT);
	/* An eventfd polls too; then as many as the limit, and no more. */
	ev = eventfd(0, EFD_CLOEXEC);
	KT_EQ_ERR(watch(dev, ev, PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_SLICE, 0, BOX_NS), 0);
	for (i = 1; i < PVM_COSCHED_MAX_WATCH; i++) {
		KT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]) == 0);
		KT_EQ_ERR(watch(dev, sv[i][0], PVM_COSCHED_WATCH_ADD,
				PVM_COSCHED_BOOST_NICE, -1, BOX_NS), 0);
	}
	KT_EQ_ERR(watch(dev, sv[0][0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), -ENOSPC);
	close(dev);
	close(ev);
	for (i = 0; i < PVM_COSCHED_MAX_WATCH; i++) {
		close(sv[i][0]);
		close(sv[i][1]);
	}
	return kt_failed ? KT_FAIL : KT_PASS;
}

/* The result a watching child sends back. */
struct seen {
	int nice;		/* its nice once the read returned */
	uint64_t arrivals;	/* STATS' my_arrivals then */
	int nice_later;		/* its nice after the box */
};

/* A child on CPU 1 that registers, watches `watched' (NICE -3), and
 * blocks in a read of `readfd'; it sends back what it saw.  With `spin',
 * it spins for 1 s first (the input comes after 100 ms), then reads
 * without blocking. */
static pid_t watcher(int watched, int readfd, int out, int spin)
{
	pid_t pid = fork();
	struct seen s;
	uint64_t buf;
	int dev;

	if (pid)
		return pid;
	pin(1);
	dev = registered();
	if (dev < 0 || watch(dev, watched, PVM_COSCHED_WATCH_ADD,
			     PVM_COSCHED_BOOST_NICE, -3, BOX_NS))
		_exit(2);
	if (write(out, "r", 1) != 1)	/* watching */
		_exit(2);
	if (spin) {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000 +
		       (t.tv_nsec - t0.tv_nsec) / 1000000 < 1000);
	}
	if (read(readfd, &buf, sizeof(buf)) <= 0)
		_exit(2);
	s.nice = getpriority(PRIO_PROCESS, 0);
	s.arrivals = arrivals(dev);
	sleep_ms(BOX_NS / MS + 200);
	s.nice_later = getpriority(PRIO_PROCESS, 0);
	if (write(out, &s, sizeof(s)) != sizeof(s))
		_exit(2);
	_exit(0);
}

/* Runs one watcher; the writer (us, on CPU 1 too) writes to `writefd'
 * after it is ready (and, with `spin', while it spins). */
static struct seen watch_once(int watched, int readfd, int writefd, int spin)
{
	struct seen s = { 99, ~0ULL, 99 };
	uint64_t one = 1;
	int p[2], st;
	pid_t pid;
	char c;

	KT_CHECK(pipe(p) == 0);
	pid = watcher(watched, readfd, p[1], spin);
	KT_CHECK(read(p[0], &c, 1) == 1);
	pin(1);
	sleep_ms(spin ? 100 : 50);	/* blocked in its read, or spinning */
	KT_CHECK(write(writefd, &one, sizeof(one)) == sizeof(one));
	pin(0);
	KT_CHECK(read(p[0], &s, sizeof(s)) == sizeof(s));
	KT_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		 WEXITSTATUS(st) == 0);
	close(p[0]);
	close(p[1]);
	return s;
}

int case_watch_boosts_on_arrival(void)
{
	struct pvm_cosched_limits old;
	struct seen s;
	int sv[2], tv[2], ev;

	KT_SKIP_IF(pin_undo_thread(1) < 0, "no pvm_cosched kthread to pin");
	KT_EQ_ERR(long_boxes(&old), 0);
	KT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	KT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, tv) == 0);
	ev = eventfd(0, EFD_CLOEXEC);
	KT_CHECK(ev >= 0);
	/* A socket: boosted before it ran, undone after the box. */
	s = watch_once(sv[0], sv[0], sv[1], 0);
	printf("#   socket: nice %d on waking, %d after the box, %llu arrivals\n",
	       s.nice, s.nice_later, (unsigned long long)s.arrivals);
	KT_EQ(s.nice, -3);
	KT_EQ(s.arrivals, 1);
	KT_EQ(s.nice_later, 0);
	/* An eventfd (the shared-memory ring's doorbell), the same. */
	s = watch_once(ev, ev, ev, 0);
	printf("#   eventfd: nice %d on waking, %d after the box, %llu arrivals\n",
	       s.nice, s.nice_later, (unsigned long long)s.arrivals);
	KT_EQ(s.nice, -3);
	KT_EQ(s.arrivals, 1);
	KT_EQ(s.nice_later, 0);
	/* Input that finds the task running boosts nothing. */
	s = watch_once(sv[0], sv[0], sv[1], 1);
	printf("#   running: nice %d, %llu arrivals\n", s.nice,
	       (unsigned long long)s.arrivals);
	KT_EQ(s.nice, 0);
	KT_EQ(s.arrivals, 0);
	/* Input on a file it does not watch boosts nothing. */
	s = watch_once(sv[0], tv[0], tv[1], 0);
	printf("#   unwatched: nice %d, %llu arrivals\n", s.nice,
	       (unsigned long long)s.arrivals);
	KT_EQ(s.nice, 0);
	KT_EQ(s.arrivals, 0);
	close(sv[0]);
	close(sv[1]);
	close(tv[0]);
	close(tv[1]);
	close(ev);
	pin_undo_thread(-1);
	set_limits_back(&old);
	return kt_failed ? KT_FAIL : KT_PASS;
}

int case_watch_lets_closed_files_go(void)
{
	struct pvm_cosched_report rep = { .level = PVM_COSCHED_BOOST_NONE };
	int sv[2], tv[2], dev;

	KT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	KT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, tv) == 0);
	dev = registered();
	KT_CHECK(dev >= 0);
	KT_EQ_ERR(watch(dev, sv[0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), 0);
	KT_EQ_ERR(watch(dev, tv[0], PVM_COSCHED_WATCH_ADD,
			PVM_COSCHED_BOOST_NICE, -3, BOX_NS), 0);
	/* Closed by the task: held until its next request. */
	close(sv[0]);
	KT_EQ(hung_up_within(sv[1], 100), 0);
	KT_EQ_ERR(kt_ioctl(dev, PVM_COSCHED_IOC_REPORT, &rep), 0);
	KT_EQ(hung_up_within(sv[1], 1000), 1);
	/* The device fd closed: every watch ends. */
	close(tv[0]);
	KT_EQ(hung_up_within(tv[1], 100), 0);
	close(dev);
	KT_EQ(hung_up_within(tv[1], 1000), 1);
	close(sv[1]);
	close(tv[1]);
	return kt_failed ? KT_FAIL : KT_PASS;
}
