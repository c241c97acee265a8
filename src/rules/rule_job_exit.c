/*
 * rule_job_exit.c - mem.oom_kill from a launcher's report that a worker died
 * of SIGKILL (job_log[] kind exit_signal, src/offline/joblog.c), added to
 * what the kernel log proves (rule_klog.c).
 *
 * Mechanism.  torchrun (torch.distributed.elastic) reports a worker that a
 * signal ended as "exitcode: -N": -9 is SIGKILL, which a process cannot
 * catch.  The kernel's OOM killer sends SIGKILL when host memory (or the
 * container's memory limit) runs out, and that is its most common sender
 * for a training job; a scheduler enforcing a limit, or a person's kill -9,
 * send it too.  The log alone cannot tell them apart: the kernel log of
 * that node can ("Out of memory: Killed process 14750 (python)").
 *
 * Threshold: any SIGKILL exit; warning (the cause is likely, not proven).
 * Other signals make no finding here.
 *
 * Worked example (lzhxmu/CPPO#6): "exitcode  : -9 (pid: 14750)" and
 * "traceback : Signal 9 (SIGKILL) received by PID 14750" -> one finding,
 * "pid 14750", warning, messages=1 (the same pid and signal are one record).
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "rules/rule_job.h"

#define SIGKILL_NO 9
#define MAX_EXIT_SUBJECTS 8

enum gd_verdict gd_rule_job_mem_oom_kill(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = gd_rule_mem_oom_kill(rc, out);
	const struct gd_snapshot *s = gd__job_log_read(rc);
	size_t from = out->items.n, more = 0;

	if (!s)
		return v;
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		struct gd_finding *f;

		if (strcmp(r->kind, "exit_signal") != 0 || !r->value.ok || r->value.v != SIGKILL_NO)
			continue;
		if (out->items.n - from >= MAX_EXIT_SUBJECTS) {
			more++;
			continue;
		}
		if (r->pid.ok)
			f = gd_finding_add(rc, out, GD_SEV_WARNING, "pid %llu", (unsigned long long)r->pid.v);
		else
			f = gd_finding_add(rc, out, GD_SEV_WARNING, "%s", "the job");
		/* TRANSLATORS: %1$s where it was (file:line, as "train.log:12") */
		gd_finding_summary(f, _("A worker of the job was killed by SIGKILL (exit code -9, %s:%llu): the OOM killer "
					"sends it when host memory or the container's limit runs out, its most common "
					"sender; a scheduler's limit or a kill -9 send it too."),
				   r->file, (unsigned long long)r->line.v);
		gd_finding_remedy(f, "%s",
				  _("Read the kernel log of that node around the failure (dmesg -T | grep -i -E 'out of "
				    "memory|killed process', or journalctl -k) and give it to gpudoctor check --from: if "
				    "the OOM killer did it, cut host memory use (fewer DataLoader workers, smaller prefetch, "
				    "checkpoints loaded shard by shard) or raise the container's memory limit."));
		gd_finding_ev(f, "signal", SIGKILL_NO, "", NAN);
		if (r->pid.ok)
			gd_finding_ev(f, "pid", (double)r->pid.v, "", NAN);
		gd_finding_ev_line(f, r->file, (double)r->line.v, r->text);
	}
	if (more && out->items.n > from)
		gd_finding_ev((struct gd_finding *)out->items.items + out->items.n - 1, "other_subjects", (double)more, "",
			      NAN);
	if (out->items.n == from)
		return v;
	rc->why[0] = '\0';
	return GD_VERDICT_FIRED;
}
