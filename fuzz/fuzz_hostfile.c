/*
 * fuzz_hostfile.c - libFuzzer target for pvmd's hostfile parser
 * (daemon/hostfile.c): the hostfile given on the command line and the
 * host lines of pvm_addhosts().
 *
 * The input is written to an anonymous file and loaded as the hostfile;
 * then each of its lines is parsed again as a pvm_addhosts() line, which
 * applies the `*' defaults and `&' entries the load recorded.  Every name
 * and option accepted must keep to the characters the parser promises
 * (they are handed to a remote shell).  hostfile.c is compiled into this
 * file so that its static lists can be emptied between inputs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../daemon/hostfile.c"

/* Forgets what the previous input's hostfile left behind. */
static void forget_state(void)
{
	struct later *l;

	while ((l = laters)) {
		laters = l->next;
		opts_free(&l->o);
		free(l->name);
		free(l);
	}
	opts_free(&last_defaults);
}

static void check_shell_safe(const char *s, const char *extra)
{
	if (s && !safe_chars(s, extra))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvmd_hostspec spec;
	char path[64], **hosts, *text, *line, *save = NULL;
	int fd, n, i;

	if (!pvmd.hostname[0])
		strcpy(pvmd.hostname, "fuzzhost.example");
	fd = memfd_create("hostfile", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (pvmd_hostfile_load(path, &hosts, &n) == 0) {
		for (i = 0; i < n; i++)
			free(hosts[i]);
		free(hosts);
	}
	close(fd);

	text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (pvmd_hostspec_parse(line, &spec))
			continue;
		check_shell_safe(spec.name, NULL);
		check_shell_safe(spec.lo, NULL);
		pvmd_hostspec_free(&spec);
	}
	free(text);
	forget_state();
	return 0;
}
