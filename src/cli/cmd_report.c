/*
 * `benchreport RUN_DIR`: load the run, analyse it, draw the figures, write
 * summary.json, the tables and report.pdf into a staging folder, then swap
 * it into place so a killed run never leaves a half-written report.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "benchreport/common.h"
#include "benchreport/run.h"
#include "benchreport/analysis.h"
#include "benchreport/render.h"
#include "benchreport/report.h"
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
} report_opts;

/*
 * parse_opts: options may come before or after RUN_DIR. Returns 0, or -1
 * after printing a usage message.
 */
static int
parse_opts(int argc, char **argv, report_opts *o)
{
	memset(o, 0, sizeof *o);
	o->lang = "en";
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char **target = NULL;
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
	if (strcmp(o->lang, "en") != 0) {
		fprintf(stderr, "benchreport: --lang %s: only 'en' is available in this version\n", o->lang);
		return -1;
	}
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

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* rm_rf: remove a folder tree we created (staging or an old report). */
static void
rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * clean_stale: remove OUT_DIR.tmp.PID and OUT_DIR.old.PID folders left by a
 * benchreport that was killed (its PID no longer runs).
 */
static void
clean_stale(const char *out_dir)
{
	char *dir_copy = br_xstrdup(out_dir);
	char *slash = strrchr(dir_copy, '/');
	const char *parent = ".", *base = dir_copy;
	if (slash != NULL) {
		*slash = '\0';
		parent = slash == dir_copy ? "/" : dir_copy;
		base = slash + 1;
	}
	DIR *d = opendir(parent);
	if (d != NULL) {
		size_t bl = strlen(base);
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			const char *n = e->d_name;
			if (strncmp(n, base, bl) != 0)
				continue;
			const char *rest = n + bl;
			if (strncmp(rest, ".tmp.", 5) != 0 && strncmp(rest, ".old.", 5) != 0)
				continue;
			char *end;
			long pid = strtol(rest + 5, &end, 10);
			if (*end != '\0' || pid <= 0 || pid == (long)getpid())
				continue;
			if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
				continue;
			char *p = br_path_join(parent, n);
			rm_rf(p);
			free(p);
		}
		closedir(d);
	}
	free(dir_copy);
}

/* write_json_file: dump with sorted keys and 2-space indent, atomically. */
static int
write_json_file(const char *path, const json_t *j, char **cause)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
	if (text == NULL) {
		*cause = br_xasprintf("%s: cannot serialise summary", path);
		return -1;
	}
	size_t len = strlen(text);
	char *with_nl = br_xasprintf("%s\n", text);
	free(text);
	int rc = br_write_atomic(path, with_nl, len + 1, cause);
	free(with_nl);
	return rc;
}

/*
 * swap_into_place: move the finished staging folder to out_dir. An existing
 * out_dir is replaced only when it holds a previous benchreport report
 * (summary.json); anything else is refused so nothing foreign is lost.
 */
