/*
 * rule_job.c - what the job's own log proves (snapshot job_log[], read by
 * src/offline/joblog.c from `check --from train.log`).
 *
 * A message that names a cause already in the catalogue is evidence for
 * that rule (CAUSES.md, "The job itself"): the rule's own evaluation runs
 * first, then each of its messages in the log adds a finding, and the rule
 * has fired.  Without such a message the rule's verdict stands (a log says
 * nothing of a GPU's counters).
 *
 *   "uncorrectable ECC error encountered"             gpu.ecc_uncorrectable, critical
 *   "CUDA out of memory. Tried to allocate ..."       gpu.memory_full, warning, with
 *       the numbers (in use = total - free, else allocated, of total capacity)
 *   a DataLoader bus error that mentions shared memory        mem.shm_small, warning
 *   "driver version is insufficient for CUDA runtime version"
 *                                                     driver.cuda_too_new, critical
 *   "all CUDA-capable devices are busy or unavailable"
 *       gpu.shared_by_processes, warning: another process holds the GPU (exclusive
 *       compute mode), or the GPU is unusable
 *   "No CUDA GPUs are available"                      driver.nvml_unavailable, warning:
 *       the job sees no GPU (CUDA_VISIBLE_DEVICES, the container's GPU access)
 *
 * and the causes that are new:
 *
 * job.app_fault: illegal memory access, device-side assert, misaligned
 *   address: warning, an application fault, never reported as hardware.
 * job.collective_timeout: the NCCL watchdog timed out a collective; one
 *   finding per (op, SeqNum) with the ranks that reported it; critical when
 *   the same file shows the job taken down ("taking the entire process down",
 *   "terminate called"), else warning.
 * job.loader_worker_killed: a DataLoader worker killed by a signal or
 *   exited unexpectedly, when the log has no shared-memory message (that is
 *   mem.shm_small): warning.
 * net.rdma_unused: NCCL's INFO lines show a multi-node job (nNodes > 1, a
 *   channel via NET/, or two hosts) whose network is sockets ("Using network
 *   Socket", NET/Socket channels), with NCCL_IB_DISABLE set or no IB device:
 *   warning.  A job that selected another network (IB, IBext, a plugin) is
 *   healthy even with socket lines for bootstrap; a single-node job never
 *   uses the network for NCCL.
 *
 * Subjects are the log's ranks and hosts ("rank 3 (node-a12)"), a GPU as
 * the job numbers it ("cuda:0 (rank 3)"), or "the job".  Every finding's
 * evidence names the first line that proved it (log_line, file:line).
 * What dcgmi's output proves (the same job_log[] records, kinds "dcgmi_*")
 * is added to the rules in rule_dcgmi.c.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "klog/xid.h"
#include "rules/rule_job.h"
#include "rules/rule_util.h"

/* Findings of one rule past this are counted in the last one. */
#define MAX_SUBJECTS 8

static const char *const NO_LOG = N_("no log of the job in the input: give it with check --from train.log");

static bool is(const struct gd_job_log *r, const char *kind)
{
	return strcmp(r->kind, kind) == 0;
}

/* True when the last snapshot holds a job log that was read. */
static const struct gd_snapshot *job_log_read(const struct gd_rule_ctx *rc)
{
	const struct gd_snapshot *s = gd_window_last(rc->w);

	if (!s)
		return NULL;
	GD_VEC_EACH(s->sources, const struct gd_source, src)
		if (strcmp(src->name, "offline:job-log") == 0 && strcmp(src->status, "failed") != 0)
			return s;
	/* a record of the job's own log (not dcgmi's verdicts, kept beside them) */
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		if (strncmp(r->kind, "dcgmi_", 6) != 0)
			return s;
	return NULL;
}

const struct gd_snapshot *gd__job_log_read(const struct gd_rule_ctx *rc)
{
	return job_log_read(rc);
}

/* "rank 3 (node-a12)", "rank 3", "node-a12", or "" when the line names neither. */
static void who(char *dst, size_t n, const struct gd_job_log *r)
{
	if (r->rank.ok && r->host[0])
		snprintf(dst, n, "rank %llu (%s)", (unsigned long long)r->rank.v, r->host);
	else if (r->rank.ok)
		snprintf(dst, n, "rank %llu", (unsigned long long)r->rank.v);
	else
		snprintf(dst, n, "%s", r->host);
}

