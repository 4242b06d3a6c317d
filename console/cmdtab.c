/*
 * cmdtab.c - the console's commands: names, argument counts, help.
 *
 * The table is in alphabetical order, which is the order `help' lists
 * the commands in.  The argument counts here are checked before a
 * command runs, so each command may rely on them; "NAME: wrong #args"
 * is printed otherwise, as stock's console does.  The help texts are
 * the console's own; their layout (name in a 12-column field, then
 * "Syntax:" lines) follows stock's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosched_model.h"
#include "pvm3.h"
#include "console.h"

static const struct con_cmd cmds[] = {
	{ "add", 1, -1, con_cmd_add,
	  "Add hosts to the virtual machine",
	  "Syntax:  add hostname ...\n"
	  "  or     add 'hostname option=value ...' ...\n"
	  "A quoted word passes host file options (see pvmd3(1PVM)).\n" },
	{ "alias", 0, -1, con_cmd_alias,
	  "Define or list command aliases",
	  "Syntax:  alias [ name [ command args ... ] ]\n"
	  "With no name, lists every alias; with a name alone, shows it.\n" },
	{ "conf", 0, 0, con_cmd_conf,
	  "Show the hosts of the virtual machine",
	  "Syntax:  conf\n"
	  "Columns:\n"
	  "  HOST    name of the host\n"
	  "  DTID    task id of its pvmd (the base of its task ids)\n"
	  "  ARCH    its architecture name\n"
	  "  SPEED   its relative speed\n"
	  "  DSIG    its data format signature\n" },
	{ "cosched", 0, -1, con_cmd_cosched,
	  "Show or steer coscheduling of this host's tasks (copvm)",
	  "Syntax:  cosched [ -r | -a ]\n"
	  "         cosched set [ tid | all ] [ model=NAME ] [ P=FRACTION ]\n"
	  "                     [ interval=MS ]\n"
	  "The first form shows, per task, its model, P, interval, frequency\n"
	  "F, boost, backend, spin bound, message counts and peers, then the\n"
	  "host's boosts and CPU budget; -r prints key=value lines instead.\n"
	  "-a shows every task of the virtual machine, gathered through the\n"
	  "daemons, in copvm-cosched top's table (one snapshot: no rates).\n"
	  "The second asks the task (default: every task of this host) to\n"
	  "switch at the end of its interval.  P from 0 to 1; interval 1 to\n"
	  "10000 ms; the models follow (the model table's names).\n"
	  "See copvm-cosched(1) and copvm(7).\n" },
	{ "delete", 1, -1, con_cmd_delete,
	  "Remove hosts from the virtual machine",
	  "Syntax:  delete hostname ...\n" },
	{ "echo", 0, -1, con_cmd_echo,
	  "Print the arguments",
	  "Syntax:  echo [ arg ... ]\n" },
	{ "export", 0, -1, con_cmd_export,
	  "Pass environment variables on to spawned tasks",
	  "Syntax:  export [ name ... ]\n"
	  "Adds the names to PVM_EXPORT; with none, shows PVM_EXPORT.\n" },
	{ "getopt", 0, 1, con_cmd_getopt,
	  "Show the PVM options of the console task",
	  "Syntax:  getopt [ option ]\n"
	  "Options are named as in pvm3.h, e.g. PvmRoute.\n" },
	{ "halt", 0, 0, con_cmd_halt,
	  "Stop every task and pvmd, ending the virtual machine",
	  "Syntax:  halt\n" },
	{ "help", 0, 1, con_cmd_help,
	  "Describe the commands",
	  "Syntax:  help [ command ]\n" },
	{ "id", 0, 0, con_cmd_id,
	  "Print the console's task id",
	  "Syntax:  id\n" },
	{ "jobs", 0, 1, con_cmd_jobs,
	  "List the jobs whose output comes to the console",
	  "Syntax:  jobs [ -l ]\n"
	  "  -l   also show each task of a job as ps does\n" },
	{ "kill", 1, -1, con_cmd_kill,
	  "Terminate tasks",
	  "Syntax:  kill [ -c ] tid ...\n"
	  "  -c   terminate the children of each tid instead\n" },
	{ "mstat", 1, -1, con_cmd_mstat,
	  "Show whether hosts are up",
	  "Syntax:  mstat hostname ...\n" },
	{ "names", 0, 1, con_cmd_names,
	  "List the entries of the message mailbox",
	  "Syntax:  names [ pattern ]\n"
	  "The pattern is a glob; the default lists every class.\n" },
	{ "ps", 0, -1, con_cmd_ps,
	  "List tasks",
	  "Syntax:  ps [ -alx ] [ -hTID | -nNAME ]\n"
	  "  -a       tasks of every host (default: this host)\n"
	  "  -hTID    tasks of the host whose pvmd has task id TID\n"
	  "  -nNAME   tasks of the host called NAME\n"
	  "  -l       long listing: parent tid and process id too\n"
	  "  -x       include the console itself\n"
	  "Columns:\n"
	  "  HOST     host the task runs on\n"
	  "  TID      its task id\n"
	  "  PTID     its parent's task id\n"
	  "  PID      its process id\n"
	  "  FLAG     status bits in hex, then as letters:\n"
	  "             f  started by pvmd    c  connected to pvmd\n"
	  "             a  being authorised   o  connection closing\n"
	  "             s  short of shared memory\n"
	  "             H  hoster   R  resource manager   T  tasker\n"
	  "  COMMAND  program name\n" },
	{ "pstat", 1, -1, con_cmd_pstat,
	  "Show whether tasks are running",
	  "Syntax:  pstat tid ...\n" },
	{ "put", 2, 3, con_cmd_put,
	  "Store an entry in the message mailbox",
	  "Syntax:  put name flags [ text ]\n"
	  "Flags as pvm_putinfo takes them (1 persistent, 2 multiple\n"
	  "instances, 4 overwritable); the entry holds the text.\n" },
	{ "quit", 0, 0, con_cmd_quit,
	  "Leave the console; the virtual machine keeps running",
	  "Syntax:  quit\n" },
	{ "reset", 0, 3, con_cmd_reset,
	  "Terminate all tasks but consoles, clear leftover mailbox entries",
	  "Syntax:  reset\n"
	  "         reset info [ class [ index ] ]\n"
	  "The second form only removes mailbox entries whose owner has\n"
	  "gone, of every class or of one class (and index).\n" },
	{ "setenv", 0, -1, con_cmd_setenv,
	  "Show or set the console's environment",
	  "Syntax:  setenv [ name [ value ... ] ]\n" },
	{ "setopt", 2, 2, con_cmd_setopt,
	  "Set a PVM option of the console task",
	  "Syntax:  setopt option value\n"
	  "Options are named as in pvm3.h; tasks spawned later inherit\n"
	  "some of them.\n" },
	{ "sig", 2, -1, con_cmd_sig,
	  "Send a signal to tasks",
	  "Syntax:  sig signal tid ...\n"
	  "The signal is a number or a name (TERM, SIGTERM).\n" },
	{ "spawn", 1, -1, con_cmd_spawn,
	  "Start tasks",
	  "Syntax:  spawn [ options ] program [ arg ... ]\n"
	  "Options:\n"
	  "  -COUNT          how many copies (default 1)\n"
	  "  -HOST           on that host (default: any)\n"
	  "  -ARCH           on hosts of that architecture\n"
	  "  -HOST:DIR       on that host, working in DIR (also -ARCH:DIR)\n"
	  "  -:DIR           anywhere, working in DIR\n"
	  "  --host=ADDR     on the host with that IP address (also :DIR)\n"
	  "  -?              under the debugger\n"
	  "  ->              copy the job's output to the console\n"
	  "  ->FILE          write the job's output to FILE\n"
	  "  ->>FILE         append the job's output to FILE\n"
	  "  -@ / -@FILE     trace the job (not available in copvm)\n" },
	{ "unalias", 1, -1, con_cmd_unalias,
	  "Remove command aliases",
	  "Syntax:  unalias name ...\n" },
	{ "unexport", 0, -1, con_cmd_unexport,
	  "Stop passing environment variables to spawned tasks",
	  "Syntax:  unexport [ name ... ]\n" },
	{ "version", 0, 0, con_cmd_version,
	  "Print the version of the PVM library",
	  "Syntax:  version\n" },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

const struct con_cmd *con_find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

const char *con_cmd_name(int i)
{
	return i >= 0 && (size_t)i < NCMDS ? cmds[i].name : NULL;
}

static void show_help(const struct con_cmd *c)
{
	char models[128];

	printf("%-12s%s\n", c->name, c->brief);
	fputs(c->usage, stdout);
	if (c->run == con_cmd_cosched)	/* from the table: never stale */
		printf("Models: %s.\n",
		       cosched_model_list(models, sizeof(models)));
}

/* help [command]: one command's help, or help's own and the list. */
int con_cmd_help(int argc, char **argv)
{
	const struct con_cmd *c;
	size_t i;

	if (argc == 2) {
		/* Stock's console says nothing about an unknown name. */
		c = con_find_cmd(argv[1]);
		if (!c)
			return -1;
		show_help(c);
		return 0;
	}
	show_help(con_find_cmd("help"));
	printf("Commands are:\n");
	for (i = 0; i < NCMDS; i++)
		printf("  %-12s%s\n", cmds[i].name, cmds[i].brief);
	return 0;
}

/* Both libraries export the error texts; stock's pvm3.h does not declare
 * them, so say here what they are. */
extern char *pvm_errlist[];
extern int pvm_nerr;

const char *con_errtext(int rc)
{
	if (rc < 0 && -rc < pvm_nerr && pvm_errlist[-rc])
		return pvm_errlist[-rc];
	return "Unknown Error";
}

int con_parse_tid(const char *s)
{
	char *end;
	long v;

	if (*s == 't')
		s++;
	v = strtol(s, &end, 16);
	if (end == s || v <= 0 || v > 0x7fffffff)
		return 0;
	return (int)v;
}
