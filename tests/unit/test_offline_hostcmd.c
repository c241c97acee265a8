/*
 * test_offline_hostcmd.c - the host commands `check --from` reads beside
 * nvidia-smi (src/offline/hostcmd.c: df, ibstat, ibv_devinfo), NCCL's
 * InfiniBand lines and torchrun's signal exits in a job's log
 * (src/offline/joblog.c), the kernel logs and -q fragments that used to be
 * refused or misread (detect.c, load.c), and what the rules make of them
 * (rule_job_rdma.c, rule_job_exit.c, gpu.power_capped without utilisation).
 * Malformed input: bad sizes and state words (partial, the line named),
 * nothing of the format (refused), NUL bytes, truncation, CRLF.
 */
#include "testutil.h"

#include "offline/offline.h"

#include <stdio.h>

static int paste(const char *text, struct gd_snapshot *s, struct gd_err *err)
{
	gd_snapshot_init(s);
	gd_err_clear(err);
	return gd_parse_offline_paste(text, strlen(text), s, err);
}

static const struct gd_shm *shm0(const struct gd_snapshot *s)
{
	assert_int_equal(s->shm.n, 1);
	return (const struct gd_shm *)s->shm.items;
}

static const struct gd_ib_port *port_of(const struct gd_snapshot *s, const char *dev)
{
	GD_VEC_EACH(s->ib_ports, const struct gd_ib_port, p)
		if (strcmp(p->device, dev) == 0)
			return p;
	fail_msg("no port of %s", dev);
	return NULL;
}

/* ---- df ----------------------------------------------------------------- */

static void test_df(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_shm *m;

	(void)state;
	/* df -h in a container: 64M */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_df,
				   "Filesystem      Size  Used Avail Use% Mounted on\n"
				   "overlay         1.9T  1.6T  224G  88% /\n"
				   "shm              64M   12K   64M   1% /dev/shm\n",
				   &s, &err),
			 0);
	m = shm0(&s);
	assert_int_equal(m->mounted.v, 1);
	assert_int_equal(m->size_bytes.v, 64ull << 20);
	assert_int_equal(m->used_bytes.v, 12ull << 10);
	gd_snapshot_release(&s);
	/* 1K-blocks, -T's type column, CRLF, a name wrapped onto its own line */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_df,
				   "Filesystem     Type  1K-blocks  Used Available Use% Mounted on\r\n"
				   "/dev/mapper/a-very-long-volume-group-name\r\n"
				   "               ext4  51474912 10 51474902   1% /\r\n"
				   "shm            tmpfs    65536     0     65536   0% /dev/shm\r\n",
				   &s, &err),
			 0);
	m = shm0(&s);
	assert_int_equal(m->size_bytes.v, 65536ull * 1024);
	assert_string_equal(m->fstype, "tmpfs");
	gd_snapshot_release(&s);
	/* a row whose size is no df size: partial, the line named */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_df,
				   "Filesystem      Size  Used Avail Use% Mounted on\n"
				   "shm              64Q     0   64M   0% /dev/shm\n",
				   &s, &err),
			 1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(s.shm.n, 0);
	gd_snapshot_release(&s);
	/* no df line at all: refused */
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_df, "hello\nworld\n", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "df"));
	gd_snapshot_release(&s);
	/* truncated mid-row, and NUL bytes: no crash, nothing invented */
	{
		static const char t[] = "Filesystem Size Used Avail Use% Mounted on\nshm 6\0M 0 64M 0% /dev/shm\nshm 64";

		gd_snapshot_init(&s);
		assert_int_equal(gd_parse_df(t, sizeof t - 1, &s, &err), 1);
		assert_int_equal(s.shm.n, 0);
		gd_snapshot_release(&s);
	}
}

