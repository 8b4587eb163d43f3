/*
 * Reading a campaign from disk (campaign.h br_campaign_read): its run
 * sub-folders, campaign.json's plan, and the --calibration folders, each
 * run through br_run_load. The analyses, focus and calibration are
 * src/analysis/campaign.c's (br_campaign_analyze).
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "benchreport/common.h"
#include "benchreport/campaign.h"
#include "benchreport/outdir.h"

/* br_campaign_inputs_free: see campaign.h. */
void
br_campaign_inputs_free(br_campaign *c)
{
	for (size_t i = 0; i < c->n_runs; i++)
		br_run_free(&c->runs[i]);
	free(c->runs);
	for (size_t i = 0; i < c->n_calibration_runs; i++)
		br_run_free(&c->calibration_runs[i]);
	free(c->calibration_runs);
	for (size_t i = 0; i < c->n_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	for (size_t i = 0; i < c->n_no_bench_runs; i++)
		free(c->no_bench_runs[i]);
	free(c->no_bench_runs);
	br_plan_free(c->plan, c->n_plan);
	free(c->dir);
	free(c->name);
	memset(c, 0, sizeof *c);
}

static int
cmp_str(const void *a, const void *b)
{
	/* rate-2 before rate-16: a sweep's runs in the order they were swept
	 * (twenty-fourth breaker: rate-1, rate-16, rate-2, ...) */
	return br_natural_cmp(*(char *const *)a, *(char *const *)b);
}

/* looks_like_bench: 1 when the first 64 KiB of file f hold the keys every
 * vllm bench serve result (and an SGLang JSONL line) has: "completed", and
 * "duration" or "total_input_tokens"/"total_input" — a cheap sniff of the
 * content, so that a notes.json beside the runs does not make the campaign
 * folder look like a run. */
static int
looks_like_bench(const char *f)
{
	FILE *fp = fopen(f, "rb");
	if (fp == NULL)
		return 0;
	char buf[65537];
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strstr(buf, "\"completed\"") != NULL && (strstr(buf, "\"duration\"") != NULL ||
	    strstr(buf, "\"total_input") != NULL);
}

/*
 * has_bench: 1 when dir holds stress.json or a .json/.jsonl file other than
 * campaign.json or run.json; with `sniff`, only files whose content looks
 * like a bench result (looks_like_bench) count.
 */
static int
has_bench(const char *dir, int sniff)
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
		if (e->d_name[0] == '.' || strcmp(e->d_name, "run.json") == 0 ||
		    strcmp(e->d_name, "campaign.json") == 0)
			continue;
		if ((n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) ||
		    (n > 6 && strcmp(e->d_name + n - 6, ".jsonl") == 0)) {
			char *f = br_path_join(dir, e->d_name);
			ok = br_is_file(f) && (!sniff || looks_like_bench(f));
			free(f);
		}
	}
	closedir(d);
	return ok;
}

/* has_bench_name: has_bench by name only (a run folder's test). */
static int
has_bench_name(const char *dir)
{
	return has_bench(dir, 0);
}

/* loops_back: 1 when sub (a symlink, say `loop -> ..`) resolves to dir itself
 * or one of its ancestors: reading it would read the campaign again, or
 * everything above it. */
static int
loops_back(const char *dir, const char *sub)
{
	char d[PATH_MAX], t[PATH_MAX];
	if (realpath(dir, d) == NULL || realpath(sub, t) == NULL)
		return 0;
	size_t n = strlen(t);
	return strncmp(d, t, n) == 0 && (d[n] == '\0' || d[n] == '/' || n == 1);
}

/* sub_folders: sorted names of the sub-folders of dir (not hidden, not
 * our own report/tmp folders, nor any folder a benchreport report wrote). */
static char **
sub_folders(const char *dir, size_t *n_out)
{
	char **v = NULL;
	size_t n = 0;
	DIR *d = opendir(dir);
	if (d != NULL) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.' || strcmp(e->d_name, "report") == 0 ||
			    strstr(e->d_name, ".tmp.") || strstr(e->d_name, ".old."))
				continue;
			char *p = br_path_join(dir, e->d_name);
			/* a report benchreport wrote (any -o inside the campaign) is output, not a run */
			int is_dir = br_is_dir(p) && !loops_back(dir, p) && !br_outdir_is_report(p);
			free(p);
			if (!is_dir)
				continue;
			v = br_xrealloc(v, (n + 1) * sizeof *v);
			v[n++] = br_xstrdup(e->d_name);
		}
		closedir(d);
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_str);
	*n_out = n;
	return v;
}

