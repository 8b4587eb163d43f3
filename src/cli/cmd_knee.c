/*
 * `benchreport knee DIR|FILE... --slo 'ttft_p99<=500ms,...' [-o OUT_DIR]`:
 * load the runs of a sweep, find the knee, write the knee report.
 *
 * Each argument may be a run folder (stress.json or the one bench *.json,
 * with its metrics series), a `vllm bench sweep` folder (summary.json; the
 * per-run run=N.json beside it are then not read again), a folder whose
 * sub-folders (up to two levels) are any of these, or a bench file
 * (single object or JSONL from --append-result).
 *
 * OUT_DIR defaults to ./knee-report (in the current directory, not inside an
 * input: a sweep spans several folders, and inputs are never modified).
 * Exit: 0 ok; 1 no setting meets the SLO in every repeat (the report is still written) or the
 * report could not be written; 2 bad usage (e.g. a bad --slo term);
 * 3 bad input (file:line:col).
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/outdir.h"
#include "benchreport/run.h"
#include "benchreport/compare.h"
#include "benchreport/knee.h"
#include "benchreport/render.h"
#include "cli/cmd.h"

/* Everything loaded, owned here. */
typedef struct loaded {
	br_run *runs;
	size_t n_runs;
	br_bench_set *sets;
	size_t n_sets;
	br_knee_input *in;
	char **names;
	char **servers;       /* br_cmp_server_fingerprint of each input's run, or NULL */
	double *pools;        /* KV pool (tokens) its server log states, NAN when none */
	size_t n_in;
	char **seen;          /* realpaths of the files and folders read */
	size_t n_seen;
	size_t n_dup;         /* inputs skipped because their realpath was read already */
} loaded;

/*
 * seen_before: 1 when path (a file or folder) resolves to one read
 * already (then counted in n_dup and skipped); else remembers it and
 * returns 0. A path realpath cannot resolve is never a duplicate.
 */
static int
seen_before(loaded *L, const char *path)
{
	char *rp = realpath(path, NULL);
	if (rp == NULL)
		return 0;
	for (size_t i = 0; i < L->n_seen; i++)
		if (strcmp(L->seen[i], rp) == 0) {
			free(rp);
			L->n_dup++;
			return 1;
		}
	L->seen = br_xrealloc(L->seen, (L->n_seen + 1) * sizeof *L->seen);
	L->seen[L->n_seen++] = rp;
	return 0;
}

/* add_input: one run (borrowed bench/metrics; the name and the server
 * fingerprint, NULL or malloc'd, are taken over). */
