/*
 * `benchreport RUN_DIR`: load the run, analyse it, draw the figures, write
 * summary.json, the tables and report.pdf into a staging folder, then swap
 * it into place so a killed run never leaves a half-written report.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <dirent.h>
#include <signal.h>
#include <time.h>
#include <math.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/outdir.h"
#include "benchreport/run.h"
#include "benchreport/analysis.h"
#include "benchreport/render.h"
#include "benchreport/report.h"
#include "benchreport/campaign.h"
#include "benchreport/gate.h"
#include "cli/cmd.h"

#ifndef BR_TEMPLATE_DIR
#define BR_TEMPLATE_DIR "templates"
#endif

typedef struct report_opts {
	const char *run_dir;
	const char *out_dir;
	const char *lang;
	int quiet, json;
	br_run_opts in;
	const char *focus;          /* --focus RUN (campaigns) */
	const char **calib;         /* --calibration DIR... (malloc'd array, strings borrowed) */
	size_t n_calib;
	const char *fail_on;        /* --fail-on SPEC (CI gate) */
	const char *junit;          /* --junit FILE */
	br_gate_spec gate;          /* parsed fail_on (gate.n == 0 without it) */
} report_opts;

/*
 * parse_opts: options may come before or after RUN_DIR. Returns 0, or -1
 * after printing a usage message.
 */
static int
parse_opts(int argc, char **argv, report_opts *o)
{
	memset(o, 0, sizeof *o);
	o->lang = NULL;
	int operands = 0;   /* after "--": every argument is RUN_DIR (a folder named "-x") */
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char **target = NULL;
		if (!operands && strcmp(a, "--") == 0) {
			operands = 1;
			continue;
		}
		if (operands)
			goto run_dir;
		if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0)
			target = &o->out_dir;
		else if (strcmp(a, "--bench") == 0)
			target = &o->in.bench_path;
		else if (strcmp(a, "--metrics") == 0)
			target = &o->in.metrics_path;
		else if (strcmp(a, "--log") == 0)
			target = &o->in.log_path;
		else if (strcmp(a, "--meta") == 0)
			target = &o->in.meta_path;
		else if (strcmp(a, "--lang") == 0)
			target = &o->lang;
		else if (strcmp(a, "--focus") == 0)
			target = &o->focus;
		else if (strcmp(a, "--fail-on") == 0)
			target = &o->fail_on;
		else if (strcmp(a, "--junit") == 0)
			target = &o->junit;
		else if (strcmp(a, "--calibration") == 0) {
			int any = 0;
			while (i + 1 < argc && argv[i + 1][0] != '-' && argv[i + 1][0] != '\0') {
				o->calib = br_xrealloc(o->calib, (o->n_calib + 1) * sizeof *o->calib);
				o->calib[o->n_calib++] = argv[++i];
				any = 1;
			}
			if (!any) {
				fprintf(stderr, "benchreport: --calibration needs at least one folder\n");
				return -1;
			}
			continue;
		}
		else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			o->quiet = 1;
			continue;
		} else if (strcmp(a, "--json") == 0) {
			o->json = 1;
			continue;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "benchreport: unknown option '%s' (see benchreport --help)\n", a);
			return -1;
		} else {
run_dir:
			if (o->run_dir != NULL) {
				fprintf(stderr, "benchreport: one RUN_DIR expected, got '%s' and '%s'\n",
				    o->run_dir, a);
				return -1;
			}
			o->run_dir = a;
			continue;
		}
		if (i + 1 >= argc || argv[i + 1][0] == '\0') {
			fprintf(stderr, "benchreport: option '%s' needs a non-empty value\n", a);
			return -1;
		}
		if (*target != NULL && target != &o->lang) {
			fprintf(stderr, "benchreport: option '%s' given twice ('%s' and '%s')\n",
			    a, *target, argv[i + 1]);
			return -1;
		}
		*target = argv[++i];
	}
	if (o->run_dir == NULL) {
		fprintf(stderr, "benchreport: missing RUN_DIR (see benchreport --help)\n");
		return -1;
	}
	if (o->junit != NULL && o->fail_on == NULL) {
		fprintf(stderr, "benchreport: --junit needs --fail-on (the gate's terms are its test cases)\n");
		return -1;
	}
	if (o->junit != NULL) {
		char *cause = NULL;
		if (br_output_replaceable(o->junit, "<testsuites name=\"benchreport gate\"", &cause) != 0) {
			fprintf(stderr, "benchreport: --junit %s\n", cause);
			free(cause);
			return -1;
		}
		/* not inside the report folder: it is replaced whole on every run */
		char *out = o->out_dir ? br_xstrdup(o->out_dir) : br_path_join(o->run_dir, "report");
		char *jdir = g_path_get_dirname(o->junit);
		if (!br_is_dir(jdir) || access(jdir, W_OK) != 0) {
			/* said now, not after the report is written */
			fprintf(stderr, "benchreport: --junit %s: its folder %s %s\n", o->junit, jdir,
			    br_is_dir(jdir) ? "is not writable" : "does not exist");
			g_free(jdir);
			free(out);
			return -1;
		}
		char *rj = realpath(jdir, NULL), *ro = realpath(out, NULL);
		size_t lo = ro ? strlen(ro) : 0;
		int inside = rj && ro && strncmp(rj, ro, lo) == 0 && (rj[lo] == '\0' || rj[lo] == '/');
		/* nor inside another report's folder: a file there would keep that
		 * report from ever being written again (twenty-ninth breaker) */
		char *d = rj && !inside ? g_strdup(rj) : NULL;
		while (d != NULL) {
			inside = br_outdir_is_report(d);
			char *up = g_path_get_dirname(d);
			int stop = inside || strcmp(up, d) == 0;
			g_free(d);
			d = stop ? (g_free(up), NULL) : up;
		}
		free(rj);
		free(ro);
		g_free(jdir);
		free(out);
		if (inside) {
			fprintf(stderr, "benchreport: --junit %s: inside a report folder, which is replaced on "
			    "every run; write it next to the run instead\n", o->junit);
			return -1;
		}
	}
	if (o->fail_on != NULL) {
		char *cause = NULL;
		if (br_gate_parse(o->fail_on, &o->gate, &cause) != 0) {
			fprintf(stderr, "benchreport: %s\n", cause);
			free(cause);
			return -1;
		}
	}
	o->lang = br_cli_lang(o->lang, NULL);
	if (o->lang == NULL)
		return -1;
	return 0;
}

