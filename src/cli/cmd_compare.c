/*
 * `benchreport compare A B [-o OUT_DIR] [--quiet]`: compare two runs or two
 * campaigns (runs matched by name) and write the compare report (PDF,
 * summary.json, figures) to OUT_DIR (default ./compare-report).
 *
 * OUT_DIR may not be inside A or B (inputs are never modified); an
 * existing OUT_DIR is replaced only when it holds a previous benchreport
 * summary.json. A and B may be the same folder (the report says so).
 * Exit: 0 ok; 1 the report could not be written; 2 bad usage; 3 bad input
 * (a missing folder, a bad file in a run, a run compared with a campaign,
 * two campaigns without a common run name: nothing is written then).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/outdir.h"
#include "benchreport/run.h"
#include "benchreport/analysis.h"
#include "benchreport/campaign.h"
#include "benchreport/compare.h"
#include "benchreport/render.h"
#include "cli/cmd.h"

static void
compare_usage(FILE *fp)
{
	fprintf(fp, "usage: benchreport compare A B [-o OUT_DIR] [--lang en|zh|auto] [--quiet]\n"
	            "A and B: two run folders or two campaign folders (runs matched by name).\n"
	            "OUT_DIR defaults to ./compare-report. Exit: 0 ok, 1 failed, 2 bad usage, 3 bad input.\n");
}

/* compare_template_path: compare.LANG.json beside report.LANG.json. */
static char *
compare_template_path(const char *lang)
{
	char *rp = br_cli_template_path(lang);
	char *slash = strrchr(rp, '/');
	char *p = slash ? (*slash = '\0', br_xasprintf("%s/compare.%s.json", rp, lang))
	                : br_xasprintf("compare.%s.json", lang);
	free(rp);
	return p;
}

/*
 * resolve_out: the absolute path OUT_DIR will have (realpath of the folder
 * when it exists, else of its parent plus the last name). NULL when the
 * parent does not exist either (mkdir will report it).
 */
static char *
resolve_out(const char *out)
{
	char buf[PATH_MAX];
	if (realpath(out, buf) != NULL)
		return br_xstrdup(buf);
	char *copy = br_xstrdup(out);
	size_t n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	char *slash = strrchr(copy, '/');
	const char *parent = ".", *base = copy;
	if (slash) {
		*slash = '\0';
		parent = slash == copy ? "/" : copy;
		base = slash + 1;
	}
	char *r = NULL;
	if (realpath(parent, buf) != NULL)
		r = strcmp(buf, "/") == 0 ? br_xasprintf("/%s", base) : br_xasprintf("%s/%s", buf, base);
	free(copy);
	return r;
}

/* inside: 1 when path equals dir or lies below it (both absolute, resolved). */
static int
inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Everything loaded for one side. */
typedef struct side {
	int campaign;
	br_campaign camp;
	br_run run;
	br_analysis an;
	int loaded;
} side;

/* load_side: a run or a campaign. Returns 0, or -1 with *cause. */
static int
load_side(side *s, const char *dir, int campaign, char **cause)
{
	memset(s, 0, sizeof *s);
	s->campaign = campaign;
	if (campaign) {
		if (br_campaign_load(dir, NULL, NULL, 0, &s->camp, cause) != 0)
			return -1;
	} else {
		if (br_run_load(dir, NULL, &s->run, cause) != 0)
			return -1;
		br_analyze(&s->run, &s->an);
	}
	s->loaded = 1;
	return 0;
}

static void
side_free(side *s)
{
	if (!s->loaded)
		return;
	if (s->campaign) {
		br_campaign_free(&s->camp);
	} else {
		br_analysis_free(&s->an);
		br_run_free(&s->run);
	}
	s->loaded = 0;
}

