/*
 * test_view.c - the live view's layout (tui/view.c) on hand-built
 * snapshots: what each size shows, widths, the short-screen fallbacks, the
 * plain line, clock-event reasons; and tui.c's loading of libncursesw
 * when the library is missing or is not ncurses (the terminal is never
 * touched: loading comes first).
 */
#include "testutil.h"

#include <stdio.h>

#include "tui/tui.h"
#include "tui/view.h"

static size_t chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static bool has(const struct gd_vec *lines, const char *needle)
{
	GD_VEC_EACH(*lines, const struct gd_view_line, l)
		if (strstr(l->text, needle))
			return true;
	return false;
}

struct fixture {
	struct gd_snapshot a, b;
	const struct gd_snapshot *p[2];
	struct gd_window w;
	struct gd_thresholds th;
	struct gd_findings f;
	struct gd_episode ep;
	struct gd_view_model m;
};

static void fixture_init(struct fixture *x, size_t nfindings)
{
	memset(x, 0, sizeof *x);
	pair_init(&x->a, &x->b, 1.0);
	GD_STRSET(x->b.host.hostname, "gpu-a17");
	for (int s = 0; s < 2; s++) {
		struct gd_snapshot *sn = s ? &x->b : &x->a;

		gd_u64_set(&sn->cpu.user_ticks, s ? 150 : 100);
		gd_u64_set(&sn->cpu.nice_ticks, 0);
		gd_u64_set(&sn->cpu.system_ticks, 0);
		gd_u64_set(&sn->cpu.idle_ticks, s ? 140 : 100);
		gd_u64_set(&sn->cpu.iowait_ticks, s ? 110 : 100);
		gd_u64_set(&sn->cpu.irq_ticks, 0);
		gd_u64_set(&sn->cpu.softirq_ticks, 0);
		gd_u64_set(&sn->cpu.steal_ticks, 0);
		for (unsigned g = 0; g < 2; g++) {
			struct gd_gpu *x1 = GD_PUSH(sn, gpus, struct gd_gpu);
			struct gd_gpu_proc *gp = GD_PUSH(sn, gpu_procs, struct gd_gpu_proc);

			gd_u64_set(&x1->index, g);
			GD_STRSET(x1->name, "NVIDIA H100 80GB HBM3");
			gd_u64_set(&x1->util_gpu_pct, g ? 3 : 98);
			gd_u64_set(&x1->sm_clock_mhz, 1980);
			gd_u64_set(&x1->sm_clock_max_mhz, 1980);
			gd_f64_set(&x1->temp_c, 45);
			gd_f64_set(&x1->temp_slowdown_c, 87);
			gd_f64_set(&x1->power_w, 350.5);
			gd_f64_set(&x1->power_limit_w, 700);
			gd_u64_set(&x1->pcie_gen, 5);
			gd_u64_set(&x1->pcie_width, 16);
			gd_u64_set(&x1->clock_event_reasons, 0x24);
			gd_u64_set(&gp->gpu, g);
		}
	}
	x->p[0] = &x->a;
	x->p[1] = &x->b;
	x->w.snaps = x->p;
	x->w.n = 2;
	gd_thresholds_init(&x->th);
	gd_findings_init(&x->f);
	for (size_t i = 0; i < nfindings; i++) {
		struct gd_finding *f = gd_vec_push(&x->f.items, sizeof *f);

		f->id = "io.checkpoint_stall";
		f->severity = GD_SEV_WARNING;
		snprintf(f->subject, sizeof f->subject, "sd%c", (char)('a' + i));
		snprintf(f->summary, sizeof f->summary, "Every GPU was idle for 8.0 s \xe2\x80\x94 12 GB at 1.5 GB/s \xc2\xb0 %zu", i);
		snprintf(f->remedy, sizeof f->remedy, "Write checkpoints asynchronously.");
	}
	x->ep.start_s = 1000;
	x->ep.duration_s = 8;
	x->ep.gpus = 3;
	x->ep.kinds = GD_EP_IDLE;
	x->m.w = &x->w;
	x->m.th = &x->th;
	x->m.findings = &x->f;
	x->m.episodes = &x->ep;
	x->m.nepisodes = 1;
	x->m.interval_s = 0.5;
}

