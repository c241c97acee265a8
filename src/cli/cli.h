/*
 * cli.h - the command line: subcommands, options, usage texts.
 */
#ifndef GD_CLI_CLI_H
#define GD_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Parses argv, runs the command, returns the process exit code:
 * 0 healthy, 1 warnings, 2 critical, 3 could not run. */
int gd_cli_main(int argc, char **argv);

/* `gpudoctor xid [FILE...]` (cli_xid.c): argv[0] is "xid". */
int gd_cli_xid(int argc, char **argv);
extern const char gd_usage_xid[];

/* `gpudoctor fleet --prometheus URL` (cli_fleet.c): argv[0] is "fleet". */
int gd_cli_fleet(int argc, char **argv);
extern const char gd_usage_fleet[];

/* `gpudoctor check --npd CONDITION` (cli_npd.c): argv[0] is "check". */
int gd_cli_npd(int argc, char **argv);
extern const char gd_usage_npd[];

/* `gpudoctor probe [OPTIONS]` (cli_probe.c): argv[0] is "probe". */
int gd_cli_probe(int argc, char **argv);
extern const char gd_usage_probe[];

/* The build may set it (make SYSCONFDIR=...); the package's is /etc. */
#ifndef GD_DEFAULT_CONFIG
#define GD_DEFAULT_CONFIG "/etc/gpudoctor.conf"
#endif

/* `gpudoctor --version` (version.c): version, commit, optional libraries
 * found now (nvml_path: --nvml or GPUDOCTOR_NVML, may be NULL). */
int gd_cli_version(FILE *out, const char *nvml_path);

/* Prints "gpudoctor: <message>" and a newline to stderr; returns 3, the
 * could-not-run exit code (usage.c). */
int gd_cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Takes --lang LANG (or --lang=LANG) out of argv wherever it is and sets the
 * language of the messages: LANG, else English when --json is asked for or
 * the command's output is data (snapshot, record, serve, config: a script's input
 * must not change with the user's locale) and no --help or -h is, else the
 * locale's.  Returns argc without the option, or -1 after an error message
 * (an unknown language). */
int gd_cli_lang(int argc, char **argv);

/* Prints the help text of cmd (NULL: the main one) to out, in the language
 * of the messages; returns 0, or -1 (printing nothing) for an unknown
 * command. */
int gd_cli_help(FILE *out, const char *cmd);

/* Whether cmd is one of gpudoctor's commands that has a help text (all but
 * help and version). */
bool gd_cli_command(const char *cmd);

#endif