static void subject_of(char *dst, size_t n, const struct gd_job_log *r, bool gpu)
{
	char w[96];

	who(w, sizeof w, r);
	/* dcgmi numbers GPUs as NVML does */
	if (gpu && r->gpu.ok && strncmp(r->kind, "dcgmi_", 6) == 0)
		snprintf(dst, n, "gpu%llu", (unsigned long long)r->gpu.v);
	else if (strncmp(r->kind, "dcgmi_", 6) == 0)
		snprintf(dst, n, "every GPU");
	else if (gpu && r->gpu.ok)
		snprintf(dst, n, w[0] ? "cuda:%llu (%s)" : "cuda:%llu", (unsigned long long)r->gpu.v, w);
	else
		snprintf(dst, n, "%s", w[0] ? w : "the job");
}

static struct gd_finding *find_subject(struct gd_findings *out, size_t from, const char *subject)
{
	for (size_t i = from; i < out->items.n; i++) {
		struct gd_finding *f = (struct gd_finding *)out->items.items + i;

		if (strcmp(f->subject, subject) == 0)
			return f;
	}
	return NULL;
}

/* The finding of this rule for r's subject (one per subject, the first
 * line first); NULL past MAX_SUBJECTS (counted in *more). */
static struct gd_finding *finding_for(struct gd_rule_ctx *rc, struct gd_findings *out, size_t from,
				      enum gd_severity sev, const struct gd_job_log *r, bool gpu, bool *fresh,
				      size_t *more)
{
	char subj[128];
	struct gd_finding *f;

	subject_of(subj, sizeof subj, r, gpu);
	*fresh = false;
	if ((f = find_subject(out, from, subj)))
		return f;
	if (out->items.n - from >= MAX_SUBJECTS) {
		(*more)++;
		return NULL;
	}
	f = gd_finding_add(rc, out, sev, "%s", subj);
	*fresh = true;
	return f;
}

static void count_up(struct gd_finding *f)
{
	for (size_t i = 0; i < f->nev; i++)
		if (strcmp(f->ev[i].name, "messages") == 0) {
			f->ev[i].value.v++;
			return;
		}
}

static void note_more(struct gd_findings *out, size_t from, size_t more)
{
	if (more && out->items.n > from)
		gd_finding_ev((struct gd_finding *)out->items.items + out->items.n - 1, "other_subjects", (double)more, "",
			      NAN);
}

typedef gd__job_fill_fn fill_fn;

static size_t per_subject(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *s,
			  const char *kind, enum gd_severity sev, bool gpu, fill_fn fill)
{
	size_t from = out->items.n, more = 0;
	bool fresh;

	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		struct gd_finding *f;

		if (!is(r, kind) || !(f = finding_for(rc, out, from, sev, r, gpu, &fresh, &more)))
			continue;
		if (!fresh) {
			count_up(f);
			continue;
		}
		gd_finding_ev(f, "messages", 1, "", NAN);
		fill(rc, f, r);
		gd_finding_ev_line(f, r->file, (double)r->line.v, r->text);
	}
	note_more(out, from, more);
	return out->items.n - from;
}

size_t gd__job_per_subject(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *s,
			   const char *kind, enum gd_severity sev, bool gpu, gd__job_fill_fn fill)
{
	return per_subject(rc, out, s, kind, sev, gpu, fill);
}

/* Runs the rule's own evaluation, then adds what the job log proves. */
static enum gd_verdict with_log(struct gd_rule_ctx *rc, struct gd_findings *out, gd_rule_fn own, const char *kind,
				enum gd_severity sev, bool gpu, fill_fn fill)
{
	enum gd_verdict v = own(rc, out);
	const struct gd_snapshot *s = job_log_read(rc);

	if (s && per_subject(rc, out, s, kind, sev, gpu, fill)) {
		rc->why[0] = '\0';
		return GD_VERDICT_FIRED;
	}
	return v;
}

static void gib(char *dst, size_t n, struct gd_u64 v)
{
	if (v.ok && v.v >= 1073741824ull)
		snprintf(dst, n, "%.2f GiB", (double)v.v / 1073741824.0);
	else if (v.ok)
		snprintf(dst, n, "%.2f MiB", (double)v.v / 1048576.0);
	else
		snprintf(dst, n, "%s", _("n/a"));
}

/* ---- causes already in the catalogue ------------------------------------- */