static void fixture_release(struct fixture *x)
{
	gd_findings_release(&x->f);
	gd_snapshot_release(&x->a);
	gd_snapshot_release(&x->b);
}

static void layout_80x24(void **state)
{
	struct fixture x;
	struct gd_vec lines = { 0 };
	size_t n;

	fixture_init(&x, 2);
	n = gd_view_layout(&x.m, 80, 24, &lines);
	assert_true(n <= 24);
	GD_VEC_EACH(lines, const struct gd_view_line, l)
		assert_true(chars(l->text) <= 80);
	assert_true(has(&lines, "host gpu-a17"));
	assert_true(has(&lines, "GPU UTIL SM MHz"));
	assert_true(has(&lines, "0    98% 1980/1980  45/87C    350/700W"));
	assert_true(has(&lines, "idle  sw_power_cap,sw"));
	assert_true(has(&lines, "CPU [#####.....]  50%  iowait 10%"));
	assert_true(has(&lines, "FINDINGS (2)"));
	assert_true(has(&lines, "WARNING  io.checkpoint_stall sdb"));
	assert_true(has(&lines, "  -> Write checkpoints"));
	assert_true(has(&lines, "EPISODES (1)"));
	assert_true(has(&lines, "up 1000.0 s +8.0 s gpu0-1 idle"));
	assert_false(has(&lines, "NVIDIA"));   /* no name column below 120 */
	assert_int_equal(GD_VEC_AT(lines, struct gd_view_line, n - 1)->attr, GD_VA_DIM);
	gd_vec_release(&lines);
	fixture_release(&x);
}

static void short_and_narrow(void **state)
{
	struct fixture x;
	struct gd_vec lines = { 0 };

	fixture_init(&x, 9);
	/* 16 rows: 6 fixed lines above, 3 headers/footer, 1 episode: 6 for
	 * nine findings: one line each, five of them and "... and 4 more". */
	assert_int_equal(gd_view_layout(&x.m, 80, 16, &lines), 16);
	assert_false(has(&lines, "->"));
	assert_true(has(&lines, "... and 4 more"));
	assert_true(has(&lines, "EPISODES (1)"));
	/* 30 columns: every line cut, UTF-8 never split. */
	gd_view_layout(&x.m, 30, 24, &lines);
	GD_VEC_EACH(lines, const struct gd_view_line, l) {
		assert_true(chars(l->text) <= 30);
		assert_true(strlen(l->text) == 0 || ((unsigned char)l->text[strlen(l->text) - 1] & 0xc0) != 0xc0);
	}
	/* 200 columns: the GPU name and a bar. */
	gd_view_layout(&x.m, 200, 50, &lines);
	assert_true(has(&lines, "NVIDIA H100 80GB HBM [####################]  98%"));
	/* Three rows: never more lines than rows. */
	assert_int_equal(gd_view_layout(&x.m, 80, 3, &lines), 3);
	gd_vec_release(&lines);
	fixture_release(&x);
}

static void plain_line_and_reasons(void **state)
{
	struct fixture x;
	char buf[1024];

	fixture_init(&x, 1);
	GD_STRSET(GD_VEC_AT(x.f.items, struct gd_finding, 0)->subject, "sd\na");
	assert_string_equal(gd_view_plain(&x.m, buf, sizeof buf),
			    "up 1001.0 | gpu0 98% 1980MHz 45C 350W | gpu1 3% 1980MHz 45C 350W idle | cpu 50% iowait 10% "
			    "| findings: io.checkpoint_stall(sd?a) | episodes: 1");
	assert_string_equal(gd_clock_reasons_str(0x1c4, buf, sizeof buf), "sw_power_cap,hw_thermal,power_brake,display_clocks");
	assert_string_equal(gd_clock_reasons_str(0, buf, sizeof buf), "");
	/* No snapshot yet, no GPUs. */
	x.w.n = 0;
	assert_string_equal(gd_view_plain(&x.m, buf, sizeof buf), "");
	fixture_release(&x);
}

