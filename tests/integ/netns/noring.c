/*
 * noring - runs a command on a system that refuses io_uring, for the
 * fallback test (tests/integ/mh-uring.sh):
 *
 *	noring EPERM|ENOSYS COMMAND [ARGS...]
 *
 * It installs a seccomp filter that makes io_uring_setup fail with the
 * given errno (as a container's profile or kernel.io_uring_disabled
 * would: EPERM; as a kernel without io_uring would: ENOSYS), then runs
 * COMMAND.  The filter stays on every process COMMAND starts, daemons
 * and their tasks included.  Exit status 77 when this architecture or
 * kernel cannot install the filter, 127 when COMMAND cannot be run.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH	AUDIT_ARCH_AARCH64
#endif

int main(int argc, char **argv)
{
	int err;

	if (argc < 3 || (strcmp(argv[1], "EPERM") && strcmp(argv[1], "ENOSYS"))) {
		fprintf(stderr, "usage: noring EPERM|ENOSYS COMMAND [ARGS...]\n");
		return 2;
	}
	err = strcmp(argv[1], "EPERM") ? ENOSYS : EPERM;
#if defined(NATIVE_ARCH) && defined(__NR_io_uring_setup)
	{
		struct sock_filter code[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, arch)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup,
				 0, 1),
			BPF_STMT(BPF_RET | BPF_K,
				 SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = {
			.len = sizeof(code) / sizeof(code[0]),
			.filter = code,
		};

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
			fprintf(stderr, "noring: cannot install the filter: %s\n",
				strerror(errno));
			return 77;
		}
	}
#else
	fprintf(stderr, "noring: no filter for this architecture\n");
	return 77;
#endif
	execvp(argv[2], argv + 2);
	fprintf(stderr, "noring: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