static void
free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int
br_campaign_looks_like(const char *dir)
{
	/* the folder's own JSON files are sniffed: a notes.json beside the runs
	 * is not a bench result of the folder */
	if (!br_is_dir(dir) || has_bench(dir, 1))
		return 0;
	size_t n;
	char **subs = sub_folders(dir, &n);
	int found = 0;
	for (size_t i = 0; i < n && !found; i++) {
		char *p = br_path_join(dir, subs[i]);
		found = has_bench_name(p);
		free(p);
	}
	free_names(subs, n);
	return found;
}

static void
add_warning(br_campaign *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = br_xvasprintf(fmt, ap);
	va_end(ap);
	c->warnings = br_xrealloc(c->warnings, (c->n_warnings + 1) * sizeof *c->warnings);
	c->warnings[c->n_warnings++] = msg;
}

/*
 * same_folder: 1 when paths a and b name the same folder (equal realpaths;
 * equal strings when either realpath fails).
 */
static int
same_folder(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return 0;
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	int same = ra != NULL && rb != NULL ? strcmp(ra, rb) == 0 : strcmp(a, b) == 0;
	free(ra);
	free(rb);
	return same;
}

/*
 * loaded_as: the name of the campaign run or calibration run already
 * loaded from folder p, or NULL. Calibration runs are deduplicated by
 * folder so that `CAMPAIGN --calibration CAMPAIGN` or `--calibration X X`
 * fit every run once.
 */
static const char *
loaded_as(const br_campaign *c, const char *p)
{
	for (size_t i = 0; i < c->n_runs; i++)
		if (same_folder(c->runs[i].dir, p))
			return c->runs[i].name ? c->runs[i].name : c->runs[i].dir;
	for (size_t i = 0; i < c->n_calibration_runs; i++)
		if (same_folder(c->calibration_runs[i].dir, p))
			return c->calibration_runs[i].name ? c->calibration_runs[i].name :
			    c->calibration_runs[i].dir;
	return NULL;
}

/* load_calibration_dir: a run folder or a campaign of runs, appended to
 * c->calibration_runs; a folder already loaded (campaign run or earlier
 * calibration run, same realpath) is skipped with a warning. */
static int
load_calibration_dir(br_campaign *c, const char *dir, char **cause)
{
	size_t n = 0;
	char **subs = NULL;
	if (same_folder(dir, c->dir)) {
		add_warning(c, "--calibration %s: the campaign itself; its runs are already in the "
		    "calibration, counted once", dir);
		return 0;
	}
	if (br_campaign_looks_like(dir))
		subs = sub_folders(dir, &n);
	size_t count = subs ? n : 1;
	for (size_t i = 0; i < count; i++) {
		char *p = subs ? br_path_join(dir, subs[i]) : br_xstrdup(dir);
		if (subs && !has_bench_name(p)) {
			free(p);
			continue;
		}
		const char *dup = loaded_as(c, p);
		if (dup != NULL) {
			add_warning(c, "--calibration %s: same folder as run %s; counted once", p, dup);
			free(p);
			continue;
		}
		c->calibration_runs = br_xrealloc(c->calibration_runs,
		    (c->n_calibration_runs + 1) * sizeof *c->calibration_runs);
		int rc = br_run_load(p, NULL, &c->calibration_runs[c->n_calibration_runs], cause);
		free(p);
		if (rc != 0) {
			free_names(subs, n);
			return -1;
		}
		/* given with --calibration: a calibration run by the user's word */
		br_run *cr = &c->calibration_runs[c->n_calibration_runs];
		if (cr->role == NULL)
			cr->role = br_xstrdup("calibration");
		c->n_calibration_runs++;
	}
	free_names(subs, n);
	return 0;
}

/* tell_apart: name r "NAME [folder]", remembering NAME's length (a
 * campaign holding two runs named NAME). */