/* print_text: the short text summary on stdout. */
static void
print_text(const json_t *summary, const br_compare_input *in, const char *out_dir)
{
	printf("benchreport compare: A = %s, B = %s (%s)\n", in->name_a, in->name_b,
	    in->campaigns ? "campaigns" : "runs");
	if (in->same_files)
		printf("  A and B hold the same bench result%s (%s; two runs never time their requests "
		    "alike): comparing a %s with a copy of itself, not a repeat\n", in->campaigns ? ", run by run" : "",
		    in->campaigns ? "the same file, or the same date and timings saved again" : in->same_files == 3 ?
		    "saved again, its date, duration and every statistic the same bit for bit" : in->same_files == 2 ?
		    "saved again, its date and every request's timings the same bit for bit" : "its SHA-256 matches",
		    in->campaigns ? "campaign" : "run");
	else if (in->same_path)
		printf("  A and B are the same folder: comparing a %s with itself\n",
		    in->campaigns ? "campaign" : "run");
	if (in->campaigns)
		printf("  %zu pair%s matched by %s; only in A: %zu; only in B: %zu\n", in->n_pairs,
		    in->n_pairs == 1 ? "" : "s", in->matched_by_stem ? "configuration name (no run name in both; "
		    "repeat suffix dropped, in name order)" : "name", in->n_only_a, in->n_only_b);
	const json_t *po = json_object_get(summary, "focus");
	if (po != NULL && !json_is_null(po)) {
		const char *v = json_string_value(json_object_get(po, "verdict"));
		const char *dt = json_string_value(json_object_get(po, "differences_text"));
		/* verdict keys of summary.json → words for the terminal */
		const char *vt = v == NULL ? "?" : strcmp(v, "controlled") == 0 ? "controlled A/B" :
		    strcmp(v, "same_settings") == 0 ? "same settings (a repeat)" :
		    strcmp(v, "not_controlled") == 0 ? "NOT a controlled A/B" :
		    strcmp(v, "no_difference_found") == 0 ? "cannot tell (no difference among the settings "
		    "stated; some are unknown)" : strcmp(v, "one_difference_unchecked") == 0 ?
		    "cannot tell (one known difference; other settings unknown)" : v;
		/* one run twice, or a copy: no verdict on an experiment (a copied
		 * run folder marks its one pair same_files too) */
		int copy = in->pairs[in->focus_pair].same_files;
		if (copy)
			vt = "the same bench result twice (a copy, not a repeat)";
		else if (in->same_path)   /* a campaign with itself too: one run twice, not a repeat */
			vt = "the same folder twice";
		/* the verdict with what it could not check, as the PDF prints it:
		 * "controlled A/B — max_num_seqs 128 → 10 (driver, CUDA not stated)" */
		GString *hw = g_string_new(NULL);
		const json_t *uh = json_object_get(po, "unchecked_hardware");
		for (size_t i = 0; i < json_array_size(uh); i++)
			g_string_append_printf(hw, "%s%s", hw->len ? ", " : "", json_string_value(json_array_get(uh, i)));
		int verdict_says = !in->same_path && !copy && v != NULL && (strcmp(v, "controlled") == 0 || strcmp(v, "same_settings") == 0);
		printf("  %s%s: %s%s%s%s%s%s\n", in->campaigns ? "pair " : "", in->pairs[in->focus_pair].name_a,
		    vt, dt && *dt ? " — " : "", dt ? dt : "", verdict_says && hw->len ? " (" : "",
		    verdict_says && hw->len ? hw->str : "", verdict_says && hw->len ? " not stated)" : "");
		g_string_free(hw, TRUE);
		if (in->same_bench_only)
			printf("  note: A and B hold one bench result (one result placed twice, or a setting that did not "
			    "bind): client-side numbers are equal and tell nothing of the change; "
			    "only the server files differ\n");
		static const char *const keys[] = { "kv_pool_tokens", "running_mean", "output_throughput_tps",
			"duration_s", "ttft_p50_s", "e2el_p50_s", "preemptions", "waiting_mean" };
		const json_t *rows = json_object_get(po, "rows");
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			const json_t *r = json_object_get(rows, keys[i]);
			printf("  %-24s %14s → %-14s %s\n", keys[i], json_string_value(json_object_get(r, "a_text")),
			    json_string_value(json_object_get(r, "b_text")),
			    json_string_value(json_object_get(r, "rel_change_text")));
		}
	}
	printf("report: %s/report.pdf\n", out_dir);
}