static void test_df_rule(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings out;

	(void)state;
	/* a paste of df -h: detected, mem.shm_small fires on 64M */
	assert_int_equal(paste("$ df -h /dev/shm\nFilesystem      Size  Used Avail Use% Mounted on\n"
			       "shm              64M     0   64M   0% /dev/shm\n",
			       &s, &err),
			 0);
	assert_int_equal(gd_ofl_detect("shm 64M 0 64M 0% /dev/shm\n", 27), GD_OFL_DF);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("mem.shm_small", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(one_finding(&out)->subject, "/dev/shm");
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* a large /dev/shm stays silent */
	assert_int_equal(paste("Filesystem      Size  Used Avail Use% Mounted on\n"
			       "tmpfs            63G  1.2G   62G   2% /dev/shm\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("mem.shm_small", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	assert_int_equal(out.items.n, 0);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

/* ---- ibstat, ibv_devinfo ------------------------------------------------ */

static void test_ibstat(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_ib_port *p;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_ibstat,
				   "CA 'mlx4_0'\n\tCA type: MT4099\n\tNumber of ports: 2\n\tPort 1:\n\t\tState: Down\n"
				   "\t\tPhysical state: Disabled\n\t\tRate: 10\n\t\tPort GUID: 0xf4521403007be0e1\n"
				   "\t\tLink layer: InfiniBand\n\tPort 2:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
				   "\t\tRate: 56\n",
				   &s, &err),
			 0);
	assert_int_equal(s.ib_ports.n, 2);
	p = (const struct gd_ib_port *)s.ib_ports.items;
	assert_int_equal(p[0].port.v, 1);
	assert_int_equal(p[0].state.v, 1);
	assert_string_equal(p[0].state_name, "DOWN");
	assert_int_equal(p[0].phys_state.v, 3);
	assert_string_equal(p[0].phys_state_name, "Disabled");
	assert_string_equal(p[0].link_layer, "InfiniBand");
	assert_int_equal(p[1].state.v, 4);
	assert_int_equal(p[1].phys_state.v, 5);
	assert_float_equal(p[1].rate_gbps.v, 56, 1e-9);
	gd_snapshot_release(&s);
	/* ibv_devinfo -v: state and phys_state with their codes */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_ibstat,
				   "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tphys_port_cnt:\t\t\t1\n"
				   "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n"
				   "\t\t\tphys_state:\t\tLINK_UP (5)\n\t\t\tlink_layer:\t\tEthernet\n",
				   &s, &err),
			 0);
	p = port_of(&s, "mlx5_0");
	assert_int_equal(p->state.v, 4);
	assert_string_equal(p->state_name, "ACTIVE");
	assert_int_equal(p->phys_state.v, 5);
	assert_string_equal(p->link_layer, "Ethernet");
	gd_snapshot_release(&s);
	/* a state word neither prints: partial, that line named, the field absent */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_ibstat, "CA 'mlx5_3'\n\tPort 1:\n\t\tState: Sideways\n\t\tRate: fast\n", &s,
				   &err),
			 1);
	assert_non_null(strstr(err.msg, "line 3"));
	assert_non_null(strstr(err.msg, "2 in all"));
	assert_false(port_of(&s, "mlx5_3")->state.ok);
	gd_snapshot_release(&s);
	/* ports before any device, or no port at all: refused */
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_ibstat, "\tPort 1:\n\t\tState: Active\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_ibstat, "CA 'mlx5_0'\n\tCA type: MT4129\n", &s, &err) < 0);
	assert_int_equal(s.ib_ports.n, 0);
	gd_snapshot_release(&s);
	/* truncated after a port's header: the port is kept, unjudged */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_ibstat, "CA 'mlx5_0'\n\tPort 1:", &s, &err), 0);
	assert_false(port_of(&s, "mlx5_0")->state.ok);
	gd_snapshot_release(&s);
}

