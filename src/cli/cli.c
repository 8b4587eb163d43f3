/*
 * Command dispatch: `benchreport RUN_DIR ...` (the report), `simulate`,
 * and the commands later issues add. Thin: each command lives in its own
 * file (cmd_*.c).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/sim.h"
#include "benchreport/render.h"
#include "cli/cli.h"
#include "cli/cmd.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: benchreport RUN_DIR|CAMPAIGN_DIR [-o OUT_DIR] [--bench FILE] [--metrics FILE|DIR]\n"
	    "                   [--log FILE] [--meta FILE] [--focus RUN] [--lang en|zh|auto] [--quiet] [--json]\n"
	    "                   [--fail-on 'ttft_p99<=2s,failed==0,preemptions==0' [--junit FILE]]\n"
	    "                   [--calibration DIR...]   (last: takes every folder that follows)\n"
	    "       benchreport simulate CONFIG.json -o RUN_DIR [--force]\n"
	    "       benchreport knee DIR|FILE... --slo 'ttft_p99<=500ms[,e2el_p99<=20s]' [-o OUT_DIR]\n"
	    "       benchreport compare A B [-o OUT_DIR]\n"
	    "       benchreport index DIR|summary.json... [-o runs.csv] [--jsonl] [--skip-bad]\n"
	    "       benchreport sample URL [-o metrics.csv] [--interval 1s] [--duration S] [--until-idle S]\n"
	    "       benchreport record -o RUN_DIR [--metrics-url URL] [--server-log FILE] [--name N]\n"
	    "                   [--interval 1s] [--tail 60s] [--no-report] [REPORT OPTIONS] -- CMD...\n"
	    "       benchreport --version | --help\n"
	    "\n"
	    "Writes OUT_DIR (default RUN_DIR/report/): report.pdf, summary.json,\n"
	    "figures/*.{png,svg,csv}, tables/*.csv, and a text summary on stdout.\n"
	    "Exit codes: 0 ok, 1 analysis failed or a --fail-on term failed, 2 bad usage, 3 bad input.\n");
}

/* stdout_checked: rc, or 1 when what was printed on stdout did not all reach it. */
static int
stdout_checked(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "benchreport: cannot write to standard output (disk full or closed pipe)\n");
		return rc == BR_EXIT_OK ? BR_EXIT_ANALYSIS : rc;
	}
	return rc;
}

static int cli_dispatch(int argc, char **argv);

int
br_cli_main(int argc, char **argv)
{
	/* past a file-size limit (ulimit -f) a write fails with EFBIG instead of
	 * the process dying silently: the usual error path names the file and
	 * removes the staging folder */
	signal(SIGXFSZ, SIG_IGN);
	return stdout_checked(cli_dispatch(argc, argv));
}

static int
cli_dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return BR_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return BR_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("benchreport %s\n", BR_VERSION);
		return BR_EXIT_OK;
	}
	if (strcmp(cmd, "simulate") == 0)
		return br_sim_main(argc - 1, argv + 1);
	if (strcmp(cmd, "knee") == 0) return br_cmd_knee(argc - 1, argv + 1);
	if (strcmp(cmd, "compare") == 0) return br_cmd_compare(argc - 1, argv + 1);
	if (strcmp(cmd, "index") == 0) return br_cmd_index(argc - 1, argv + 1);
	if (strcmp(cmd, "sample") == 0) return br_cmd_sample(argc - 1, argv + 1);
	if (strcmp(cmd, "record") == 0) {
		int rc = br_cmd_record(argc - 1, argv + 1);
		br_render_shutdown();
		return rc;
	}
	int rc = br_cmd_report(argc - 1, argv + 1);
	br_render_shutdown();   /* font caches of pango/fontconfig: keeps leak checks exact */
	return rc;
}