/*
 * names_text: "N runs: a, b, c, d, e, …" — the first five run names of a
 * campaign (malloc'd), for the message when no name matches.
 */
static char *
names_text(const br_campaign *c)
{
	GString *g = g_string_new(NULL);
	g_string_append_printf(g, "%zu run%s", c->n_runs, c->n_runs == 1 ? "" : "s");
	for (size_t i = 0; i < c->n_runs && i < 5; i++)
		g_string_append_printf(g, "%s%s", i ? ", " : ": ", c->runs[i].name ? c->runs[i].name : "?");
	if (c->n_runs > 5)
		g_string_append(g, ", …");
	return g_string_free(g, FALSE);
}

/*
 * server_files_differ: 1 when runs a and b, whose bench results are one
 * run's, hold server-side inputs (log, metrics) that are not the same
 * files: the SHA-256 of their inputs other than the bench result and the
 * run labels (run.json: a renamed copy is still a copy), as sorted lists,
 * differ. A copied bench file beside another server's record is then not
 * "one run saved twice".
 */
static int
cmp_hex(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int
server_files_differ(const br_run *a, const br_run *b)
{
	const br_run *r[2] = { a, b };
	const char **h[2];
	size_t n[2];
	for (int k = 0; k < 2; k++) {
		h[k] = br_xcalloc(r[k]->n_inputs + 1, sizeof *h[k]);
		n[k] = 0;
		for (size_t i = 0; i < r[k]->n_inputs; i++)
			if (strcmp(r[k]->inputs[i].role, "bench result") != 0 && strcmp(r[k]->inputs[i].role, "run labels") != 0)
				h[k][n[k]++] = r[k]->inputs[i].sha256;
		qsort(h[k], n[k], sizeof *h[k], cmp_hex);
	}
	int differ = n[0] != n[1];
	for (size_t i = 0; !differ && i < n[0]; i++)
		differ = strcmp(h[0][i], h[1][i]) != 0;
	free(h[0]);
	free(h[1]);
	return differ;
}

/*
 * compare_rest: load both sides (A and B are folders, `same` when they are
 * one), pair their runs and write the report through od. Returns the exit
 * code.
 */
static int
compare_rest(const char *const args[2], int same, br_outdir *od, int quiet, const char *lang)
{
	char *cause = NULL;
	int camp[2] = { br_campaign_looks_like(args[0]), br_campaign_looks_like(args[1]) };
	if (camp[0] != camp[1]) {
		/* the arguments' kinds, not a file, are wrong: bad usage (exit 2),
		 * with the run folder of the campaign that would make it a pair */
		fprintf(stderr, "benchreport compare: A (%s) is a %s and B (%s) is a %s: compare two runs or two campaigns "
		    "(a campaign's run is its subfolder: benchreport compare RUN CAMPAIGN/RUN_NAME)\n",
		    args[0], camp[0] ? "campaign" : "run", args[1], camp[1] ? "campaign" : "run");
		return BR_EXIT_USAGE;
	}
	side s[2];
	for (int k = 0; k < 2; k++)
		if (load_side(&s[k], args[k], camp[0], &cause) != 0) {
			fprintf(stderr, "benchreport compare: %s: %s\n", k == 0 ? "A" : "B", cause ? cause : args[k]);
			free(cause);
			if (k == 1)
				side_free(&s[0]);
			return BR_EXIT_INPUT;
		}

	/* two sides of one name (round1/c64 and round2/c64) are told apart by
	 * their parent folders, else by the paths given (brk19: "c64-6144-2048
	 * vs c64-6144-2048") */
	char **nm[2] = { camp[0] ? &s[0].camp.name : &s[0].run.name, camp[0] ? &s[1].camp.name : &s[1].run.name };
	if (!same && *nm[0] != NULL && *nm[1] != NULL && strcmp(*nm[0], *nm[1]) == 0) {
		char *parent[2];
		for (int k = 0; k < 2; k++) {
			char *abs = realpath(args[k], NULL);
			char *dir = g_path_get_dirname(abs ? abs : args[k]);
			parent[k] = g_path_get_basename(dir);
			g_free(dir);
			free(abs);
		}
		int distinct = strcmp(parent[0], parent[1]) != 0;
		for (int k = 0; k < 2; k++) {
			char *named = distinct ? br_xasprintf("%s/%s", parent[k], *nm[k]) : br_xstrdup(args[k]);
			free(*nm[k]);
			*nm[k] = named;
			g_free(parent[k]);
		}
	}
	br_compare_input in = { .campaigns = camp[0], .dir_a = args[0], .dir_b = args[1], .same_path = same };
	br_cmp_match m = { 0 };
	const char **only_a = NULL, **only_b = NULL;
	const br_run **inputs = NULL;
	if (!camp[0]) {
		in.name_a = s[0].run.name;
		in.name_b = s[1].run.name;
		in.pairs = br_xcalloc(1, sizeof *in.pairs);
		br_cmp_pair(&s[0].an, &s[1].an, s[0].run.name, s[1].run.name, &in.pairs[0]);
		in.n_pairs = 1;
		inputs = br_xcalloc(2, sizeof *inputs);
		inputs[0] = &s[0].run;
		inputs[1] = &s[1].run;
		in.n_inputs_runs = same ? 1 : 2;
		int copy = same ? 0 : br_run_same_bench(&s[0].run, &s[1].run);
		if (copy && server_files_differ(&s[0].run, &s[1].run)) {
			/* one bench result beside two servers' files: not a copy of a
			 * run; its client-side numbers are equal and say nothing of the change */
			in.same_bench_only = 1;
			copy = 0;
		}
		if (copy) {   /* treated as one run, said as a copy (1: the same file, 2: re-saved) */
			in.same_path = 1;
			in.same_files = in.pairs[0].same_files = copy;
		}
	} else {
		in.name_a = s[0].camp.name;
		in.name_b = s[1].camp.name;
		const br_campaign *A = &s[0].camp, *B = &s[1].camp;
		const char **na_ = br_xcalloc(A->n_runs + 1, sizeof *na_), **nb_ = br_xcalloc(B->n_runs + 1, sizeof *nb_);
		size_t *ga_ = br_xcalloc(A->n_runs + 1, sizeof *ga_), *gb_ = br_xcalloc(B->n_runs + 1, sizeof *gb_);
		for (size_t i = 0; i < A->n_runs; i++) {
			na_[i] = A->runs[i].name;
			ga_[i] = A->runs[i].given_name_len ? A->runs[i].given_name_len : (size_t)-1;
		}
		for (size_t i = 0; i < B->n_runs; i++) {
			nb_[i] = B->runs[i].name;
			gb_[i] = B->runs[i].given_name_len ? B->runs[i].given_name_len : (size_t)-1;
		}
		br_cmp_match_names(na_, ga_, A->n_runs, nb_, gb_, B->n_runs, &m);
		if (m.n_pairs == 0) {
			/* no name in both (round B's repeats numbered on: c16-r4 beside
			 * c16-r1): pair within configurations of the same name, the
			 * repeat suffix dropped, in name order; said as such */
			br_cmp_match_free(&m);
			char **sa = br_xcalloc(A->n_runs + 1, sizeof *sa), **sb = br_xcalloc(B->n_runs + 1, sizeof *sb);
			for (size_t i = 0; i < A->n_runs; i++)
				sa[i] = br_run_name_stem(na_[i] ? na_[i] : "");
			for (size_t i = 0; i < B->n_runs; i++)
				sb[i] = br_run_name_stem(nb_[i] ? nb_[i] : "");
			br_cmp_match_names((const char *const *)sa, NULL, A->n_runs, (const char *const *)sb, NULL,
			    B->n_runs, &m);
			in.matched_by_stem = m.n_pairs > 0;
			for (size_t i = 0; i < A->n_runs; i++)
				free(sa[i]);
			for (size_t i = 0; i < B->n_runs; i++)
				free(sb[i]);
			free(sa);
			free(sb);
		}
		free(na_);
		free(nb_);
		free(ga_);
		free(gb_);
		if (m.n_pairs == 0) {
			/* nothing to compare: say which names each side has, write nothing */
			char *la = names_text(A), *lb = names_text(B);
			fprintf(stderr, "benchreport compare: no run name is in both campaigns, nor a configuration name "
			    "(a run name without its repeat suffix, c16 of c16-r1), so nothing can be compared (runs are matched "
			    "by run.json name, else folder name; runs named alike within a campaign, in folder order).\n"
			    "  A (%s): %s\n  B (%s): %s\n", args[0], la, args[1], lb);
			free(la);
			free(lb);
			br_cmp_match_free(&m);
			free(in.pairs);
			side_free(&s[0]);
			side_free(&s[1]);
			return BR_EXIT_INPUT;
		}
		in.pairs = br_xcalloc(m.n_pairs + 1, sizeof *in.pairs);
		for (size_t i = 0; i < m.n_pairs; i++) {
			size_t ia = m.pairs[i][0], ib = m.pairs[i][1];
			br_cmp_pair(&A->analyses[ia], &B->analyses[ib], A->runs[ia].name, B->runs[ib].name, &in.pairs[i]);
			in.pairs[i].same_files = same ? 0 : br_run_same_bench(&A->runs[ia], &B->runs[ib]);
			if (ia == A->focus)
				in.focus_pair = i;
		}
		in.n_pairs = m.n_pairs;
		/* the pair shown in detail: A's focus run when its pair is a
		 * controlled A/B, else the first controlled pair (the A/B the
		 * campaigns were run for), else A's focus run */
		if (in.pairs[in.focus_pair].verdict != 1)
			for (size_t i = 0; i < m.n_pairs; i++)
				if (in.pairs[i].verdict == 1 && !in.pairs[i].same_files) {
					in.focus_pair = i;
					in.focus_controlled = 1;
					break;
				}
		/* every run of one campaign a copy of the other's: a copy, not a round B */
		int all_copies = !same && m.n_only_a == 0 && m.n_only_b == 0;
		for (size_t i = 0; i < m.n_pairs; i++)
			all_copies &= in.pairs[i].same_files;
		in.same_files = all_copies;
		only_a = br_xcalloc(m.n_only_a + 1, sizeof *only_a);
		only_b = br_xcalloc(m.n_only_b + 1, sizeof *only_b);
		for (size_t i = 0; i < m.n_only_a; i++)
			only_a[i] = A->runs[m.only_a[i]].name;
		for (size_t i = 0; i < m.n_only_b; i++)
			only_b[i] = B->runs[m.only_b[i]].name;
		br_cmp_repeat_test *rt = NULL;
		const char **copied = NULL;
		br_cmp_repeat_tests(A, B, &rt, &in.n_repeat_tests, &copied, &in.n_repeats_copied);
		in.repeat_tests = rt;
		in.repeats_copied = copied;
		in.only_a = only_a;
		in.n_only_a = m.n_only_a;
		in.only_b = only_b;
		in.n_only_b = m.n_only_b;
		size_t nr = A->n_runs + (same ? 0 : B->n_runs);
		inputs = br_xcalloc(nr + 1, sizeof *inputs);
		for (size_t i = 0; i < A->n_runs; i++)
			inputs[in.n_inputs_runs++] = &A->runs[i];
		for (size_t i = 0; !same && i < B->n_runs; i++)
			inputs[in.n_inputs_runs++] = &B->runs[i];
	}
	in.inputs_runs = inputs;

	char *tpath = compare_template_path(lang);
	json_t *summary = NULL;
	int rc = BR_EXIT_OK;
	int wrc = br_compare_write_report(&in, od, tpath, &summary, &cause);
	if (wrc != 0) {
		fprintf(stderr, "benchreport compare: %s\n", cause ? cause : "failed");
		free(cause);
		rc = wrc == BR_OUTDIR_ERR_REFUSED ? BR_EXIT_USAGE : BR_EXIT_ANALYSIS;
	} else if (!quiet) {
		print_text(summary, &in, br_outdir_path(od));
	}
	json_decref(summary);
	free(tpath);
	for (size_t i = 0; i < in.n_pairs; i++)
		br_cmp_pair_free(&in.pairs[i]);
	free(in.pairs);
	free((void *)in.repeat_tests);
	free((void *)in.repeats_copied);
	free(only_a);
	free(only_b);
	free(inputs);
	br_cmp_match_free(&m);
	side_free(&s[0]);
	side_free(&s[1]);
	return rc;
}

/* br_cmd_compare: see cmd.h. */
int
br_cmd_compare(int argc, char **argv)
{
	const char *args[2] = { NULL, NULL }, *out_dir = "compare-report", *lang_arg = NULL;
	size_t na = 0;
	int quiet = 0, out_given = 0;
	int operands = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (operands)
			goto operand;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			compare_usage(stdout);
			return BR_EXIT_OK;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			quiet = 1;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) {
			if (i + 1 >= argc || argv[i + 1][0] == '\0') {
				fprintf(stderr, "benchreport compare: option '%s' needs a value\n", a);
				return BR_EXIT_USAGE;
			}
			if (out_given) {
				fprintf(stderr, "benchreport compare: option '%s' given twice\n", a);
				return BR_EXIT_USAGE;
			}
			out_dir = argv[++i];
			out_given = 1;
		} else if (strcmp(a, "--lang") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "benchreport compare: option '%s' needs a value\n", a);
				return BR_EXIT_USAGE;
			}
			lang_arg = argv[++i];
		} else if (strcmp(a, "--") == 0) {
			operands = 1;   /* after "--": every argument is a folder ("-x" too) */
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "benchreport compare: unknown option '%s'\n", a);
			compare_usage(stderr);
			return BR_EXIT_USAGE;
		} else {
operand:
			if (na == 2) {
				fprintf(stderr, "benchreport compare: two folders expected (A and B), got a third: '%s'\n", a);
				return BR_EXIT_USAGE;
			}
			args[na++] = a;
		}
	}
	if (na < 2) {
		fprintf(stderr, "benchreport compare: missing %s\n", na == 0 ? "A and B" : "B");
		compare_usage(stderr);
		return BR_EXIT_USAGE;
	}
	const char *lang = br_cli_lang(lang_arg, "compare");
	if (lang == NULL)
		return BR_EXIT_USAGE;
	/* inputs exist and are folders */
	char real[2][PATH_MAX];
	for (int k = 0; k < 2; k++) {
		if (!br_is_dir(args[k])) {
			fprintf(stderr, "benchreport compare: %s: %s %s\n", args[k], k == 0 ? "A" : "B",
			    br_is_file(args[k]) ? "is a file; expected a run or campaign folder" : "does not exist");
			return BR_EXIT_INPUT;
		}
		if (realpath(args[k], real[k]) == NULL) {
			fprintf(stderr, "benchreport compare: %s: %s\n", args[k], strerror(errno));
			return BR_EXIT_INPUT;
		}
	}
	int same = strcmp(real[0], real[1]) == 0;
	char *out_abs = resolve_out(out_dir);
	for (int k = 0; k < 2 && out_abs; k++)
		if (inside(out_abs, real[k])) {
			fprintf(stderr, "benchreport compare: %s: OUT_DIR is inside %s (%s); inputs are never "
			    "modified: choose another folder with -o\n", out_dir, k == 0 ? "A" : "B", args[k]);
			free(out_abs);
			return BR_EXIT_USAGE;
		}
	free(out_abs);

	int prc = 0;
	char *cause = NULL;
	br_outdir *od = br_outdir_prepare(out_dir, "compare", 1, &prc, &cause);
	if (od == NULL) {
		fprintf(stderr, "benchreport compare: %s\n", cause);
		free(cause);
		return BR_EXIT_USAGE;
	}
	int rc = compare_rest(args, same, od, quiet, lang);
	br_outdir_free(od);
	br_render_shutdown();
	return rc;
}
