/*
 * json_guard.c - `--json` always prints one JSON document (json_guard.h).
 */
#include "cli/json_guard.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "model/snapshot_json.h"
#include "output/output.h"

static const char *const json_commands[] = { "check", "report", "xid", "fleet", "probe" };

/* Writes all of buf to fd; the bytes written, or -1. */
static ssize_t write_all(int fd, const char *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
	struct gd_json_guard *g = cookie;
	ssize_t n = write_all(STDOUT_FILENO, buf, size);

	if (n > 0)
		g->out_bytes += (size_t)n;
	return n;
}

/* Forwards to fd 2 and keeps the last complete line (cut at its buffer). */
static ssize_t err_write(void *cookie, const char *buf, size_t size)
{
	struct gd_json_guard *g = cookie;

	for (size_t i = 0; i < size; i++) {
		if (buf[i] == '\n' || buf[i] == '\r') {
			if (g->line_n) {
				memcpy(g->last, g->line, g->line_n);
				g->last[g->line_n] = '\0';
			}
			g->line_n = 0;
		} else if (g->line_n < sizeof g->line - 1) {
			g->line[g->line_n++] = buf[i];
		}
	}
	return write_all(STDERR_FILENO, buf, size);
}

static bool wants_json(int argc, char **argv, const char **command)
{
	int first = 1;
	bool known = false;

	*command = "check";   /* gpudoctor [OPTIONS] is check */
	if (argc > 1 && argv[1][0] != '-') {
		*command = argv[1];
		first = 2;
	}
	for (size_t i = 0; i < sizeof json_commands / sizeof json_commands[0]; i++)
		known = known || strcmp(*command, json_commands[i]) == 0;
	if (!known)
		return false;
	for (int i = first; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0)
			return true;
	return false;
}

void gd_json_guard_start(struct gd_json_guard *g, int argc, char **argv)
{
	cookie_io_functions_t out = { .write = out_write }, err = { .write = err_write };
	FILE *o, *e;

	memset(g, 0, sizeof *g);
	if (!wants_json(argc, argv, &g->command))
		return;
	o = fopencookie(g, "w", out);
	e = fopencookie(g, "w", err);
	if (!o || !e) {
		if (o)
			fclose(o);
		if (e)
			fclose(e);
		return;   /* unwatched: the command still runs */
	}
	setvbuf(e, NULL, _IONBF, 0);
	fflush(stdout);
	g->real_out = stdout;
	g->real_err = stderr;
	stdout = o;
	stderr = e;
	g->on = true;
}

int gd_json_guard_end(struct gd_json_guard *g, int code)
{
	json_t *doc;
	const char *msg;

	if (!g->on)
		return code;
	fflush(stdout);
	fclose(stdout);
	fclose(stderr);
	stdout = g->real_out;
	stderr = g->real_err;
	g->on = false;
	if (code == 0 || g->out_bytes)
		return code;
	if (g->line_n) {   /* a last line without its newline */
		memcpy(g->last, g->line, g->line_n);
		g->last[g->line_n] = '\0';
	}
	msg = g->last;
	if (strncmp(msg, "gpudoctor: ", 11) == 0)
		msg += 11;
	else if (strncmp(msg, "gpudoctor fleet: ", 17) == 0)
		msg += 17;
	doc = json_object();
	json_object_set_new(doc, "tool", json_string("gpudoctor"));
	json_object_set_new(doc, "version", json_string(GD_VERSION));
	json_object_set_new(doc, "command", gd_json_str(g->command));
	json_object_set_new(doc, "exit", json_integer(code));
	json_object_set_new(doc, "error", msg[0] ? gd_json_str(msg) : json_string("the command ended without a report"));
	json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	fputc('\n', stdout);
	fflush(stdout);
	json_decref(doc);
	return code;
}