static void fill_ecc(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	(void)rc;
	gd_finding_summary(f, _("The job's CUDA calls failed with \"uncorrectable ECC error encountered\" (%s:%llu): "
			     "the GPU's memory returned data it could not correct."),
			   r->file, (unsigned long long)r->line.v);
	gd_finding_remedy(f, _("%s Find which GPU it was (nvidia-smi -q -d ECC on the job's host: the volatile uncorrectable count)."),
			  tr(rc->rule->remedy));
}

enum gd_verdict gd_rule_joblog_gpu_ecc_uncorrectable(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	return with_log(rc, out, gd_rule_gpu_ecc_uncorrectable, "ecc_uncorrectable", GD_SEV_CRITICAL, true, fill_ecc);
}

static void fill_oom(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	char tried[32], total[32], free_[32], alloc[32];
	double used = NAN;

	gib(tried, sizeof tried, r->tried_bytes);
	gib(total, sizeof total, r->total_bytes);
	gib(free_, sizeof free_, r->free_bytes);
	gib(alloc, sizeof alloc, r->allocated_bytes);
	if (r->total_bytes.ok && r->total_bytes.v) {
		if (r->free_bytes.ok && r->free_bytes.v <= r->total_bytes.v)
			used = 100.0 * (double)(r->total_bytes.v - r->free_bytes.v) / (double)r->total_bytes.v;
		else if (r->allocated_bytes.ok)
			used = 100.0 * (double)r->allocated_bytes.v / (double)r->total_bytes.v;
	}
	if (r->tried_bytes.ok && isfinite(used))
		gd_finding_summary(f, _("The job ran out of device memory: it tried to allocate %s with %s of %s free "
					"(%.0f%% in use); PyTorch had %s allocated."), tried, free_, total, used, alloc);
	else if (r->tried_bytes.ok)
		gd_finding_summary(f, _("The job ran out of device memory: it tried to allocate %s with %s of %s free; "
					"PyTorch had %s allocated."), tried, free_, total, alloc);
	else
		gd_finding_summary(f, "%s", _("The job ran out of device memory (CUDA error: out of memory)."));
	gd_finding_ev(f, "used_pct", used, "%", TH(rc, GPU_MEMORY_FULL_PCT));
	if (r->tried_bytes.ok)
		gd_finding_ev(f, "tried_bytes", (double)r->tried_bytes.v, "bytes", NAN);
	if (r->total_bytes.ok)
		gd_finding_ev(f, "total_bytes", (double)r->total_bytes.v, "bytes", NAN);
	if (r->free_bytes.ok)
		gd_finding_ev(f, "free_bytes", (double)r->free_bytes.v, "bytes", NAN);
	if (r->allocated_bytes.ok)
		gd_finding_ev(f, "allocated_bytes", (double)r->allocated_bytes.v, "bytes", NAN);
	if (r->allocated_bytes.ok && r->total_bytes.ok && r->free_bytes.ok &&
	    r->allocated_bytes.v + r->free_bytes.v + r->total_bytes.v / 20 < r->total_bytes.v)
		gd_finding_remedy(f, _("%s PyTorch holds only %s of the %s in use: another process shares this GPU, or "
				       "the allocator's cache is fragmented (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)."),
				  tr(rc->rule->remedy), alloc, total);
}

enum gd_verdict gd_rule_job_gpu_memory_full(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	return with_log(rc, out, gd_rule_gpu_memory_full, "cuda_oom", GD_SEV_WARNING, true, fill_oom);
}

static void fill_shm(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	(void)rc;
	gd_finding_summary(f, _("A DataLoader worker failed for want of shared memory (%s:%llu): /dev/shm is too small "
			     "or full for the batches the workers pass through it."),
			   r->file, (unsigned long long)r->line.v);
}

enum gd_verdict gd_rule_job_mem_shm_small(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	return with_log(rc, out, gd_rule_mem_shm_small, "shm_exhausted", GD_SEV_WARNING, false, fill_shm);
}

static void fill_cuda_too_new(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	(void)rc;
	if (r->value.ok) {
		gd_finding_summary(f, _("The job's CUDA runtime is newer than the driver supports: the driver found is for "
					"CUDA %llu.%llu (%s:%llu)."),
				   (unsigned long long)r->value.v / 1000, (unsigned long long)r->value.v % 1000 / 10,
				   r->file, (unsigned long long)r->line.v);
		gd_finding_ev(f, "driver_cuda_version", (double)r->value.v, "", NAN);
	} else {
		gd_finding_summary(f, _("The job's CUDA runtime is newer than the driver supports: \"CUDA driver version "
					"is insufficient for CUDA runtime version\" (%s:%llu)."),
				   r->file, (unsigned long long)r->line.v);
	}
}

