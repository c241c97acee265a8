/*
 * redact.h - secrets taken out of a command line before it is kept.
 *
 * A process's command line reaches /findings, /metrics, recordings and
 * reports, so the collector keeps it only through gd_redact_args.  What is
 * taken out (the value becomes "***"; the name stays, so a reader still sees
 * which option was given):
 *
 *   --db-password=hunter2        -> --db-password=***
 *   --token ghp_SECRET123        -> --token ***     (the next argument, unless it starts with "--")
 *   --set=db.password=x, +db.password=x  -> --set=db.password=***, +db.password=***
 *   AWS_SECRET_ACCESS_KEY=abc    -> AWS_SECRET_ACCESS_KEY=***
 *   -Dssl.trustStorePassword=x   -> -Dssl.trustStorePassword=***
 *   postgres://app:pw@db:5432/x  -> postgres://app:***@db:5432/x   (anywhere in an argument)
 *
 * A name is secret when one of its word parts (split at '-', '_', '.', and a
 * lower-to-upper case change: apiKey = api + key) is, ignoring case, one of
 * password, passwd, pass, passphrase, pwd, token, secret, key, apikey,
 * credential(s), or when it contains "password", "passwd" or "secret" inside
 * a longer word (dbpassword, PGPASSWORD, clientsecret).  So --api-key,
 * --api_key, --key, --hf-token, GITHUB_TOKEN and --client-secret are
 * redacted, while --keyboard, --keyfile, --monkey, --tokenizer, --max-tokens
 * and --bypass (a path or a number, not a secret) are kept.
 */
#ifndef GD_CORE_REDACT_H
#define GD_CORE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* What a secret value is written as. */
#define GD_REDACTED "***"

/* Whether an option or variable name (without leading dashes, up to its
 * '=') names a secret; name[0..n). */
bool gd_redact_name(const char *name, size_t n);

/* The arguments in[0..len), separated by sep ('\0' as /proc/PID/cmdline
 * holds them, ' ' for a command line already joined), written to out
 * (size > 0) joined by single spaces with their secrets replaced, cut to
 * fit (never inside a UTF-8 character); with sep ' ', a line without a
 * secret comes back byte for byte.  cut: in is the start of a longer
 * command line, so its last argument may be incomplete (a URL's password
 * without its '@' is then taken out too).  Returns strlen(out). */
size_t gd_redact_args(const char *in, size_t len, char sep, bool cut, char *out, size_t size);

#endif
