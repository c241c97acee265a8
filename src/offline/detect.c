/*
 * detect.c - what kind of output a text is, from its content (never its
 * file name), and the lines that split a paste into outputs.
 *
 * The marks looked for, strongest first:
 *
 *   {"version":1,...                          snapshot JSON lines
 *   <?xml ... <nvidia_smi_log>                nvidia-smi -q -x
 *   Start of NVIDIA bug report log file       nvidia-bug-report.log
 *   ==============NVSMI LOG==============     nvidia-smi -q (or "GPU 00000000:3B:00.0"
 *                                             followed by "    Key : Value" lines)
 *   | NVIDIA-SMI 550.54.15  Driver Version:   the nvidia-smi table; its one-line failures
 *   index, name, utilization.gpu [%]          nvidia-smi --query-gpu CSV (or the command line)
 *   3b:00.0 3D controller: NVIDIA ...         lspci (-vv)
 *   LnkSta: Speed 2.5GT/s, Width x16          lspci -vv fragments (no device header)
 *   NVRM version: NVIDIA UNIX x86_64 ...      /proc/driver/nvidia/version
 *   [ 5023.456789] ..., Nov 30 01:02:03 host kernel: ...   a kernel log
 *   Filesystem  Size  Used Avail Use% Mounted on   df (rows ending in a mount point)
 *   CA 'mlx5_0', hca_id: mlx5_0, Physical state:   ibstat, ibv_devinfo
 *   Link 0: 25.781 GB/s, Link 0: CRC Errors: 0       nvidia-smi nvlink -s, -e
 *   CUDA out of memory, [Rank 3] Watchdog caught ..., NCCL INFO ...
 *                                             the job's own log (joblog.c), any line
 *
 * Pastes into tickets put shell prompts ("$ nvidia-smi -q",
 * "root@gpu-a17:~# dmesg | grep -i xid", "[root@host ~]# lspci -vv"),
 * comments ("# node 3, after the crash"), rules ("-----", "_____", code
 * fences) and elisions ("[...]", "...", "<snip>") between and inside them.
 */
#include <ctype.h>
#include <string.h>

#include "core/i18n.h"
#include "klog/fmlog.h"
#include "klog/klog.h"
#include "offline/offline.h"
#include "offline/ofl.h"
#include "offline/split.h"

static const char *const names[GD_OFL_NKINDS] = {
	"unknown", "snapshot", "nvidia-smi-q", "nvidia-smi-xml", "nvidia-smi-csv", "nvidia-smi", "kernel-log",
	"lspci", "driver-version", "bug-report", "job-log", "dcgmi", "df", "ibstat", "nvidia-smi-nvlink",
	"fabricmanager-log", "nvidia-smi-topo",
};

static const char *const titles[GD_OFL_NKINDS] = {
	N_("unknown text"), N_("snapshot JSON lines"), "nvidia-smi -q", "nvidia-smi -q -x", "nvidia-smi --query-gpu",
	"nvidia-smi", N_("kernel log"), "lspci -vv", "/proc/driver/nvidia/version", "nvidia-bug-report.log",
	N_("job log"), "dcgmi", "df", "ibstat / ibv_devinfo", "nvidia-smi nvlink",
	N_("Fabric Manager log"), "nvidia-smi topo -m",
};

const char *gd_ofl_kind_name(enum gd_ofl_kind k)
{
	return k < GD_OFL_NKINDS ? names[k] : "unknown";
}

const char *gd_ofl_kind_title(enum gd_ofl_kind k)
{
	return _(k < GD_OFL_NKINDS ? titles[k] : "unknown text");
}

static bool has(const char *buf, size_t len, const char *lit)
{
	return memmem(buf, len, lit, strlen(lit)) != NULL;
}

/* "3b:00.0 " or "0000:3b:00.0 " at the start of a line. */
static bool lspci_header(struct gd_slice l)
{
	char bus[32];
	size_t i = 0;

	while (i < l.n && l.p[i] != ' ')
		i++;
	return i < l.n && i >= 7 && ofl_bus_id((struct gd_slice){ l.p, i }, bus, sizeof bus) &&
	       memchr(l.p + i, ':', l.n - i) != NULL;
}

