/*
 * cli_probe.c - `gpudoctor probe`: load the GPUs on purpose, watch them with
 * everything gpudoctor reads, and judge what they did.
 *
 * The order of things:
 *   1. fork the GPU child first, before NVML's thread or any CUDA call; it
 *      waits on a pipe for its request (src/probe/gpu.c does the work);
 *   2. take a snapshot (NVML and the host): pick the GPUs (--gpus), skip
 *      MIG-enabled GPUs, lost ones, and busy ones unless --force;
 *   3. send the request, then sample every --interval (default 200 ms) until
 *      the child ends, writing each snapshot to -o; a phase past its
 *      deadline gets the child killed (SIGTERM, then SIGKILL) and the probe
 *      that was running is reported hung;
 *   4. turn the child's results into probe[] rows of the last snapshot and
 *      run every rule over the series sampled during the probe: probe.* and
 *      the thermal, power, PCIe-under-load, ECC and Xid rules alike; those
 *      that judge what load brings out name the probe that was running when
 *      their evidence was taken (evidence during_probe: each kept sample
 *      carries the phase it was taken in, and the engine runs again over
 *      each phase's samples, probe/result.h).
 * Expected figures come from the GPU's siblings, its trained link and the
 * SKU table (data/probe-sku.ini built in, [probe.sku "NAME"] sections of
 * the configuration file over it, probe/sku.h).
 * SIGINT/SIGTERM ask the child to stop after the launch in flight; what was
 * measured is reported.  Exit status as check: 0, 1, 2; 3 could not run.
 */
#include "cli/cli.h"
#include "cli/cli_probe_host.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "core/duration.h"
#include "core/i18n.h"
#include "core/outfile.h"
#include "model/snapshot_json.h"
#include "nvml/nvml.h"
#include "output/output.h"
#include "probe/probe.h"
#include "probe/result.h"
#include "probe/sku.h"
#include "rules/rule.h"
#include "rules/rule_probe.h"

#define EXIT_CANNOT_RUN 3
#define KEEP_LAST 8

/* Set by the SIGINT/SIGTERM handler: the one piece of global state. */
static volatile sig_atomic_t g_stop;

/* Marked whole for the catalogue; printed as _(gd_usage_probe) with fputs. */
const char gd_usage_probe[] = N_(
	/* xgettext:no-c-format ("40% of" is not a conversion) */
	"Usage: gpudoctor probe [--quick | --duration DUR] [--gpus LIST] [--only PROBES]\n"
	"                       [--skip PROBES] [--data DIR] [--json] [-o FILE]\n"
	"                       [--cuda PATH] [--force] [OPTIONS]\n"
	"Loads the GPUs on purpose (a compute burn, device memory, PCIe and peer copies),\n"
	"watches them with NVML and the host collectors meanwhile, and judges each GPU\n"
	"against its siblings of the same model, its PCIe link and its SKU.  GPUs run at\n"
	"once, as a job loads them.  The GPU work runs in a child process with a\n"
	"deadline per phase: a GPU that hangs is reported, and the report is still\n"
	"printed.\n"
	"\n"
	"  --quick             the default: 10 s burns, one memory pass (about a minute\n"
	"                      per node)\n"
	"  -d, --duration DUR  a longer probe: 40% of DUR per burn, 20% patterns\n"
	"                      (e.g. 10m)\n"
	"  --gpus LIST         NVML indices to probe, e.g. 0,2-3 (default: all)\n"
	"  --only PROBES       run only these: compute, mem_bandwidth, mem_pattern, pcie,\n"
	"                      p2p, storage, host_mem, power, host\n"
	"                      (or a probe name: compute_fp32, compute_bf16, h2d, d2h,\n"
	"                      ...)\n"
	"  --skip PROBES       run all but these\n"
	"  --data DIR          also probe the storage DIR sits on: sequential MB/s, 4 KiB\n"
	"                      random latency and small files/s without the page cache,\n"
	"                      and an epoch; without it the host probes are host_mem\n"
	"                      (STREAM per NUMA node) and power (GPUs + RAPL or the BMC\n"
	"                      at full burn, judged against\n"
	"                      --set probe.power_headroom.psu_capacity_w=W)\n"
	"  -j, --json          the diagnosis as JSON, with probe[] rows (achieved,\n"
	"                      expected, from)\n"
	"  -o, --output FILE   append the snapshots sampled during the probe as JSON\n"
	"                      lines, the last with the results: check --from FILE and\n"
	"                      report FILE read it, serve --probe-results FILE exports it\n"
	"  --cuda PATH         the CUDA driver to load (default: GPUDOCTOR_CUDA, else\n"
	"                      libcuda.so.1)\n"
	"  --force             probe GPUs that run compute processes too (their jobs\n"
	"                      slow down)\n"
	"  -i, --interval DUR  NVML and host sampling period during the probe\n"
	"                      (default 200ms)\n"
	"  --deadline DUR      how long a phase may overrun its own length before its\n"
	"                      GPU is reported hung and the probe process is killed\n"
	"                      (default 30s)\n"
	"  --lang LANG         messages in zh_CN or en, as for every command\n"
	"  --root, --config, --set, --no-color, --nvml, --nvml-timeout as for every\n"
	"                      command\n"
	"\n"
	"A progress line (probe, GPUs, time left) goes to standard error on a terminal\n"
	"only.\n"
	"Exit status: 0 healthy, 1 warnings, 2 critical findings, 3 could not run.\n");

struct popts {
	const char *root, *config, *output, *nvml_path, *cuda_path, *data;
	double nvml_timeout_s, interval_s, duration_s, deadline_s;
	bool json, force, no_color, quick;
	unsigned want;
	bool gpus_given;
	bool gpu_sel[64];
	struct gd_thresholds th;
};

/* Per-GPU figures NVML saw while the child worked. */
struct watch {
	uint64_t gen, width;         /* highest under a copy probe */
	uint64_t gen_any, width_any; /* highest while the probe ran */
	struct gd_gpu burn_end;      /* last sample inside a burn */
	bool have_burn;
	double burn_max_w, max_w;    /* highest power inside a burn, and at all (0: none) */
};

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

