/*
 * version.c - `gpudoctor --version`: the version, the git commit the binary
 * was built from, and which of the optional libraries (all loaded with
 * dlopen when used, never linked) this machine has, and where.
 *
 *   gpudoctor 0.1.0
 *   commit: df72394abcd1 (built from git)
 *   optional libraries (loaded with dlopen when used; looked up now):
 *     NVML      libnvidia-ml.so.1  not found (libnvidia-ml.so.1: cannot open shared object file: ...)
 *     libxml2   libxml2.so.2       /usr/lib/x86_64-linux-gnu/libxml2.so.2.9.14
 *
 * The commit comes from the build (commit.h, written by the Makefile from
 * `git rev-parse`; "-dirty" when the tree had changes; empty for a tree
 * without .git, such as a release tarball, which the output says).  Each
 * library is looked up the way its user loads it (the same soname, and for
 * NVML --nvml or GPUDOCTOR_NVML first), found or not, and the file the
 * dynamic loader picked is named through dlinfo(RTLD_DI_LINKMAP).
 */
#include "cli/cli.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "core/i18n.h"
#include "nvml/nvml.h"
#include "offline/xml_dl.h"
#include "output/output.h"
#include "probe/cuda.h"
#include "tui/tui.h"

struct optlib {
	const char *name;
	const char *soname;
	const char *used_by;
};

static const struct optlib optlibs[] = {
	{ "NVML", GD_NVML_SONAME, N_("GPU evidence (every command but xid)") },
	{ "libcuda", GD_CUDA_SONAME, N_("probe (the GPU burns and copies; --cuda or GPUDOCTOR_CUDA name another)") },
	{ "libxml2", GD_XML_SONAME, N_("check --from of nvidia-smi -q -x") },
	{ "ncursesw", GD_TUI_SONAME, N_("watch on a terminal") },
	{ "libcurl", "libcurl.so.4", N_("not used yet (planned: fleet)") },
};

/* Writes where name loads from ("/usr/lib/.../libxml2.so.2.9.14") or why it
 * does not ("not found (...)") into buf; returns whether it loads. */
static bool locate(const char *name, char *buf, size_t size)
{
	struct link_map *lm = NULL;
	char real[PATH_MAX];
	const char *e;
	void *h;

	dlerror();
	h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		snprintf(buf, size, _("not found (%s)"), e ? e : "dlopen failed");
		return false;
	}
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
		snprintf(buf, size, "%s", realpath(lm->l_name, real) ? real : lm->l_name);
	else
		snprintf(buf, size, _("found (its path is not known: %s)"), dlerror());
	dlclose(h);
	return true;
}

int gd_cli_version(FILE *out, const char *nvml_path)
{
	char where[PATH_MAX + 256];

	fprintf(out, "gpudoctor %s\n", GD_VERSION);
	if (GD_COMMIT[0])
		fprintf(out, _("commit: %s (built from git)\n"), GD_COMMIT);
	else
		fputs(_("commit: unknown (built from a tree without .git, e.g. a release tarball)\n"), out);
	fputs(_("optional libraries (loaded with dlopen when used; looked up now):\n"), out);
	for (size_t i = 0; i < sizeof optlibs / sizeof optlibs[0]; i++) {
		const struct optlib *l = &optlibs[i];
		const char *so = l->soname;

		if (i == 0 && nvml_path && nvml_path[0])
			so = nvml_path;
		/* gd_nvml_open's second choice, when the soname is not there */
		if (!locate(so, where, sizeof where) && i == 0 && so == l->soname) {
			char alt[PATH_MAX + 256];

			if (locate("libnvidia-ml.so", alt, sizeof alt)) {
				so = "libnvidia-ml.so";
				snprintf(where, sizeof where, "%s", alt);
			}
		}
		fprintf(out, "  %-9s %-18s %s\n", l->name, so, where);
		fprintf(out, _("            used by: %s\n"), _(l->used_by));
	}
	return 0;
}