enum gd_verdict gd_rule_job_driver_cuda_too_new(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	return with_log(rc, out, gd_rule_driver_cuda_too_new, "cuda_too_new", GD_SEV_CRITICAL, false, fill_cuda_too_new);
}

static void fill_busy(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	(void)rc;
	gd_finding_summary(f, _("The job could not get a GPU: \"all CUDA-capable devices are busy or unavailable\" "
			     "(%s:%llu): another process holds it in an exclusive compute mode, or the GPU is unusable."),
			   r->file, (unsigned long long)r->line.v);
	gd_finding_remedy(f, "%s", _("See which processes hold the GPUs (nvidia-smi) and their compute mode (nvidia-smi -q -d "
				     "COMPUTE); give each job its own GPUs, or set the DEFAULT mode (nvidia-smi -i N -c 0); if no "
				     "process holds the GPU, look for gpu.* findings and reset it."));
}

enum gd_verdict gd_rule_job_gpu_shared_by_processes(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	return with_log(rc, out, gd_rule_gpu_shared_by_processes, "devices_busy", GD_SEV_WARNING, false, fill_busy);
}

static void fill_no_gpus(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	(void)rc;
	gd_finding_summary(f, _("The job found no GPU at all (%s:%llu): CUDA_VISIBLE_DEVICES hides them, the container "
			     "was started without GPUs, or the driver is not loaded."),
			   r->file, (unsigned long long)r->line.v);
	gd_finding_remedy(f, "%s", _("Check CUDA_VISIBLE_DEVICES (empty or wrong ids hide every GPU), that the container has "
				     "GPUs (docker run --gpus all, the NVIDIA container runtime, a GPU request in Kubernetes), and "
				     "that nvidia-smi works on the host."));
}

enum gd_verdict gd_rule_joblog_driver_nvml_unavailable(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	return with_log(rc, out, gd_rule_driver_nvml_unavailable, "no_gpus", GD_SEV_WARNING, false, fill_no_gpus);
}

/* ---- new causes ---------------------------------------------------------------- */

static void fill_fault(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	static const struct { const char *what, *says; } says[] = {
		{ "illegal_address", N_("an illegal memory access") },
		{ "device_assert", N_("a device-side assert") },
		{ "misaligned_address", N_("a misaligned address") },
	};
	const char *w = N_("a fault");

	(void)rc;
	for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
		if (strcmp(r->what, says[i].what) == 0)
			w = says[i].says;
	gd_finding_summary(f, _("The job's own code faulted on the GPU: %s (%s:%llu). This is an application or "
			     "framework bug, not a hardware fault."),
			   _(w), r->file, (unsigned long long)r->line.v);
	gd_finding_ev_text(f, "fault", r->what);
}

enum gd_verdict gd_rule_job_app_fault(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = job_log_read(rc);

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_LOG));
	return per_subject(rc, out, s, "app_fault", GD_SEV_WARNING, false, fill_fault) ? GD_VERDICT_FIRED
											 : GD_VERDICT_CLEAR;
}

/* One group of watchdog lines: the same collective (op, SeqNum). */
struct coll {
	char key[64];
	char ranks[96];
	size_t nranks;
	struct gd_finding *f;
};