char *
br_cli_template_path(const char *lang)
{
	char *name = br_xasprintf("report.%s.json", lang);
	const char *env = getenv("BENCHREPORT_TEMPLATES");
	char *p;
	if (env != NULL) {
		p = br_path_join(env, name);
		free(name);
		return p;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
			char *dir = br_xasprintf("%s/../share/benchreport/templates", exe);
			p = br_path_join(dir, name);
			free(dir);
			if (br_is_file(p)) {
				free(name);
				return p;
			}
			free(p);
		}
	}
	p = br_path_join(BR_TEMPLATE_DIR, name);
	free(name);
	return p;
}

/*
 * progress: on a terminal, name the step about to start once the run has
 * taken more than a second (DESIGN.md §2: long steps show progress on
 * stderr; scripts and --quiet see nothing).
 */
static void
progress(const report_opts *o, const char *step)
{
	static struct timespec t0;
	static int started;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!started) {
		t0 = now;
		started = 1;
	}
	double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
	static int timing = -1;
	if (timing < 0)
		timing = getenv("BR_TIMING") != NULL && *getenv("BR_TIMING") != '\0';
	if (timing) {   /* for bench/: every step, with milliseconds and peak memory, on stderr */
		long hwm_kb = -1, rss_kb = -1;
		FILE *st = fopen("/proc/self/status", "r");
		char line[256];
		while (st && fgets(line, sizeof line, st))
			if (strncmp(line, "VmHWM:", 6) == 0)
				hwm_kb = strtol(line + 6, NULL, 10);
			else if (strncmp(line, "VmRSS:", 6) == 0)
				rss_kb = strtol(line + 6, NULL, 10);
		if (st)
			fclose(st);
		struct timespec cpu, main_cpu;   /* the process's CPU time, and this (main) thread's */
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &main_cpu);
		fprintf(stderr, "benchreport: timing %.3f s, CPU %.3f s (main thread %.3f s) (RSS %ld MB, peak %ld MB): %s\n",
		    el, (double)cpu.tv_sec + (double)cpu.tv_nsec * 1e-9,
		    (double)main_cpu.tv_sec + (double)main_cpu.tv_nsec * 1e-9, rss_kb / 1024, hwm_kb / 1024, step);
		return;
	}
	if (o->quiet || o->json || !isatty(2) || el < 1.0)
		return;
	fprintf(stderr, "benchreport: [%.1f s] %s\n", el, step);
}

