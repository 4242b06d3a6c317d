/*
 * addhost.c - the master adds and deletes hosts (ADDHOSTS, DELHOSTS, the
 * hostfile).
 *
 * Adding a host: its line is parsed (hostfile.c: options, `*' defaults,
 * `&' entries), its address resolved (ip= or the name), a host index
 * reserved, and a slave started through the remote shell:
 *   $PVM_RSH [-l lo] HOST DX -s -dMASK -nNAME
 * (PVM_RSH defaults to ssh, HOST is ip= or the name, DX is dx=, else
 * $PVM_DPATH, else this very pvmd).  What the slave needs, the machine's
 * secret included, goes on the shell's standard input (proto.h), never on
 * a command line; so do the coscheduling settings of the master's
 * environment (COPVM_MODEL and the like, gang.c), so that the whole
 * machine runs one model.  The slave connects back, passes the handshake
 * as that index and says DD_HELLO; then the host is in the table.  The
 * shell's output goes to the log; a shell that fails, or a slave that has not
 * said hello within START_MS, makes the host PvmCantStart.  so=ms starts
 * nothing: the log says what to run on the host by hand, and the master
 * waits MANUAL_MS for it.  so=pw (a password for rexec) is not supported.
 *
 * One ADDHOSTS request is a batch: the asking task is answered when every
 * host of the batch is in or has failed, with the number added and, per
 * host, its dtid or error; then the master sends the new table to every
 * slave and fires the local PvmHostAdd notifies (the slaves fire theirs
 * on the new table).  The hosts of the hostfile are one batch too, before
 * the daemon tells its starter it is ready.
 *
 * Deleting a host: the master tells its daemon to halt (DD_HALT), removes
 * it from the table at once (hosts.c) and sends the table out.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "pvmd.h"

#define START_MS	30000
#define MANUAL_MS	300000
#define EXIT_GRACE_MS	5000
#define MAX_HOSTNAMES	4096

struct batch {
	struct pvmd_hold hold;		/* the asker (none for the hostfile) */
	int from_hostfile;
	int n, left;
	int32_t *res;
	int32_t *added;
	int nadded;
};

struct start {
	struct start *next;
	struct batch *b;
	int slot;
	int index;
	struct pvmd_hostspec spec;
	char addr[64];			/* the host's, resolved */
	pid_t pid;			/* the remote shell, 0 once reaped */
	struct pvmd_watch out;		/* its stdout and stderr */
	char line[512];
	size_t linelen;
	long long deadline;
};

static struct start *starts;

static int index_taken(int index)
{
	struct start *st;

	if (pvmd_host_get(index))
		return 1;
	for (st = starts; st; st = st->next)
		if (st->index == index)
			return 1;
	return 0;
}

static int free_index(void)
{
	int i;

	for (i = PVMI_MASTER_INDEX + 1; i < PVMI_MAX_HOSTS; i++)
		if (!index_taken(i))
			return i;
	return 0;
}

static struct start *start_of(int index)
{
	struct start *st;

	for (st = starts; st; st = st->next)
		if (st->index == index)
			return st;
	return NULL;
}

/* True when host `index' is being started. */
int pvmd_addhost_expected(int index)
{
	return start_of(index) != NULL;
}

static void batch_finish(struct batch *b)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmd_conn *c;
	int i, nok = 0;

	for (i = 0; i < b->n; i++)
		nok += b->res[i] > 0;
	if (b->nadded) {
		pvmd_hosts_broadcast();
		pvmd_notify_hosts_added(b->added, b->nadded);
	}
	if (b->from_hostfile) {
		pvmd_ready();
	} else if ((c = pvmd_unhold(&b->hold))) {
		pvmi_w_int(&w, nok);
		pvmi_w_ints(&w, b->res, (size_t)b->n);
		pvmd_reply(c, PVMI_OP_ADDHOSTS, &w);
		pvmd_conn_resume(c);
	}
	free(b->res);
	free(b->added);
	free(b);
}

static void batch_step(struct batch *b)
{
	if (--b->left == 0)
		batch_finish(b);
}

static void unlink_start(struct start *st)
{
	struct start **pp;

	for (pp = &starts; *pp; pp = &(*pp)->next) {
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	}
	if (st->out.fd >= 0) {
		pvmd_watch_del(&st->out);
		close(st->out.fd);
	}
	pvmd_hostspec_free(&st->spec);
}