static void tui_without_ncurses(void **state)
{
	struct gd_tui *t = (struct gd_tui *)&t;
	struct gd_err err;

	(void)state;
	gd_err_clear(&err);
	assert_int_equal(gd_tui_start(&t, "libgd-no-such-library.so.6", false, &err), GD_TUI_NOLIB);
	assert_null(t);
	assert_string_equal(err.msg, "libgd-no-such-library.so.6 is not installed (apt-get install libncursesw6)");
	gd_err_clear(&err);
	assert_int_equal(gd_tui_start(&t, "libc.so.6", false, &err), GD_TUI_NOLIB);
	assert_null(t);
	assert_string_equal(err.msg, "libc.so.6 has no newterm");
	gd_tui_end(NULL);
}

/* Rows take their GPU's worst severity; the odd one out is marked '!'
 * (its own warning, or stalled while most siblings are not), a stall that
 * half the GPUs share is not. */
static void odd_gpu_marked(void **state)
{
	struct fixture x;
	struct gd_vec lines = { 0 };
	struct gd_finding *f;
	const struct gd_view_line *row0 = NULL, *row1 = NULL, *row2 = NULL;

	(void)state;
	fixture_init(&x, 0);
	/* two GPUs, gpu1 idle: half of them, not odd */
	gd_view_layout(&x.m, 200, 50, &lines);
	GD_VEC_EACH(lines, const struct gd_view_line, l)
		assert_null(strchr(l->text, '!'));
	/* a third GPU, busy: gpu1 is now the one idle GPU of three */
	{
		struct gd_gpu *g = GD_PUSH(&x.b, gpus, struct gd_gpu);
		struct gd_gpu_proc *gp = GD_PUSH(&x.b, gpu_procs, struct gd_gpu_proc);

		*g = *GD_VEC_AT(x.b.gpus, struct gd_gpu, 0);
		gd_u64_set(&g->index, 2);
		gd_u64_set(&gp->gpu, 2);
	}
	/* gpu0 alone has a critical finding; every GPU has the same info */
	f = gd_vec_push(&x.f.items, sizeof *f);
	memset(f, 0, sizeof *f);
	f->id = "gpu.row_remap_pending";
	f->severity = GD_SEV_CRITICAL;
	snprintf(f->subject, sizeof f->subject, "gpu0 (0000:3b:00.0)");
	for (int i = 0; i < 3; i++) {
		f = gd_vec_push(&x.f.items, sizeof *f);
		memset(f, 0, sizeof *f);
		f->id = "gpu.persistence_off";
		f->severity = GD_SEV_INFO;
		snprintf(f->subject, sizeof f->subject, "gpu%d", i);
	}
	gd_view_layout(&x.m, 80, 24, &lines);
	GD_VEC_EACH(lines, const struct gd_view_line, l) {
		if (strncmp(l->text, "0  ", 3) == 0)
			row0 = l;
		if (strncmp(l->text, "1  ", 3) == 0)
			row1 = l;
		if (strncmp(l->text, "2  ", 3) == 0)
			row2 = l;
	}
	assert_non_null(row0);
	assert_non_null(row1);
	assert_non_null(row2);
	assert_int_equal(row0->attr, GD_VA_CRIT);
	assert_non_null(strstr(row0->text, "5x16  !     sw_"));   /* not stalled, but its own critical finding */
	assert_int_equal(row1->attr, GD_VA_WARN);
	assert_non_null(strstr(row1->text, "5x16  idle! sw_"));
	assert_int_equal(row2->attr, GD_VA_INFO);        /* only the info every GPU shares */
	assert_null(strchr(row2->text, '!'));
	gd_vec_release(&lines);
	fixture_release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_80x24),
		cmocka_unit_test(short_and_narrow),
		cmocka_unit_test(plain_line_and_reasons),
		cmocka_unit_test(odd_gpu_marked),
		cmocka_unit_test(tui_without_ncurses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