static void
tell_apart(br_run *r)
{
	size_t given = r->given_name_len ? r->given_name_len : strlen(r->name);
	char *nn = br_xasprintf("%.*s [%s]", (int)given, r->name, br_basename(r->dir));
	free(r->name);
	r->name = nn;
	r->given_name_len = given;
}

/*
 * load_plan: DIR/campaign.json's "expect" list into c->plan (absent file:
 * no plan). Returns 0, or -1 with *cause at file:line:col.
 */
static int
load_plan(br_campaign *c, const char *dir, char **cause)
{
	char *path = br_path_join(dir, "campaign.json");
	int rc = 0;
	if (access(path, F_OK) == 0) {
		char *text = NULL;
		size_t len = 0;
		rc = -1;
		if (br_read_file(path, &text, &len, cause) == 0) {
			json_error_t err;
			json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
			if (root == NULL || !json_is_object(root))
				*cause = br_xasprintf("%s:%d:%d: expected a JSON object with an \"expect\" list (%s)",
				    path, root ? 1 : err.line, root ? 1 : err.column, root ? "not an object" : err.text);
			else {
				const char *key;
				json_t *val;
				rc = 0;
				json_object_foreach(root, key, val) {
					(void)val;
					if (strcmp(key, "expect") != 0 && key[0] != '_') {
						char *where = br_json_key_where(path, text, len, key);
						*cause = br_xasprintf("%s: unknown key \"%s\"; campaign.json holds \"expect\" "
						    "(the experiment plan) and \"_comment\" keys", where, key);
						free(where);
						rc = -1;
						break;
					}
				}
				if (rc == 0)
					rc = br_plan_parse(root, path, text, len, &c->plan, &c->n_plan, cause);
			}
			json_decref(root);
			free(text);
		}
	}
	free(path);
	return rc;
}

/* looks_like_run: 1 when folder p holds what a run's server side leaves:
 * an input file of a run folder (br_run_input_name: server.log,
 * metrics.csv, run.json, slots.jsonl, a *.prom) or a metrics/ folder. */
static int
looks_like_run(const char *p)
{
	char *m = br_path_join(p, "metrics");
	int found = br_is_dir(m);
	free(m);
	DIR *d = found ? NULL : opendir(p);
	struct dirent *e;
	while (d != NULL && !found && (e = readdir(d)) != NULL)
		found = br_run_input_name(e->d_name);
	if (d != NULL)
		closedir(d);
	return found;
}