static void
add_input(loaded *L, const br_bench *b, const br_series *m, char *name_owned, char *server_owned,
    double pool_tokens)
{
	L->pools = br_xrealloc(L->pools, (L->n_in + 1) * sizeof *L->pools);
	L->pools[L->n_in] = pool_tokens;
	L->in = br_xrealloc(L->in, (L->n_in + 1) * sizeof *L->in);
	L->names = br_xrealloc(L->names, (L->n_in + 1) * sizeof *L->names);
	L->servers = br_xrealloc(L->servers, (L->n_in + 1) * sizeof *L->servers);
	L->names[L->n_in] = name_owned;
	L->servers[L->n_in] = server_owned;
	L->in[L->n_in] = (br_knee_input){ .bench = b, .metrics = m, .name = NULL, .server = server_owned };
	L->n_in++;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * split_by_pool: runs whose server logs state KV pools more than 10% apart
 * ran on different servers, even with the same GPU, version and arguments
 * (another gpu_memory_utilization default, another card's memory): the
 * pools, sorted, are cut where one exceeds 1.1 × the first of its group,
 * and when that makes two groups or more, each run's server setup gets
 * "kv_pool=A-B tokens", so that knee draws a curve per server (thirty-second
 * breaker: a 65,536-token run inside a 16,384-token sweep moved the knee).
 * One group (the usual sweep: pools within a few %) changes nothing; a run
 * whose log states no pool keeps its setup.
 */
static void
split_by_pool(loaded *L)
{
	double *v = br_xmalloc((L->n_in + 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < L->n_in; i++)
		if (br_isnum(L->pools[i]) && L->pools[i] > 0)
			v[n++] = L->pools[i];
	qsort(v, n, sizeof *v, cmp_double);
	/* first[k]: index of the first pool of v[k]'s group; groups counted */
	size_t *first = br_xmalloc((n + 1) * sizeof *first), groups = n > 0;
	for (size_t k = 0; k < n; k++) {
		first[k] = k > 0 && v[k] <= 1.1 * v[first[k - 1]] ? first[k - 1] : k;
		groups += k > 0 && first[k] == k;
	}
	for (size_t i = 0; groups >= 2 && i < L->n_in; i++) {
		double p = L->pools[i];
		if (!(br_isnum(p) && p > 0))
			continue;
		size_t k = 0, e;
		while (v[k] != p)
			k++;
		for (e = k; e + 1 < n && first[e + 1] == first[k]; e++)
			;
		double lo = v[first[k]], hi = v[e];
		char *item = lo == hi ? br_xasprintf("kv_pool=%.0f tokens", lo) :
		    br_xasprintf("kv_pool=%.0f-%.0f tokens", lo, hi);
		char *srv = L->servers[i] ? br_xasprintf("%s; %s", L->servers[i], item) : br_xstrdup(item);
		free(item);
		free(L->servers[i]);
		L->servers[i] = srv;
		L->in[i].server = srv;
	}
	free(first);
	free(v);
}

/* run_name: "LABEL" or "LABEL run=N" or "LABEL#i". */
static char *
run_name(const char *label, const br_bench_set *s, size_t i)
{
	const br_bench *b = &s->runs[i];
	if (s->n == 1)
		return br_xstrdup(label);
	if (br_isnum(b->run_number))
		return br_xasprintf("%s run=%.0f", label, b->run_number);
	return br_xasprintf("%s #%zu", label, br_bench_set_ordinal(s, i));
}

/* load_file: a bench file (object, JSONL or array); nothing when the same
 * file was read already. 0 or -1 with *cause. */
static int
load_file(loaded *L, const char *path, const char *label, char **cause)
{
	if (seen_before(L, path))
		return 0;
	br_bench_set s;
	if (br_bench_load(path, &s, cause) != 0)
		return -1;
	L->sets = br_xrealloc(L->sets, (L->n_sets + 1) * sizeof *L->sets);
	L->sets[L->n_sets++] = s;
	/* pointers into the set array's element: stable, the runs array is not moved */
	const br_bench_set *sp = &L->sets[L->n_sets - 1];
	for (size_t i = 0; i < sp->n; i++)
		add_input(L, &sp->runs[i], NULL, run_name(label, sp, i), NULL, NAN);
	return 0;
}

/* has_bench_json: 1 when dir holds stress.json or a *.json / *.jsonl that looks like a bench result. */
static int
has_bench_json(const char *dir)
{
	char *p = br_path_join(dir, "stress.json");
	int ok = br_is_file(p);
	free(p);
	if (ok)
		return 1;
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0;
	struct dirent *e;
	while (!ok && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		int json = n >= 6 && strcmp(e->d_name + n - 5, ".json") == 0;
		int jsonl = n >= 7 && strcmp(e->d_name + n - 6, ".jsonl") == 0;  /* --append-result */
		if (!(json || jsonl) || strcmp(e->d_name, "run.json") == 0)
			continue;
		char *f = br_path_join(dir, e->d_name);
		ok = br_is_file(f) && br_bench_looks_like(f);
		free(f);
	}
	closedir(d);
	return ok;
}

/* name_cmp: strcmp for qsort of char*. */
static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * load_dir: summary.json folder, run folder, or a folder of those (depth
 * levels below). Returns the number of runs added plus inputs skipped as
 * already read (so a folder given twice is not "empty"), or -1 with *cause.
 */
static long
load_dir(loaded *L, const char *dir, int depth, char **cause)
{
	size_t before = L->n_in, dup_before = L->n_dup;
	char *sum = br_path_join(dir, "summary.json");
	if (br_is_file(sum) && br_bench_looks_like(sum)) {
		char *label = br_xstrdup(br_basename(dir));
		int rc = load_file(L, sum, label, cause);
		free(label);
		free(sum);
		return rc != 0 ? -1 : (long)(L->n_in - before + L->n_dup - dup_before);
	}
	free(sum);
	if (has_bench_json(dir)) {
		if (seen_before(L, dir))
			return 1;
		br_run r;
		if (br_run_load(dir, NULL, &r, cause) != 0)
			return -1;
		L->runs = br_xrealloc(L->runs, (L->n_runs + 1) * sizeof *L->runs);
		L->runs[L->n_runs++] = r;
		const br_run *rp = &L->runs[L->n_runs - 1];
		for (size_t i = 0; i < rp->bench.n; i++)
			add_input(L, &rp->bench.runs[i], rp->bench.n == 1 ? rp->metrics : NULL,
			    run_name(rp->name ? rp->name : br_basename(dir), &rp->bench, i),
			    br_cmp_server_fingerprint(rp), rp->log ? rp->log->kv_pool_tokens : NAN);
		return (long)(L->n_in - before);
	}
	if (depth <= 0)
		return 0;
	DIR *d = opendir(dir);
	if (d == NULL) {
		*cause = br_xasprintf("%s: cannot open folder", dir);
		return -1;
	}
	char **subs = NULL;
	size_t ns = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *p = br_path_join(dir, e->d_name);
		if (br_is_dir(p)) {
			subs = br_xrealloc(subs, (ns + 1) * sizeof *subs);
			subs[ns++] = p;
		} else {
			free(p);
		}
	}
	closedir(d);
	qsort(subs, ns, sizeof *subs, name_cmp);
	long rc = 0;
	for (size_t i = 0; i < ns; i++) {
		if (rc >= 0 && load_dir(L, subs[i], depth - 1, cause) < 0)
			rc = -1;
		free(subs[i]);
	}
	free(subs);
	return rc < 0 ? -1 : (long)(L->n_in - before + L->n_dup - dup_before);
}

/* loaded_free: release everything. */
static void
loaded_free(loaded *L)
{
	for (size_t i = 0; i < L->n_runs; i++)
		br_run_free(&L->runs[i]);
	free(L->runs);
	for (size_t i = 0; i < L->n_sets; i++)
		br_bench_set_free(&L->sets[i]);
	free(L->sets);
	for (size_t i = 0; i < L->n_in; i++) {
		free(L->names[i]);
		free(L->servers[i]);
	}
	free(L->names);
	free(L->servers);
	free(L->pools);
	free(L->in);
	for (size_t i = 0; i < L->n_seen; i++)
		free(L->seen[i]);
	free(L->seen);
}

/* knee_template_path: knee.LANG.json beside report.LANG.json. */
static char *
knee_template_path(const char *lang)
{
	char *rp = br_cli_template_path(lang);
	char *slash = strrchr(rp, '/');
	char *p;
	if (slash) {
		*slash = '\0';
		p = br_xasprintf("%s/knee.%s.json", rp, lang);
	} else {
		p = br_xasprintf("knee.%s.json", lang);
	}
	free(rp);
	return p;
}

static void
knee_usage(FILE *fp)
{
	fprintf(fp, "usage: benchreport knee DIR|FILE... --slo 'ttft_p99<=500ms[,tpot_p99<=50ms,e2el_p99<=20s]'\n"
	            "                        [-o OUT_DIR] [--lang en|zh|auto] [--quiet]\n"
	            "OUT_DIR defaults to ./knee-report. Exit: 0 ok, 1 no setting meets the SLO (in every repeat), 2 bad usage, 3 bad input.\n");
}

/* br_cmd_knee: see cmd.h. */
int
br_cmd_knee(int argc, char **argv)
{
	const char *slo_text = NULL, *out_dir = "knee-report", *lang_arg = NULL;
	const char **args = br_xcalloc((size_t)argc + 1, sizeof *args);
	size_t na = 0;
	int quiet = 0;
	int operands = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (operands)
			args[na++] = a;
		else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			knee_usage(stdout);
			free(args);
			return BR_EXIT_OK;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			quiet = 1;
		} else if (strcmp(a, "--slo") == 0 || strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0 ||
		    strcmp(a, "--lang") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "benchreport knee: option '%s' needs a value\n", a);
				free(args);
				return BR_EXIT_USAGE;
			}
			if (strcmp(a, "--slo") == 0)
				slo_text = argv[++i];
			else if (strcmp(a, "--lang") == 0)
				lang_arg = argv[++i];
			else
				out_dir = argv[++i];
		} else if (strncmp(a, "--slo=", 6) == 0) {
			slo_text = a + 6;
		} else if (strcmp(a, "--") == 0) {
			operands = 1;   /* after "--": every argument is an input ("-x" too) */
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "benchreport knee: unknown option '%s'\n", a);
			knee_usage(stderr);
			free(args);
			return BR_EXIT_USAGE;
		} else {
			args[na++] = a;
		}
	}
	if (na == 0 || slo_text == NULL) {
		fprintf(stderr, "benchreport knee: %s\n", na == 0 ? "missing DIR or FILE" : "missing --slo");
		knee_usage(stderr);
		free(args);
		return BR_EXIT_USAGE;
	}
	const char *lang = br_cli_lang(lang_arg, "knee");
	if (lang == NULL) {
		free(args);
		return BR_EXIT_USAGE;
	}
	char *cause = NULL;
	br_slo slo;
	if (br_slo_parse(slo_text, &slo, &cause) != 0) {
		fprintf(stderr, "benchreport knee: %s\n", cause);
		free(cause);
		free(args);
		return BR_EXIT_USAGE;
	}
	int rc = BR_EXIT_OK;
	br_outdir *od = br_outdir_prepare(out_dir, "knee", 1, &rc, &cause);
	if (od == NULL) {
		fprintf(stderr, "benchreport knee: %s\n", cause);
		free(cause);
		free(args);
		return BR_EXIT_USAGE;
	}
	rc = BR_EXIT_OK;
	loaded L = { 0 };
	for (size_t i = 0; i < na; i++) {
		long got;
		if (na > 1 && br_is_dir(args[i]) && br_outdir_is_report(args[i])) {
			/* a shell glob ("knee sweep/" and a star) also names benchreport's own
			 * output folder: not a run */
			fprintf(stderr, "benchreport knee: note: %s is a report benchreport wrote, not a run; "
			    "skipped\n", args[i]);
			continue;
		}
		if (br_is_dir(args[i])) {
			got = load_dir(&L, args[i], 2, &cause);
			if (got == 0)
				cause = br_xasprintf("%s: no bench result (stress.json, a bench *.json or summary.json) "
				    "in it or its sub-folders", args[i]);
		} else {
			got = load_file(&L, args[i], br_basename(args[i]), &cause) == 0 ? 1 : -1;
		}
		if (got <= 0) {
			fprintf(stderr, "benchreport knee: %s\n", cause ? cause : args[i]);
			free(cause);
			loaded_free(&L);
			free(args);
			br_outdir_free(od);
			return BR_EXIT_INPUT;
		}
	}
	if (L.n_in == 0) {   /* every argument was a report folder */
		fprintf(stderr, "benchreport knee: no run among the arguments: expected run folders or bench "
		    "result files\n");
		loaded_free(&L);
		free(args);
		br_outdir_free(od);
		return BR_EXIT_INPUT;
	}
	split_by_pool(&L);
	for (size_t i = 0; i < L.n_in; i++)
		L.in[i].name = L.names[i];
	br_knee_result res;
	if (br_knee_analyze(L.in, L.n_in, &slo, &res, &cause) != 0) {
		fprintf(stderr, "benchreport knee: %s\n", cause);
		free(cause);
		loaded_free(&L);
		free(args);
		br_outdir_free(od);
		return BR_EXIT_ANALYSIS;
	}
	if (L.n_dup > 0 || res.n_runs < L.n_in) {
		br_knee_add_note(&res, br_knee_duplicate_note());
		fprintf(stderr, "benchreport knee: note: %zu input(s) given more than once (same path or an "
		    "identical result) were counted once\n", L.n_dup + (L.n_in - res.n_runs));
	}
	char *tpath = knee_template_path(lang);
	json_t *summary = NULL;
	int wrc = br_knee_write_report(&res, od, tpath, &summary, &cause);
	if (wrc != 0) {
		fprintf(stderr, "benchreport knee: %s\n", cause ? cause : "failed");
		free(cause);
		rc = wrc == BR_OUTDIR_ERR_REFUSED ? BR_EXIT_USAGE : BR_EXIT_ANALYSIS;
	} else {
		if (!quiet) {
			printf("SLO %s; %zu runs, %zu curve(s)\n", slo.text, res.n_runs, res.n_groups);
			for (size_t g = 0; g < res.n_groups; g++) {
				const br_knee_group *G = &res.groups[g];
				int rate = G->kind == BR_KNEE_RATE;
				printf("curve %zu (%s): %s\n", g + 1, rate ? "request-rate sweep" : "concurrency sweep, closed loop",
				    G->label);
				/* "knee: 2 req/s offered", "knee: max_concurrency 4", "knee: none"
				 * (eighteenth breaker: "knee max_concurrency none" read as "no cap") */
				char kx[48] = "none", fx[48] = "none";
				if (G->knee_idx >= 0)   /* not reached: ">= x" */
					snprintf(kx, sizeof kx, rate ? "%s%g req/s offered%s" : "max_concurrency %s%g%s",
					    G->knee_open ? ">= " : "", G->pts[G->knee_idx].x, G->knee_open ? " (not reached)" : "");
				if (G->first_fail_idx >= 0)
					snprintf(fx, sizeof fx, rate ? "%g req/s offered" : "max_concurrency %g",
					    G->pts[G->first_fail_idx].x);
				printf("  knee: %s; first failing: %s\n", kx, fx);
				if (G->first_fail_warmup_only) {
					/* that failure is one warm-up-like repeat: say what the others show */
					char kw[32] = "none", fw[32] = "none";
					if (G->knee_idx_without_warmup >= 0)
						snprintf(kw, sizeof kw, "%g", G->pts[G->knee_idx_without_warmup].x);
					if (G->first_fail_idx_without_warmup >= 0)
						snprintf(fw, sizeof fw, "%g", G->pts[G->first_fail_idx_without_warmup].x);
					printf("  (at %s only the first repeat misses, and it looks like a warm-up; "
					    "without it: knee %s, first failing %s; rerun %s after a warm-up round)\n", fx, kw, fw, fx);
				}
				if (G->pass_after_fail_idx >= 0)
					printf("  (not monotone: the SLO holds again at %g above the first failure; rerun %s with "
					    "repeats before trusting the knee)\n", G->pts[G->pass_after_fail_idx].x, fx);
			}
			printf("report: %s/report.pdf\n", br_outdir_path(od));
		}
		if (!res.any_meets) {
			size_t n_eval = 0, n_no_sample = 0, n_pts = 0;
			for (size_t g = 0; g < res.n_groups; g++)
				for (size_t i = 0; i < res.groups[g].n; i++) {
					n_eval += (size_t)res.groups[g].pts[i].slo_evaluable;
					n_no_sample += (size_t)res.groups[g].pts[i].slo_no_sample;
					n_pts++;
				}
			if (n_eval == 0 && n_no_sample == n_pts)
				fprintf(stderr, "benchreport knee: the SLO %s is not evaluable for any run: every request "
				    "produced a single output token, so there is no TPOT or ITL sample to hold to a "
				    "limit (the files' 0s are placeholders)\n", slo.text);
			else if (n_eval == 0)
				fprintf(stderr, "benchreport knee: the SLO %s is not evaluable for any run: each lacks "
				    "a percentile a term names (no per-request arrays, and the file does not state "
				    "it); run vllm bench serve with --save-detailed\n", slo.text);
			else {
				size_t n_met = 0, n_kept = 0;
				for (size_t g = 0; g < res.n_groups; g++)
					for (size_t i = 0; i < res.groups[g].n; i++) {
						n_met += (size_t)res.groups[g].pts[i].meets_slo;
						n_kept += (size_t)(res.groups[g].pts[i].meets_slo &&
						    !res.groups[g].pts[i].cannot_keep_up);
					}
				if (n_met > 0 && n_kept == 0)
					fprintf(stderr, "benchreport knee: no setting meets the SLO %s while keeping up with "
					    "its offered rate (%zu run%s meet%s it but fell behind)\n", slo.text, n_met,
					    n_met > 1 ? "s" : "", n_met > 1 ? "" : "s");
				else if (n_met > 0)
					fprintf(stderr, "benchreport knee: no setting meets the SLO %s in every repeat "
					    "(%zu single run%s do%s)\n", slo.text, n_met, n_met > 1 ? "s" : "", n_met > 1 ? "" : "es");
				else
					fprintf(stderr, "benchreport knee: no run meets the SLO %s\n", slo.text);
			}
			rc = BR_EXIT_ANALYSIS;
		}
	}
	json_decref(summary);
	free(tpath);
	br_outdir_free(od);
	br_knee_free(&res);
	loaded_free(&L);
	free(args);
	br_render_shutdown();
	return rc;
}
