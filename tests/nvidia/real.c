/*
 * tests/nvidia/real.c - gpudoctor's loaders and CSV reader against NVIDIA's
 * own user space (issue 28): the driver's libnvidia-ml.so.1, libcuda.so.1
 * and nvidia-smi of the 535 branch, which scripts/nvidia-debs.sh unpacks.
 * The shell tests beside it (symbols.sh, smi_names.sh) run it and compare
 * its output with what they expect.
 *
 *   real syms NVML CUDA    every name the NVML and CUDA loaders look up,
 *                          looked up in the real libraries: one line each,
 *                          "nvml|cuda NAME present|absent ROLE"; then what
 *                          the loaders made of the same files (the resolved
 *                          pointer of every row, the optional functions
 *                          they report missing, the reason they give).
 *                          Exit 1 when a required row has none of its names
 *                          or a loader's pointer is not the library's.
 *   real smi-names SMI     every --query-gpu name the CSV reader knows,
 *                          looked up in the nvidia-smi binary's strings:
 *                          "absent NAME" for each one it lacks.
 *   real smi-csv FILE      for each name in FILE (one a line, the real
 *                          binary's field names): a CSV whose header is that
 *                          one name is detected as nvidia-smi CSV and read,
 *                          not refused; "refused NAME: why" otherwise (exit 1).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "model/snapshot.h"
#include "nvml/nvml.h"
#include "offline/offline.h"
#include "probe/cuda.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int cmd_syms(const char *nvml_path, const char *cuda_path)
{
	/* NODELETE: mapped to the end, so that LeakSanitizer can name the
	 * library of the allocations NVIDIA's code keeps (lsan.supp) */
	void *nd = dlopen(nvml_path, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE),
	     *cd = dlopen(cuda_path, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
	const char *const *names, *group;
	bool required;
	size_t off;
	int bad = 0;
	struct gd_nvml *nv;
	struct gd_cuda cu;

	if (!nd || !cd) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	/* NVML: each name, then each row's verdict */
	for (size_t i = 0; gd_nvml_sym_row(i, &names, &required, &group, &off); i++) {
		bool any = false;

		for (size_t k = 0; names[k]; k++) {
			bool have = dlsym(nd, names[k]) != NULL;

			any |= have;
			printf("nvml %s %s %s%s\n", names[k], have ? "present" : "absent",
			       required ? "required" : group ? "alternative:" : "optional", group ? group : "");
		}
		if (required && !any) {
			printf("FAIL nvml row %s: required, and the library has none of its names\n", names[0]);
			bad = 1;
		}
	}
	/* the loader on the same file: every row's pointer is the first name
	 * the library has (the fallback order), NULL when it has none */
	nv = gd_nvml_open(nvml_path, 5);
	for (size_t i = 0; gd_nvml_sym_row(i, &names, &required, &group, &off); i++) {
		void *want = NULL, *got;

		for (size_t k = 0; names[k] && !want; k++)
			want = dlsym(nd, names[k]);
		memcpy(&got, (const char *)gd_nvml_api(nv) + off, sizeof got);
		if (got != want) {
			printf("FAIL nvml row %s: the loader resolved %p, the library's first name is at %p\n", names[0],
			       got, want);
			bad = 1;
		}
	}
	printf("nvml-loader state=%s init_rc=%d (%s)\n", gd_nvml_state_name(gd_nvml_state(nv)), gd_nvml_init_rc(nv),
	       gd_nvml_error_name(gd_nvml_init_rc(nv)));
	printf("nvml-loader missing=%s\n", gd_nvml_missing(nv));
	printf("nvml-loader reason=%s\n", gd_nvml_reason(nv));
	gd_nvml_close(nv);

	for (size_t i = 0; (names = gd_cuda_sym_names(i, &off)) != NULL; i++) {
		bool any = false;

		for (size_t k = 0; names[k]; k++) {
			bool have = dlsym(cd, names[k]) != NULL;

			any |= have;
			printf("cuda %s %s required%s\n", names[k], have ? "present" : "absent", k ? ":fallback" : "");
		}
		if (!any) {
			printf("FAIL cuda row %s: required, and the library has none of its names\n", names[0]);
			bad = 1;
		}
	}
	if (gd_cuda_open(&cu, cuda_path) == 0)
		printf("cuda-loader opened (a GPU here?)\n");
	for (size_t i = 0; (names = gd_cuda_sym_names(i, &off)) != NULL; i++) {
		void *want = NULL, *got;

		for (size_t k = 0; names[k] && !want; k++)
			want = dlsym(cd, names[k]);
		memcpy(&got, (const char *)&cu.api + off, sizeof got);
		if (got != want) {
			printf("FAIL cuda row %s: the loader resolved %p, the library's first name is at %p\n", names[0],
			       got, want);
			bad = 1;
		}
	}
	printf("cuda-loader reason=%s\n", cu.reason);
	gd_cuda_close(&cu);
	dlclose(nd);
	dlclose(cd);
	return bad;
}