/* "    Product Name    : X": an indented key, blanks, a colon. */
static bool q_line(struct gd_slice l)
{
	const char *c;

	if (l.n < 8 || l.p[0] != ' ' || !(c = memmem(l.p, l.n, " : ", 3)))
		return false;
	return c - l.p > 5;
}

/* A markdown quote's "> " (or ">"), repeated, before a line. */
static struct gd_slice unquote(struct gd_slice t)
{
	while (t.n && t.p[0] == '>') {
		t.p++;
		t.n--;
		t = gd_tok_trim(t);
	}
	return t;
}

/* The look of a kernel-log line whose message gpudoctor may not know: a
 * dmesg stamp of any width ("[2345678.123456]"), dmesg -T's ("[Tue Aug 19
 * 02:04:26 2025]"), or a driver's prefix as dmesg -t prints it. */
static bool klog_look(struct gd_slice t)
{
	static const char *const prefixes[] = { "NVRM:", "nvidia:", "nvidia-uvm:", "nvidia_uvm:", "nvidia-modeset:",
						"nvidia-nvlink:", "nvidia-nvswitch", "[drm] [nvidia-drm]" };
	size_t i;

	if (t.n > 4 && t.p[0] == '[') {
		const char *close = memchr(t.p, ']', t.n < 40 ? t.n : 40);
		size_t n = close ? (size_t)(close - t.p) : 0, digits = 0, dots = 0, colons = 0;

		for (i = 1; i < n; i++) {
			digits += isdigit((unsigned char)t.p[i]) != 0;
			dots += t.p[i] == '.';
			colons += t.p[i] == ':';
		}
		/* "[ 5023.456789]": digits, blanks and one dot */
		if (n && digits && dots == 1 && !colons && digits + 1 + strspn(t.p + 1, " ") >= n - 1)
			return true;
		/* "[Tue Aug 19 02:04:26 2025]" */
		if (n >= 20 && colons == 2 && isalpha((unsigned char)t.p[1]) && t.p[4] == ' ')
			return true;
	}
	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (gd_tok_prefix(t, prefixes[i]))
			return true;
	return false;
}

enum gd_ofl_kind gd_ofl_detect(const char *buf, size_t len)
{
	size_t head = len < 65536 ? len : 65536, lines = 0, fml = 0, qlines = 0, klines = 0, pci = 0, fails = 0, lnk = 0,
	       trows = 0, dcgm = 0, df = 0, ib = 0, nvl = 0;
	struct gd_lines it;
	struct gd_slice l;
	size_t i = 0;