/* "compute" -> both burns; "pcie" -> the four copy probes; a name -> itself. */
static int probe_bits(const char *list, unsigned *bits)
{
	char buf[256], *save = NULL;

	*bits = 0;
	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		unsigned b = 0;

		if (strcmp(t, "compute") == 0)
			b = 1u << GD_PK_COMPUTE_FP32 | 1u << GD_PK_COMPUTE_BF16;
		else if (strcmp(t, "pcie") == 0)
			b = 1u << GD_PK_H2D | 1u << GD_PK_D2H | 1u << GD_PK_H2D_ALL | 1u << GD_PK_D2H_ALL;
		else if (strcmp(t, "memory") == 0)
			b = 1u << GD_PK_MEM_BANDWIDTH | 1u << GD_PK_MEM_PATTERN;
		else if (strcmp(t, "p2p") == 0)
			b = GD_PROBE_WANT_P2P;
		else if (strcmp(t, "storage") == 0)
			b = GD_PROBE_WANT_STORAGE;
		else if (strcmp(t, "host_mem") == 0)
			b = GD_PROBE_WANT_HOST_MEM;
		else if (strcmp(t, "power") == 0)
			b = GD_PROBE_WANT_POWER;
		else if (strcmp(t, "host") == 0)
			b = GD_PROBE_WANT_HOST;
		for (int pk = 0; !b && pk < GD_PK_COUNT; pk++)
			if (strcmp(t, gd_pk_name(pk)) == 0)
				b = 1u << pk;
		if (!b)
			return gd_cli_fail(_("unknown probe \"%s\" (probes: compute, compute_fp32, compute_bf16, mem_bandwidth, "
					     "mem_pattern, memory, pcie, h2d, d2h, h2d_all, d2h_all, p2p, storage, host_mem, power, host)"),
					   t);
		*bits |= b;
	}
	return -1;
}

static int gpu_list(const char *list, bool sel[64])
{
	char buf[256], *save = NULL;

	memset(sel, 0, 64 * sizeof *sel);
	snprintf(buf, sizeof buf, "%s", list);
	if (strcmp(buf, "all") == 0) {
		memset(sel, 1, 64 * sizeof *sel);
		return -1;
	}
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		long a = strtol(t, &end, 10), b = a;

		if (end == t || a < 0 || a > 63)
			return gd_cli_fail(_("--gpus %s: expected NVML indices 0-63, e.g. 0,2-3"), list);
		if (*end == '-') {
			char *e2;

			b = strtol(end + 1, &e2, 10);
			if (e2 == end + 1 || *e2 || b < a || b > 63)
				return gd_cli_fail(_("--gpus %s: bad range \"%s\""), list, t);
		} else if (*end) {
			return gd_cli_fail(_("--gpus %s: expected NVML indices 0-63, e.g. 0,2-3"), list);
		}
		for (long i = a; i <= b; i++)
			sel[i] = true;
	}
	return -1;
}

enum { O_ROOT = 300, O_CONFIG, O_SET, O_NO_COLOR, O_NVML, O_NVML_TIMEOUT, O_CUDA, O_FORCE, O_QUICK, O_GPUS, O_ONLY,
       O_SKIP, O_DATA, O_DEADLINE };

static const struct option lopts[] = {
	{ "root", required_argument, NULL, O_ROOT },     { "config", required_argument, NULL, O_CONFIG },
	{ "set", required_argument, NULL, O_SET },       { "no-color", no_argument, NULL, O_NO_COLOR },
	{ "no-colour", no_argument, NULL, O_NO_COLOR },  { "nvml", required_argument, NULL, O_NVML },
	{ "nvml-timeout", required_argument, NULL, O_NVML_TIMEOUT },
	{ "cuda", required_argument, NULL, O_CUDA },     { "force", no_argument, NULL, O_FORCE },
	{ "quick", no_argument, NULL, O_QUICK },         { "duration", required_argument, NULL, 'd' },
	{ "gpus", required_argument, NULL, O_GPUS },     { "only", required_argument, NULL, O_ONLY },
	{ "skip", required_argument, NULL, O_SKIP },     { "data", required_argument, NULL, O_DATA },
	{ "json", no_argument, NULL, 'j' },              { "output", required_argument, NULL, 'o' },
	{ "interval", required_argument, NULL, 'i' },    { "help", no_argument, NULL, 'h' },
	{ "deadline", required_argument, NULL, O_DEADLINE },
	{ NULL, 0, NULL, 0 },
};