enum gd_verdict gd_rule_job_collective_timeout(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = job_log_read(rc);
	const struct gd_job_log *died = NULL;
	struct coll g[MAX_SUBJECTS];
	size_t ng = 0, more = 0, from = out->items.n, reached;

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_LOG));
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		char key[64], rank[24] = "";
		size_t i;

		if (!is(r, "collective_timeout"))
			continue;
		/* the job died of it when its own log says so */
		died = NULL;
		GD_VEC_EACH(s->job_log, const struct gd_job_log, d)
			if (!died && is(d, "job_died") && strcmp(d->file, r->file) == 0)
				died = d;
		snprintf(key, sizeof key, "%.40s %llu", r->what, (unsigned long long)r->seq.v);
		if (r->rank.ok)
			snprintf(rank, sizeof rank, "%llu", (unsigned long long)r->rank.v);
		for (i = 0; i < ng && strcmp(g[i].key, key) != 0; i++)
			;
		if (i == ng) {
			struct gd_finding *f;

			if (ng == MAX_SUBJECTS) {
				more++;
				continue;
			}
			f = gd_finding_add(rc, out, died ? GD_SEV_CRITICAL : GD_SEV_WARNING, "the job");
			g[ng] = (struct coll){ .f = f };
			GD_STRSET(g[ng].key, key);
			ng++;
			gd_finding_summary(f, died ? _("The NCCL watchdog timed out %s (SeqNum %llu) after %.0f s (timeout %.0f s), "
						       "and the job was taken down: a rank stopped calling collectives or a link failed.")
						   : _("The NCCL watchdog timed out %s (SeqNum %llu) after %.0f s (timeout %.0f s): "
						       "a rank stopped calling collectives or a link failed."),
					   r->what[0] ? r->what : _("a collective"), (unsigned long long)r->seq.v,
					   r->ran_s.ok ? r->ran_s.v : NAN, r->timeout_s.ok ? r->timeout_s.v : NAN);
			gd_finding_ev(f, "messages", 0, "", NAN);
			if (r->seq.ok)
				gd_finding_ev(f, "seq", (double)r->seq.v, "", NAN);
			if (r->timeout_s.ok)
				gd_finding_ev(f, "timeout_s", r->timeout_s.v, "s", NAN);
			if (r->ran_s.ok)
				gd_finding_ev(f, "ran_s", r->ran_s.v, "s", NAN);
			gd_finding_ev_line(f, r->file, (double)r->line.v, r->text);
			if (died)
				gd_finding_ev_line(f, died->file, (double)died->line.v, died->text);
			/* the ranks' logs show every rank at that work: none stands out */
			if (r->seq.ok && (reached = gd__job_reached(s, r->seq.v))) {
				char was[sizeof f->summary];

				GD_STRSET(was, f->summary);
				gd_finding_summary(f, _("%s The %zu ranks of the logs all reached it: none stands out; the "
							"collective itself hangs (the network, a GPU: see net.* and gpu.* on "
							"their hosts), or a rank whose log is not here."),
						   was, reached);
				gd_finding_ev(f, "ranks_reached", (double)reached, "", NAN);
			}
		}
		count_up(g[i].f);
		/* the ranks that reported it, each once: "ranks 0, 4, 3" */
		if (rank[0]) {
			char pad[32];
			bool dup = false;

			snprintf(pad, sizeof pad, ", %s,", rank);
			{
				char list[sizeof g[i].ranks + 4];

				snprintf(list, sizeof list, ", %s,", g[i].ranks);
				dup = strstr(list, pad) != NULL;
			}
			if (!dup && strlen(g[i].ranks) + strlen(rank) + 6 < sizeof g[i].ranks) {
				cat(g[i].ranks, sizeof g[i].ranks, "%s%s", g[i].nranks ? ", " : "", rank);
				g[i].nranks++;
			} else if (!dup && !strstr(g[i].ranks, "...")) {
				cat(g[i].ranks, sizeof g[i].ranks, ", ...");
			}
		}
	}
	for (size_t i = 0; i < ng; i++)
		if (g[i].nranks)
			snprintf(g[i].f->subject, sizeof g[i].f->subject, "rank%s %s", g[i].nranks > 1 ? "s" : "", g[i].ranks);
	note_more(out, from, more);
	/* every rank at last enqueued -1: frozen before any collective */
	died = NULL;
	GD_VEC_EACH(s->job_log, const struct gd_job_log, d)
		if (!died && is(d, "job_died"))
			died = d;
	ng += gd__job_frozen(rc, out, s, died != NULL);
	return ng ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}

static void fill_loader(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	(void)rc;
	if (strcmp(r->what, "exited unexpectedly") == 0)
		gd_finding_summary(f, _("A DataLoader worker exited unexpectedly (%s:%llu), with no shared-memory message: it "
					"ran out of host memory or crashed."),
				   r->file, (unsigned long long)r->line.v);
	else if (strcmp(r->what, "Killed") == 0)
		gd_finding_summary(f, _("A DataLoader worker was killed by signal %s (%s:%llu), with no shared-memory "
					"message: SIGKILL is what the OOM killer sends: host memory ran out."),
				   r->what, r->file, (unsigned long long)r->line.v);
	else
		gd_finding_summary(f, _("A DataLoader worker was killed by signal %s (%s:%llu), with no shared-memory "
					"message: it crashed."),
				   r->what[0] ? r->what : "?", r->file, (unsigned long long)r->line.v);
	if (r->pid.ok)
		gd_finding_ev(f, "worker_pid", (double)r->pid.v, "", NAN);
	gd_finding_ev_text(f, "signal", r->what);
}

