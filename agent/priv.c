/*
 * priv.c - the agent's privileges.  Started as root, it creates its
 * socket (in /run, say), then becomes an unprivileged user (`nobody' by
 * default) keeping exactly two capabilities in its effective and
 * permitted sets: CAP_SYS_NICE (negative nice, SCHED_FIFO, other users'
 * tasks) and CAP_SYS_RESOURCE (RLIMIT_RTTIME on another user's task).
 * It uses PR_SET_KEEPCAPS across the uid switch and raw capset(2), no
 * libcap.  The kernel then marks it non-dumpable and refuses ptrace from
 * processes with fewer capabilities, so the `nobody' user gains nothing.
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"

#define KEPT_CAPS	((1u << CAP_SYS_NICE) | (1u << CAP_SYS_RESOURCE))

static int caps_get(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	return 0;
}

static int caps_keep_only(uint32_t keep)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	data[0].effective = keep;	/* both capabilities are below 32 */
	data[0].permitted = keep;
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	return 0;
}

int priv_drop(const char *user, int no_backstop)
{
	struct __user_cap_data_struct data[2];
	struct passwd *pw;
	uint32_t kept = KEPT_CAPS, keep;
	int rc;

	if (no_backstop)
		kept &= ~(1u << CAP_SYS_RESOURCE);

	if (geteuid() != 0) {
		/* Started unprivileged (or with file capabilities): keep what
		 * we were given but never more than the two we need. */
		if (caps_get(data) == 0 &&
		    !(data[0].effective & (1u << CAP_SYS_NICE)))
			agent_log("no CAP_SYS_NICE: only slice boosts will work");
		caps_keep_only(data[0].permitted & kept);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		return 0;
	}
	pw = getpwnam(user);
	if (!pw) {
		agent_log("unknown user %s", user);
		return -ENOENT;
	}
	if (pw->pw_uid == 0) {
		agent_log("refusing to run as uid 0 (-u %s)", user);
		return -EPERM;
	}
	/* A container may lack one of them in its bounding set. */
	rc = caps_get(data);
	if (rc)
		return rc;
	keep = data[0].permitted & kept;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return -errno;
	if (setgroups(0, NULL) < 0 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
		return -errno;
	rc = caps_keep_only(keep);
	if (rc)
		return rc;
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	/* Check, rather than trust, the result. */
	if (caps_get(data) || data[0].effective != keep ||
	    data[1].effective || data[1].permitted || getuid() == 0 ||
	    geteuid() == 0)
		return -EPERM;
	agent_log("running as %s (uid %u) with capabilities %#x", user,
		  (unsigned)pw->pw_uid, keep);
	return 0;
}

int priv_has_nice(void)
{
	struct __user_cap_data_struct data[2];

	return caps_get(data) == 0 &&
	       (data[0].effective & (1u << CAP_SYS_NICE)) != 0;
}

int priv_has_backstop(void)
{
	struct __user_cap_data_struct data[2];

	return caps_get(data) == 0 &&
	       (data[0].effective & (1u << CAP_SYS_RESOURCE)) != 0;
}
