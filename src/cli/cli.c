/* Temporary: replaced by the full command line below. */
#include "cli/cli.h"

#include <stdio.h>

#include "collect/collect.h"
#include "model/snapshot_json.h"

int gd_cli_main(int argc, char **argv)
{
	struct gd_root root;
	struct gd_snapshot s;
	struct gd_collect_ctx ctx = { &root };
	struct gd_err err;

	gd_err_clear(&err);
	if (gd_root_open(&root, argc > 2 ? argv[2] : "/", &err) < 0) {
		fprintf(stderr, "gpudoctor: %s\n", err.msg);
		return 3;
	}
	gd_snapshot_init(&s);
	gd_collect_all(&ctx, &s);
	gd_snapshot_write_line(&s, stdout);
	gd_snapshot_release(&s);
	gd_root_release(&root);
	return 0;
}