static int
swap_into_place(const char *staging, const char *out_dir, char **cause)
{
	if (br_is_dir(out_dir)) {
		char *prev = br_path_join(out_dir, "summary.json");
		int ours = br_is_file(prev);
		free(prev);
		if (!ours) {
			*cause = br_xasprintf("%s: exists and is not a benchreport report folder; "
			    "choose another with -o", out_dir);
			return -1;
		}
		char *old = br_xasprintf("%s.old.%ld", out_dir, (long)getpid());
		if (rename(out_dir, old) != 0) {
			*cause = br_xasprintf("%s: cannot replace: %s", out_dir, strerror(errno));
			free(old);
			return -1;
		}
		if (rename(staging, out_dir) != 0) {
			*cause = br_xasprintf("%s: cannot write: %s", out_dir, strerror(errno));
			rename(old, out_dir);
			free(old);
			return -1;
		}
		rm_rf(old);
		free(old);
		return 0;
	}
	if (br_is_file(out_dir)) {
		*cause = br_xasprintf("%s: exists and is a file; choose another with -o", out_dir);
		return -1;
	}
	if (rename(staging, out_dir) != 0) {
		*cause = br_xasprintf("%s: cannot write: %s", out_dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* relativise figure paths from staging to the final folder for the summary */
static void
retarget_figures(br_figure *figs, size_t n, const char *staging, const char *out_dir)
{
	size_t sl = strlen(staging);
	for (size_t i = 0; i < n; i++) {
		char **paths[3] = { &figs[i].png_path, &figs[i].svg_path, &figs[i].csv_path };
		for (int k = 0; k < 3; k++) {
			char *p = *paths[k];
			if (p != NULL && strncmp(p, staging, sl) == 0) {
				char *q = br_xasprintf("%s%s", out_dir, p + sl);
				free(p);
				*paths[k] = q;
			}
		}
	}
}

int
br_cmd_report(int argc, char **argv)
{
	report_opts o;
	char *cause = NULL;
	int rc = BR_EXIT_OK;
	br_run run;
	br_analysis a;
	br_figure *figs = NULL;
	size_t n_figs = 0;
	json_t *summary = NULL;
	br_template *tmpl = NULL;
	char *out_dir = NULL, *staging = NULL, *fig_dir = NULL, *tpath = NULL;
	char *pdf_path = NULL, *sum_path = NULL;

	if (parse_opts(argc, argv, &o) != 0)
		return BR_EXIT_USAGE;

	tpath = br_cli_template_path(o.lang);
	tmpl = br_template_load(tpath, &cause);
	if (tmpl == NULL) {
		fprintf(stderr, "benchreport: %s\n", cause);
		free(cause);
		free(tpath);
		return BR_EXIT_INPUT;
	}

	if (br_run_load(o.run_dir, &o.in, &run, &cause) != 0) {
		fprintf(stderr, "benchreport: %s\n", cause);
		free(cause);
		br_template_free(tmpl);
		free(tpath);
		return BR_EXIT_INPUT;
	}
	if (!o.quiet && !o.json)
		for (size_t i = 0; i < run.n_warnings; i++)
			fprintf(stderr, "benchreport: note: %s\n", run.warnings[i]);

	br_analyze(&run, &a);

	out_dir = o.out_dir ? br_xstrdup(o.out_dir) : br_path_join(o.run_dir, "report");
	staging = br_xasprintf("%s.tmp.%ld", out_dir, (long)getpid());
	fig_dir = br_path_join(staging, "figures");
	clean_stale(out_dir);
	if (br_mkdir_p(fig_dir, &cause) != 0) {
		free(cause);
		cause = br_xasprintf("%s: cannot write the report there (%s); choose another folder with -o",
		    out_dir, strerror(errno));
		goto fail;
	}
	if (br_render_figures(&a, fig_dir, &figs, &n_figs, &cause) != 0)
		goto fail;
	if (br_write_tables(&a, staging, &cause) != 0)
		goto fail;
	pdf_path = br_path_join(staging, "report.pdf");
	sum_path = br_path_join(staging, "summary.json");
	retarget_figures(figs, n_figs, staging, out_dir);
	summary = br_summary_build(&a, figs, n_figs);
	if (write_json_file(sum_path, summary, &cause) != 0)
		goto fail;
	/* the PDF embeds the PNGs from the staging folder */
	retarget_figures(figs, n_figs, out_dir, staging);
	if (br_report_write_pdf(&a, summary, figs, n_figs, tmpl, pdf_path, &cause) != 0)
		goto fail;
	if (swap_into_place(staging, out_dir, &cause) != 0)
		goto fail;

	if (o.json) {
		char *text = json_dumps(summary, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
		if (text != NULL) {
			puts(text);
			free(text);
		}
	} else if (!o.quiet) {
		br_summary_print_text(summary, stdout);
		printf("report: %s/report.pdf\n", out_dir);
	}
	goto done;
fail:
	fprintf(stderr, "benchreport: %s\n", cause ? cause : "failed");
	free(cause);
	rm_rf(staging);
	rc = BR_EXIT_ANALYSIS;
done:
	json_decref(summary);
	br_figures_free(figs, n_figs);
	br_analysis_free(&a);
	br_run_free(&run);
	br_template_free(tmpl);
	free(tpath);
	free(out_dir);
	free(staging);
	free(fig_dir);
	free(pdf_path);
	free(sum_path);
	return rc;
}