/* The output folder being written: checked first, then staged and swapped
 * into place (include/benchreport/outdir.h). */
typedef struct out_session {
	br_outdir *od;
	const char *out_dir, *staging;   /* owned by od */
	char *fig_dir;
} out_session;

/* out_prepare: choose OUT_DIR and check it may be written, before any input
 * is read. Returns 0, or an exit code after printing why. */
static int
out_prepare(out_session *os, const report_opts *o)
{
	char *cause = NULL, *def = o->out_dir ? NULL : br_path_join(o->run_dir, "report");
	int rc = 0;
	os->od = br_outdir_prepare(o->out_dir ? o->out_dir : def, "report", 1, &rc, &cause);
	free(def);
	if (os->od == NULL) {
		fprintf(stderr, "benchreport: %s\n", cause);
		free(cause);
		return BR_EXIT_USAGE;
	}
	os->out_dir = br_outdir_path(os->od);
	return 0;
}

/* out_begin: create the staging folder with its figures/ sub-folder.
 * Returns 0 or -1 with *cause. */
static int
out_begin(out_session *os, char **cause)
{
	if (br_outdir_stage(os->od, cause) != 0)
		return -1;
	os->staging = br_outdir_staging(os->od);
	os->fig_dir = br_path_join(os->staging, "figures");
	if (br_mkdir_p(os->fig_dir, cause) != 0) {
		int e = errno;
		free(*cause);
		*cause = br_xasprintf("%s: cannot write the report there (%s); choose another folder with -o",
		    os->out_dir, strerror(e));
		return -1;
	}
	return 0;
}

/* out_commit: swap the staging folder into place. Returns 0, or an exit
 * code with *cause (2 when OUT changed under us into something not ours). */
static int
out_commit(out_session *os, char **cause)
{
	int rc = br_outdir_commit(os->od, cause);
	return rc == 0 ? 0 : rc == BR_OUTDIR_ERR_REFUSED ? BR_EXIT_USAGE : BR_EXIT_ANALYSIS;
}

/* out_end: remove the staging folder unless committed; free. */
static void
out_end(out_session *os)
{
	br_outdir_free(os->od);
	free(os->fig_dir);
	memset(os, 0, sizeof *os);
}

/* write_summary_and_print: summary.json into staging; stdout output. */
static int
write_summary(const out_session *os, const json_t *summary, char **cause)
{
	char *path = br_path_join(os->staging, "summary.json");
	int rc = br_summary_write(summary, path, cause);
	free(path);
	return rc;
}

