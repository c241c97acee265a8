/*
 * test_redact.c - secrets out of command lines (core/redact.c) and text
 * from outside made printable for a terminal (core/printable.c).
 */
#include "testutil.h"

#include <stdio.h>

#include "core/printable.h"
#include "core/redact.h"
#include "model/snapshot_json.h"

/* gd_redact_args over a line with '|' standing for the NUL separator. */
static const char *argv_of(const char *bars, char *out, size_t size)
{
	char in[1024];
	size_t n = strlen(bars);

	assert_true(n < sizeof in);
	for (size_t i = 0; i < n; i++)
		in[i] = bars[i] == '|' ? '\0' : bars[i];
	gd_redact_args(in, n, '\0', false, out, size);
	return out;
}

static void test_redact_options(void **state)
{
	char out[512];

	(void)state;
	/* the review's process: both forms */
	assert_string_equal(argv_of("python3|-c|spin|--db-password=hunter2|--token=ghp_SECRET123", out, sizeof out),
			    "python3 -c spin --db-password=*** --token=***");
	assert_string_equal(argv_of("app|--token|ghp_SECRET123|--db-password|hunter2|--verbose", out, sizeof out),
			    "app --token *** --db-password *** --verbose");
	/* case, single dash, camelCase and Java properties */
	assert_string_equal(argv_of("app|--DB-PASSWORD=X|-secret=y|--apiKey=z|-Dssl.trustStorePassword=w", out, sizeof out),
			    "app --DB-PASSWORD=*** -secret=*** --apiKey=*** -Dssl.trustStorePassword=***");
	assert_string_equal(argv_of("app|--api-key=a|--api_key=b|--key=c|--hf-token=d|--client-secret=e|--pass=f", out,
				    sizeof out),
			    "app --api-key=*** --api_key=*** --key=*** --hf-token=*** --client-secret=*** --pass=***");
	/* a flag followed by another option: nothing taken as its value; a value
	 * that starts with one dash is still the value */
	assert_string_equal(argv_of("app|--token|--verbose|x", out, sizeof out), "app --token --verbose x");
	assert_string_equal(argv_of("app|--password|-secret-|-v", out, sizeof out), "app --password *** -v");
	/* an option whose value is a secret assignment, and Hydra's overrides */
	assert_string_equal(argv_of("app|--set=db.password=x|-c|+model.api_key=k|++trainer.lr=1", out, sizeof out),
			    "app --set=db.password=*** -c +model.api_key=*** ++trainer.lr=1");
	/* an argument with a space stays one argument: all of it goes */
	assert_string_equal(argv_of("app|--password|two words|next", out, sizeof out), "app --password *** next");
	/* one argument that is a whole command line (sh -c, a title set by the process) */
	assert_string_equal(argv_of("sh|-c|run --token=abc x|worker: --secret s2", out, sizeof out),
			    "sh -c run --token=*** x worker: --secret ***");
}

static void test_redact_keeps_ordinary_args(void **state)
{
	char out[512];
	const char *plain = "train.py --keyboard=us --keyfile=/etc/k.pem --monkey=1 --tokenizer=gpt2 --max-tokens=4096 "
			    "--bypass --batch-size=8 KEYCLOAK_URL=http://kc:8080 PATH=/usr/bin --pass-rate 3";

	(void)state;
	/* --pass-rate has the word "pass": its value goes (a harmless false positive, documented) */
	gd_redact_args(plain, strlen(plain), ' ', false, out, sizeof out);
	assert_string_equal(out, "train.py --keyboard=us --keyfile=/etc/k.pem --monkey=1 --tokenizer=gpt2 --max-tokens=4096 "
				 "--bypass --batch-size=8 KEYCLOAK_URL=http://kc:8080 PATH=/usr/bin --pass-rate ***");
	assert_false(gd_redact_name("keyboard", 8));
	assert_false(gd_redact_name("tokens", 6));
	assert_true(gd_redact_name("PGPASSWORD", 10));
	assert_true(gd_redact_name("clientsecret", 12));
	assert_true(gd_redact_name("private-key", 11));
}

static void test_redact_assignments_and_urls(void **state)
{
	char out[512];

	(void)state;
	assert_string_equal(argv_of("env|AWS_SECRET_ACCESS_KEY=abc/def+|GITHUB_TOKEN=ghp_x|model.api_key=k|HOME=/root|run",
				    out, sizeof out),
			    "env AWS_SECRET_ACCESS_KEY=*** GITHUB_TOKEN=*** model.api_key=*** HOME=/root run");
	assert_string_equal(argv_of("psql|postgres://app:hunter2@db:5432/x?sslmode=require", out, sizeof out),
			    "psql postgres://app:***@db:5432/x?sslmode=require");
	assert_string_equal(argv_of("w|--url=https://u:p%40ss@h/a|--mirror=http://h2:80/|ssh://git@host/r", out, sizeof out),
			    "w --url=https://u:***@h/a --mirror=http://h2:80/ ssh://git@host/r");
	/* two URLs in one argument */
	assert_string_equal(argv_of("x|redis://a:1@h1,redis://b:2@h2", out, sizeof out), "x redis://a:***@h1,redis://b:***@h2");
	/* the line was cut inside the credentials: what is left of them goes too */
	gd_redact_args("x\0mysql://root:hunt", 19, '\0', true, out, sizeof out);
	assert_string_equal(out, "x mysql://root:***");
	gd_redact_args("x\0mysql://root:hunt", 19, '\0', false, out, sizeof out);
	assert_string_equal(out, "x mysql://root:hunt");
}

