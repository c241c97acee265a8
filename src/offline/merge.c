/*
 * merge.c - what the outputs of `check --from` said, merged into one
 * snapshot per instant (load.c reads the files and their parts).
 *
 * Instants: an output that samples the GPUs (nvidia-smi -q, -x, CSV, the
 * table) goes into the latest instant unless that instant already holds one
 * of the same kind, which starts the next instant (two `nvidia-smi -q` a
 * minute apart are two samples).  Kernel logs, lspci and the driver version
 * belong to no one instant: they are merged into the last.  Records merge
 * by key (GPUs by UUID or bus id, PCI functions by bus id): a field one
 * output lacks is taken from another, none is overwritten.
 *
 * A record with no match is appended; the kernel log's line and event
 * counts add up over its files.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/merge.h"
#include "offline/offline.h"
#include "offline/ofl.h"

void gd_ofl_init(struct gd_ofl *o, double lookback_s)
{
	memset(o, 0, sizeof *o);
	gd_series_init(&o->inst);
	gd_snapshot_init(&o->shared);
	o->lookback_s = lookback_s;
}

void gd_ofl_release(struct gd_ofl *o)
{
	gd_series_release(&o->inst);
	gd_snapshot_release(&o->shared);
}

/* Copies into dst every field dst lacks and src has. */
static void merge_fields(const struct gd_record_desc *d, void *dst, const void *src)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct gd_field *f = &d->fields[i];
		char *a = (char *)dst + f->offset;
		const char *b = (const char *)src + f->offset;

		if (f->type == GD_FT_U64 && !((struct gd_u64 *)(void *)a)->ok)
			*(struct gd_u64 *)(void *)a = *(const struct gd_u64 *)(const void *)b;
		else if (f->type == GD_FT_F64 && !((struct gd_f64 *)(void *)a)->ok)
			*(struct gd_f64 *)(void *)a = *(const struct gd_f64 *)(const void *)b;
		else if (f->type == GD_FT_STR && !a[0])
			memcpy(a, b, f->size);
	}
}

void ofl_merge_snapshot(struct gd_snapshot *dst, struct gd_snapshot *src)
{
	struct gd_klog_info *ki = &dst->klog_info;
	const struct gd_klog_info *si = &src->klog_info;

	/* counts of the kernel log add up over its files */
	if (ki->lines.ok && si->lines.ok) {
		ki->lines.v += si->lines.v;
		if (ki->events.ok && si->events.ok)
			ki->events.v += si->events.v;
	}
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];
		struct gd_vec *dv, *sv;

		if (!d->is_array) {
			merge_fields(d, (char *)dst + d->offset, (const char *)src + d->offset);
			continue;
		}
		dv = (struct gd_vec *)(void *)((char *)dst + d->offset);
		sv = (struct gd_vec *)(void *)((char *)src + d->offset);
		for (size_t j = 0; j < sv->n; j++) {
			const char *rec = (const char *)sv->items + j * d->size;
			void *into = NULL;

			if (dv == &dst->gpus) {
				const struct gd_gpu *g = (const struct gd_gpu *)(const void *)rec;

				into = ofl_gpu_find(dst, g->uuid, g->pci_bus_id);
			} else if (dv == &dst->pci_gpus) {
				const struct gd_pci_gpu *p = (const struct gd_pci_gpu *)(const void *)rec;

				into = (void *)(uintptr_t)gd_vec_find_str(&dst->pci_gpus, sizeof *p, offsetof(struct gd_pci_gpu, pci_bus_id), p->pci_bus_id);
			} else if (dv == &dst->gpu_procs) {
				const struct gd_gpu_proc *p = (const struct gd_gpu_proc *)(const void *)rec;

				GD_VEC_EACH(dst->gpu_procs, struct gd_gpu_proc, q)
					if (q->pid.v == p->pid.v && q->gpu.v == p->gpu.v)
						into = q;
			}
			if (into)
				merge_fields(d, into, rec);
			else
				memcpy(gd_vec_push(dv, d->size), rec, d->size);
		}
	}
}

static bool sample_kind(enum gd_ofl_kind k)
{
	return k == GD_OFL_SMI_Q || k == GD_OFL_SMI_XML || k == GD_OFL_SMI_CSV || k == GD_OFL_SMI_TABLE;
}

/* Merges t, a part of that kind: a sample of the GPUs into the latest
 * instant, or into a new one when the latest already holds that kind;
 * anything else into the evidence of no one instant. */
void ofl_merge_part(struct gd_ofl *o, enum gd_ofl_kind kind, struct gd_snapshot *t)
{
	unsigned bit = 1u << kind;

	if (sample_kind(kind)) {
		if (!o->inst.n || (o->last_kinds & bit)) {
			gd_series_push(&o->inst);
			o->last_kinds = 0;
		}
		o->last_kinds |= bit;
		ofl_merge_snapshot(&o->inst.items[o->inst.n - 1], t);
	} else {
		ofl_merge_snapshot(&o->shared, t);
	}
	o->any = true;
}

void gd_ofl_finish(struct gd_ofl *o, struct gd_series *ser)
{
	struct gd_snapshot *last;

	if (!o->any && !o->shared.sources.n)
		return;
	if (!o->inst.n)
		gd_series_push(&o->inst);
	last = &o->inst.items[o->inst.n - 1];
	ofl_merge_snapshot(last, &o->shared);
	for (size_t i = 0; i < o->inst.n; i++) {
		struct gd_snapshot *s = &o->inst.items[i];

		if (!s->nvml.status[0] && !s->nvml.reason[0])
			GD_STRSET(s->nvml.reason, _("no nvidia-smi output in the input"));
		*gd_series_push(ser) = *s;
	}
	free(o->inst.items);
	gd_series_init(&o->inst);
	gd_snapshot_release(&o->shared);
	gd_snapshot_init(&o->shared);
	o->any = false;
}

bool gd_ofl_describe(const struct gd_snapshot *s, char *desc, size_t descsz)
{
	size_t used = 0;
	bool any = false;

	desc[0] = '\0';
	GD_VEC_EACH(s->sources, const struct gd_source, src) {
		enum gd_ofl_kind k;

		if (strncmp(src->name, "offline:", 8) != 0)
			continue;
		any = true;
		if (strcmp(src->status, "failed") == 0)
			continue;
		for (k = GD_OFL_UNKNOWN; k < GD_OFL_NKINDS; k++)
			if (strcmp(src->name + 8, gd_ofl_kind_name(k)) == 0)
				break;
		if (k == GD_OFL_NKINDS || strstr(desc, gd_ofl_kind_title(k)))
			continue;
		used += (size_t)snprintf(desc + used, used < descsz ? descsz - used : 0, "%s%s", used ? ", " : "",
					 gd_ofl_kind_title(k));
		if (used >= descsz)
			break;
	}
	return any;
}