static int parse(int argc, char **argv, struct popts *o)
{
	struct gd_err err;
	unsigned only = 0, skip = 0;
	int c, rc;

	memset(o, 0, sizeof *o);
	o->interval_s = 0.2;
	o->deadline_s = 30;
	o->quick = true;
	memset(o->gpu_sel, 1, sizeof o->gpu_sel);
	gd_thresholds_init(&o->th);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:jo:i:h", lopts, NULL)) != -1) {
		gd_err_clear(&err);
		switch (c) {
		case O_ROOT: o->root = optarg; break;
		case O_CONFIG: o->config = optarg; break;
		case O_NO_COLOR: o->no_color = true; break;
		case O_NVML: o->nvml_path = optarg; break;
		case O_CUDA: o->cuda_path = optarg; break;
		case O_FORCE: o->force = true; break;
		case O_QUICK: o->quick = true; o->duration_s = 0; break;
		case O_DATA: o->data = optarg; break;
		case 'j': o->json = true; break;
		case 'o': o->output = optarg; break;
		case 'h': fputs(_(gd_usage_probe), stdout); return 0;
		case O_SET: {
			char name[128];
			const char *eq = strchr(optarg, '=');

			if (!eq || (size_t)(eq - optarg) >= sizeof name)
				return gd_cli_fail(_("--set %s: expected RULE.KEY=VALUE"), optarg);
			memcpy(name, optarg, (size_t)(eq - optarg));
			name[eq - optarg] = '\0';
			if (gd_thresholds_set(&o->th, name, eq + 1, &err) < 0)
				return gd_cli_fail("%s", err.msg);
			break;
		}
		case O_NVML_TIMEOUT:
			if (gd_duration_parse(optarg, &o->nvml_timeout_s, &err) < 0 || o->nvml_timeout_s <= 0)
				return gd_cli_fail("--nvml-timeout %s: %s", optarg, err.msg[0] ? err.msg : _("must be more than 0"));
			break;
		case 'd':
			if (gd_duration_parse(optarg, &o->duration_s, &err) < 0)
				return gd_cli_fail("--duration: %s", err.msg);
			if (o->duration_s < 5 || o->duration_s > 86400)
				return gd_cli_fail(_("--duration %s: between 5s and 24h"), optarg);
			o->quick = false;
			break;
		case 'i':
			if (gd_duration_parse(optarg, &o->interval_s, &err) < 0)
				return gd_cli_fail("--interval: %s", err.msg);
			if (o->interval_s < 0.05 || o->interval_s > 10)
				return gd_cli_fail(_("--interval %s: between 50ms and 10s"), optarg);
			break;
		case O_DEADLINE:
			if (gd_duration_parse(optarg, &o->deadline_s, &err) < 0)
				return gd_cli_fail("--deadline: %s", err.msg);
			if (o->deadline_s < 0.1 || o->deadline_s > 3600)
				return gd_cli_fail(_("--deadline %s: between 100ms and 1h"), optarg);
			break;
		case O_GPUS:
			if ((rc = gpu_list(optarg, o->gpu_sel)) >= 0)
				return rc;
			o->gpus_given = true;
			break;
		case O_ONLY:
			if ((rc = probe_bits(optarg, &only)) >= 0)
				return rc;
			break;
		case O_SKIP:
			if ((rc = probe_bits(optarg, &skip)) >= 0)
				return rc;
			break;
		case ':':
			return gd_cli_fail(_("option %s needs a value (see gpudoctor help probe)"), argv[optind - 1]);
		default:
			return gd_cli_fail(_("unknown option %s (see gpudoctor help probe)"), argv[optind - 1]);
		}
	}
	if (optind < argc)
		return gd_cli_fail(_("unexpected argument \"%s\" (see gpudoctor help probe)"), argv[optind]);
	o->want = only ? only : ((1u << GD_PK_COUNT) - 1) | GD_PROBE_WANT_P2P | GD_PROBE_WANT_HOST;
	o->want &= ~skip;
	if (!o->want)
		return gd_cli_fail(_("--only/--skip leave no probe to run"));
	return -1;
}

/* ---- GPU selection ------------------------------------------------------- */

/* Why GPU g is not probed ("" when it is). */
static void skip_reason(const struct popts *o, const struct gd_snapshot *s, const struct gd_gpu *g, char *why,
			size_t size)
{
	unsigned compute = 0;
	uint64_t pid = 0;

	why[0] = '\0';
	if (!g->index.ok || g->index.v >= 64 || !o->gpu_sel[g->index.v]) {
		snprintf(why, size, "not selected (--gpus)");
		return;
	}
	if (g->lost.ok && g->lost.v) {
		snprintf(why, size, "NVML says the GPU is lost");
		return;
	}
	if (!g->pci_bus_id[0]) {
		snprintf(why, size, "NVML gives no PCI address to find it by in CUDA");
		return;
	}
	if (g->mig_mode.ok && g->mig_mode.v) {
		snprintf(why, size, "MIG is enabled: CUDA sees its instances, not the GPU (probe it with MIG off)");
		return;
	}
	GD_VEC_EACH(s->gpu_procs, const struct gd_gpu_proc, p)
		if (p->gpu.ok && p->gpu.v == g->index.v && !(p->graphics.ok && p->graphics.v)) {
			compute++;
			pid = p->pid.ok ? p->pid.v : 0;
		}
	if (o->force)
		return;
	if (compute)
		snprintf(why, size, "busy: %u compute process%s (pid %llu) use%s it; --force probes it anyway", compute,
			 compute == 1 ? "" : "es", (unsigned long long)pid, compute == 1 ? "s" : "");
	else if (!g->nvml_procs.ok)
		snprintf(why, size, "NVML could not list its processes, so it may be busy; --force probes it anyway");
}

static void add_source(struct gd_snapshot *s, const char *name, const char *status, const char *reason)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	memset(src, 0, sizeof *src);
	GD_STRSET(src->name, name);
	GD_STRSET(src->path, "gpudoctor probe");
	GD_STRSET(src->status, status);
	GD_STRSET(src->reason, reason);
}

/* ---- the child ----------------------------------------------------------- */

static pid_t start_child(struct gd_probe_shm *shm, int *go_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		char go = 0;
		ssize_t n;

		/* the parent coordinates a Ctrl-C; SIGTERM ends us */
		signal(SIGINT, SIG_IGN);
		close(p[1]);
		while ((n = read(p[0], &go, 1)) < 0 && errno == EINTR)
			;
		_exit(n == 1 && go == 'g' ? gd_probe_child(shm) : 0);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);   /* a signal cuts it short: the loop looks at g_stop */
}