/* name in the binary as a C string: NUL-terminated, and starting at a NUL,
 * or at a '.' or '_' inside a longer string (the linker stores "name" as
 * the tail of "gpu_name", "memory.total" as the tail of
 * "protected_memory.total"). */
static bool in_strings(const char *bin, size_t len, const char *name)
{
	size_t n = strlen(name);
	const char *p = bin, *end = bin + len;

	while ((p = memmem(p, (size_t)(end - p), name, n + 1)) != NULL) {
		if (p == bin || p[-1] == '\0' || p[-1] == '.' || p[-1] == '_')
			return true;
		p++;
	}
	return false;
}

static int cmd_smi_names(const char *smi)
{
	size_t len;
	char *bin = slurp(smi, &len);
	const char *names;

	if (!bin) {
		perror(smi);
		return 2;
	}
	for (size_t i = 0; (names = gd_nvsmi_csv_names(i)) != NULL; i++) {
		char one[128];
		const char *p = names;

		while (*p) {
			size_t n = strcspn(p, "|");

			snprintf(one, sizeof one, "%.*s", (int)n, p);
			/* a family ("pci.*") is a prefix, not a name */
			if (!(n > 2 && one[n - 1] == '*') && !in_strings(bin, len, one))
				printf("absent %s\n", one);
			p += n + (p[n] == '|');
		}
	}
	free(bin);
	return 0;
}

static int cmd_smi_csv(const char *file)
{
	size_t len;
	char *list = slurp(file, &len), *save = NULL;
	int bad = 0, n = 0;

	if (!list) {
		perror(file);
		return 2;
	}
	for (char *name = strtok_r(list, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		char csv[256];
		struct gd_snapshot s;
		struct gd_err err;
		int len2 = snprintf(csv, sizeof csv, "%s\n[N/A]\n", name);
		enum gd_ofl_kind kind = gd_ofl_detect(csv, (size_t)len2);

		gd_err_clear(&err);
		gd_snapshot_init(&s);
		if (kind != GD_OFL_SMI_CSV) {
			printf("refused %s: not detected as nvidia-smi CSV (kind %d)\n", name, (int)kind);
			bad = 1;
		} else if (gd_parse_nvsmi_csv(csv, (size_t)len2, &s, &err) != 0) {
			printf("refused %s: %s\n", name, err.msg);
			bad = 1;
		}
		gd_snapshot_release(&s);
		n++;
	}
	printf("%d names\n", n);
	free(list);
	return bad;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* every line out before a sanitizer's report */
	if (argc == 4 && strcmp(argv[1], "syms") == 0)
		return cmd_syms(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "smi-names") == 0)
		return cmd_smi_names(argv[2]);
	if (argc == 3 && strcmp(argv[1], "smi-csv") == 0)
		return cmd_smi_csv(argv[2]);
	fprintf(stderr, "usage: real syms NVML CUDA | smi-names NVIDIA-SMI | smi-csv NAMES\n");
	return 2;
}