static void test_ibstat_rule(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings out;

	(void)state;
	assert_int_equal(paste("$ ibstat\nCA 'mlx5_10'\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Polling\n"
			       "\t\tRate: 10\nCA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
			       "\t\tRate: 400\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.rdma_down", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(one_finding(&out)->subject, "mlx5_10 port 1");
	assert_int_equal(one_finding(&out)->severity, GD_SEV_CRITICAL);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* every port Active and LinkUp: silent */
	assert_int_equal(paste("CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.rdma_down", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

/* ---- NCCL's InfiniBand lines -------------------------------------------- */

static void test_nccl_ib_lines(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(
		parse_lit(gd_parse_joblog,
			  "node-a:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
			  "172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid ::1 "
			  "remoteGids::2 hca mlx5_3\n"
			  "node48:1:2 [4] transport/net_ib.cc:1238 NCCL WARN NET/IB : Got completion from peer node47<37948> "
			  "with error 5, opcode 2, len 1, vendor err 249\n"
			  "[1,12]<stdout>:node-c:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : mlx5_1:1 Got async "
			  "event : port error\n"
			  "E0325 api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 2630) of binary: python\n"
			  "  exitcode  : -9 (pid: 2630)\n"
			  "  traceback : Signal 9 (SIGKILL) received by PID 2630\n"
			  "failed (exitcode: -6) local_rank: 1 (pid: 77)\n",
			  &s, &err),
		0);
	r = jl_kind(&s, "nccl_ib_wc", 0);
	assert_non_null(r);
	assert_string_equal(r->host, "node-a");
	assert_string_equal(r->peer, "172.36.143.59");
	assert_int_equal(r->wc_status.v, 12);
	assert_string_equal(r->what, "Recv");
	assert_string_equal(r->hca, "mlx5_3");
	r = jl_kind(&s, "nccl_ib_wc", 1);
	assert_string_equal(r->peer, "node47");
	assert_int_equal(r->wc_status.v, 5);
	r = jl_kind(&s, "nccl_ib_async", 0);
	assert_string_equal(r->host, "node-c");
	assert_string_equal(r->hca, "mlx5_1:1");
	assert_string_equal(r->what, "port error");
	/* one record per pid and signal; -6 kept too */
	assert_non_null(jl_kind(&s, "exit_signal", 0));
	assert_int_equal(jl_kind(&s, "exit_signal", 0)->value.v, 9);
	assert_int_equal(jl_kind(&s, "exit_signal", 0)->pid.v, 2630);
	assert_int_equal(jl_kind(&s, "exit_signal", 1)->value.v, 6);
	assert_null(jl_kind(&s, "exit_signal", 2));
	gd_snapshot_release(&s);
	/* cut lines: no peer, no status, a signal past 64: nothing invented */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_joblog,
				   "h:1:2 [0] NCCL WARN NET/IB : Got completion from peer \n"
				   "h:1:2 [0] NCCL WARN NET/IB : Got async event : \n"
				   "failed (exitcode: -99) local_rank: 0 (pid: 5)\n",
				   &s, &err),
			 0);
	r = jl_kind(&s, "nccl_ib_wc", 0);
	assert_string_equal(r->peer, "");
	assert_false(r->wc_status.ok);
	assert_null(jl_kind(&s, "exit_signal", 0));
	gd_snapshot_release(&s);
}

static void test_nccl_ib_rule(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings out;
	const struct gd_finding *f;

	(void)state;
	/* retry exceeded then flushed, to one peer: one critical finding naming status 12 */
	assert_int_equal(paste("n1:9:9 [4] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=5 "
			       "opcode=0 len=0 vendor err 249 (Recv)\n"
			       "n1:9:9 [4] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<2> with status=12 "
			       "opcode=0 len=0 vendor err 129 (Recv)\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.rdma_down", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	f = one_finding(&out);
	assert_string_equal(f->subject, "n1 -> 10.0.0.2");
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_float_equal(ev_get(f, "wc_status")->value.v, 12, 1e-9);
	assert_float_equal(ev_get(f, "messages")->value.v, 2, 1e-9);
	assert_string_equal(ev_get(f, "status")->text, "transport retry counter exceeded");
	assert_non_null(strstr(f->remedy, "10.0.0.2"));
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* flushes only: a warning (the first error is elsewhere) */
	assert_int_equal(paste("n1:9:9 [4] NCCL WARN NET/IB : Got completion from peer 10.0.0.3<1> with status=5 "
			       "opcode=0 len=0 vendor err 249 (Send)\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.rdma_down", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(one_finding(&out)->severity, GD_SEV_WARNING);
	assert_string_equal(ev_get(one_finding(&out), "status")->text, "Work Request Flushed Error");
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* an async event that is no error, and healthy IB INFO lines: no finding */
	assert_int_equal(paste("n1:9:9 [0] NCCL WARN NET/IB : mlx5_0:1 Got async event : GID table change\n"
			       "n1:9:9 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
			       "n1:9:9 [0] NCCL INFO Using network IB\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_not_equal(run_rule2("net.rdma_down", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 0);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* a catastrophic device error: critical */
	assert_int_equal(paste("n2:1:1 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local "
			       "catastrophic error\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.rdma_down", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(one_finding(&out)->severity, GD_SEV_CRITICAL);
	assert_string_equal(one_finding(&out)->subject, "n2");
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_exit_signal_rule(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings out;

	(void)state;
	assert_int_equal(paste("  exitcode  : -9 (pid: 14750)\n  traceback : Signal 9 (SIGKILL) received by PID 14750\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("mem.oom_kill", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(one_finding(&out)->subject, "pid 14750");
	assert_int_equal(one_finding(&out)->severity, GD_SEV_WARNING);
	assert_non_null(strstr(one_finding(&out)->remedy, "dmesg"));
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* SIGABRT is not the OOM killer's */
	assert_int_equal(paste("failed (exitcode: -6) local_rank: 0 (pid: 77) of binary: python\n", &s, &err), 0);
	gd_findings_init(&out);
	assert_int_not_equal(run_rule2("mem.oom_kill", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 0);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

/* ---- kernel logs and -q fragments that were refused or misread ---------- */

static void test_klog_shapes(void **state)
{
	static const char *const known_nothing[] = {
		"[Tue Aug 19 02:04:26 2025] nvidia-uvm: Loaded the UVM driver, major device number 506.\n"
		"[Tue Aug 19 02:04:27 2025] [drm] [nvidia-drm] [GPU ID 0x00008800] Loading driver\n",
		"[2345678.123456] nvidia-nvlink: Nvlink Core is being initialized, major device number 510\n",
		"> [ 3793.421343] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  331.113\n"
		"> [ 3794.409463] nvidia_uvm: Loaded the UVM driver, major device number 251\n",
		"nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  390.67\n",
	};
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	for (size_t i = 0; i < sizeof known_nothing / sizeof known_nothing[0]; i++) {
		assert_int_equal(gd_ofl_detect(known_nothing[i], strlen(known_nothing[i])), GD_OFL_KLOG);
		assert_int_equal(paste(known_nothing[i], &s, &err), 0);
		gd_snapshot_release(&s);
	}
	/* prose with a bracket is not a kernel log */
	assert_int_equal(gd_ofl_detect("[see above] it hangs\n", 21), GD_OFL_UNKNOWN);
	/* a quoted Xid is read */
	assert_int_equal(paste("> [ 3793.421343] NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.\n",
			       &s, &err),
			 0);
	assert_int_equal(s.klog.n, 1);
	gd_snapshot_release(&s);
	/* a traceback, then the kernel's lines, in one block: both read */
	assert_int_equal(paste("Traceback (most recent call last):\n  File \"train.py\", line 8, in <module>\n"
			       "RuntimeError: CUDA error: an illegal memory access was encountered\n"
			       "[82659.755933] NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0, "
			       "SM 0): Illegal Instruction Encoding\n",
			       &s, &err),
			 0);
	assert_non_null(jl_kind(&s, "app_fault", 0));
	assert_int_equal(s.klog.n, 1);
	gd_snapshot_release(&s);
}

static void test_power_cap_without_util(void **state)
{
	static const char frag[] = "GPU 00000000:0B:00.0\n"
				   "    Performance State                     : P2\n"
				   "    Clocks Event Reasons\n"
				   "        Idle                              : Not Active\n"
				   "        SW Power Cap                      : %s\n"
				   "        HW Slowdown                       : Not Active\n";
	char text[512];
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings out;

	(void)state;
	snprintf(text, sizeof text, frag, "Active");
	assert_int_equal(paste(text, &s, &err), 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.power_capped", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(one_finding(&out)->severity, GD_SEV_INFO);
	assert_non_null(strstr(one_finding(&out)->summary, "power limit"));
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	snprintf(text, sizeof text, frag, "Not Active");
	assert_int_equal(paste(text, &s, &err), 0);
	gd_findings_init(&out);
	assert_int_not_equal(run_rule2("gpu.power_capped", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 0);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

/* ---- nvidia-smi nvlink -s, -e ------------------------------------------- */

static const struct gd_gpu *gpu_idx(const struct gd_snapshot *s, uint64_t idx)
{
	GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
		if (g->index.ok && g->index.v == idx)
			return g;
	fail_msg("no gpu%llu", (unsigned long long)idx);
	return NULL;
}

static void test_nvlink(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings out;
	const struct gd_gpu *g;

	(void)state;
	/* -s and -e of two GPUs, the newer "CRC Flit/Data Errors" words */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvlink,
				   "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-fde0a018-ad1a-bbec-ccf6-50a9f64bd178)\n"
				   "\t Link 0: 25 GB/s\n\t Link 1: <inactive>\n"
				   "GPU 1: NVIDIA GeForce RTX 3090 (UUID: GPU-bbbb)\n"
				   "\t Link 0: Replay Errors: 12\n\t Link 0: Recovery Errors: 0\n"
				   "\t Link 0: CRC Flit Errors: 5\n\t Link 0: CRC Data Errors: 0\n",
				   &s, &err),
			 0);
	g = gpu_idx(&s, 0);
	assert_string_equal(g->name, "NVIDIA A100-SXM4-40GB");
	assert_string_equal(g->uuid, "GPU-fde0a018-ad1a-bbec-ccf6-50a9f64bd178");
	assert_int_equal(g->nvlink_links.v, 2);
	assert_int_equal(g->nvlink_up_links.v, 1);
	assert_int_equal(gpu_idx(&s, 1)->nvlink_errors.v, 17);
	gd_snapshot_release(&s);
	/* a link number or a count that is not one: partial, the line named */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvlink, "GPU 0: X (UUID: GPU-1)\n\t Link x: 25 GB/s\n\t Link 0: CRC Errors: many\n",
				   &s, &err),
			 1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_non_null(strstr(err.msg, "2 in all"));
	gd_snapshot_release(&s);
	/* links before any GPU, or no link at all: refused */
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_nvlink, "\t Link 0: 25 GB/s\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_nvlink, "GPU 0: X (UUID: GPU-1", &s, &err) < 0);
	gd_snapshot_release(&s);
	/* the rule: counters read once -> info; zero counters and all links up: silent */
	assert_int_equal(paste("$ nvidia-smi nvlink -e\nGPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n"
			       "\t Link 0: Replay Errors: 3\n\t Link 0: Recovery Errors: 0\n\t Link 0: CRC Errors: 0\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.nvlink_errors", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(one_finding(&out)->severity, GD_SEV_INFO);
	assert_float_equal(ev_get(one_finding(&out), "nvlink_errors")->value.v, 3, 1e-9);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	assert_int_equal(paste("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n"
			       "\t Link 0: Replay Errors: 0\n\t Link 0: Recovery Errors: 0\n\t Link 0: CRC Errors: 0\n",
			       &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.nvlink_errors", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* a lone PCIe board with some links inactive is not judged down (bridges) */
	assert_int_equal(paste("GPU 0: NVIDIA A100 80GB PCIe (UUID: GPU-p)\n\t Link 0: 25 GB/s\n\t Link 1: <inactive>\n", &s,
			       &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.nvlink_errors", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_df),		  cmocka_unit_test(test_df_rule),
		cmocka_unit_test(test_ibstat),		  cmocka_unit_test(test_ibstat_rule),
		cmocka_unit_test(test_nccl_ib_lines),	  cmocka_unit_test(test_nccl_ib_rule),
		cmocka_unit_test(test_exit_signal_rule), cmocka_unit_test(test_klog_shapes),
		cmocka_unit_test(test_power_cap_without_util), cmocka_unit_test(test_nvlink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