/* Kills the child: SIGTERM, SIGKILL after 2 s; reaps it. */
static void kill_child(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	for (int i = 0; i < 20; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		sleep_s(0.1);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/* A signature of what the child is doing: changes at every phase change. */
static unsigned phase_sig(const struct gd_probe_shm *shm)
{
	unsigned h = (unsigned)(shm->phase + 7);

	for (int i = 0; i < shm->ngpus; i++)
		h = h * 31 + (unsigned)(shm->gpu[i].phase + 7);
	return h;
}

static void progress(const struct gd_probe_shm *shm, double left, bool tty)
{
	int ph = shm->phase == GD_PK_P2P ? GD_PK_P2P : GD_PK_NONE, n = 0;

	if (!tty)
		return;
	for (int i = 0; i < shm->ngpus; i++)
		if (shm->gpu[i].phase != GD_PK_NONE && ph != GD_PK_P2P) {
			ph = shm->gpu[i].phase;
			n++;
		}
	if (ph == GD_PK_NONE && shm->phase == GD_PK_SETUP)
		ph = GD_PK_SETUP;
	fputs("\r\033[K", stderr);
	if (ph == GD_PK_P2P)
		fprintf(stderr, _("probe: %s on GPU pairs, about %.0f s left"), gd_pk_name(ph), left > 0 ? left : 0);
	else
		fprintf(stderr, P_("probe: %s on %d GPU, about %.0f s left", "probe: %s on %d GPUs, about %.0f s left",
				   (unsigned long)n),
			gd_pk_name(ph), n, left > 0 ? left : 0);
	fflush(stderr);
}

/* What NVML says of a GPU now, for the figures the rows carry. */
static const struct gd_gpu *gpu_in(const struct gd_snapshot *s, int idx)
{
	GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
		if (g->index.ok && g->index.v == (uint64_t)idx)
			return g;
	return NULL;
}

static void watch_sample(const struct gd_probe_shm *shm, const int *idx, const struct gd_snapshot *s, struct watch *w)
{
	for (int i = 0; i < shm->ngpus; i++) {
		const struct gd_gpu *g = gpu_in(s, idx[i]);
		int ph = shm->gpu[i].phase;

		if (!g)
			continue;
		if (ph == GD_PK_COMPUTE_FP32 || ph == GD_PK_COMPUTE_BF16) {
			w[i].burn_end = *g;
			w[i].have_burn = true;
			if (g->power_w.ok && g->power_w.v > w[i].burn_max_w)
				w[i].burn_max_w = g->power_w.v;
		}
		if (g->power_w.ok && g->power_w.v > w[i].max_w)
			w[i].max_w = g->power_w.v;
		if (g->pcie_gen.ok && g->pcie_gen.v > w[i].gen_any)
			w[i].gen_any = g->pcie_gen.v;
		if (g->pcie_width.ok && g->pcie_width.v > w[i].width_any)
			w[i].width_any = g->pcie_width.v;
		if (ph >= GD_PK_H2D && ph <= GD_PK_D2H_ALL) {
			if (g->pcie_gen.ok && g->pcie_gen.v > w[i].gen)
				w[i].gen = g->pcie_gen.v;
			if (g->pcie_width.ok && g->pcie_width.v > w[i].width)
				w[i].width = g->pcie_width.v;
		}
	}
}

/* After the child ended (or was killed): hung and never-run probes. */
static void settle(struct gd_probe_shm *shm, int hung_gpu, bool killed, const char *why)
{
	for (int i = 0; i < shm->ngpus; i++) {
		struct gd_probe_gpu *g = &shm->gpu[i];

		for (int pk = 0; pk < GD_PK_COUNT; pk++) {
			struct gd_probe_res *r = &g->res[pk];

			if (!(shm->want & (1u << pk)))
				continue;
			if (r->status == GD_PR_RUNNING) {
				r->status = i == hung_gpu ? GD_PR_HUNG : GD_PR_NOT_RUN;
				snprintf(r->reason, sizeof r->reason, "%.190s", why);
			} else if (r->status == GD_PR_NOT_RUN && !r->reason[0] && killed) {
				snprintf(r->reason, sizeof r->reason, "%.190s", why);
			}
		}
		if (i == hung_gpu && g->phase == GD_PK_SETUP && !g->error[0])
			snprintf(g->error, sizeof g->error, "%.290s", why);
		for (int j = 0; j < shm->ngpus; j++)
			if (g->p2p[j].status == GD_PR_RUNNING) {
				g->p2p[j].status = GD_PR_HUNG;
				snprintf(g->p2p[j].reason, sizeof g->p2p[j].reason, "%.190s", why);
			}
	}
}

/* ---- the report ---------------------------------------------------------- */

/* The peer copies of one GPU on one line: how many, slowest, fastest. */
static void print_p2p(FILE *out, const struct gd_snapshot *s, const struct gd_probe_row *first)
{
	double lo = INFINITY, hi = 0, e;
	size_t n = 0, bad = 0;
	char from[64] = "", exp[96] = "", rng[96];

	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		if (strcmp(r->probe, "p2p") != 0 || !r->gpu.ok || r->gpu.v != first->gpu.v)
			continue;
		if (!r->achieved.ok || strcmp(r->status, "ok") != 0) {
			bad++;
			continue;
		}
		n++;
		lo = r->achieved.v < lo ? r->achieved.v : lo;
		hi = r->achieved.v > hi ? r->achieved.v : hi;
	}
	if (gd_probe_expected(s, first, &e, from, sizeof from))
		snprintf(exp, sizeof exp, _("expected %.1f (%s)"), e, from);
	if (n) {
		snprintf(rng, sizeof rng, P_("%.1f-%.1f GB/s to %zu peer", "%.1f-%.1f GB/s to %zu peers", n), lo, hi, n);
		fprintf(out, "    %-14s %s  %s", "p2p", rng, exp);
	} else {
		fprintf(out, "    %-14s -", "p2p");
	}
	if (bad) {
		fputs(n ? "; " : " ", out);
		fprintf(out, P_("%zu pair not measured", "%zu pairs not measured", bad), bad);
	}
	fputc('\n', out);
}

static void print_table(FILE *out, const struct gd_snapshot *s)
{
	int last_gpu = -1;
	bool p2p_done = false;

	fputs(_("probe results (GB/s = 10^9 bytes copied per second; GFLOP/s: FMA = 2 FLOP):\n"), out);
	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		char exp[96] = "", from[64] = "", ach[48] = "-";
		double e;

		if (r->gpu.ok && (int)r->gpu.v != last_gpu) {
			const struct gd_gpu *g = gpu_in(s, (int)r->gpu.v);

			last_gpu = (int)r->gpu.v;
			p2p_done = false;
			fprintf(out, "  gpu%d %s%s%s\n", last_gpu, r->pci_bus_id, g && g->name[0] ? " " : "", g ? g->name : "");
		}
		if (strcmp(r->probe, "p2p") == 0) {
			if (!p2p_done)
				print_p2p(out, s, r);
			p2p_done = true;
			continue;
		}
		if (r->achieved.ok)
			snprintf(ach, sizeof ach, "%.1f %s", r->achieved.v, r->unit);
		if (gd_probe_expected(s, r, &e, from, sizeof from))
			snprintf(exp, sizeof exp, _("expected %.1f (%s)"), e, from);
		fprintf(out, "    %-14s %-18s ", r->probe, ach);
		gd_cli_pad(out, exp, 40);
		fprintf(out, " %s", gd_cli_probe_status(r->status));
		if (r->errors.ok && r->errors.v)
			fprintf(out, _(", %llu of %llu wrong"), (unsigned long long)r->errors.v,
				(unsigned long long)r->checked.v);
		if (r->temp_c.ok || r->sm_clock_mhz.ok || r->power_w.ok)
			fprintf(out, _(" · end of burn %.0f °C %llu MHz %.0f W"), r->temp_c.ok ? r->temp_c.v : NAN,
				(unsigned long long)(r->sm_clock_mhz.ok ? r->sm_clock_mhz.v : 0), r->power_w.ok ? r->power_w.v : NAN);
		if (r->reason[0] && strcmp(r->status, "ok") != 0)
			fprintf(out, " (%s)", r->reason);
		fputc('\n', out);
	}
	fputc('\n', out);
}