int
br_campaign_read(const char *dir, const char *const *calib_dirs, size_t n_calib, br_campaign *out,
    char **cause)
{
	br_campaign *c = out;
	memset(c, 0, sizeof *c);
	c->dir = br_xstrdup(dir);
	{
		char *tmp = br_xstrdup(dir);
		size_t n = strlen(tmp);
		while (n > 1 && tmp[n - 1] == '/')
			tmp[--n] = '\0';
		c->name = br_xstrdup(br_basename(tmp));
		free(tmp);
	}
	if (load_plan(c, dir, cause) != 0) {
		br_campaign_inputs_free(c);
		return -1;
	}
	size_t n_subs;
	char **subs = sub_folders(dir, &n_subs);
	c->runs = br_xcalloc(n_subs ? n_subs : 1, sizeof *c->runs);
	for (size_t i = 0; i < n_subs; i++) {
		char *p = br_path_join(dir, subs[i]);
		if (!has_bench_name(p)) {
			if (looks_like_run(p)) {
				add_warning(c, "%s: server files (server.log, metrics or run.json) but no bench result: the "
				    "load client did not finish or its result was not saved; not a run, skipped", subs[i]);
				c->no_bench_runs = br_xrealloc(c->no_bench_runs, (c->n_no_bench_runs + 1) *
				    sizeof *c->no_bench_runs);
				c->no_bench_runs[c->n_no_bench_runs++] = br_xstrdup(subs[i]);
			} else {
				/* runs one level further down are not searched: said,
				 * not "not a run" (thirty-fourth breaker) */
				size_t n_inner, n_runs_inner = 0;
				char **inner = sub_folders(p, &n_inner);
				for (size_t k = 0; k < n_inner; k++) {
					char *q = br_path_join(p, inner[k]);
					n_runs_inner += has_bench_name(q);
					free(q);
					free(inner[k]);
				}
				free(inner);
				if (n_runs_inner > 0)
					add_warning(c, "%s: no bench result in it, but %zu of its sub-folders %s one: a "
					    "campaign reads runs one level down only, so they are skipped (report %s as a "
					    "campaign of its own, or move them up)", subs[i], n_runs_inner,
					    n_runs_inner == 1 ? "holds" : "hold", subs[i]);
				else
					add_warning(c, "%s: no bench result; not a run, skipped", subs[i]);
			}
			free(p);
			continue;
		}
		int rc = br_run_load(p, NULL, &c->runs[c->n_runs], cause);
		free(p);
		if (rc != 0) {
			free_names(subs, n_subs);
			br_campaign_inputs_free(c);
			return -1;
		}
		/* a byte-identical bench result, or one saved again with the same
		 * date and timings, is a copy of a run: two runs never time their
		 * requests alike, and counting it twice would make a repeat with
		 * zero variation */
		size_t j = 0;
		int copy = 0;
		while (j < c->n_runs && !(copy = br_run_same_bench(&c->runs[j], &c->runs[c->n_runs])))
			j++;
		if (j < c->n_runs) {
			/* which folder holds the original is unknown: the one read
			 * first (folder order) is kept; both are named by folder and
			 * run name, as the tables call the kept one */
			const br_run *kept = &c->runs[j], *skip = &c->runs[c->n_runs];
			if (copy == 1)
				add_warning(c, "%s (run %s): its bench result is byte-identical to that of %s (SHA-256 "
				    "%.16s…): one run saved twice, not a repeat; counted once, as run %s", subs[i],
				    skip->name, br_basename(kept->dir), br_run_bench_sha256(kept), kept->name);
			else if (copy == 3)
				add_warning(c, "%s (run %s): its bench result states the same date, duration and "
				    "statistics, bit for bit, as that of %s (neither has per-request arrays): one run "
				    "saved twice, not a repeat; counted once, as run %s", subs[i], skip->name,
				    br_basename(kept->dir), kept->name);
			else
				add_warning(c, "%s (run %s): its bench result states the same date and per-request "
				    "timings, bit for bit, as that of %s: one run saved twice, not a repeat; counted "
				    "once, as run %s", subs[i], skip->name, br_basename(kept->dir), kept->name);
			br_run_free(&c->runs[c->n_runs]);
			memset(&c->runs[c->n_runs], 0, sizeof c->runs[c->n_runs]);
			continue;
		}
		c->n_runs++;
	}
	free_names(subs, n_subs);
	if (c->n_runs == 0) {
		*cause = br_xasprintf("%s: no run folders (sub-folders holding stress.json) found", dir);
		br_campaign_inputs_free(c);
		return -1;
	}
	/* two runs named alike (run.json "name"): each gets its folder's name in
	 * brackets, so tables, the focus and the story never confuse them */
	for (size_t i = 0; i < c->n_runs; i++) {
		int dup = 0;
		for (size_t j = 0; j < c->n_runs && !dup; j++)
			dup = j != i && strcmp(c->runs[i].name, c->runs[j].name) == 0;
		if (dup)
			add_warning(c, "two runs are named %s (run.json \"name\"); they are told apart by their "
			    "folders", c->runs[i].name);
		for (size_t j = i + 1; dup && j < c->n_runs; j++)
			if (strcmp(c->runs[i].name, c->runs[j].name) == 0)
				tell_apart(&c->runs[j]);
		if (dup)
			tell_apart(&c->runs[i]);
	}
	for (size_t i = 0; i < c->n_runs; i++)
		if (c->runs[i].bench.n > 1)
			add_warning(c, "%s holds %zu bench results: the tables and the detailed chapters use the "
			    "last one (the newest of appended results, or of a sweep's summary.json); the repeats table counts all of them",
			    c->runs[i].name, c->runs[i].bench.n);

	if (c->n_runs == 1)
		add_warning(c, "the campaign holds one run (%s): there is nothing to compare, so the comparison "
		    "tables and figures show that run alone; its own report (benchreport RUN_DIR) gives the same "
		    "chapters", c->runs[0].name);

	/* the folders given for the FLOPs calibration only */
	for (size_t i = 0; i < n_calib; i++)
		if (load_calibration_dir(c, calib_dirs[i], cause) != 0) {
			br_campaign_inputs_free(c);
			return -1;
		}
	return 0;
}
