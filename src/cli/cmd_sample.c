/*
 * `benchreport sample URL [-o metrics.csv] [--interval 1s] [--duration S]
 * [--until-idle S] [--force] [--quiet]`: the /metrics sampler
 * (src/capture/sample.c) with SIGINT/SIGTERM as a clean stop.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "benchreport/common.h"
#include "benchreport/capture.h"
#include "cli/cmd.h"

static const char usage_text[] =
    "usage: benchreport sample URL [-o metrics.csv] [--interval 1s] [--duration S] [--until-idle S]\n"
    "                          [--force] [--no-gpu] [--slots | --no-slots] [--quiet]\n"
    "  --slots / --no-slots: poll a llama-server's /slots at the same ticks into slots.jsonl beside\n"
    "  the CSV (default: when the first /metrics page is llama.cpp's)\n";

/* duration_opt: "--x VALUE" as seconds, > 0 unless zero_ok. */
static int
duration_opt(const char *opt, const char *v, int zero_ok, double *out)
{
	if (v == NULL || br_parse_duration_s(v, out) != 0 || (!zero_ok && *out <= 0)) {
		fprintf(stderr, "benchreport sample: %s: expected a duration such as 1s, 500ms, 10m or 2h, "
		    "found '%s'\n%s", opt, v ? v : "nothing", usage_text);
		return -1;
	}
	return 0;
}

int
br_cmd_sample(int argc, char **argv)
{
	br_sample_opts o = { .out_path = "metrics.csv", .interval_s = 1.0, .duration_s = NAN,
	    .until_idle_s = NAN, .log = stderr, .gpu = 1, .slots = -1 };
	int quiet = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "-o") == 0 && v && *v) {
			o.out_path = v;
			i++;
		} else if (strcmp(a, "--interval") == 0) {
			if (duration_opt(a, v, 0, &o.interval_s) != 0)
				return BR_EXIT_USAGE;
			i++;
		} else if (strcmp(a, "--duration") == 0) {
			if (duration_opt(a, v, 0, &o.duration_s) != 0)
				return BR_EXIT_USAGE;
			i++;
		} else if (strcmp(a, "--until-idle") == 0) {
			if (duration_opt(a, v, 1, &o.until_idle_s) != 0)
				return BR_EXIT_USAGE;
			i++;
		} else if (strcmp(a, "--force") == 0)
			o.force = 1;
		else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0)
			quiet = 1;
		else if (strcmp(a, "--no-gpu") == 0)
			o.gpu = 0;
		else if (strcmp(a, "--slots") == 0 || strcmp(a, "--no-slots") == 0) {
			int want = strcmp(a, "--slots") == 0;
			if (o.slots != -1 && o.slots != want) {
				fprintf(stderr, "benchreport sample: --slots and --no-slots contradict each other\n%s",
				    usage_text);
				return BR_EXIT_USAGE;
			}
			o.slots = want;
		}
		else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "benchreport sample: unknown option '%s'\n%s", a, usage_text);
			return BR_EXIT_USAGE;
		} else if (o.url == NULL)
			o.url = a;
		else {
			fprintf(stderr, "benchreport sample: one URL expected, got '%s' and '%s'\n", o.url, a);
			return BR_EXIT_USAGE;
		}
	}
	if (o.url == NULL) {
		fprintf(stderr, "benchreport sample: missing URL (e.g. http://localhost:8000/metrics)\n%s", usage_text);
		return BR_EXIT_USAGE;
	}
	if (strncmp(o.url, "http://", 7) != 0 && strncmp(o.url, "https://", 8) != 0) {
		fprintf(stderr, "benchreport sample: %s: expected an http:// or https:// URL\n", o.url);
		return BR_EXIT_USAGE;
	}
	if (o.interval_s < 0.05) {
		fprintf(stderr, "benchreport sample: --interval %g s: expected at least 50ms\n", o.interval_s);
		return BR_EXIT_USAGE;
	}
	if (quiet)
		o.log = NULL;
	struct stat sb;
	char *why = NULL;
	if (!o.force && lstat(o.out_path, &sb) == 0) {
		fprintf(stderr, "benchreport sample: %s exists; choose another -o, or pass --force to replace "
		    "a metrics CSV\n", o.out_path);
		return BR_EXIT_USAGE;
	}
	if (o.force && br_output_replaceable(o.out_path, "timestamp", &why) != 0) {
		fprintf(stderr, "benchreport sample: -o %s\n", why);
		free(why);
		return BR_EXIT_USAGE;
	}
	br_cli_install_stop_handlers();
	o.stop = br_cli_stop_flag();
	br_sample_stats st;
	char *cause = NULL;
	int rc = br_sample_run(&o, &st, &cause);
	if (rc != 0) {
		fprintf(stderr, "benchreport sample: %s\n", cause);
		free(cause);
		return rc == BR_SAMPLE_NEVER_ANSWERED ? BR_EXIT_INPUT : BR_EXIT_ANALYSIS;
	}
	if (!quiet)
		fprintf(stderr, "benchreport sample: %zu rows in %s (%zu answered, %zu failed, %zu missed "
		    "tick%s, %zu server restart%s), %zu series; tick jitter p50 %.2f ms, p99 %.2f ms; "
		    "CPU %.3f s over %.1f s%s\n", st.n_rows, o.out_path, st.n_ok, st.n_failed,
		    st.n_missed_ticks, st.n_missed_ticks == 1 ? "" : "s", st.n_restarts,
		    st.n_restarts == 1 ? "" : "s", st.n_columns, st.jitter_p50_ms, st.jitter_p99_ms,
		    st.cpu_s, st.wall_s, st.n_new_series ? "; later series in the .new-series.csv file" : "");
	if (!quiet && (st.n_slots_ok || st.n_slots_failed)) {
		char *sp = br_slots_path_for(o.out_path);
		fprintf(stderr, "benchreport sample: %zu /slots snapshot%s in %s (%zu failed poll%s)\n", st.n_slots_ok,
		    st.n_slots_ok == 1 ? "" : "s", st.n_slots_ok ? sp : "no file", st.n_slots_failed,
		    st.n_slots_failed == 1 ? "" : "s");
		free(sp);
	}
	return BR_EXIT_OK;
}
