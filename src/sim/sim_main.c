/*
 * `benchreport simulate CONFIG.json -o RUN_DIR [--force]` (DESIGN.md §2, §5).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/sim.h"
#include "benchreport/outdir.h"

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: benchreport simulate CONFIG.json -o RUN_DIR [--force]\n"
	    "  Runs the vLLM V1 scheduler model of CONFIG.json and writes stress.json,\n"
	    "  metrics.csv, server.log and run.json into RUN_DIR. An existing RUN_DIR is\n"
	    "  refused; --force replaces it only when benchreport wrote it (its\n"
	    "  .benchreport-output marker lists every file) and it holds nothing else,\n"
	    "  unchanged (a benchreport report/ inside it included): a file of your own\n"
	    "  in it makes --force refuse (exit 2), naming the file.\n");
}

/*
 * br_sim_main: parse the command line, simulate, write. Exit codes: 0 ok,
 * 2 bad usage (also: RUN_DIR exists and may not be replaced, see
 * outdir.h), 3 bad config, 1 an output that cannot be written (a full
 * disk: as the report command).
 */

/* timing: with BR_TIMING set (bench/), the seconds since the first call
 * and the step that starts, on stderr (as the report command prints them). */
static void
timing(const char *step)
{
	static double t0 = -1;
	const char *e = getenv("BR_TIMING");
	if (e == NULL || *e == '\0')
		return;
	double now = br_clock_mono_s();
	if (t0 < 0)
		t0 = now;
	fprintf(stderr, "benchreport simulate: timing %.3f s: %s\n", now - t0, step);
}

int
br_sim_main(int argc, char **argv)
{
	const char *config = NULL, *out_dir = NULL;
	int force = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return BR_EXIT_OK;
		} else if (strcmp(a, "--force") == 0) {
			force = 1;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "benchreport simulate: %s needs a folder\n", a);
				usage(stderr);
				return BR_EXIT_USAGE;
			}
			out_dir = argv[++i];
		} else if (strncmp(a, "-o", 2) == 0 && a[2] != '\0') {
			out_dir = a + 2;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "benchreport simulate: unknown option %s\n", a);
			usage(stderr);
			return BR_EXIT_USAGE;
		} else if (config == NULL) {
			config = a;
		} else {
			fprintf(stderr, "benchreport simulate: unexpected argument %s\n", a);
			usage(stderr);
			return BR_EXIT_USAGE;
		}
	}
	if (config == NULL || out_dir == NULL) {
		fprintf(stderr, "benchreport simulate: %s\n",
		    config == NULL ? "missing CONFIG.json" : "missing -o RUN_DIR");
		usage(stderr);
		return BR_EXIT_USAGE;
	}
	char *cause = NULL;
	int rc = 0;
	br_outdir *od = br_outdir_prepare(out_dir, "simulate", force, &rc, &cause);
	if (od == NULL) {
		fprintf(stderr, "benchreport simulate: %s\n", cause);
		free(cause);
		return BR_EXIT_USAGE;
	}
	br_sim_result r;
	timing("simulating");
	if (br_sim_run(config, &r, &cause) < 0) {
		fprintf(stderr, "benchreport simulate: %s\n", cause ? cause : config);
		free(cause);
		br_outdir_free(od);
		return BR_EXIT_INPUT;
	}
	timing("writing the run folder");
	rc = br_sim_write_to(&r, od, &cause);
	br_outdir_free(od);
	timing("done");
	if (rc != 0) {
		fprintf(stderr, "benchreport simulate: %s\n", cause ? cause : out_dir);
		free(cause);
		br_sim_result_free(&r);
		return rc == BR_OUTDIR_ERR_REFUSED ? BR_EXIT_USAGE : BR_EXIT_ANALYSIS;
	}
	printf("simulated %.0f request%s: duration %.1f s, %.1f output tok/s, mean running %.2f "
	    "(peak %.0f), peak waiting %.0f, %zu preemption%s, TTFT p50 %.1f s\nwrote %s\n",
	    r.num_prompts, r.num_prompts == 1 ? "" : "s", r.duration_s, r.output_throughput_tps,
	    r.mean_running, r.peak_running, r.peak_waiting, r.n_preemptions,
	    r.n_preemptions == 1 ? "" : "s", r.ttft_p50_s, out_dir);
	br_sim_result_free(&r);
	return BR_EXIT_OK;
}