	while (i < len && isspace((unsigned char)buf[i]))
		i++;
	if (i == len)
		return GD_OFL_UNKNOWN;
	if (buf[i] == '{' && has(buf + i, head - i, "\"version\""))
		return GD_OFL_JSONL;
	if (has(buf, head, "<nvidia_smi_log"))
		return GD_OFL_SMI_XML;
	if (has(buf, head, "Start of NVIDIA bug report log file") || has(buf, head, "nvidia-bug-report.sh Version"))
		return GD_OFL_BUG_REPORT;
	if (has(buf, head, "NVSMI LOG") || has(buf, head, "Attached GPUs"))
		return GD_OFL_SMI_Q;
	if (has(buf, head, "| NVIDIA-SMI ") || has(buf, head, "|  NVIDIA-SMI "))
		return GD_OFL_SMI_TABLE;
	if (has(buf, head, "NVRM version:"))
		return GD_OFL_DRIVER;
	/* the matrix's legend, or its header's affinity columns */
	if (has(buf, head, "GPU0") && (has(buf, head, "CPU Affinity") || has(buf, head, "PIX  = Connection traversing")))
		return GD_OFL_TOPO;
	gd_lines_init(&it, buf, head);
	while (gd_tok_line(&it, &l) && lines < 400) {
		struct gd_klog_event ev;
		struct gd_slice t = gd_tok_trim(ofl_chomp(l));

		if (!t.n)
			continue;
		lines++;
		if (lines == 1 && (has(t.p, t.n, "--query-gpu=") || has(t.p, t.n, "--query-compute-apps=")))
			return GD_OFL_SMI_CSV;
		/* the header on one of the first lines (rows pasted above it, a title) */
		if (lines <= 5 && (lines == 1 || memchr(t.p, ',', t.n)) && ofl_csv_header(t))
			return GD_OFL_SMI_CSV;
		trows += ofl_table_gpu_row(t);
		dcgm += ofl_dcgmi_line(t);
		df += ofl_df_line(t);
		ib += ofl_ibstat_line(t);
		nvl += ofl_nvlink_line(t);
		if (ofl_contains(t, "No devices were found") || ofl_contains(t, "NVIDIA-SMI has failed") ||
		    ofl_contains(t, "Failed to initialize NVML") || ofl_contains(t, "Unable to determine the device handle"))
			fails++;
		qlines += q_line(ofl_chomp(l)) || (t.n > 16 && strncmp(t.p, "GPU 0000", 8) == 0);
		pci += l.n && l.p[0] != ' ' && l.p[0] != '\t' && lspci_header(l) && ofl_contains(l, "NVIDIA");
		/* lspci -vv fragments: "LnkSta:" without the device header, in prose too */
		lnk += has(t.p, t.n, "LnkSta:") || has(t.p, t.n, "LnkCap:") || has(t.p, t.n, "ACSCtl:");
		fml += gd_fmlog_is_line(t.p, t.n);
		{
			struct gd_slice u = unquote(t);

			if (gd_klog_parse_line(u.p, u.n, &ev) != GD_KLOG_NONE || klog_look(u) || ofl_contains(u, " kernel: "))
				klines++;
		}
	}
	if (pci && (has(buf, head, "LnkCap") || has(buf, head, "LnkSta") || has(buf, head, "Kernel driver")))
		return GD_OFL_LSPCI;
	if (qlines >= 3 && qlines * 3 >= lines)
		return GD_OFL_SMI_Q;
	if (dcgm)
		return GD_OFL_DCGMI;
	if (ib >= 2)
		return GD_OFL_IBSTAT;
	if (nvl && nvl * 2 >= lines)
		return GD_OFL_NVLINK;
	/* df: its header, or mostly its rows (a CI log numbers the lines between them) */
	if (df && (df * 2 >= lines || ofl_contains((struct gd_slice){ buf, head }, "Mounted on")))
		return GD_OFL_DF;
	if ((fails && lines <= 4) || trows)
		return GD_OFL_SMI_TABLE;
	/* Fabric Manager's log (its messages run over several lines) */
	if (fml && fml * 4 >= lines)
		return GD_OFL_FMLOG;
	if (klines && klines * 4 >= lines)
		return GD_OFL_KLOG;
	if (pci || lnk)
		return GD_OFL_LSPCI;
	if (fails)
		return GD_OFL_SMI_TABLE;
	/* the job's own log: any line of it, anywhere in the text */
	if (gd_joblog_any(buf, len))
		return GD_OFL_JOBLOG;
	/* a traceback with kernel-log lines after it: its events are read */
	if (ofl_klog_events(buf, head))
		return GD_OFL_KLOG;
	return GD_OFL_UNKNOWN;
}

bool ofl_klog_events(const char *buf, size_t len)
{
	struct gd_lines it;
	struct gd_slice l;

	if (!memmem(buf, len, "NVRM", 4) && !memmem(buf, len, "illed process", 13) && !memmem(buf, len, "AER", 3) &&
	    !memmem(buf, len, "blocked for more than", 21) && !memmem(buf, len, "EDAC", 4) &&
	    !memmem(buf, len, "Out of memory", 13) && !memmem(buf, len, "nvidia", 6))
		return false;
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &l)) {
		struct gd_klog_event ev;
		struct gd_slice u = unquote(gd_tok_trim(ofl_chomp(l)));

		if (u.n && gd_klog_parse_line(u.p, u.n, &ev) != GD_KLOG_NONE)
			return true;
	}
	return false;
}