static void test_redact_cut_and_joined(void **state)
{
	char out[16];
	char big[64];

	(void)state;
	/* redacted before it is cut: the cut never shows a secret's start */
	gd_redact_args("a\0--token=abcdefghijkl", 22, '\0', false, out, sizeof out);
	assert_string_equal(out, "a --token=***");
	gd_redact_args("abcdefghijklm\0\xe9\x99\x8d", 17, '\0', false, out, sizeof out);
	assert_string_equal(out, "abcdefghijklm "); /* not half of 降 */
	/* a joined line (spaces) gives the same */
	gd_redact_args("run  --password=x  y", 20, ' ', false, big, sizeof big);
	assert_string_equal(big, "run  --password=***  y");
	/* nothing to take out: the same bytes (a recording loads back as written) */
	gd_redact_args(" a  b --c=d http://h:1/ ", 25, ' ', false, big, sizeof big);
	assert_string_equal(big, " a  b --c=d http://h:1/ ");
	gd_redact_args("--token  x", 10, ' ', false, big, sizeof big);
	assert_string_equal(big, "--token  ***");
	gd_redact_args("", 0, '\0', false, big, sizeof big);
	assert_string_equal(big, "");
}

/* A recording written before the redaction: both loaders take the secret
 * out; a command line without one loads as written. */
static void test_redact_on_load(void **state)
{
	const char *line = "{\"version\":2,\"host\":{\"hostname\":\"n1\"},\"procs\":["
			   "{\"pid\":7,\"comm\":\"app\",\"cmdline\":\"app --db-password=hunter2 --token ghp_S\"},"
			   "{\"pid\":8,\"comm\":\"b\",\"cmdline\":\"b  --lr=0.1 \"}]}";
	struct gd_snapshot s, f;
	struct gd_delta_refs refs;
	struct gd_err err;
	json_error_t je;
	json_t *o = json_loads(line, 0, &je);

	(void)state;
	assert_non_null(o);
	gd_snapshot_init(&s);
	gd_snapshot_init(&f);
	gd_delta_refs_init(&refs);
	gd_err_clear(&err);
	assert_int_equal(gd_snapshot_from_json(o, &s, &err), 0);
	assert_int_equal(gd_snapshot_from_line_fast(line, strlen(line), &f, &refs), 1);
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 0)->cmdline, "app --db-password=*** --token ***");
	assert_string_equal(GD_VEC_AT(f.procs, struct gd_proc, 0)->cmdline, "app --db-password=*** --token ***");
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 1)->cmdline, "b  --lr=0.1 ");
	assert_string_equal(GD_VEC_AT(f.procs, struct gd_proc, 1)->cmdline, "b  --lr=0.1 ");
	json_decref(o);
	gd_delta_refs_release(&refs);
	gd_snapshot_release(&s);
	gd_snapshot_release(&f);
}

static void test_printable(void **state)
{
	char out[64];
	struct gd_pr pr = { 0 };
	const char *ok = "python3 训练 --lr=0.1";
	const char *esc = "\x1b[2J\x1b]0;pwned\a\nx\t\x7f";

	(void)state;
	assert_true(gd_printable_is(ok, strlen(ok)));
	assert_ptr_equal(gd_pr(&pr, ok), ok);   /* no copy when clean */
	assert_false(gd_printable_is(esc, strlen(esc)));
	assert_string_equal(gd_pr(&pr, esc), "?[2J?]0;pwned??x??");
	/* C1 CSI as UTF-8 (U+009B), a raw 0x9b, an overlong ESC, a cut character */
	gd_printable("a\xc2\x9b" "b\x9b" "c\xc0\x9b" "d\xe9\x99", 11, out, sizeof out);
	assert_string_equal(out, "a?b?c?d??");   /* an overlong sequence is one '?' */
	/* cut to fit, between characters */
	gd_printable("训练", 6, out, 5);
	assert_string_equal(out, "训");
	gd_pr_release(&pr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact_options),
		cmocka_unit_test(test_redact_keeps_ordinary_args),
		cmocka_unit_test(test_redact_assignments_and_urls),
		cmocka_unit_test(test_redact_cut_and_joined),
		cmocka_unit_test(test_redact_on_load),
		cmocka_unit_test(test_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
