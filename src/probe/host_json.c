/*
 * host_json.c - the host probes' results as JSON (jansson): every figure
 * with its unit in the key (seq_mb_s, rand_4k_lat_us, triad_gb_s, draw_w),
 * NAN as null, and each availability as {"state": "ok"|"unavailable"|
 * "failed"|"not run", "why": "..."}.
 */
#include <math.h>

#include "probe/host.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *avail(const struct gd_probe_avail *a)
{
	json_t *o = json_object();

	json_object_set_new(o, "state", json_string(gd_probe_state_name(a->state)));
	if (a->why[0])
		json_object_set_new(o, "why", json_string(a->why));
	return o;
}

static json_t *storage_json(const struct gd_probe_storage_result *s)
{
	json_t *o = json_object(), *seq = json_object(), *rnd = json_object(), *small = json_object();

	json_object_set_new(o, "avail", avail(&s->avail));
	json_object_set_new(o, "dir", json_string(s->dir));
	json_object_set_new(o, "fstype", json_string(s->fstype));
	json_object_set_new(o, "fs_magic", json_integer((json_int_t)s->fs_magic));
	json_object_set_new(o, "mount_point", json_string(s->mount_point));
	json_object_set_new(o, "mount_source", json_string(s->mount_source));
	json_object_set_new(o, "block_dev", json_string(s->block_dev));
	json_object_set_new(o, "media", json_string(gd_probe_media_name(s->media)));
	json_object_set_new(o, "media_why", json_string(s->media_why));
	json_object_set_new(o, "files", json_integer((json_int_t)s->files));
	json_object_set_new(o, "bytes", json_integer((json_int_t)s->bytes));
	json_object_set_new(o, "small_files", json_integer((json_int_t)s->small_files));
	json_object_set_new(o, "walk_complete", json_boolean(s->walk_complete));

	json_object_set_new(seq, "avail", avail(&s->seq));
	json_object_set_new(seq, "cache_bypass", json_string(gd_probe_cache_name(s->seq_cache)));
	json_object_set_new(seq, "mb_s", num(s->seq_mb_s));
	json_object_set_new(seq, "bytes", json_integer((json_int_t)s->seq_bytes));
	json_object_set_new(seq, "seconds", num(s->seq_s));
	json_object_set_new(seq, "files", json_integer(s->seq_files));
	json_object_set_new(o, "seq_read", seq);

	json_object_set_new(rnd, "avail", avail(&s->rnd));
	json_object_set_new(rnd, "cache_bypass", json_string(gd_probe_cache_name(s->rnd_cache)));
	json_object_set_new(rnd, "lat_us", num(s->rnd_lat_us));
	json_object_set_new(rnd, "p50_us", num(s->rnd_p50_us));
	json_object_set_new(rnd, "p99_us", num(s->rnd_p99_us));
	json_object_set_new(rnd, "iops", num(s->rnd_iops));
	json_object_set_new(rnd, "reads", json_integer(s->rnd_reads));
	json_object_set_new(rnd, "file", json_string(s->rnd_file));
	json_object_set_new(o, "rand_4k", rnd);

	json_object_set_new(small, "avail", avail(&s->small));
	json_object_set_new(small, "cache_bypass", json_string(gd_probe_cache_name(s->small_cache)));
	json_object_set_new(small, "files_s", num(s->small_files_s));
	json_object_set_new(small, "mb_s", num(s->small_mb_s));
	json_object_set_new(small, "files", json_integer(s->small_n));
	json_object_set_new(small, "bytes", json_integer((json_int_t)s->small_bytes));
	json_object_set_new(small, "seconds", num(s->small_s));
	json_object_set_new(o, "small_files_read", small);

	json_object_set_new(o, "epoch_read_s", num(s->epoch_read_s));
	json_object_set_new(o, "epoch_open_s", num(s->epoch_open_s));
	return o;
}

static json_t *mem_json(const struct gd_probe_mem_result *m)
{
	json_t *o = json_object(), *nodes = json_array();

	json_object_set_new(o, "avail", avail(&m->avail));
	json_object_set_new(o, "numa", json_boolean(m->numa));
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct gd_probe_mem_node *n = &m->nodes[i];
		json_t *j = json_object();

		json_object_set_new(j, "node", json_integer(n->node));
		json_object_set_new(j, "avail", avail(&n->avail));
		json_object_set_new(j, "cpus", json_integer(n->ncpus));
		json_object_set_new(j, "threads", json_integer(n->threads));
		json_object_set_new(j, "elems", json_integer((json_int_t)n->elems));
		json_object_set_new(j, "triad_gb_s", num(n->triad_gb_s));
		json_object_set_new(j, "triad_avg_gb_s", num(n->triad_avg_gb_s));
		json_array_append_new(nodes, j);
	}
	json_object_set_new(o, "nodes", nodes);
	return o;
}

static json_t *power_json(const struct gd_probe_power_result *p)
{
	json_t *o = json_object(), *bmc = json_object(), *rapl = json_object();

	json_object_set_new(o, "avail", avail(&p->avail));
	json_object_set_new(o, "draw_w", num(p->draw_w));
	json_object_set_new(o, "draw_from", json_string(p->draw_from));
	json_object_set_new(o, "gpu_w", num(p->gpu_w));
	json_object_set_new(o, "gpus", json_integer(p->ngpus));
	json_object_set_new(rapl, "avail", avail(&p->rapl));
	json_object_set_new(rapl, "host_w", num(p->host_rapl_w));
	json_object_set_new(rapl, "interval_s", num(p->rapl_interval_s));
	json_object_set_new(rapl, "zones", json_string(p->rapl_zones));
	json_object_set_new(o, "rapl", rapl);
	json_object_set_new(bmc, "avail", avail(&p->bmc));
	json_object_set_new(bmc, "inst_w", num(p->ipmi.inst_w));
	json_object_set_new(bmc, "min_w", num(p->ipmi.min_w));
	json_object_set_new(bmc, "max_w", num(p->ipmi.max_w));
	json_object_set_new(bmc, "avg_w", num(p->ipmi.avg_w));
	json_object_set_new(bmc, "period_s", num(p->ipmi.period_s));
	json_object_set_new(bmc, "active", json_boolean(p->ipmi.active));
	json_object_set_new(o, "bmc", bmc);
	return o;
}

json_t *gd_probe_host_json(const struct gd_probe_host_results *r)
{
	json_t *o = json_object();

	if (!r)
		return o;
	if (r->storage)
		json_object_set_new(o, "storage", storage_json(r->storage));
	if (r->mem)
		json_object_set_new(o, "host_mem", mem_json(r->mem));
	if (r->power)
		json_object_set_new(o, "power", power_json(r->power));
	return o;
}
