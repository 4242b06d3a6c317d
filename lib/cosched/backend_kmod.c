/*
 * backend_kmod.c - boosts through the pvm_cosched kernel module (kmod/,
 * ABI in kmod/uapi/pvm_cosched.h): one open file of /dev/pvm_cosched per
 * task, one ioctl per operation.  The module clamps every boost to its
 * limits and undoes it at the end of its box, when the file is closed and
 * when the task exits, so self_timed is 1 and detach is a close.
 *
 * The device is $COPVM_KMOD_DEV, or /dev/pvm_cosched.  The file is
 * close-on-exec and belongs to the process that opened it (the module
 * answers -EPERM to anyone else): a child that inherits it after fork
 * closes its copy and opens its own when the engine attaches it again.
 * Each REPORT also hands the module the task's F, for its statistics
 * (not its correspondents: a correspondent is boosted by BOOST, or by its
 * own watch).  `watch' hands it a socket or eventfd on which input boosts
 * the blocked task in the kernel (DCS's boost on arrival).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backend.h"
#include "copvm.h"
#include "cosched_page.h"
#include "pvm_cosched.h"

#define KMOD_DEV_ENV	"COPVM_KMOD_DEV"

/* The boost levels are checked against copvm.h in common/cosched_abi.c. */
static int kmod_fd = -1;
static pid_t kmod_owner;	/* the process that opened kmod_fd */
static struct cosched_page *kmod_page;

static const char *dev_path(void)
{
	const char *p = getenv(KMOD_DEV_ENV);

	return p && *p ? p : PVM_COSCHED_DEVICE;
}

static int dev_open(void)
{
	int fd = open(dev_path(), O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* One ioctl, with its error as a negative errno. */
static int dev_ioctl(int fd, unsigned long cmd, void *arg)
{
	int rc;

	do
		rc = ioctl(fd, cmd, arg);
	while (rc < 0 && errno == EINTR);
	return rc < 0 ? -errno : 0;
}

/* The device opens and a registration succeeds (then is dropped):
 * something that is not the module, or another ABI, fails here, never
 * later.  The registration's caps are the exact ones. */
static int kmod_probe(struct cosched_caps *caps)
{
	struct pvm_cosched_register reg;
	int fd, rc;

	memset(caps, 0, sizeof(*caps));
	fd = dev_open();
	if (fd < 0)
		return fd;
	memset(&reg, 0, sizeof(reg));
	reg.abi_version = PVM_COSCHED_ABI_VERSION;
	rc = dev_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg);
	close(fd);
	if (rc)
		return rc == -ENOTTY || rc == -EINVAL ? -ENODEV : rc;
	caps->slice = !!(reg.caps & PVM_COSCHED_CAP_SLICE);
	caps->nice_floor = reg.caps & PVM_COSCHED_CAP_NICE ? reg.nice_floor : 0;
	caps->rt = !!(reg.caps & PVM_COSCHED_CAP_RT);
	caps->peers = !!(reg.caps & PVM_COSCHED_CAP_PEERS);
	caps->arrival = !!(reg.caps & PVM_COSCHED_CAP_WATCH);
	caps->charged = 1;	/* its token bucket (kmod/pcs_boost.c) */
	caps->box_max_ns = reg.box_max_ns;
	return 0;
}

static int kmod_attach(struct cosched_page *page, uint32_t share_ppm)
{
	struct pvm_cosched_register reg;
	int fd, rc;

	/* After fork the inherited descriptor is the parent's registration:
	 * closing our copy leaves it open in the parent. */
	if (kmod_fd >= 0 && kmod_owner != getpid()) {
		close(kmod_fd);
		kmod_fd = -1;
	}
	if (kmod_fd >= 0)
		return 0;
	fd = dev_open();
	if (fd < 0)
		return fd;
	memset(&reg, 0, sizeof(reg));
	reg.abi_version = PVM_COSCHED_ABI_VERSION;
	reg.tid = page ? page->tid : 0;
	/* The module caps it at its limit; 0 is its default share. */
	reg.share_ppm = share_ppm;
	rc = dev_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg);
	if (rc) {
		close(fd);
		return rc;
	}
	kmod_fd = fd;
	kmod_owner = getpid();
	kmod_page = page;
	if (page)
		page->base_nice = reg.base_nice;
	return 0;
}

/* The file of this process, or -ENOTCONN (not attached, or a forked
 * child that has not attached yet). */
static int owned_fd(void)
{
	return kmod_fd >= 0 && kmod_owner == getpid() ? kmod_fd : -ENOTCONN;
}

static int kmod_apply(int level, int nice, uint64_t box_ns)
{
	struct pvm_cosched_report rep;
	int fd = owned_fd();

	if (fd < 0)
		return fd;
	memset(&rep, 0, sizeof(rep));
	if (kmod_page) {
		double f = kmod_page->freq;

		rep.freq_milli = f > 0 && f < 1e12 ? (uint64_t)(f * 1000) : 0;
	}
	rep.level = level;
	rep.nice = nice;
	rep.box_ns = box_ns ? box_ns : 1;
	return dev_ioctl(fd, PVM_COSCHED_IOC_REPORT, &rep);
}

static int kmod_boost_peer(int pid, int tid, int level, int nice,
			   uint64_t box_ns)
{
	struct pvm_cosched_boost b;
	int fd = owned_fd();

	(void)tid;
	if (fd < 0)
		return fd;
	memset(&b, 0, sizeof(b));
	b.pid = pid;
	b.level = level;
	b.nice = nice;
	b.box_ns = box_ns ? box_ns : 1;
	return dev_ioctl(fd, PVM_COSCHED_IOC_BOOST, &b);
}

static int kmod_watch(int fd, int level, int nice, uint64_t box_ns)
{
	struct pvm_cosched_watch w;
	int dev = owned_fd();

	if (dev < 0)
		return dev;
	memset(&w, 0, sizeof(w));
	w.fd = fd;
	if (level == COPVM_BOOST_NONE) {
		w.op = PVM_COSCHED_WATCH_DEL;
	} else {
		w.op = PVM_COSCHED_WATCH_ADD;
		w.level = level;
		w.nice = nice;
		w.box_ns = box_ns ? box_ns : 1;
	}
	return dev_ioctl(dev, PVM_COSCHED_IOC_WATCH, &w);
}

static uint64_t kmod_arrivals(void)
{
	struct pvm_cosched_stats st;

	if (kmod_fd < 0)
		return 0;
	memset(&st, 0, sizeof(st));
	if (dev_ioctl(kmod_fd, PVM_COSCHED_IOC_STATS, &st) < 0)
		return 0;
	return st.my_arrivals;
}

/* Closing the file makes the module undo everything this task set. */
static void kmod_detach(void)
{
	if (kmod_fd >= 0)
		close(kmod_fd);
	kmod_fd = -1;
	kmod_page = NULL;
}

const struct cosched_backend_ops cosched_backend_kmod = {
	.name = "kmod",
	.id = COPVM_BACKEND_KMOD,
	.self_timed = 1,
	.probe = kmod_probe,
	.attach = kmod_attach,
	.apply = kmod_apply,
	.boost_peer = kmod_boost_peer,
	.watch = kmod_watch,
	.arrivals = kmod_arrivals,
	.detach = kmod_detach,
};