static void start_fail(struct start *st, int code, const char *why)
{
	struct batch *b = st->b;

	pvmd_log("cannot add host %s: %s", st->spec.name, why);
	b->res[st->slot] = code;
	unlink_start(st);
	if (pvmd_peer_link(st->index))
		pvmd_peer_forget(st->index);
	if (st->pid > 0)
		kill(st->pid, SIGTERM);
	free(st);
	batch_step(b);
}

static void on_shell_output(struct pvmd_watch *w, uint32_t events)
{
	struct start *st = (struct start *)((char *)w -
					    offsetof(struct start, out));
	char buf[512];
	ssize_t n, i;

	n = read(w->fd, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (st->linelen)
			pvmd_log("[start %s] %.*s", st->spec.name,
				 (int)st->linelen, st->line);
		st->linelen = 0;
		pvmd_watch_del(w);
		close(w->fd);
		w->fd = -1;
		return;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' || st->linelen == sizeof(st->line)) {
			pvmd_log("[start %s] %.*s", st->spec.name,
				 (int)st->linelen, st->line);
			st->linelen = 0;
			if (buf[i] == '\n')
				continue;
		}
		st->line[st->linelen++] = buf[i];
	}
}

/* Our address on the way to `dst' (found by routing) into `out'; 0 or
 * -1. */
static int source_toward(const char *dst, char *out, size_t size)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd, rc = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(9);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && inet_pton(AF_INET, dst, &sa.sin_addr) == 1 &&
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
	    inet_ntop(AF_INET, &sa.sin_addr, out, (socklen_t)size))
		rc = 0;
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Writes what the slave reads on its standard input. */
static int slave_config(struct start *st, char *buf, size_t size)
{
	char hex[2 * PVMI_SECRET_LEN + 1], maddr[64] = "127.0.0.1";
	const struct pvmd_hostopts *o = &st->spec.opts;
	char env[PVMD_COSCHED_ENV_MAX];
	int n;

	if (pvmd_cosched_env_lines(env, sizeof(env)) < 0)
		return -1;
	/* its own ht=, after (so over) ours: both ends give up together */
	n = (int)strlen(env);
	if (o->htmo && snprintf(env + n, sizeof(env) - (size_t)n,
				"env COPVM_HOST_TIMEOUT_MS %d\n", o->htmo) >=
	    (int)(sizeof(env) - (size_t)n))
		return -1;
	/* where we listen, else our address on the way to that host */
	if (pvmd_peer_listen_addr(maddr, sizeof(maddr)) < 0)
		source_toward(st->addr, maddr, sizeof(maddr));
	pvmi_secret_to_hex(pvmd.secret, hex);
	n = snprintf(buf, size, PVMI_SLAVE_MAGIC "\nindex %d\nmaster %s %d\n"
		     "address %s\nsecret %s\n%s%s%s%s%s%s%s%s%ssp %d\n%send\n",
		     st->index, maddr, pvmd.tcp_port, st->addr, hex,
		     o->ep ? "ep " : "", o->ep ? o->ep : "", o->ep ? "\n" : "",
		     o->wd ? "wd " : "", o->wd ? o->wd : "", o->wd ? "\n" : "",
		     o->bx ? "bx " : "", o->bx ? o->bx : "", o->bx ? "\n" : "",
		     o->speed ? o->speed : PVMD_SPEED_DEFAULT, env);
	memset(hex, 0, sizeof(hex));
	return n > 0 && (size_t)n < size ? n : -1;
}

