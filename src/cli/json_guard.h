/*
 * json_guard.h - `--json` always prints one JSON document.
 *
 * A command run with --json answers with one document on standard output,
 * also when it cannot run at all (exit 3: a bad option, a missing file, no
 * NVML, a server that does not answer).  Rather than every early return of
 * every command printing one, main() watches the streams: while a --json
 * command runs, stdout and stderr pass through counting streams
 * (fopencookie), and when the command ends with a non-zero status having
 * written nothing to stdout, the guard prints
 *
 *   {"tool": "gpudoctor", "version": "...", "command": "check", "exit": 3,
 *    "error": "the last line the command wrote to stderr"}
 *
 * The commands that take --json: check (also the default command), report,
 * xid, fleet, probe.  Every other command, and a run without --json, is left
 * untouched (watch's ncurses needs the real stdout).
 */
#ifndef GD_CLI_JSON_GUARD_H
#define GD_CLI_JSON_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct gd_json_guard {
	bool on;
	const char *command;
	FILE *real_out, *real_err;
	size_t out_bytes;          /* bytes the command wrote to stdout */
	char line[512];            /* the stderr line being written */
	size_t line_n;
	char last[512];            /* the last complete stderr line */
};

/* Starts watching when argv is a command that takes --json, run with it. */
void gd_json_guard_start(struct gd_json_guard *g, int argc, char **argv);
/* Stops watching; prints the error document when needed.  Returns code. */
int gd_json_guard_end(struct gd_json_guard *g, int code);

#endif
