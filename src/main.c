#include "cli/cli.h"
#include "cli/json_guard.h"

int main(int argc, char **argv)
{
	struct gd_json_guard g;

	gd_json_guard_start(&g, argc, argv);
	return gd_json_guard_end(&g, gd_cli_main(argc, argv));
}