static void __attribute__((noreturn))
exec_shell(char **argv, int in, int out)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	dup2(in, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	setsid();
	execvp(argv[0], argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Runs the remote shell that starts the slave; 0 or -1. */
static int spawn_shell(struct start *st, const char *config, size_t clen)
{
	const char *rsh = getenv("PVM_RSH"), *dx = st->spec.dx;
	char dbg[32], name[300], *argv[10];
	int in[2], out[2], k = 0;
	pid_t pid;

	if (!rsh || !*rsh)
		rsh = "ssh";
	if (!dx || !*dx)
		dx = getenv("PVM_DPATH");
	if (!dx || !*dx)
		dx = pvmd.exe;
	snprintf(dbg, sizeof(dbg), "-d0x%x", (unsigned)pvmd.debug);
	snprintf(name, sizeof(name), "-n%s", st->spec.name);
	argv[k++] = (char *)rsh;
	if (st->spec.lo && *st->spec.lo) {
		argv[k++] = (char *)"-l";
		argv[k++] = st->spec.lo;
	}
	argv[k++] = st->spec.ip && *st->spec.ip ? st->spec.ip : st->spec.name;
	argv[k++] = (char *)dx;
	argv[k++] = (char *)"-s";
	argv[k++] = dbg;
	argv[k++] = name;
	argv[k] = NULL;
	if (pipe2(in, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0)
		exec_shell(argv, in[0], out[1]);
	close(in[0]);
	close(out[1]);
	if (pid < 0) {
		close(in[1]);
		close(out[0]);
		return -1;
	}
	pvmd_dbg(PVMD_DBG_HOST, "starting %s: %s %s%s%s %s %s -s %s %s",
		 st->spec.name, rsh, k > 7 ? "-l " : "", k > 7 ? argv[2] : "",
		 k > 7 ? " " : "", argv[k - 5], dx, dbg, name);
	/* a pipe holds far more than this, so it never blocks */
	if (write(in[1], config, clen) != (ssize_t)clen)
		pvmd_log("could not give %s its instructions: %s",
			 st->spec.name, strerror(errno));
	close(in[1]);
	fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
	st->out.fd = out[0];
	st->out.on_event = on_shell_output;
	if (pvmd_watch_add(&st->out, EPOLLIN) < 0) {
		close(out[0]);
		st->out.fd = -1;
	}
	st->pid = pid;
	pvmd_child_add(pid, 0);
	return 0;
}

static int resolve(const char *name, char *addr, size_t size)
{
	struct addrinfo hints, *res = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc || !res)
		return -1;
	inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr,
		  addr, (socklen_t)size);
	freeaddrinfo(res);
	return 0;
}

/* Where the master listens for daemons, the first time a host is added
 * (issue 15: not on every interface): the ip= of its own hostfile line
 * (0.0.0.0 for every address), else its address on the way to the first
 * host `st' (found by routing).  NULL: every address. */
static const char *listen_addr(const struct start *st, char *out,
			       size_t size)
{
	const char *ip = pvmd_hostfile_self_ip();

	if (ip && resolve(ip, out, size) == 0)
		return out;
	if (source_toward(st->addr, out, size) == 0)
		return out;
	return NULL;
}

/* Starts one host of batch `b'; 0 when under way, else its error code. */
static int start_host(struct batch *b, int slot, const char *line)
{
	char config[4096], bind_addr[64];
	struct start *st, *o;
	int n, rc;

	st = calloc(1, sizeof(*st));
	if (!st)
		return PvmNoMem;
	st->out.fd = -1;
	rc = pvmd_hostspec_parse(line, &st->spec);
	if (rc == 0 && pvmd_host_find(st->spec.name))
		rc = PvmDupHost;
	for (o = starts; rc == 0 && o; o = o->next)
		if (pvmd_same_name(o->spec.name, st->spec.name))
			rc = PvmDupHost;
	if (rc == 0 && st->spec.so && !strcmp(st->spec.so, "pw")) {
		pvmd_log("cannot add host %s: so=pw (a password for rexec) is "
			 "not supported; use ssh keys", st->spec.name);
		rc = PvmCantStart;
	}
	if (rc == 0 && resolve(st->spec.ip && *st->spec.ip ? st->spec.ip :
			       st->spec.name, st->addr, sizeof(st->addr)) < 0) {
		pvmd_log("cannot add host %s: unknown host", st->spec.name);
		rc = PvmNoHost;
	}
	if (rc == 0 && pvmd_peer_listen(listen_addr(st, bind_addr,
						    sizeof(bind_addr))) < 0)
		rc = PvmCantStart;
	if (rc == 0 && !(st->index = free_index()))
		rc = PvmOutOfRes;
	if (rc) {
		pvmd_hostspec_free(&st->spec);
		free(st);
		return rc;
	}
	st->b = b;
	st->slot = slot;
	n = slave_config(st, config, sizeof(config));
	if (n < 0) {
		pvmd_hostspec_free(&st->spec);
		free(st);
		return PvmBadParam;
	}
	st->next = starts;
	starts = st;
	if (st->spec.so && !strcmp(st->spec.so, "ms")) {
		st->deadline = pvmd_now_ms() + MANUAL_MS;
		pvmd_log("*** Manual startup of %s ***  On %s run:\n"
			 "  %s -s -d0x%x -n%s\nand give it these lines on its "
			 "standard input:\n%s", st->spec.name, st->spec.name,
			 st->spec.dx ? st->spec.dx : pvmd.exe,
			 (unsigned)pvmd.debug, st->spec.name, config);
	} else {
		st->deadline = pvmd_now_ms() + START_MS;
		if (spawn_shell(st, config, (size_t)n) < 0) {
			memset(config, 0, sizeof(config));
			unlink_start(st);
			free(st);
			return PvmCantStart;
		}
	}
	memset(config, 0, sizeof(config));
	pvmd_tick_within((int)(st->deadline - pvmd_now_ms()));
	return 0;
}

static struct batch *batch_new(int n)
{
	struct batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->res = calloc((size_t)n + 1, sizeof(*b->res));
	b->added = calloc((size_t)n + 1, sizeof(*b->added));
	if (!b->res || !b->added) {
		free(b->res);
		free(b->added);
		free(b);
		return NULL;
	}
	b->n = n;
	b->left = 1;		/* until every host is under way */
	return b;
}

static void batch_start(struct batch *b, char **lines)
{
	int i, rc;

	for (i = 0; i < b->n; i++) {
		rc = start_host(b, i, lines[i]);
		if (rc == 0)
			b->left++;
		else
			b->res[i] = rc;
	}
	batch_step(b);
}

/* Starts the hosts of the hostfile; the daemon is "ready" after. */
void pvmd_addhost_startup(char **lines, int n)
{
	struct batch *b;

	if (n <= 0 || !(b = batch_new(n)))
		return;
	b->from_hostfile = 1;
	pvmd_hold_ready();
	batch_start(b, lines);
}

/* Reads "int cnt, str names[cnt]"; returns cnt (names malloc'd) or -1. */
static int read_names(struct pvmi_rbuf *r, char ***names)
{
	int32_t cnt = pvmi_r_int(r);
	char **v;
	int i;

	*names = NULL;
	if (r->failed || cnt < 0 || cnt > MAX_HOSTNAMES ||
	    (size_t)cnt > (r->len - r->pos) / PVMI_ITEM_HDR_LEN)
		return -1;
	v = calloc((size_t)cnt + 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < cnt; i++)
		v[i] = pvmi_r_str(r);
	*names = v;
	if (!pvmd_body_ok(r))
		return -1;
	return cnt;
}

static void free_names(char **names)
{
	int i;

	for (i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

/* ADDHOSTS: see the top of the file. */
void pvmd_op_addhosts(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct batch *b;
	char **names;
	int cnt;

	if (pvmd.slave && c->kind == PVMD_CONN_TASK) {
		pvmd_forward_relay(c, PVMI_MASTER_INDEX, PVMI_OP_ADDHOSTS, r,
				   PvmSysErr);
		return;
	}
	cnt = read_names(r, &names);
	if (cnt < 0 || pvmd.slave) {
		free_names(names);
		pvmd_reply_status(c, PVMI_OP_ADDHOSTS, PvmBadMsg);
		return;
	}
	b = batch_new(cnt);
	if (!b) {
		free_names(names);
		pvmd_reply_status(c, PVMI_OP_ADDHOSTS, PvmNoMem);
		return;
	}
	pvmd_hold(&b->hold, c);
	batch_start(b, names);
	free_names(names);
}

/* DELHOSTS: "int cnt, str names[cnt]"; per host 0, PvmNoHost, or
 * PvmBadParam for the master itself. */
void pvmd_op_delhosts(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 }, none = { 0 };
	struct pvmd_host *h;
	int32_t *res;
	char **names;
	int cnt, i, nok = 0;

	if (pvmd.slave && c->kind == PVMD_CONN_TASK) {
		pvmd_forward_relay(c, PVMI_MASTER_INDEX, PVMI_OP_DELHOSTS, r,
				   PvmSysErr);
		return;
	}
	cnt = read_names(r, &names);
	if (cnt < 0 || pvmd.slave) {
		free_names(names);
		pvmd_reply_status(c, PVMI_OP_DELHOSTS, PvmBadMsg);
		return;
	}
	res = calloc((size_t)cnt + 1, sizeof(*res));
	if (!res) {
		free_names(names);
		pvmd_reply_status(c, PVMI_OP_DELHOSTS, PvmNoMem);
		return;
	}
	for (i = 0; i < cnt; i++) {
		h = pvmd_host_find(names[i]);
		if (!h) {
			res[i] = PvmNoHost;
		} else if (h->index == pvmd.index) {
			res[i] = PvmBadParam;
		} else {
			pvmd_peer_send_dd(h->index, PVMI_DD_HALT, &none);
			pvmd_host_remove(h->index, "deleted (pvm_delhosts)");
			nok++;
		}
	}
	pvmi_w_int(&w, nok);
	pvmi_w_ints(&w, res, (size_t)cnt);
	pvmd_reply(c, PVMI_OP_DELHOSTS, &w);
	free(res);
	free_names(names);
}

/* DD_HELLO from a slave being started: enters it in the table. */
int pvmd_addhost_hello(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct start *st = start_of(c->host);
	struct pvmd_host *h;
	int32_t index, speed, dsig, port;
	char *name, *arch, *addr;
	struct batch *b;

	index = pvmi_r_int(r);
	name = pvmi_r_str(r);
	arch = pvmi_r_str(r);
	speed = pvmi_r_int(r);
	dsig = pvmi_r_int(r);
	addr = pvmi_r_str(r);
	port = pvmi_r_int(r);
	pvmi_r_int(r);			/* its pid, for the log only */
	if (!st || r->failed || index != c->host || port <= 0 ||
	    port > 65535) {
		free(name);
		free(arch);
		free(addr);
		return -1;
	}
	h = pvmd_host_add(index, st->spec.name, arch, speed, dsig,
			  addr && *addr ? addr : st->addr, port);
	free(name);
	free(arch);
	free(addr);
	b = st->b;
	if (!h) {
		start_fail(st, PvmNoMem, "out of memory");
		return -1;
	}
	h->htmo = st->spec.opts.htmo;
	pvmd_tick_within(0);		/* its beats follow its ht= now */
	pvmd_log("host %s added as t%x (%s:%d)", h->name, (unsigned)h->dtid,
		 h->addr, h->port);
	b->res[st->slot] = h->dtid;
	b->added[b->nadded++] = h->dtid;
	unlink_start(st);
	free(st);
	batch_step(b);
	return 0;
}

/* A child ended: if it is a remote shell whose slave has not said hello,
 * a failure means the host cannot start; returns 1 when it was ours. */
int pvmd_addhost_child(pid_t pid, int status)
{
	struct start *st;
	char why[96];

	for (st = starts; st; st = st->next) {
		if (st->pid != pid)
			continue;
		st->pid = 0;
		if (status == 0) {
			if (st->deadline > pvmd_now_ms() + EXIT_GRACE_MS)
				st->deadline = pvmd_now_ms() + EXIT_GRACE_MS;
			pvmd_tick_within(EXIT_GRACE_MS);
			return 1;
		}
		snprintf(why, sizeof(why), "the remote shell failed (status "
			 "0x%x; its output is in this log)", (unsigned)status);
		start_fail(st, PvmCantStart, why);
		return 1;
	}
	return 0;
}

/* Gives up on slaves that did not come in time. */
void pvmd_addhost_tick(void)
{
	long long now = pvmd_now_ms();
	struct start *st;

again:
	for (st = starts; st; st = st->next) {
		if (now >= st->deadline) {
			start_fail(st, PvmCantStart, "no answer in time");
			goto again;	/* the list changed */
		}
		pvmd_tick_within((int)(st->deadline - now) + 1);
	}
}

/* Master halting: tells every slave to stop, gives up pending starts. */
void pvmd_addhost_halt_all(void)
{
	struct pvmi_wbuf none = { 0 };
	struct pvmd_host *h;

	for (h = pvmd_host_next(0); h; h = pvmd_host_next(h->index))
		if (h->index != pvmd.index)
			pvmd_peer_send_dd(h->index, PVMI_DD_HALT, &none);
	while (starts)
		start_fail(starts, PvmSysErr, "halting");
}