/* ---- the lines between outputs ---------------------------------------------- */

static bool only_of(struct gd_slice t, char c, size_t min)
{
	if (t.n < min)
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (t.p[i] != c)
			return false;
	return true;
}

/* A command line: its first word is a program people run to gather
 * evidence, or a wrapper around one. */
static bool prompt_cmd(struct gd_slice c)
{
	static const char *const progs[] = { "nvidia-smi", "dmesg", "journalctl", "lspci", "cat", "grep", "egrep", "sudo",
					     "tail", "head", "less", "zcat", "dcgmi", "python", "python3", "torchrun",
					     "kubectl", "docker", "srun", "ssh", "nvidia-bug-report.sh", "./nvidia-smi",
					     "df", "ibstat", "ibv_devinfo" };
	size_t n = 0;

	while (n < c.n && c.p[n] != ' ' && c.p[n] != '\t')
		n++;
	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
		if (strlen(progs[i]) == n && strncmp(c.p, progs[i], n) == 0)
			return true;
	return false;
}

enum ofl_line ofl_line_class(struct gd_slice line, struct gd_slice *cmd)
{
	static const char *const elisions[] = { "[...]", "...", "\xe2\x80\xa6", "[\xe2\x80\xa6]", "<snip>", "[snip]",
						"--snip--", "(...)", "[ ... ]", "<...>", "(snip)", "[..]", ". . ." };
	struct gd_slice t = gd_tok_trim(ofl_chomp(line));
	size_t i;

	cmd->p = t.p;
	cmd->n = 0;
	if (!t.n)
		return OFL_LINE_TEXT;
	for (i = 0; i < sizeof elisions / sizeof elisions[0]; i++)
		if (ofl_ieq(t, elisions[i]))
			return OFL_LINE_ELISION;
	if (ofl_contains(t, "lines omitted") || ofl_contains(t, "output truncated") || ofl_contains(t, "snipped"))
		if (t.n < 60 && (t.p[0] == '[' || t.p[0] == '(' || t.p[0] == '<' || t.p[0] == '.'))
			return OFL_LINE_ELISION;
	if (only_of(t, '_', 10) || only_of(t, '-', 10) || only_of(t, '=', 10) || only_of(t, '*', 10) ||
	    gd_tok_prefix(t, "```") || gd_tok_prefix(t, "~~~"))
		return OFL_LINE_RULE;
	/* "$ cmd", "# cmd" (a root prompt or a comment), "> cmd" (a Windows or
	 * PS2 prompt; "> text" is a markdown quote: text) */
	if (t.p[0] == '>' && t.n > 2 && t.p[1] == ' ' && !prompt_cmd(gd_tok_trim((struct gd_slice){ t.p + 1, t.n - 1 })))
		return OFL_LINE_TEXT;
	if (gd_tok_prefix(t, "# Entity")) /* dcgmi dmon's old header, not a comment */
		return OFL_LINE_TEXT;
	if ((t.p[0] == '$' || t.p[0] == '#' || t.p[0] == '>') && (t.n == 1 || t.p[1] == ' ')) {
		*cmd = gd_tok_trim((struct gd_slice){ t.p + 1, t.n - 1 });
		return t.p[0] == '#' && !ofl_cmd_kind(*cmd) ? OFL_LINE_COMMENT : OFL_LINE_PROMPT;
	}
	if (t.n >= 2 && t.p[0] == '/' && t.p[1] == '/')
		return OFL_LINE_COMMENT;
	/* "/usr/bin/nvidia-smi --query" (nvidia-bug-report.log's command headers) */
	if (t.p[0] == '/' && (memmem(t.p, t.n < 24 ? t.n : 24, "bin/", 4))) {
		*cmd = t;
		return OFL_LINE_PROMPT;
	}
	/* "*** /var/log/kern.log" (nvidia-bug-report.log's file headers) */
	if (gd_tok_prefix(t, "*** ")) {
		*cmd = gd_tok_trim((struct gd_slice){ t.p + 4, t.n - 4 });
		return OFL_LINE_PROMPT;
	}
	/* "(base) [user@host:dir]$ cmd", "(venv) user@host:~$ cmd": a conda or
	 * virtualenv name before the prompt */
	if (t.p[0] == '(') {
		const char *close = memchr(t.p, ')', t.n < 40 ? t.n : 40);

		if (close && close + 2 < t.p + t.n && close[1] == ' ' && !memchr(t.p, ' ', (size_t)(close - t.p))) {
			struct gd_slice rest = gd_tok_trim((struct gd_slice){ close + 1, (size_t)(t.p + t.n - close - 1) });
			enum ofl_line c = ofl_line_class(rest, cmd);

			if (c == OFL_LINE_PROMPT)
				return c;
			cmd->p = t.p;
			cmd->n = 0;
		}
	}
	/* "[root@host ~]# cmd" */
	if (t.p[0] == '[') {
		const char *close = memchr(t.p, ']', t.n < 96 ? t.n : 96);

		if (close && close + 2 < t.p + t.n && (close[1] == '$' || close[1] == '#') && close[2] == ' ' &&
		    memchr(t.p, '@', (size_t)(close - t.p))) {
			*cmd = gd_tok_trim((struct gd_slice){ close + 3, (size_t)(t.p + t.n - close - 3) });
			return OFL_LINE_PROMPT;
		}
		return OFL_LINE_TEXT;
	}
	/* "user@host:~$ cmd", "root@host:/tmp# cmd" */
	for (i = 0; i < t.n && t.p[i] != ' '; i++)
		;
	if (i >= 3 && i < t.n && (t.p[i - 1] == '$' || t.p[i - 1] == '#') && memchr(t.p, '@', i)) {
		*cmd = gd_tok_trim((struct gd_slice){ t.p + i, t.n - i });
		return OFL_LINE_PROMPT;
	}
	return OFL_LINE_TEXT;
}