static void
print_result(const report_opts *o, const out_session *os, const json_t *summary, int campaign)
{
	if (o->json) {
		char *text = json_dumps(summary, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
		if (text != NULL) {
			puts(text);
			free(text);
		}
	} else if (!o->quiet) {
		if (campaign) {
			json_t *runs = json_object_get(summary, "runs");
			json_t *camp = json_object_get(summary, "campaign");
			printf("benchreport: campaign %s, %zu run%s, focus %s\n",
			    json_string_value(json_object_get(camp, "name")), json_array_size(runs),
			    json_array_size(runs) == 1 ? "" : "s", json_string_value(json_object_get(camp, "focus_name")));
			size_t fi = (size_t)json_integer_value(json_object_get(camp, "focus_index"));
			br_summary_print_text(json_array_get(runs, fi), stdout);
		} else
			br_summary_print_text(summary, stdout);
		printf("report: %s/report.pdf\n", os->out_dir);
	}
}

/* load_calibration: --calibration folders (runs or campaigns) into a fitted
 * calibration for a single-run report. */
static int
single_run_calibration(const report_opts *o, br_campaign *holder, br_flops_calibration *cal,
    const br_run *focus, char **cause)
{
	/* reuse the campaign loader's calibration path: each DIR is a campaign or a run */
	size_t n = 0;
	const br_run **runs = NULL;
	for (size_t i = 0; i < o->n_calib; i++) {
		br_campaign *c = &holder[i];
		if (br_campaign_looks_like(o->calib[i])) {
			if (br_campaign_load(o->calib[i], NULL, NULL, 0, c, cause) != 0)
				goto fail;
		} else {
			memset(c, 0, sizeof *c);
			c->runs = br_xcalloc(1, sizeof *c->runs);
			if (br_run_load(o->calib[i], NULL, &c->runs[0], cause) != 0) {
				free(c->runs);
				c->runs = NULL;
				goto fail;
			}
			c->n_runs = 1;
		}
		for (size_t j = 0; j < c->n_runs; j++) {
			runs = br_xrealloc(runs, (n + 1) * sizeof *runs);
			runs[n++] = &c->runs[j];
		}
	}
	runs = br_xrealloc(runs, (n + 1) * sizeof *runs);
	runs[n++] = focus;
	char *why = NULL;
	int rc = br_flops_calibrate_ref(runs, n, focus, cal, &why);
	free(runs);
	if (rc != 0) {
		*cause = br_xasprintf("--calibration: %s", why ? why : "no usable calibration run");
		free(why);
		return -1;
	}
	return 0;
fail:
	free(runs);
	return -1;
}

/* gate_unknown_all: gr as the gate of a run it cannot see: every term of
 * o->gate unknown, for the reason `why` (cut to the field). */
static void
gate_unknown_all(const report_opts *o, br_gate_result *gr, const char *why)
{
	memset(gr, 0, sizeof *gr);
	gr->n = gr->n_unknown = o->gate.n;
	for (size_t k = 0; k < o->gate.n; k++) {
		gr->terms[k].status = BR_GATE_UNKNOWN;
		gr->terms[k].value = NAN;
		snprintf(gr->terms[k].why_unknown, sizeof gr->terms[k].why_unknown, "%s", why);
	}
}

/*
 * gate_finish: after the report is in place, say what the CI gate decided
 * (failing and unknown terms on stderr) and write --junit. results[i] is
 * the gate of the run named names[i]. Returns BR_EXIT_OK when every run
 * passes, BR_EXIT_ANALYSIS when a term fails or the JUnit file cannot be
 * written.
 */
static int
gate_finish(const report_opts *o, const br_gate_result *results, const char *const *names, size_t n)
{
	int passed = 1;
	for (size_t i = 0; i < n; i++) {
		br_gate_print(stderr, n > 1 ? names[i] : NULL, &o->gate, &results[i]);
		passed &= results[i].passed;
	}
	if (o->junit != NULL) {
		char *cause = NULL;
		if (br_gate_write_junit(o->junit, &o->gate, results, names, n, &cause) != 0) {
			fprintf(stderr, "benchreport: --junit: %s\n", cause);
			free(cause);
			return BR_EXIT_ANALYSIS;
		}
	}
	return passed ? BR_EXIT_OK : BR_EXIT_ANALYSIS;
}

/*
 * gate_all: the gate on every bench result of the run: the reported one
 * (runs[0], with the run's metrics) into summary "gate", and each other
 * result of the same file (repeats of a sweep, older --append-result
 * lines) analysed alone, without the metrics or log (they were matched to
 * the reported result only), into "gate.other_results". names[i] are
 * malloc'd: the run name, or with several results "NAME#K" (K = position
 * in the file) for each.
 */
static void
gate_all(const report_opts *o, const br_run *run, const br_analysis *a, br_gate_result *gates,
    char **names, json_t *summary)
{
	br_gate_evaluate(&o->gate, a, &gates[0]);
	names[0] = run->bench.n < 2 ? br_xstrdup(run->name) :
	    br_xasprintf("%s#%zu", run->name, br_bench_set_ordinal(&run->bench, 0));
	json_t *g = br_gate_summary(&o->gate, &gates[0]);
	json_object_set_new(summary, "gate", g);
	if (run->bench.n < 2)
		return;
	json_t *others = json_array();
	size_t n_fail = !gates[0].passed;
	for (size_t i = 1; i < run->bench.n; i++) {
		br_run one = *run;
		one.bench.runs = &run->bench.runs[i];
		one.bench.n = 1;
		one.metrics = NULL;
		one.metrics_kind = BR_METRICS_NONE;
		one.log = NULL;
		br_analysis ai;
		br_analyze(&one, &ai);
		br_gate_evaluate(&o->gate, &ai, &gates[i]);
		for (size_t k = 0; k < o->gate.n && run->metrics != NULL; k++)   /* no metrics: the reason stands */
			if (gates[i].terms[k].status == BR_GATE_UNKNOWN &&
			    o->gate.terms[k].quantity == BR_GATE_PREEMPTIONS)
				snprintf(gates[i].terms[k].why_unknown, sizeof gates[i].terms[k].why_unknown,
				    "the metrics were matched to the reported (newest) result of the file only");
		br_analysis_free(&ai);
		names[i] = br_xasprintf("%s#%zu", run->name, br_bench_set_ordinal(&run->bench, i));
		json_t *oj = br_gate_summary(&o->gate, &gates[i]);
		json_object_set_new(oj, "result", json_string(names[i]));
		json_object_set_new(oj, "date", run->bench.runs[i].date ? json_string(run->bench.runs[i].date) :
		    json_null());
		json_array_append_new(others, oj);
		n_fail += !gates[i].passed;
	}
	json_object_set_new(g, "other_results", others);
	json_object_set_new(g, "n_results", json_integer((json_int_t)run->bench.n));
	json_object_set_new(g, "n_results_failed", json_integer((json_int_t)n_fail));
	json_object_set_new(g, "all_results_passed", json_boolean(n_fail == 0));
	/* the run's verdict is every result's, as the exit status is (twentieth
	 * breaker: "passed" read true while result #1 failed and the exit was 1);
	 * the reported result's own stays beside it */
	json_object_set(g, "reported_result_passed", json_object_get(g, "passed"));
	json_object_set_new(g, "passed", json_boolean(n_fail == 0));
}

/*
 * bench_is_large: 1 when the run's bench result (--bench, else
 * RUN_DIR/stress.json) is 32 MiB or more. Its per-request ITLs then make the
 * report's peak memory while it is parsed, and the PDF's fonts (br_pdf_prepare,
 * ~1.5 MB) load after the analysis has freed them instead of beside the parse
 * (108 MB result: peak RSS 54.3 -> 55.0 MB when they overlapped).
 */
static int
bench_is_large(const report_opts *o)
{
	char *p = o->in.bench_path ? br_xstrdup(o->in.bench_path) : br_path_join(o->run_dir, "stress.json");
	struct stat st;
	int large = stat(p, &st) == 0 && st.st_size >= (32LL << 20);
	free(p);
	return large;
}

static int
run_report(const report_opts *o, const br_template *tmpl)
{
	char *cause = NULL;
	int failed = 1;
	br_run run;
	br_analysis a;
	br_figure *figs = NULL;
	size_t n_figs = 0;
	json_t *summary = NULL;
	out_session os = { 0 };
	char *pdf_path = NULL;
	br_campaign *holders = NULL;
	br_flops_calibration cal;
	memset(&cal, 0, sizeof cal);
	int gate_rc = BR_EXIT_OK;
	br_gate_result *gates = NULL;
	char **gate_names = NULL;
	size_t n_gates = 0;
	json_t *gate_json = NULL;   /* the gate's summary.json part, until summary exists */

	int exit_rc = out_prepare(&os, o);
	if (exit_rc != 0)
		return exit_rc;
	exit_rc = BR_EXIT_ANALYSIS;
	/* the PDF's fonts load on the second core while the inputs are read,
	 * or once the analysis has dropped its samples when a large bench
	 * result makes the peak */
	int prepare_late = bench_is_large(o);
	if (!prepare_late)
		br_pdf_prepare();
	progress(o, "reading the run folder");
	if (br_run_load(o->run_dir, &o->in, &run, &cause) != 0) {
		fprintf(stderr, "benchreport: %s\n", cause);
		/* the gate of a run it cannot read: every term unknown, so a CI
		 * reader of --junit sees the failure too (twenty-ninth breaker: a
		 * client that died without a result left no JUnit file) */
		if (o->junit != NULL && o->gate.n > 0) {
			br_gate_result gr;
			gate_unknown_all(o, &gr, cause);
			char *base = g_path_get_basename(o->run_dir);   /* "run" of "run/" too */
			const char *name = base;
			char *cause2 = NULL;
			if (br_gate_write_junit(o->junit, &o->gate, &gr, &name, 1, &cause2) != 0) {
				fprintf(stderr, "benchreport: --junit: %s\n", cause2);
				free(cause2);
			}
			g_free(base);
		}
		free(cause);
		out_end(&os);
		return BR_EXIT_INPUT;
	}
	progress(o, "analysing");
	br_analyze_taking_itls(&run, &a);   /* nothing below reads the run's per-request ITLs */
	if (!o->quiet && !o->json)   /* after: the analysis may set the metrics aside */
		for (size_t i = 0; i < run.n_warnings; i++)
			fprintf(stderr, "benchreport: note: %s\n", run.warnings[i]);
	if (o->n_calib > 0) {
		holders = br_xcalloc(o->n_calib, sizeof *holders);
		if (single_run_calibration(o, holders, &cal, &run, &cause) != 0) {
			fprintf(stderr, "benchreport: %s\n", cause);
			free(cause);
			cause = NULL;
			for (size_t i = 0; i < o->n_calib; i++)
				br_campaign_free(&holders[i]);
			free(holders);
			br_flops_calibration_free(&cal);
			br_analysis_free(&a);
			br_run_free(&run);
			out_end(&os);
			return BR_EXIT_INPUT;
		}
		br_analysis_calibrate(&a, &cal);
	}

	/* the gate reads any percentile of the samples: evaluated now, placed in
	 * summary.json below; then nothing reads the samples again (figure L
	 * draws from the CDF the analysis kept): 5 M ITLs, 40 MB, are freed
	 * before the fonts are loaded and the figure workers take their pixels */
	if (o->gate.n > 0) {
		n_gates = run.bench.n;
		gates = br_xcalloc(n_gates, sizeof *gates);
		gate_names = br_xcalloc(n_gates, sizeof *gate_names);
		gate_json = json_object();
		gate_all(o, &run, &a, gates, gate_names, gate_json);
	}
	br_analysis_drop_samples(&a);
	/* past the peak (the samples are gone): the figure workers' arenas keep
	 * up to 2 MiB of what they free instead of handing each 128 KiB back
	 * with an madvise, whose TLB shootdown across cores is costly on a
	 * paravirtualised machine: on the 108 MB result 13% less CPU and wall
	 * (bench/targets_bench.sh, 6 interleaved runs); 4 MiB took peak RSS past
	 * half the file */
	mallopt(M_TRIM_THRESHOLD, 2 << 20);
	if (prepare_late)
		br_pdf_prepare();
	if (out_begin(&os, &cause) != 0)
		goto out;
	progress(o, "drawing figures");
	if (br_render_figures(&a, tmpl, os.fig_dir, &figs, &n_figs, &cause) != 0)
		goto out;
	progress(o, "writing tables and summary.json");
	if (br_write_tables(&a, os.staging, &cause) != 0)
		goto out;
	summary = br_summary_build(&a, figs, n_figs);
	br_summary_english_titles(json_object_get(summary, "figures"), tmpl);
	if (cal.available)
		json_object_set_new(summary, "calibration", br_summary_calibration(&cal));
	if (gate_json != NULL) {
		json_object_set(summary, "gate", json_object_get(gate_json, "gate"));
		json_decref(gate_json);
		gate_json = NULL;
	}
	if (write_summary(&os, summary, &cause) != 0)
		goto out;
	pdf_path = br_path_join(os.staging, "report.pdf");
	progress(o, "writing the PDF");
	if (br_report_write_pdf(&a, summary, figs, n_figs, tmpl, pdf_path, &cause) != 0)
		goto out;
	progress(o, "finishing the figure files");
	if (br_render_wait(&cause) != 0)
		goto out;
	progress(o, "moving the report into place");
	if ((exit_rc = out_commit(&os, &cause)) != 0)
		goto out;
	progress(o, "done");
	failed = 0;
	print_result(o, &os, summary, 0);
	if (o->gate.n > 0)
		gate_rc = gate_finish(o, gates, (const char *const *)gate_names, n_gates);
out:
	if (failed) {
		fprintf(stderr, "benchreport: %s\n", cause ? cause : "failed");
		free(cause);
	}
	out_end(&os);
	free(pdf_path);
	json_decref(summary);
	json_decref(gate_json);
	br_figures_free(figs, n_figs);
	br_analysis_free(&a);
	br_run_free(&run);
	for (size_t i = 0; holders && i < o->n_calib; i++)
		br_campaign_free(&holders[i]);
	free(holders);
	br_flops_calibration_free(&cal);
	for (size_t i = 0; gate_names && i < n_gates; i++)
		free(gate_names[i]);
	free(gate_names);
	free(gates);
	return failed ? exit_rc : gate_rc;
}

static int
campaign_report(const report_opts *o, const br_template *tmpl)
{
	char *cause = NULL;
	int failed = 1;
	br_campaign camp;
	out_session os = { 0 };
	br_figure *figs = NULL, *run_figs = NULL;
	size_t n_figs = 0, n_run_figs = 0;
	json_t **run_sums = NULL, *summary = NULL;
	char *pdf_path = NULL;
	br_gate_result *gates = NULL;
	char **gate_names = NULL;
	size_t n_gates = 0;
	int gate_rc = BR_EXIT_OK;

	int exit_rc = out_prepare(&os, o);
	if (exit_rc != 0)
		return exit_rc;
	exit_rc = BR_EXIT_ANALYSIS;
	br_pdf_prepare();   /* the PDF's fonts load on the second core meanwhile */
	progress(o, "reading and analysing the campaign's runs");
	int lrc = br_campaign_load(o->run_dir, o->focus, o->calib, o->n_calib, &camp, &cause);
	if (lrc != 0) {
		fprintf(stderr, "benchreport: %s\n", cause);
		free(cause);
		out_end(&os);
		return lrc == -2 ? BR_EXIT_USAGE : BR_EXIT_INPUT;
	}
	if (!o->quiet && !o->json) {
		for (size_t i = 0; i < camp.n_warnings; i++)
			fprintf(stderr, "benchreport: note: %s\n", camp.warnings[i]);
		for (size_t r = 0; r < camp.n_runs; r++)
			for (size_t i = 0; i < camp.runs[r].n_warnings; i++)
				fprintf(stderr, "benchreport: note: %s: %s\n", camp.runs[r].name, camp.runs[r].warnings[i]);
	}
	if (out_begin(&os, &cause) != 0)
		goto out;
	progress(o, "drawing figures");
	if (br_render_campaign_figures(&camp, tmpl, os.fig_dir, &figs, &n_figs, &cause) != 0)
		goto out;
	/* the focus run's own figures (waveform, preemption loop, ...) */
	if (br_render_figures(&camp.analyses[camp.focus], tmpl, os.fig_dir, &run_figs, &n_run_figs, &cause) != 0)
		goto out;
	figs = br_xrealloc(figs, (n_figs + n_run_figs + 1) * sizeof *figs);
	for (size_t i = 0; i < n_run_figs; i++) {
		/* a campaign figure with the same id (fig7) wins; drop the run's */
		int dup = 0;
		for (size_t j = 0; j < n_figs; j++)
			if (figs[j].id && run_figs[i].id && strcmp(figs[j].id, run_figs[i].id) == 0)
				dup = 1;
		if (dup)
			br_figure_free(&run_figs[i]);
		else
			figs[n_figs++] = run_figs[i];
	}
	free(run_figs);
	run_figs = NULL;
	n_run_figs = 0;
	if (br_write_tables(&camp.analyses[camp.focus], os.staging, &cause) != 0)
		goto out;
	run_sums = br_xcalloc(camp.n_runs, sizeof *run_sums);
	for (size_t i = 0; i < camp.n_runs; i++) {
		run_sums[i] = br_summary_build(&camp.analyses[i], i == camp.focus ? figs : NULL,
		    i == camp.focus ? n_figs : 0);
		br_summary_english_titles(json_object_get(run_sums[i], "figures"), tmpl);
	}
	if (o->gate.n > 0) {
		n_gates = 0;
		for (size_t i = 0; i < camp.n_runs; i++)
			n_gates += camp.runs[i].bench.n;
		size_t n_run_gates = n_gates;
		n_gates += camp.n_no_bench_runs;
		gates = br_xcalloc(n_gates, sizeof *gates);
		gate_names = br_xcalloc(n_gates, sizeof *gate_names);
		for (size_t i = 0, k = 0; i < camp.n_runs; k += camp.runs[i].bench.n, i++)
			gate_all(o, &camp.runs[i], &camp.analyses[i], gates + k, gate_names + k, run_sums[i]);
		/* a run folder without its bench result is a run the gate cannot see
		 * pass: every term unknown (twentieth breaker: a campaign whose client
		 * died in one run passed) */
		for (size_t i = 0; i < camp.n_no_bench_runs; i++) {
			gate_unknown_all(o, &gates[n_run_gates + i],
			    "the run folder holds no bench result (the load client did not finish?)");
			gate_names[n_run_gates + i] = br_xstrdup(camp.no_bench_runs[i]);
		}
	}
	summary = br_campaign_summary_build(&camp, run_sums, figs, n_figs);
	br_summary_english_titles(json_object_get(summary, "figures"), tmpl);
	if (o->gate.n > 0) {
		size_t n_failed = 0;
		for (size_t i = 0, k = 0; i < camp.n_runs; k += camp.runs[i].bench.n, i++) {
			int ok = 1;
			for (size_t j = 0; j < camp.runs[i].bench.n; j++)
				ok &= gates[k + j].passed;
			n_failed += !ok;
		}
		n_failed += camp.n_no_bench_runs;
		json_t *g = json_object();
		json_object_set_new(g, "spec", json_string(o->gate.text));
		json_object_set_new(g, "passed", json_boolean(n_failed == 0));
		json_object_set_new(g, "n_runs", json_integer((json_int_t)(camp.n_runs + camp.n_no_bench_runs)));
		json_object_set_new(g, "n_runs_failed", json_integer((json_int_t)n_failed));
		/* run folders gated that are not among the campaign's runs (no usable
		 * bench result): said beside the count (breaker: "4 runs" on the same
		 * page as "2 of its 5 runs") */
		json_object_set_new(g, "n_no_bench_runs", json_integer((json_int_t)camp.n_no_bench_runs));
		json_t *nb = json_array();
		for (size_t i = 0; i < camp.n_no_bench_runs; i++)
			json_array_append_new(nb, json_string(camp.no_bench_runs[i]));
		json_object_set_new(g, "runs_without_bench_result", nb);
		json_object_set_new(json_object_get(summary, "campaign"), "gate", g);
	}
	if (write_summary(&os, summary, &cause) != 0)
		goto out;
	pdf_path = br_path_join(os.staging, "report.pdf");
	progress(o, "writing the PDF");
	if (br_report_write_campaign_pdf(&camp, summary, run_sums, figs, n_figs, tmpl, pdf_path, &cause) != 0)
		goto out;
	if (br_render_wait(&cause) != 0 || (exit_rc = out_commit(&os, &cause)) != 0)
		goto out;
	failed = 0;
	print_result(o, &os, summary, 1);
	if (o->gate.n > 0)
		gate_rc = gate_finish(o, gates, (const char *const *)gate_names, n_gates);
out:
	if (failed) {
		fprintf(stderr, "benchreport: %s\n", cause ? cause : "failed");
		free(cause);
	}
	out_end(&os);
	free(pdf_path);
	json_decref(summary);
	for (size_t i = 0; run_sums && i < camp.n_runs; i++)
		json_decref(run_sums[i]);
	free(run_sums);
	br_figures_free(figs, n_figs);
	br_campaign_free(&camp);
	for (size_t i = 0; gate_names && i < n_gates; i++)
		free(gate_names[i]);
	free(gates);
	free(gate_names);
	return failed ? exit_rc : gate_rc;
}

/* br_cmd_report_check: see cmd.h. */
int
br_cmd_report_check(int argc, char **argv)
{
	report_opts o;
	int rc = parse_opts(argc, argv, &o) != 0 ? BR_EXIT_USAGE : 0;
	free(o.calib);
	return rc;
}

int
br_cmd_report(int argc, char **argv)
{
	report_opts o;
	char *cause = NULL;
	if (parse_opts(argc, argv, &o) != 0) {
		free(o.calib);
		return BR_EXIT_USAGE;
	}
	char *tpath = br_cli_template_path(o.lang);
	br_template *tmpl = br_template_load(tpath, &cause);
	free(tpath);
	if (tmpl == NULL) {
		fprintf(stderr, "benchreport: %s\n", cause);
		free(cause);
		free(o.calib);
		return BR_EXIT_INPUT;
	}
	int rc;
	const char *one_run_opt = o.in.bench_path ? "--bench" : o.in.metrics_path ? "--metrics" :
	    o.in.log_path ? "--log" : o.in.meta_path ? "--meta" : NULL;
	int campaign = br_campaign_looks_like(o.run_dir);
	if (campaign && one_run_opt != NULL) {
		/* the option names one run's file: against a campaign folder it would
		 * make a one-run report named after the campaign */
		fprintf(stderr, "benchreport: %s names one run's file, but %s is a campaign folder (sub-folders "
		    "of runs): give that run's folder instead, or drop %s\n", one_run_opt, o.run_dir, one_run_opt);
		rc = BR_EXIT_USAGE;
	} else if (campaign)
		rc = campaign_report(&o, tmpl);
	else if (o.focus != NULL) {
		fprintf(stderr, "benchreport: --focus needs a campaign folder (sub-folders of runs); "
		    "%s is a run\n", o.run_dir);
		rc = BR_EXIT_USAGE;
	} else
		rc = run_report(&o, tmpl);
	br_pdf_prepare_discard();   /* an input error ended the report before its PDF */
	br_template_free(tmpl);
	free(o.calib);
	return rc;
}