enum gd_verdict gd_rule_job_loader_worker_killed(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = job_log_read(rc);

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_LOG));
	/* a shared-memory message makes it mem.shm_small */
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		if (is(r, "shm_exhausted"))
			return GD_VERDICT_CLEAR;
	return per_subject(rc, out, s, "loader_killed", GD_SEV_WARNING, false, fill_loader) ? GD_VERDICT_FIRED
												  : GD_VERDICT_CLEAR;
}

static bool socket_net(const char *what)
{
	return strcmp(what, "Socket") == 0;
}

enum gd_verdict gd_rule_net_rdma_unused(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = job_log_read(rc);
	const struct gd_job_log *sock = NULL, *rdma = NULL, *off = NULL, *noib = NULL, *first = NULL;
	char hosts[128] = "", why[160] = "";
	size_t nhosts = 0, nccl = 0;
	uint64_t nnodes = 0;
	bool via_net = false;
	struct gd_finding *f;

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_LOG));
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		if (strncmp(r->kind, "nccl_", 5) != 0)
			continue;
		nccl++;
		if (!first)
			first = r;
		if (r->host[0] && !strstr(hosts, r->host)) {
			nhosts++;
			if (nhosts <= 3)
				cat(hosts, sizeof hosts, "%s%s", nhosts > 1 ? ", " : "", r->host);
		}
		if (is(r, "nccl_comm") && r->nnodes.ok && r->nnodes.v > nnodes)
			nnodes = r->nnodes.v;
		if (is(r, "nccl_channel"))
			via_net = true;
		if ((is(r, "nccl_net") || is(r, "nccl_channel")) && socket_net(r->what) && !sock)
			sock = r;
		if ((is(r, "nccl_net") || is(r, "nccl_channel")) && !socket_net(r->what) && !rdma)
			rdma = r;
		if (is(r, "nccl_ib_disable") && r->value.ok && r->value.v && !off)
			off = r;
		if (is(r, "nccl_no_ib") && !noib)
			noib = r;
	}
	if (!nccl)
		return gd_rule_unknown(rc, "%s", _("no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO)"));
	if (rdma && (!sock || !is(sock, "nccl_channel")))
		return GD_VERDICT_CLEAR; /* NCCL selected an RDMA network */
	if (!sock && !off && !noib)
		return GD_VERDICT_CLEAR;
	if (!(nnodes > 1 || via_net || nhosts > 1)) {
		if (nnodes == 1)
			return GD_VERDICT_CLEAR;
		return gd_rule_unknown(rc, "%s", _("NCCL's lines do not show whether the job spans nodes (no nNodes, no channel "
						   "via NET/, one host)"));
	}
	if (off)
		snprintf(why, sizeof why, "NCCL_IB_DISABLE=%llu", (unsigned long long)off->value.v);
	else if (noib)
		snprintf(why, sizeof why, "%s", _("NCCL found no IB device"));
	else
		snprintf(why, sizeof why, "%s", _("NCCL chose the socket network"));
	f = gd_finding_add(rc, out, GD_SEV_WARNING, "%s", hosts[0] ? hosts : "the job");
	if (nhosts > 3)
		cat(f->subject, sizeof f->subject, " (+%zu)", nhosts - 3);
	gd_finding_summary(f, nnodes > 1 ? _("The multi-node job's NCCL traffic goes over TCP sockets (%s, several nodes): "
					     "gradients cross the network without RDMA.")
				       : _("The multi-node job's NCCL traffic goes over TCP sockets (%s): gradients cross the "
					   "network without RDMA."),
			   why);
	if (nnodes)
		gd_finding_ev(f, "nodes", (double)nnodes, "", NAN);
	if (nhosts)
		gd_finding_ev(f, "hosts", (double)nhosts, "", NAN);
	gd_finding_ev_text(f, "transport", sock ? "Socket" : "no RDMA network");
	if (off)
		gd_finding_ev_line(f, off->file, (double)off->line.v, off->text);
	if (noib)
		gd_finding_ev_line(f, noib->file, (double)noib->line.v, noib->text);
	if (sock)
		gd_finding_ev_line(f, sock->file, (double)sock->line.v, sock->text);
	return GD_VERDICT_FIRED;
}