enum gd_ofl_kind ofl_cmd_kind(struct gd_slice cmd)
{
	if (ofl_contains(cmd, "dcgmi "))
		return GD_OFL_DCGMI;
	if (ofl_contains(cmd, "ibstat") || ofl_contains(cmd, "ibv_devinfo"))
		return GD_OFL_IBSTAT;
	if (gd_tok_prefix(cmd, "df ") || gd_tok_eq(cmd, "df") || ofl_contains(cmd, "sudo df ") ||
	    ofl_contains(cmd, "| df "))
		return GD_OFL_DF;
	if (ofl_contains(cmd, "nvidia-smi topo"))
		return GD_OFL_TOPO;
	if (ofl_contains(cmd, "--query-gpu") || ofl_contains(cmd, "--query-compute-apps"))
		return GD_OFL_SMI_CSV;
	if (ofl_contains(cmd, "nvidia-smi nvlink"))
		return GD_OFL_NVLINK;
	if (ofl_contains(cmd, "nvidia-smi -q -x") || ofl_contains(cmd, "nvidia-smi -x") ||
	    ofl_contains(cmd, "--xml-format"))
		return GD_OFL_SMI_XML;
	if (ofl_contains(cmd, "nvidia-smi -q") || ofl_contains(cmd, "nvidia-smi --query"))
		return GD_OFL_SMI_Q;
	if (ofl_contains(cmd, "nvidia-smi"))
		return GD_OFL_SMI_TABLE;
	if (ofl_contains(cmd, "dmesg") || ofl_contains(cmd, "journalctl") || ofl_contains(cmd, "kern.log") ||
	    ofl_contains(cmd, "/var/log/messages") || ofl_contains(cmd, "/var/log/syslog"))
		return GD_OFL_KLOG;
	if (ofl_contains(cmd, "lspci"))
		return GD_OFL_LSPCI;
	if (ofl_contains(cmd, "/proc/driver/nvidia/version"))
		return GD_OFL_DRIVER;
	return GD_OFL_UNKNOWN;
}
