/*
 * console.h - what the parts of the pvm console share.
 *
 * The console is an ordinary PVM task that reads commands from the
 * terminal (or any stream) and turns each into calls of the public PVM
 * API.  main.c owns the task and the event loop, input.c the line
 * reading, parse.c splitting lines into words and aliases, cmdtab.c the
 * table of commands and their help, and one file per group of commands
 * (hosts.c, tasks.c, spawn.c, env.c, cosched.c).  Nothing here reaches
 * inside libpvm3: the console works the same on any PVM 3.4 library
 * (cosched.c reads copvm's coscheduling pages, and finds none on stock).
 */
#ifndef COPVM_CONSOLE_H
#define COPVM_CONSOLE_H

#include <stdio.h>

/* One console command.  minargs and maxargs count the words after the
 * command's name (maxargs < 0: any number); run() gets all the words,
 * argv[0] being the name, argv[argc] NULL.  It returns 0, or -1 after
 * printing why it failed. */
struct con_cmd {
	const char *name;
	int minargs;
	int maxargs;
	int (*run)(int argc, char **argv);
	const char *brief;	/* one line for the command list */
	const char *usage;	/* "Syntax:" lines and the rest of the help */
};

/* Message tags the console asks for.  Output of job n comes with tag
 * CON_TAG_JOB + n; they stay clear of tags user programs tend to use. */
#define CON_TAG_HOSTADD		0x7c0000
#define CON_TAG_JOB		0x7c1000
#define CON_TAG_JOB_MAX		0x7cffff

/* The console's own task id, once enrolled. */
extern int con_mytid;

/* main.c */

/* How the console ends: `quit' or end of input (the daemon stays), a
 * successful `halt', the daemon gone, or a terminating signal. */
enum con_end { CON_QUIT, CON_HALTED, CON_LOST, CON_KILLED };

/* Restores the terminal and exits; CON_QUIT also leaves the virtual
 * machine and says the daemon keeps running. */
void con_exit(enum con_end how) __attribute__((noreturn));

/* input.c */

/* Sets up reading commands from stdin: line editing and history when
 * it is a terminal, plain lines otherwise.  `handler' gets each line
 * (NULL at end of input); it runs inside con_input_ready(). */
void con_input_init(void (*handler)(char *line));

/* Reads what stdin has ready, calling the handler for each whole line.
 * Call when select() says stdin is readable. */
void con_input_ready(void);

/* Whether whole lines are waiting to be handed over already, so that
 * con_input_ready() must be called without waiting for stdin. */
int con_input_buffered(void);

/* Tells the line editor that the terminal changed size. */
void con_input_resize(void);

/* Shows the prompt if input is not edited (the editor shows its own). */
void con_input_prompt(void);

/* Brackets output that arrives while a line is being typed: the first
 * takes the prompt and partial line off the screen, the second puts
 * them back.  Both only flush stdout when input is not a terminal. */
void con_async_begin(void);
void con_async_end(void);

/* Whether commands are read from a terminal with line editing. */
int con_input_is_tty(void);

/* Cancels the line being typed (after ^C) and shows a fresh prompt. */
void con_input_cancel(void);

/* Gives the terminal back in the state the console found it. */
void con_input_done(void);

/* parse.c */

/* Splits `line' (modified in place) into at most `max' words, honouring
 * '...' and "..." quoting and backslash escapes.  Returns the number of
 * words, or -1 after printing why the line cannot be split. */
int con_split(char *line, char **words, int max);

/* Runs one command line: splits it, expands aliases, checks the word
 * count against the command table and calls the command.  Blank lines
 * and lines starting with '#' do nothing.  Returns 0 or -1. */
int con_run_line(const char *line);

int con_cmd_alias(int argc, char **argv);
int con_cmd_unalias(int argc, char **argv);

/* cmdtab.c */

/* The command named exactly `name', or NULL. */
const struct con_cmd *con_find_cmd(const char *name);

/* The name of the i-th command in table order, NULL past the last. */
const char *con_cmd_name(int i);

int con_cmd_help(int argc, char **argv);

/* util (in cmdtab.c) */

/* The text of PVM error code `rc' (negative), as pvm_perror prints it. */
const char *con_errtext(int rc);

/* Reads a task id the way the console accepts it: hex digits, with or
 * without a leading 't'.  Returns 0 when `s' is not one. */
int con_parse_tid(const char *s);

/* hosts.c */
int con_cmd_add(int argc, char **argv);
int con_cmd_conf(int argc, char **argv);
int con_cmd_delete(int argc, char **argv);
int con_cmd_halt(int argc, char **argv);
int con_cmd_id(int argc, char **argv);
int con_cmd_mstat(int argc, char **argv);
int con_cmd_quit(int argc, char **argv);
int con_cmd_version(int argc, char **argv);

/* The name of the host whose daemon is `dtid', or NULL if none is. */
const char *con_host_name(int dtid);

/* The daemon tid of host `name', or 0 if no host has that name. */
int con_host_tid(const char *name);

/* Whether some host of the machine has architecture `arch'. */
int con_is_arch(const char *arch);

/* Prints the new hosts a PvmHostAdd notification (current receive
 * buffer) reports. */
void con_hosts_added(void);

/* tasks.c */
int con_cmd_kill(int argc, char **argv);
int con_cmd_names(int argc, char **argv);
int con_cmd_ps(int argc, char **argv);
int con_cmd_pstat(int argc, char **argv);
int con_cmd_put(int argc, char **argv);
int con_cmd_reset(int argc, char **argv);
int con_cmd_sig(int argc, char **argv);

/* The table header and one row of `ps' (also used by `jobs -l'). */
void con_ps_header(int longfmt);
struct pvmtaskinfo;
void con_ps_row(const struct pvmtaskinfo *ti, int longfmt);

/* spawn.c */
int con_cmd_jobs(int argc, char **argv);
int con_cmd_spawn(int argc, char **argv);

/* Whether `tag' belongs to a job's output. */
int con_is_job_tag(int tag);

/* Handles one output message of a job (the current receive buffer). */
void con_job_output(int tag);

/* cosched.c */
int con_cmd_cosched(int argc, char **argv);

/* env.c */
int con_cmd_echo(int argc, char **argv);
int con_cmd_export(int argc, char **argv);
int con_cmd_getopt(int argc, char **argv);
int con_cmd_setenv(int argc, char **argv);
int con_cmd_setopt(int argc, char **argv);
int con_cmd_unexport(int argc, char **argv);

#endif /* COPVM_CONSOLE_H */