static json_t *rows_json(const struct gd_snapshot *s)
{
	json_t *arr = json_array();

	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		json_t *o = json_object();
		double e;
		char from[64];

		if (r->gpu.ok)
			json_object_set_new(o, "gpu", json_integer((json_int_t)r->gpu.v));
		json_object_set_new(o, "pci_bus_id", gd_json_str(r->pci_bus_id));
		json_object_set_new(o, "probe", gd_json_str(r->probe));
		if (r->peer.ok)
			json_object_set_new(o, "peer", json_integer((json_int_t)r->peer.v));
		json_object_set_new(o, "status", gd_json_str(r->status));
		json_object_set_new(o, "unit", gd_json_str(r->unit));
		json_object_set_new(o, "achieved", r->achieved.ok ? json_real(r->achieved.v) : json_null());
		if (gd_probe_expected(s, r, &e, from, sizeof from)) {
			json_object_set_new(o, "expected", json_real(e));
			json_object_set_new(o, "expected_from", gd_json_str(from));
		} else {
			json_object_set_new(o, "expected", json_null());
		}
		if (r->errors.ok)
			json_object_set_new(o, "errors", json_integer((json_int_t)r->errors.v));
		if (r->reason[0])
			json_object_set_new(o, "reason", gd_json_str(r->reason));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* ---- the run ------------------------------------------------------------- */

struct run {
	struct popts *o;
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_series kept;     /* first, each phase's last samples, the last */
	struct gd_vec tags;        /* struct tag: the phase of each kept sample */
	struct gd_snapshot prev;   /* the latest sample, not yet kept or dropped */
	char prev_tag[GD_PROBE_PHASE_MAX];
	bool have_prev;
	struct gd_sku_table skus;
	FILE *out;                 /* -o */
	struct gd_probe_shm *shm;
	int idx[GD_PROBE_MAX_GPUS];  /* NVML index of shm->gpu[i] */
	struct watch w[GD_PROBE_MAX_GPUS];
	unsigned last_sig;
	size_t tail;               /* samples at the end of kept not tied to a phase */
	struct gd_cli_host host;
	bool burn_seen, burn_over;
};

struct tag {
	char s[GD_PROBE_PHASE_MAX];
};

static void keep(struct run *r, struct gd_snapshot *s, const char *tag, bool phase_end)
{
	struct gd_snapshot *dst;
	struct tag *t = r->tags.items;

	if (!phase_end && r->tail >= KEEP_LAST && r->kept.n > 1) {
		/* drop the oldest of the tail: shift it out */
		size_t first_tail = r->kept.n - r->tail;

		gd_snapshot_release(&r->kept.items[first_tail]);
		memmove(&r->kept.items[first_tail], &r->kept.items[first_tail + 1],
			(r->kept.n - first_tail - 1) * sizeof *r->kept.items);
		memmove(&t[first_tail], &t[first_tail + 1], (r->tags.n - first_tail - 1) * sizeof *t);
		r->kept.n--;
		r->tags.n--;
		r->tail--;
	}
	dst = gd_series_push(&r->kept);
	*dst = *s;
	t = gd_vec_push(&r->tags, sizeof *t);
	snprintf(t->s, sizeof t->s, "%s", tag);
	r->tail = phase_end ? 0 : r->tail + 1;
}

static int sample(struct run *r, bool final)
{
	struct gd_snapshot s;
	unsigned sig = r->shm ? phase_sig(r->shm) : 0;
	char tag[GD_PROBE_PHASE_MAX] = "";

	gd_snapshot_init(&s);
	gd_collect_all(&r->ctx, &s);
	if (r->shm) {
		watch_sample(r->shm, r->idx, &s, r->w);
		/* what ran while it was taken (read after the collectors: the
		 * state they saw is the one the phase left); the last sample is
		 * taken once the child has ended */
		if (!final)
			gd_probe_phase_label(r->shm, r->idx, tag, sizeof tag);
	}
	if (r->have_prev) {
		keep(r, &r->prev, r->prev_tag, sig != r->last_sig);
		r->have_prev = false;
	}
	r->last_sig = sig;
	if (final) {
		keep(r, &s, "", true);
		return 0;
	}
	if (r->out && (gd_snapshot_write_line(&s, r->out) < 0 || fflush(r->out) == EOF)) {
		gd_snapshot_release(&s);
		return gd_cli_fail(_("writing %s: %s"), r->o->output, strerror(errno));
	}
	r->prev = s;
	snprintf(r->prev_tag, sizeof r->prev_tag, "%s", tag);
	r->have_prev = true;
	return 0;
}

/* Adds what NVML saw and the SKU table to the rows: a SKU figure only for a
 * probe whose share of the datasheet is known (sku.h). */
static void decorate(struct run *r, struct gd_snapshot *s)
{
	GD_VEC_EACH(s->probe, struct gd_probe_row, row) {
		const struct gd_gpu *now;
		double v;
		int i;

		for (i = 0; i < r->shm->ngpus; i++)
			if (row->gpu.ok && (uint64_t)r->idx[i] == row->gpu.v)
				break;
		if (i == r->shm->ngpus)
			continue;
		if (!strncmp(row->probe, "compute", 7) && r->w[i].have_burn) {
			const struct gd_gpu *g = &r->w[i].burn_end;

			row->temp_c = g->temp_c;
			row->sm_clock_mhz = g->sm_clock_mhz;
			row->power_w = g->power_w;
		}
		if (!strncmp(row->probe, "h2d", 3) || !strncmp(row->probe, "d2h", 3)) {
			/* the link under the copies; else the highest while loaded */
			if (r->w[i].gen || r->w[i].gen_any)
				gd_u64_set(&row->link_gen, r->w[i].gen ? r->w[i].gen : r->w[i].gen_any);
			if (r->w[i].width || r->w[i].width_any)
				gd_u64_set(&row->link_width, r->w[i].width ? r->w[i].width : r->w[i].width_any);
		}
		now = gpu_in(s, r->idx[i]);
		if (gd_sku_expected(gd_sku_find(&r->skus, now && now->name[0] ? now->name : r->shm->gpu[i].name),
				    gd_pk_by_name(row->probe), &v))
			gd_f64_set(&row->sku_expected, v);
	}
}

/* The host rules' findings join the engine's, most severe first (stable). */
static void merge_host(struct run *r, struct gd_findings *f)
{
	struct gd_findings h;
	struct gd_vec sorted = { NULL, 0, 0 };

	gd_findings_init(&h);
	gd_cli_host_judge(&r->host, &r->o->th, &h);
	GD_VEC_EACH(h.items, const struct gd_finding, x)
		*(struct gd_finding *)gd_vec_push(&f->items, sizeof *x) = *x;
	GD_VEC_EACH(h.unknown, const struct gd_unknown, u)
		*(struct gd_unknown *)gd_vec_push(&f->unknown, sizeof *u) = *u;
	f->evaluated += h.evaluated;
	gd_findings_release(&h);
	for (int sev = GD_SEV_CRITICAL; sev >= GD_SEV_INFO; sev--)
		GD_VEC_EACH(f->items, const struct gd_finding, x)
			if ((int)x->severity == sev)
				*(struct gd_finding *)gd_vec_push(&sorted, sizeof *x) = *x;
	gd_vec_release(&f->items);
	f->items = sorted;
}

static int report(struct run *r, bool interrupted, bool cannot_run)
{
	const struct gd_snapshot **snaps = calloc(r->kept.n, sizeof *snaps);
	const char **tags = calloc(r->kept.n, sizeof *tags);
	struct gd_window w = { NULL, r->kept.n };
	struct gd_findings f;
	struct gd_report rep = { 0 };
	struct gd_snapshot *last = &r->kept.items[r->kept.n - 1];
	int code;

	if (!snaps || !tags) {
		free(snaps);
		free(tags);
		return gd_cli_fail(_("out of memory"));
	}
	for (size_t i = 0; i < r->kept.n; i++) {
		snaps[i] = &r->kept.items[i];
		tags[i] = GD_VEC_AT(r->tags, struct tag, i)->s;
	}
	w.snaps = snaps;
	gd_findings_init(&f);
	gd_engine_run(&w, &r->o->th, &f);
	gd_probe_tag_phases(&w, tags, &r->o->th, &f);
	merge_host(r, &f);
	rep.w = &w;
	rep.findings = &f;
	rep.origin = interrupted ? "probe (interrupted)" : "probe";
	rep.color = !r->o->no_color && !getenv("NO_COLOR") && isatty(STDOUT_FILENO);
	code = gd_report_exit_code(&f);
	if (cannot_run && code < 2)
		code = EXIT_CANNOT_RUN;
	if (r->o->json) {
		json_t *doc = gd_out_json(&rep);

		json_object_set_new(doc, "exit", json_integer(code));
		json_object_set_new(doc, "probe", rows_json(last));
		if (gd_cli_host_ran(&r->host))
			json_object_set_new(doc, "host", gd_cli_host_json(&r->host, &r->o->th));
		json_object_set_new(doc, "interrupted", json_boolean(interrupted));
		json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		if (last->probe.n)
			print_table(stdout, last);
		gd_cli_host_print(&r->host, &r->o->th, stdout);
		gd_out_text(stdout, &rep);
		if (interrupted)
			puts(_("probe interrupted: the figures above are what was measured before the stop"));
	}
	if (fflush(stdout) == EOF)
		code = gd_cli_fail(_("writing the report: %s"), strerror(errno));
	gd_findings_release(&f);
	free(snaps);
	free(tags);
	return code;
}

/* The power draw at full burn: the GPUs' watts of their last burn sample. */
static void burn_end(struct run *r)
{
	double w = 0;
	unsigned n = 0;

	/* a GPU whose burn no sample caught (a short burn, a slow sampler)
	 * counts with the most it drew while the probe ran */
	for (int i = 0; r->shm && i < r->shm->ngpus; i++)
		if (r->w[i].burn_max_w > 0 || r->w[i].max_w > 0) {
			w += r->w[i].burn_max_w > 0 ? r->w[i].burn_max_w : r->w[i].max_w;
			n++;
		}
	gd_cli_host_burn_end(&r->host, n ? w : NAN, n);
	r->burn_over = true;
}

/* RAPL's first sample when the burn starts, the draw when it ends. */
static void burn_watch(struct run *r)
{
	bool burning = false;

	for (int i = 0; i < r->shm->ngpus; i++)
		burning = burning || r->shm->gpu[i].phase == GD_PK_COMPUTE_FP32;
	if (burning && !r->burn_seen) {
		r->burn_seen = true;
		gd_cli_host_burn_start(&r->host);
	} else if (!burning && r->burn_seen && !r->burn_over) {
		burn_end(r);
	}
}

/* Probe lengths of a --quick or --duration run. */
static void lengths(const struct popts *o, struct gd_probe_shm *shm)
{
	shm->burn_s = o->quick ? 10 : o->duration_s * 0.4;
	shm->pattern_s = o->quick ? 0 : o->duration_s * 0.2;
	shm->budget_s = o->deadline_s;
	shm->mem_fraction = 0.9;
}

static double expected_left(const struct gd_probe_shm *shm, double started)
{
	double total = 5 + 2 * shm->burn_s + shm->pattern_s + 3 * shm->ngpus + 10;

	return total - (gd_probe_now() - started);
}

int gd_cli_probe(int argc, char **argv)
{
	struct popts o;
	struct run r;
	struct gd_err err;
	struct gd_probe_shm *shm;
	struct gd_sku_table skus;
	struct sigaction sa, old_int, old_term;
	const struct gd_snapshot *first;
	pid_t child;
	int go_fd = -1, rc, hung_gpu = -1, code, st = 0;
	bool tty = isatty(STDERR_FILENO), killed = false, interrupted = false, reaped = false;
	char hung_why[256] = "";
	bool gpu_work, gpu_not_run = false;
	double started, stop_by = 0;

	if ((rc = parse(argc, argv, &o)) >= 0)
		return rc;
	gpu_work = (o.want & (((1u << GD_PK_COUNT) - 1) | GD_PROBE_WANT_P2P)) != 0;
	gd_err_clear(&err);
	if (gd_thresholds_load(&o.th, o.config ? o.config : GD_DEFAULT_CONFIG, !o.config, &err) < 0)
		return gd_cli_fail("%s", err.msg);
	/* the SKU table: built in, then the configuration's [probe.sku] sections */
	gd_sku_table_init(&skus);
	if (gd_sku_table_builtin(&skus, &err) < 0 ||
	    gd_sku_table_load(&skus, o.config ? o.config : GD_DEFAULT_CONFIG, !o.config, &err) < 0) {
		gd_sku_table_release(&skus);
		return gd_cli_fail("%s", err.msg);
	}
	shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		gd_sku_table_release(&skus);
		return gd_cli_fail("mmap: %s", strerror(errno));
	}
	memset(shm, 0, sizeof *shm);
	/* 1. the child, before any thread or CUDA call */
	if ((child = start_child(shm, &go_fd)) < 0) {
		munmap(shm, sizeof *shm);
		gd_sku_table_release(&skus);
		return gd_cli_fail("fork: %s", strerror(errno));
	}
	memset(&r, 0, sizeof r);
	r.o = &o;
	r.skus = skus;
	gd_series_init(&r.kept);
	gd_err_clear(&err);
	if (gd_root_open(&r.root, o.root ? o.root : "/", &err) < 0) {
		code = gd_cli_fail("%s", err.msg);
		goto out_child;
	}
	if (o.output && !(r.out = gd_outfile_fopen(o.output, true))) {
		code = gd_cli_fail("%s: %s", o.output, gd_outfile_strerror(errno));
		goto out_root;
	}
	r.ctx.root = &r.root;
	r.ctx.nvml_path = o.nvml_path ? o.nvml_path : getenv("GPUDOCTOR_NVML");
	r.ctx.nvml_timeout_s = o.nvml_timeout_s;
	r.ctx.nvml = gd_nvml_open(r.ctx.nvml_path, r.ctx.nvml_timeout_s);
	/* 2. what is there, and what may be probed */
	if ((code = sample(&r, false)) > 0)
		goto out_nvml;
	first = &r.prev;
	GD_VEC_EACH(first->gpus, const struct gd_gpu, g) {
		char why[256], name[32];

		skip_reason(&o, first, g, why, sizeof why);
		if (why[0]) {
			if (strcmp(why, "not selected (--gpus)") != 0) {
				snprintf(name, sizeof name, "probe:gpu%llu", (unsigned long long)(g->index.ok ? g->index.v : 0));
				add_source(&r.prev, name, "absent", why);
			}
			continue;
		}
		if (shm->ngpus >= GD_PROBE_MAX_GPUS)
			break;
		r.idx[shm->ngpus] = (int)g->index.v;
		snprintf(shm->gpu[shm->ngpus].bus_id, sizeof shm->gpu[0].bus_id, "%s", g->pci_bus_id);
		shm->gpu[shm->ngpus].phase = GD_PK_NONE;
		shm->ngpus++;
	}
	gd_cli_host_init(&r.host, o.root, o.data, o.want);
	if (gpu_work && !shm->ngpus && (o.want & GD_PROBE_WANT_HOST)) {
		/* no GPU to probe (no NVML, no libcuda, every GPU skipped): the
		 * host probes asked for still run; the GPU part is reported as
		 * not run, with the reason, and the exit status says 3 */
		char why[400];

		if (!r.prev.gpus.n)
			snprintf(why, sizeof why, "not run: NVML lists no GPU (%s)",
				 r.prev.nvml.reason[0] ? r.prev.nvml.reason : r.prev.nvml.status);
		else
			snprintf(why, sizeof why, "not run: every GPU was skipped (the probe:gpuN sources say why)");
		add_source(&r.prev, "probe:gpus", "absent", why);
		fprintf(stderr, "gpudoctor: %s\n", _("the GPU probes do not run; the host probes do (the report says why)"));
		GD_VEC_EACH(r.prev.sources, const struct gd_source, src)
			if (!strncmp(src->name, "probe:gpu", 9) && strcmp(src->name, "probe:gpus"))
				fprintf(stderr, "gpudoctor: %s: %s\n", src->name + 6, src->reason);
		gpu_work = false;
		gpu_not_run = true;
	}
	if (!gpu_work) {
		/* host probes only: no GPU, no child work */
		shm->ngpus = 0;
	} else if (!shm->ngpus) {
		if (!r.prev.gpus.n)
			code = gd_cli_fail(_("no GPU to probe: NVML lists none (%s)"), r.prev.nvml.reason[0] ? r.prev.nvml.reason : r.prev.nvml.status);
		else
			code = gd_cli_fail(_("no GPU to probe: every GPU was skipped (gpudoctor probe --json shows why; --force probes busy ones)"));
		GD_VEC_EACH(r.prev.sources, const struct gd_source, src)
			if (!strncmp(src->name, "probe:gpu", 9))
				fprintf(stderr, "gpudoctor: %s: %s\n", src->name + 6, src->reason);
		goto out_nvml;
	}
	shm->want = o.want;
	lengths(&o, shm);
	snprintf(shm->cuda_path, sizeof shm->cuda_path, "%s",
		 o.cuda_path ? o.cuda_path : getenv("GPUDOCTOR_CUDA") ? getenv("GPUDOCTOR_CUDA") : "");
	r.shm = shm;
	r.last_sig = phase_sig(shm);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* 3. go, and watch */
	started = gd_probe_now();
	if (!gpu_work) {
		/* the child reads end-of-file and exits without a CUDA call */
		close(go_fd);
		go_fd = -1;
		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
		reaped = true;
	} else if (write(go_fd, "g", 1) != 1) {
		code = gd_cli_fail(_("cannot start the probe process: %s"), strerror(errno));
		goto out_sig;
	}
	if (go_fd >= 0)
		close(go_fd);
	go_fd = -1;
	while (!reaped) {
		double now;
		pid_t w;

		sleep_s(o.interval_s);
		if ((w = waitpid(child, &st, WNOHANG)) == child) {
			reaped = true;
			break;
		}
		if ((code = sample(&r, false)) > 0)
			break;
		burn_watch(&r);
		progress(shm, expected_left(shm, started), tty);
		if (g_stop && !interrupted) {
			interrupted = true;
			shm->stop = 1;
			fprintf(stderr, "%s%s", tty ? "\r\033[K" : "", _("gpudoctor: stopping the probe after the work in flight\n"));
		}
		now = gd_probe_now();
		if (interrupted && !stop_by)
			stop_by = now + 10;
		if (interrupted && now > stop_by) {
			snprintf(hung_why, sizeof hung_why, "stopped: the probe process did not stop within 10 s of the interrupt");
			break;
		}
		for (int i = 0; i < shm->ngpus && !hung_why[0]; i++)
			if (shm->gpu[i].phase != GD_PK_NONE && now > shm->gpu[i].phase_deadline) {
				hung_gpu = i;
				snprintf(hung_why, sizeof hung_why, "%s did not finish within its deadline: the probe process was killed",
					 gd_pk_name(shm->gpu[i].phase));
			}
		if (!hung_why[0] && shm->phase != GD_PK_NONE && shm->phase_deadline > 0 && now > shm->phase_deadline)
			snprintf(hung_why, sizeof hung_why, "%s did not finish within its deadline: the probe process was killed",
				 gd_pk_name(shm->phase));
		if (hung_why[0])
			break;
	}
	if (tty)
		fputs("\r\033[K", stderr);
	if (!reaped) {
		kill_child(child);
		killed = true;
	}
	child = -1;
	settle(shm, hung_gpu, killed || shm->fatal[0] || interrupted,
	       hung_why[0] ? hung_why
	       : shm->fatal[0] ? shm->fatal
	       : interrupted ? "not run: the probe was interrupted"
			     : "the probe process ended before this probe");
	if (killed && hung_gpu < 0 && !interrupted)
		fprintf(stderr, "gpudoctor: %s\n", hung_why);
	/* the power draw if the burn ended between two samples; then storage
	 * and host memory, with the GPUs idle again */
	burn_end(&r);
	if (!interrupted)
		gd_cli_host_run(&r.host, tty ? stderr : NULL);
	/* 4. results and the verdict */
	if ((code = sample(&r, true)) > 0)
		goto out_sig;
	{
		struct gd_snapshot *last = &r.kept.items[r.kept.n - 1];

		gd_probe_rows(shm, r.idx, wall_now(), last);
		decorate(&r, last);
		if (shm->fatal[0])
			add_source(last, "probe:cuda", "failed", shm->fatal);
		/* which libcuda the probe loaded, and cuInit's error: driver.cuda_stub */
		GD_STRSET(last->driver.cuda_library, shm->cuda_library);
		if (shm->cuda_init_error)
			gd_u64_set(&last->driver.cuda_init_error, (uint64_t)shm->cuda_init_error);
		GD_VEC_EACH(r.kept.items[0].sources, const struct gd_source, src)
			if (!strncmp(src->name, "probe:gpu", 9))
				add_source(last, src->name, src->status, src->reason);
		if (r.out && (gd_snapshot_write_line(last, r.out) < 0 || fflush(r.out) == EOF))
			gd_cli_fail(_("writing %s: %s"), o.output, strerror(errno));
	}
	{
		bool measured = false;

		GD_VEC_EACH(r.kept.items[r.kept.n - 1].probe, const struct gd_probe_row, row)
			measured = measured || strcmp(row->status, "ok") == 0;
		if (!gpu_work)
			measured = gd_cli_host_ran(&r.host);
		if (shm->fatal[0])
			gd_cli_fail(_("the probe could not run: %s"), shm->fatal);
		else if (!measured)
			gd_cli_fail(_("no probe could run on any GPU (the report says why)"));
		code = report(&r, interrupted, !measured || gpu_not_run);
	}
out_sig:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out_nvml:
	gd_cli_host_release(&r.host);
	gd_nvml_close(r.ctx.nvml);
	if (r.have_prev)
		gd_snapshot_release(&r.prev);
	gd_series_release(&r.kept);
	gd_vec_release(&r.tags);
	if (r.out && fclose(r.out) == EOF)
		code = gd_cli_fail("%s: %s", o.output, strerror(errno));
out_root:
	gd_root_release(&r.root);
out_child:
	if (go_fd >= 0)
		close(go_fd);   /* the child reads EOF and exits */
	if (child > 0)
		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
	munmap(shm, sizeof *shm);
	gd_sku_table_release(&r.skus);
	return code;
}
