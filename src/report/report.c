/*
 * The PDF report: composes sections from the analysis, its summary.json
 * and the wording in templates/report.LANG.json. The C code chooses which
 * sentence applies (from the numbers); the template holds every sentence.
 * A section whose inputs are missing is replaced by a note saying what it
 * needs, never by made-up numbers.
 */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/findings.h"
#include "benchreport/report.h"
#include "benchreport/model.h"
#include "benchreport/story.h"

/* A context bundling what every section needs. */
typedef struct ctx {
	br_pdf *d;
	const br_analysis *a;
	const json_t *s;
	const br_template *t;
	const br_figure *figs;
	size_t n_figs;
	char *err;          /* first figure-embedding error, if any */
	const json_t *focus_summary;  /* campaign report: the focus run's summary */
	char **removed;     /* "Heading: why" of sections the inputs do not allow */
	size_t n_removed;
	int events_in_appendix;   /* the preemption events table is longer than a page */
} ctx;

/* Preemption events listed in the body; more go to an appendix (a table
 * of 40 rows at 8 pt fills about a page). */
#define EVENTS_IN_BODY 40

/* Strings produced while building a table, freed together. */
typedef struct strpool {
	char **v;
	size_t n;
} strpool;

static const char *
keep(strpool *p, char *s)
{
	p->v = br_xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	p->v[p->n++] = s;
	return s;
}

static void
strpool_free(strpool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof *p);
}

/* card_version: a version for a headline card: a development or local
 * build ("0.23.1rc1.dev1219+gffae5a399.d20260729", too long for a card,
 * which would break it into fragments) becomes its release part and
 * "(dev build)"; the server section prints it whole. Owned by the pool. */
static const char *
card_version(strpool *p, const char *v)
{
	size_t n = strcspn(v, "+");
	const char *dev = strstr(v, ".dev");
	if (dev != NULL && (size_t)(dev - v) < n)
		n = (size_t)(dev - v);
	if (v[n] == '\0' || n == 0)
		return v;
	return keep(p, br_xasprintf("%.*s (dev build)", (int)n, v));
}

/*
 * ekey: `key` + "_" + the run's engine key ("capacity.intro_sglang") when
 * the run was served by SGLang or llama.cpp and the template has that
 * variant, else `key`. buf holds the composed key (128 bytes). Every
 * template lookup of this file goes through it (fill, para, note), so an
 * engine's wording is added in the templates alone.
 */
static const char *
ekey(ctx *c, const char *key, char buf[128])
{
	br_engine e = c->a != NULL ? br_run_engine(c->a->run) : BR_ENGINE_UNKNOWN;
	if (e != BR_ENGINE_SGLANG && e != BR_ENGINE_LLAMACPP)
		return key;
	int n = snprintf(buf, 128, "%s_%s", key, br_engine_key(e));
	if (n < 0 || n >= 128)
		return key;
	return br_template_get(c->t, buf) != NULL ? buf : key;
}

/* empty_variant: key's "_empty" variant when the file states n_empty
 * placeholder statistics and the template has one, else key (into buf). */
static const char *
empty_variant(ctx *c, const char *key, size_t n_empty, char buf[128])
{
	if (n_empty == 0)
		return key;
	int n = snprintf(buf, 128, "%s_empty", key);
	return n > 0 && n < 128 && br_template_get(c->t, buf) != NULL ? buf : key;
}

/* finding_key: the template key of finding f ("findings.<id>") into key;
 * a finding whose sentence gives sizes in GiB has a "_no_bytes" variant,
 * taken when the inputs do not give the KV bytes per token (no "Available
 * KV cache memory" line): no "(n/a GiB)" in a sentence. */
static const char *
finding_key(ctx *c, const json_t *f, char key[128])
{
	snprintf(key, 128, "findings.%s", json_string_value(json_object_get(f, "id")));
	json_t *cap = json_object_get(c->s, "capacity");
	if (!json_is_number(json_object_get(cap, "kv_pool_gib"))) {
		char variant[128];
		int n = snprintf(variant, sizeof variant, "%s_no_bytes", key);
		if (n > 0 && n < (int)sizeof variant && br_template_get(c->t, variant) != NULL)
			memcpy(key, variant, 128);
	}
	return key;
}

/* log_dp: 1 when the run's server log shows several data-parallel engines
 * (the KV pool and memory are then their sums). */
static int
log_dp(const br_run *r)
{
	return r && r->log && isfinite(r->log->data_parallel_size) && r->log->data_parallel_size > 1;
}

/* log_v0: 1 when the run's server log is of vLLM's V0 engine. */
static int
log_v0(const br_run *r)
{
	return r && r->log && r->log->engine && strcmp(r->log->engine, "V0") == 0;
}

/* fill: template string for key (ekey), owned by the pool. */
static const char *
fill(ctx *c, strpool *p, const char *key)
{
	char kb[128];
	return keep(p, br_template_fill(c->t, ekey(c, key, kb), c->s));
}

static void
para(ctx *c, const char *key)
{
	char kb[128];
	char *s = br_template_fill(c->t, ekey(c, key, kb), c->s);
	br_pdf_paragraph(c->d, s);
	free(s);
}

/* para_joined: one paragraph of the templates keys[0..n) filled and joined
 * as they are (each piece carries its own leading space or comma). */
static void
para_joined(ctx *c, const char *const *keys, size_t n)
{
	GString *g = g_string_new(NULL);
	for (size_t i = 0; i < n; i++) {
		char kb[128];
		char *s = br_template_fill(c->t, ekey(c, keys[i], kb), c->s);
		g_string_append(g, s);
		free(s);
	}
	br_pdf_paragraph(c->d, g->str);
	g_string_free(g, TRUE);
}

static void
note(ctx *c, const char *key)
{
	char kb[128];
	char *s = br_template_fill(c->t, ekey(c, key, kb), c->s);
	br_pdf_note(c->d, s);
	free(s);
}

/*
 * removed: a section the inputs do not allow is not given a page of its
 * own; "Heading: why" is collected and listed once (removed_list).
 */
static void
removed(ctx *c, const char *heading_key, const char *why_key)
{
	char kb[128];
	char *h = br_template_fill(c->t, ekey(c, heading_key, kb), c->s);   /* the heading heading() gives */
	char *w = br_template_fill(c->t, why_key, c->s);
	c->removed = br_xrealloc(c->removed, (c->n_removed + 1) * sizeof *c->removed);
	c->removed[c->n_removed++] = br_xasprintf("%s — %s", h, w);
	free(h);
	free(w);
}

static void
heading(ctx *c, int level, const char *key)
{
	char kb[128];
	char *s = br_template_fill(c->t, ekey(c, key, kb), c->s);   /* "Retractions" for SGLang */
	br_pdf_heading(c->d, level, s);
	free(s);
}

/*
 * fmt_num: a number for a table cell with `dec` decimals and thousands
 * separators (1,600,255.00); "n/a" for NaN/Inf. Returns a malloc'd string.
 */
static char *
fmt_num(double x, int dec)
{
	if (!isfinite(x))
		return br_xstrdup("n/a");
	if (fabs(x) >= 1e15)
		return br_xasprintf("%.3e", x);   /* no row of made-up digits */
	char raw[64];
	snprintf(raw, sizeof raw, "%.*f", dec, fabs(x));
	char *dot = strchr(raw, '.');
	size_t int_len = dot ? (size_t)(dot - raw) : strlen(raw);
	char out[96];
	size_t o = 0;
	if (x < 0 && strspn(raw, "0.") != strlen(raw))
		out[o++] = '-';
	for (size_t i = 0; i < int_len; i++) {
		out[o++] = raw[i];
		size_t left = int_len - i - 1;
		if (left > 0 && left % 3 == 0)
			out[o++] = ',';
	}
	if (dot)
		o += (size_t)snprintf(out + o, sizeof out - o, "%s", dot);
	out[o] = '\0';
	return br_xstrdup(out);
}

/* fmt_ms: a latency in ms with precision that suits its size. */
static char *
fmt_ms(double x)
{
	if (!isfinite(x))
		return br_xstrdup("n/a");
	double ax = fabs(x);
	return fmt_num(x, ax >= 1000 ? 0 : ax >= 100 ? 1 : ax >= 1 ? 2 : 3);
}

/* fmt_ms_row: x as fmt_ms, except in a row whose median is below a
 * microsecond (0 < |ref| < 0.001 ms): there every cell gets the decimals
 * that give the median three significant digits ("0.000550", not
 * "0.000"), so the row reads in one precision. */
static char *
fmt_ms_row(double x, double ref)
{
	double ar = fabs(ref);
	if (!isfinite(x) || !(ar > 0 && ar < 0.001))
		return fmt_ms(x);
	if (ar < 1e-9)
		return br_xasprintf("%.2e", x);
	return fmt_num(x, (int)ceil(-log10(ar)) + 2);
}

/* fmt_dur_s: a duration in seconds printed with the unit that suits it:
 * "179.1 s", "2.03 s", "605.3 ms", "3.74 µs". */
static char *
fmt_dur_s(double x)
{
	if (!isfinite(x))
		return br_xstrdup("n/a");
	double ax = fabs(x);
	if (ax >= 100)
		return br_xasprintf("%.1f s", x);
	if (ax >= 1)
		return br_xasprintf("%.2f s", x);
	if (ax >= 1e-3 || ax == 0)
		return br_xasprintf("%.1f ms", x * 1e3);
	return br_xasprintf("%.2f µs", x * 1e6);
}

static const br_figure *
find_fig(const ctx *c, const char *id)
{
	for (size_t i = 0; i < c->n_figs; i++)
		if (c->figs[i].id && strcmp(c->figs[i].id, id) == 0)
			return &c->figs[i];
	return NULL;
}

static void
figure(ctx *c, const char *id, const char *caption_key)
{
	const br_figure *f = find_fig(c, id);
	if (f == NULL || f->png_path == NULL)
		return;
	char fig_key[96];
	/* the text names the figure before it appears ("figrefs.<id>"), only when it is drawn */
	snprintf(fig_key, sizeof fig_key, "figrefs.%s", id);
	/* a caption variant ("figures.<id>_no_trigger") has its own lead when
	 * the template gives one ("figrefs.<id>_no_trigger") */
	if (caption_key != NULL && strncmp(caption_key, "figures.", 8) == 0) {
		char variant[96];
		snprintf(variant, sizeof variant, "figrefs.%s", caption_key + 8);
		if (br_template_get(c->t, variant) != NULL)
			memcpy(fig_key, variant, sizeof fig_key);
	}
	char lb[128];
	const char *lead_key = ekey(c, fig_key, lb);
	char *lead = br_template_get(c->t, lead_key) != NULL ? br_template_fill(c->t, lead_key, c->s) : NULL;
	snprintf(fig_key, sizeof fig_key, "figures.%s", id);
	if (caption_key == NULL && br_template_get(c->t, fig_key) != NULL)
		caption_key = fig_key;
	char kb[128];
	char *own = caption_key ? br_template_fill(c->t, ekey(c, caption_key, kb), c->s) : NULL;
	/* a point left out of a figure is said, never dropped silently */
	char *cap = br_template_figure_caption(c->t, own ? own : f->caption, f);
	free(own);
	char *err = NULL;
	int frc = br_pdf_figure_led(c->d, f, lead, cap, &err);
	free(lead);
	if (frc != 0) {
		if (c->err == NULL)
			c->err = err;
		else
			free(err);
	}
	free(cap);
}

/* json_path_num: number at "a.b" in the summary, NAN if absent/null. */
static double
sum_num(const json_t *s, const char *a, const char *b)
{
	json_t *o = json_object_get(s, a);
	json_t *v = b ? json_object_get(o, b) : o;
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* numbered: template keys prefix.1, prefix.2, ... as a bullet list. */
static void
numbered_bullets(ctx *c, const char *prefix)
{
	strpool p = { 0 };
	const char **items = NULL;
	size_t n = 0;
	for (int i = 1; i < 100; i++) {
		char key[128];
		snprintf(key, sizeof key, "%s.%d", prefix, i);
		if (br_template_get(c->t, key) == NULL)
			break;
		items = br_xrealloc(items, (n + 1) * sizeof *items);
		items[n++] = fill(c, &p, key);
	}
	if (n > 0)
		br_pdf_bullets(c->d, items, n);
	free(items);
	strpool_free(&p);
}

/* ---------------------------------------------------------------- */

/*
 * findings_kinds: the sentences of the rules that fired (summary.json
 * "findings", evaluated by src/analysis/findings.c) of the kinds in mask
 * (1 conclusions, 2 recommendations, 4 caveats), each kind under its own
 * heading of the given level (conclusions print "none" when no rule fired;
 * the other kinds print nothing then). Returns the number of sentences.
 */
static size_t
findings_kinds(ctx *c, int mask, int level)
{
	size_t shown = 0;
	json_t *list = json_object_get(c->s, "findings");
	static const char *kinds[3] = { "finding", "recommendation", "caveat" };
	static const char *heads[3] = { "findings_text.conclusions_heading",
		"findings_text.recommendations_heading", "findings_text.caveats_heading" };
	for (int k = 0; k < 3; k++) {
		if (!(mask & (1 << k)))
			continue;
		strpool p = { 0 };
		const char **items = NULL;
		size_t n = 0;
		for (size_t i = 0; i < json_array_size(list); i++) {
			json_t *f = json_array_get(list, i);
			if (strcmp(json_string_value(json_object_get(f, "kind")), kinds[k]) != 0)
				continue;
			char key[128];
			items = br_xrealloc(items, (n + 1) * sizeof *items);
			items[n++] = fill(c, &p, finding_key(c, f, key));
		}
		shown += n;
		if (n > 0 || k == 0) {
			heading(c, level, heads[k]);
			if (n > 0)
				br_pdf_bullets(c->d, items, n);
			else   /* without metrics and log most rules cannot look: no all-clear */
				para(c, c->a->run && (c->a->run->metrics == NULL || c->a->run->metrics_kind == BR_METRICS_SNAPSHOT ||
				    c->a->run->metrics_kind == BR_METRICS_PAIR) ?
				    "findings_text.none_unseen" : "findings_text.none");
		}
		free(items);
		strpool_free(&p);
	}
	return shown;
}


/*
 * error_group_bullets: one bullet per group of failed requests sharing an
 * error message (at most max_groups, most frequent first, then "N other
 * messages"), each "COUNT × “MESSAGE” (requests #i, #j, …)".
 */
static void
error_group_bullets(ctx *c, size_t max_groups)
{
	const br_latency *l = &c->a->latency;
	if (l->n_error_groups == 0)
		return;
	size_t shown = l->n_error_groups < max_groups ? l->n_error_groups : max_groups;
	strpool p = { 0 };
	const char **items = br_xcalloc(shown + 1, sizeof *items);
	size_t rest = 0;
	for (size_t i = 0; i < l->n_error_groups; i++) {
		const br_error_group *g = &l->error_groups[i];
		if (i >= shown) {
			rest += g->count;
			continue;
		}
		GString *idx = g_string_new(NULL);
		for (size_t k = 0; k < g->n_index; k++)
			g_string_append_printf(idx, "%s#%zu", k ? ", " : "", g->first_index[k]);
		if (g->count > g->n_index)
			g_string_append(idx, ", …");
		json_t *v = json_pack("{s:s, s:I, s:s}", "message", g->message, "count",
		    (json_int_t)g->count, "indices", idx->str);
		items[i] = keep(&p, br_template_fill(c->t, "latency.error_group", v));
		json_decref(v);
		g_string_free(idx, TRUE);
	}
	size_t n = shown;
	if (rest > 0) {
		json_t *v = json_pack("{s:I, s:I}", "requests", (json_int_t)rest, "messages",
		    (json_int_t)(l->n_error_groups - shown));
		items[n++] = keep(&p, br_template_fill(c->t, "latency.error_group_rest", v));
		json_decref(v);
	}
	br_pdf_bullets(c->d, items, n);
	free(items);
	strpool_free(&p);
}

/*
 * failed_requests: the "Failed requests" subsection (from the per-request
 * arrays only): none, or the failures counted by error message.
 */
static void
failed_requests(ctx *c)
{
	const br_latency *l = &c->a->latency;
	if (!l->from_arrays)
		return;
	heading(c, 2, "latency.failed_heading");
	if (l->n_failed == 0) {
		para(c, "latency.failed_none");
		return;
	}
	para(c, "latency.failed_list");
	error_group_bullets(c, 20);
}

/*
 * measured_cell: a gate term's "measured" text, and when the value is only
 * a bound that settles the term (a stated p99 for an unstated p90), "at
 * most X" / "at least X" as stderr and summary.json (value_is) say it;
 * kept in p.
 */
static const char *
measured_cell(ctx *c, strpool *p, const json_t *t)
{
	const char *m = json_string_value(json_object_get(t, "measured"));
	const char *is = json_string_value(json_object_get(t, "value_is"));
	if (m == NULL)
		return "";
	int upper = is && strcmp(is, "upper bound") == 0, lower = is && strcmp(is, "lower bound") == 0;
	const char *st = json_string_value(json_object_get(t, "status"));
	/* no bound on a value the inputs do not give ("at least unknown") */
	if ((!upper && !lower) || (st && strcmp(st, "unknown") == 0))
		return m;
	json_t *o = json_pack("{s:s}", "value", m);
	const char *s = keep(p, br_template_fill(c->t, upper ? "gate.at_most" : "gate.at_least", o));
	json_decref(o);
	return s;
}

/*
 * gate_cells: a gate term's term, measured, result and source cells into
 * row[0..3] (strings borrowed from t or kept in p); returns 1 when it
 * passed, sets *unknown for a term the inputs cannot give.
 */
static int
gate_cells(ctx *c, strpool *p, const json_t *t, const char *row[4], int *unknown)
{
	const char *st = json_string_value(json_object_get(t, "status"));
	int ok = st && strcmp(st, "pass") == 0;
	*unknown = st && strcmp(st, "unknown") == 0;
	const char *src = json_string_value(json_object_get(t, "source"));
	const char *why = json_string_value(json_object_get(t, "why_unknown"));
	const char *term = json_string_value(json_object_get(t, "term"));
	row[0] = term ? term : "";
	row[1] = measured_cell(c, p, t);
	row[2] = fill(c, p, ok ? "gate.pass" : *unknown ? "gate.unknown" : "gate.fail");
	row[3] = *unknown && why ? why : src ? src : "";
	return ok;
}

/*
 * gate_section: the --fail-on verdict and one row per term, from the
 * summary's "gate" object; nothing without it.
 */
static void
gate_section(ctx *c)
{
	json_t *g = json_object_get(c->s, "gate");
	json_t *terms = json_object_get(g, "terms");
	if (g == NULL || json_array_size(terms) == 0)
		return;
	heading(c, 2, "gate.heading");
	/* a file of several results: the run passes when every result does; the
	 * table below is the reported one's, the others' failing terms follow */
	const json_t *others = json_object_get(g, "other_results");
	int several = json_array_size(others) > 0;
	int reported_ok = json_is_true(json_object_get(g, several ? "reported_result_passed" : "passed"));
	if (several && !json_is_true(json_object_get(g, "passed")))
		para(c, reported_ok ? "gate.results_failed_reported_passed" : "gate.results_failed");
	else
		para(c, json_is_true(json_object_get(g, "passed")) ? (several ? "gate.results_passed" : "gate.passed") :
		    "gate.failed");
	if (json_integer_value(json_object_get(g, "n_unknown")) > 0)
		para(c, "gate.unknown_note");
	size_t n = json_array_size(terms);
	strpool p = { 0 };
	const char **cells = br_xcalloc(n * 4, sizeof *cells);
	int *hl = br_xcalloc(n, sizeof *hl);
	for (size_t i = 0; i < n; i++) {
		int unknown;
		hl[i] = gate_cells(c, &p, json_array_get(terms, i), &cells[i * 4], &unknown) ? 0 : 2;
	}
	const char *hdr[4] = { fill(c, &p, "gate.col_term"), fill(c, &p, "gate.col_measured"),
	    fill(c, &p, "gate.col_result"), fill(c, &p, "gate.col_source") };
	static const enum br_align al[4] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_LEFT, BR_ALIGN_LEFT };
	static const double w[4] = { 1.3, 1.0, 0.6, 2.4 };
	br_pdf_table t = { .n_cols = 4, .n_rows = n, .header = hdr, .cells = cells, .align = al,
	    .col_weight = w, .row_highlight = hl };
	br_pdf_table(c->d, &t);
	free(cells);
	free(hl);
	/* the other results' failing or unknown terms, one bullet each */
	size_t nb = 0;
	const char **items = NULL;
	for (size_t k = 0; k < json_array_size(others); k++) {
		const json_t *gk = json_array_get(others, k);
		const json_t *tk = json_object_get(gk, "terms");
		for (size_t i = 0; i < json_array_size(tk); i++) {
			const char *row[4];
			int unknown;
			if (gate_cells(c, &p, json_array_get(tk, i), row, &unknown))
				continue;
			items = br_xrealloc(items, (nb + 1) * sizeof *items);
			items[nb++] = keep(&p, br_xasprintf("%s: %s — %s %s%s%s",
			    json_string_value(json_object_get(gk, "result")), row[0], row[2], row[1],
			    row[3][0] ? "; " : "", row[3]));
		}
	}
	if (nb > 0)
		br_pdf_bullets(c->d, items, nb);
	free(items);
	strpool_free(&p);
}

/*
 * campaign_gate: the --fail-on verdict of a campaign (campaign.gate of the
 * summary: every run must pass) and, when it failed, one row per term a
 * run did not pass (run, term, measured, FAIL / unknown, from), read from
 * each run's summary (run_summaries[i], "gate"); nothing without a gate.
 */
static void
campaign_gate(ctx *c, const br_campaign *camp, json_t *const *run_summaries)
{
	const json_t *g = json_object_get(json_object_get(c->s, "campaign"), "gate");
	if (g == NULL || !json_is_object(g))
		return;
	heading(c, 2, "gate.heading");
	int passed = json_is_true(json_object_get(g, "passed"));
	int extra = json_integer_value(json_object_get(g, "n_no_bench_runs")) > 0;
	para(c, passed ? "gate.campaign_passed" : extra ? "gate.campaign_failed_no_bench" : "gate.campaign_failed");
	if (passed)
		return;
	strpool p = { 0 };
	size_t n = 0, cap = 8, n_unknown = 0;
	const char **cells = br_xcalloc(cap * 5, sizeof *cells);
	/* each run's gate, then those of the other results a run folder holds
	 * (gate.other_results, named "RUN#k"): every one of them is gated */
	for (size_t r = 0, k = 0; r < camp->n_runs; k == 0 ? r++ : 0) {
		const json_t *rg = json_object_get(run_summaries[r], "gate");
		const json_t *others = json_object_get(rg, "other_results");
		const json_t *gk = k == 0 ? rg : json_array_get(others, k - 1);
		const char *label = k == 0 ? camp->runs[r].name : json_string_value(json_object_get(gk, "result"));
		k = k < json_array_size(others) ? k + 1 : 0;
		const json_t *terms = json_object_get(gk, "terms");
		for (size_t i = 0; i < json_array_size(terms); i++) {
			if (n == cap) {
				cap *= 2;
				cells = br_xrealloc(cells, cap * 5 * sizeof *cells);
			}
			int unknown;
			const char **row = &cells[n * 5];
			if (gate_cells(c, &p, json_array_get(terms, i), row + 1, &unknown))
				continue;   /* a passed term: no row (the cells written are overwritten) */
			row[0] = label ? label : "";
			n_unknown += (size_t)unknown;
			n++;
		}
	}
	/* run folders without a bench result: every term unknown */
	const char *spec = json_string_value(json_object_get(g, "spec"));
	for (size_t r = 0; spec != NULL && r < camp->n_no_bench_runs; r++) {
		gchar **tv = g_strsplit(spec, ",", -1);
		for (size_t i = 0; tv[i] != NULL; i++) {
			if (n == cap) {
				cap *= 2;
				cells = br_xrealloc(cells, cap * 5 * sizeof *cells);
			}
			const char **row = &cells[n * 5];
			row[0] = camp->no_bench_runs[r];
			row[1] = keep(&p, br_xstrdup(tv[i]));
			row[2] = "n/a";
			row[3] = fill(c, &p, "gate.unknown");
			row[4] = fill(c, &p, "gate.no_bench_result");
			n_unknown++;
			n++;
		}
		g_strfreev(tv);
	}
	if (n_unknown > 0)
		para(c, "gate.unknown_note");
	if (n > 0) {
		int *hl = br_xcalloc(n, sizeof *hl);
		for (size_t i = 0; i < n; i++)
			hl[i] = 2;
		const char *hdr[5] = { fill(c, &p, "gate.col_run"), fill(c, &p, "gate.col_term"),
		    fill(c, &p, "gate.col_measured"), fill(c, &p, "gate.col_result"), fill(c, &p, "gate.col_source") };
		static const enum br_align al[5] = { BR_ALIGN_LEFT, BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_LEFT,
			BR_ALIGN_LEFT };
		static const double w[5] = { 1.3, 1.2, 0.9, 0.6, 2.2 };
		br_pdf_table t = { .n_cols = 5, .n_rows = n, .header = hdr, .cells = cells, .align = al,
		    .col_weight = w, .row_highlight = hl };
		br_pdf_table(c->d, &t);
		free(hl);
	}
	free(cells);
	strpool_free(&p);
}

/*
 * headline_cards: the run's headline cards (GPU, versions, lengths, load,
 * outcome, KV pool and demand, preemptions; when known the resident share,
 * TTFT p50 with its queue share and the recomputed prefill, as the reference
 * report's front page has them), from c->a and c->s. extra_label_key (may be NULL)
 * (a template key) adds one more card, with extra_value, after them.
 */
static void
headline_cards(ctx *c, const char *extra_label_key, const char *extra_value)
{
	const br_analysis *a = c->a;
	const br_run *r = a->run;
	const br_bench *b = &r->bench.runs[0];
	strpool p = { 0 };
	const char *labels[24], *values[24];
	size_t n = 0;

#define CARD(lkey, value) do { labels[n] = fill(c, &p, lkey); values[n] = (value); n++; } while (0)
	CARD("cards.gpu", r->gpu ? r->gpu : fill(c, &p, "cards.unknown"));
	int sglang = b && b->backend && strncmp(b->backend, "sglang", 6) == 0;
	int log_set_aside = br_run_set_aside_has(r, "the server log");
	const char *version = br_run_server_version(r);
	CARD(sglang ? "cards.sglang" : "cards.vllm", version ? card_version(&p, version) :
	    fill(c, &p, log_set_aside ? "cards.unknown_set_aside" : "cards.unknown"));
	if (r->driver || r->cuda)
		CARD("cards.driver_cuda", fill(c, &p, "cards.driver_cuda_value"));
	CARD("cards.inout", fill(c, &p, "cards.inout_value"));
	CARD("cards.load", fill(c, &p, br_capped_open_loop(b) ? "cards.load_capped" : isfinite(b->max_concurrency) ?
	    "cards.load_closed" : isinf(b->request_rate_rps) ? "cards.load_burst" : "cards.load_open"));
	CARD("cards.requests", fill(c, &p, "cards.requests_value"));
	CARD("cards.duration", fill(c, &p, "cards.duration_value"));
	CARD("cards.output_tps", fill(c, &p, "cards.output_tps_value"));
	CARD("cards.ttft", fill(c, &p, a->latency.file_disorder[BR_TTFT] &&
	    br_latency_from_file(&a->latency, b, BR_TTFT) ? "cards.ttft_value_disorder" : "cards.ttft_value"));
	if (a->capacity.available) {
		const char *src = a->capacity.kv_pool_source ? a->capacity.kv_pool_source : "";
		CARD(strcmp(src, "run.json") == 0 ? "cards.pool_run_json" : strcmp(src, "server log") == 0 ?
		    "cards.pool" : "cards.pool_metrics",
		    fill(c, &p, isfinite(a->capacity.kv_pool_gib) ? "cards.pool_value" : "cards.pool_value_tokens"));
		if (isfinite(a->capacity.demand_tokens)) {
			CARD("cards.demand", fill(c, &p, isfinite(a->capacity.kv_bytes_per_token) ? "cards.demand_value_gib" :
			    "cards.demand_value"));
			CARD("cards.oversub", fill(c, &p, "cards.oversub_value"));
		}
	}
	if (a->residency.available)
		CARD("cards.preemptions", fill(c, &p, a->preemptions.count_lower_bound ?
		    (a->preemptions.server_restarts > 0 ? "cards.preemptions_value_restart" : "cards.preemptions_value_lb") :
		    a->preemptions.available && a->preemptions.n_events >= 2 &&
		    isfinite(a->preemptions.mean_interval_s) && isfinite(a->preemptions.trigger_kv_frac) ?
		    /* the interval is between sampled events: with several preemptions
		     * in one sample it is not the interval between preemptions */
		    (a->preemptions.n_multi_events + a->preemptions.n_gap_multi_events > 0 ?
		    "cards.preemptions_value_loop_events" :
		    "cards.preemptions_value_loop") : "cards.preemptions_value"));
	else if (a->ledger.available) {
		for (size_t i = 0; i < a->ledger.n_rows; i++)
			if (a->ledger.rows[i].role == BR_ROLE_PREEMPTIONS) {
				labels[n] = fill(c, &p, "cards.preemptions");
				values[n] = keep(&p, fmt_num(a->ledger.rows[i].server_delta, 0));
				n++;
			}
	}
	if (a->residency.available && isfinite(a->capacity.effective_concurrency) &&
	    isfinite(a->residency.running_mean))
		CARD("cards.resident", fill(c, &p, "cards.resident_value"));
	if (a->ttft_split.available && isfinite(a->ttft_split.queue_share))
		CARD("cards.ttft_queue", fill(c, &p, "cards.ttft_queue_value"));
	json_t *rps = json_object_get(json_object_get(c->s, "derived"), "recompute_prefill_share_frac");
	if (json_is_number(rps))
		CARD("cards.recompute", fill(c, &p, "cards.recompute_value"));
	if (extra_label_key)
		CARD(extra_label_key, extra_value);
#undef CARD
	br_pdf_cards(c->d, labels, values, n);
	strpool_free(&p);
}

static void checks_table(ctx *c, const json_t *checks, const char *plan_intro_key, int level);
static void events_table(ctx *c);

static void
title_page(ctx *c)
{
	const br_analysis *a = c->a;
	const br_run *r = a->run;
	const br_bench *b = &r->bench.runs[0];
	strpool p = { 0 };
	br_pdf_title(c->d, fill(c, &p, "doc.title"), fill(c, &p, b->date == NULL ? "doc.subtitle_no_date" :
	    json_is_true(json_object_get(json_object_get(c->s, "bench"), "date_is_run_end_local")) ?
	    "doc.subtitle" : "doc.subtitle_date_other"));
	headline_cards(c, NULL, NULL);
	gate_section(c);

	/* At a glance: sentences chosen by the numbers. */
	heading(c, 2, "glance.heading");
	if (r->log && r->log->did_not_start)
		para(c, "glance.did_not_start");
	if (r->notes)
		para(c, "glance.notes");
	if (a->latency.n_succeeded == 0 && a->latency.n_failed > 0) {
		para(c, a->latency.n_error_groups > 0 ? "glance.all_failed" : "glance.all_failed_no_errors");
		error_group_bullets(c, 5);
	} else {
		para(c, isnan(b->num_prompts) && isnan(b->failed) ? "glance.completed_no_total" : "glance.completed");
		if (a->latency.n_failed > 0)
			para(c, "glance.failed_some");
	}
	/* prompts the file neither completed nor failed */
	if (isfinite(b->num_prompts) && isfinite(b->completed) && isfinite(b->failed) && !b->failed_derived &&
	    b->completed + b->failed < b->num_prompts) {
		json_t *o = json_pack("{s:f, s:f, s:f, s:f}", "missing", b->num_prompts - b->completed - b->failed,
		    "num_prompts", b->num_prompts, "completed", b->completed, "failed", b->failed);
		char *t = br_template_fill(c->t, "glance.unaccounted", o);
		br_pdf_paragraph(c->d, t);
		free(t);
		json_decref(o);
	}
	/* nothing was served: no sentence on what the load measured */
	if (!(a->latency.n_succeeded == 0 && a->latency.n_failed > 0))
		para(c, !isfinite(b->max_concurrency) ? (isinf(b->request_rate_rps) ? "glance.all_at_once" :
		    "glance.open_loop") : br_capped_open_loop(b) ? "glance.capped_open_loop" :
		    b->max_concurrency == 1 ? "glance.closed_loop_one" :
		    isfinite(b->num_prompts) && b->num_prompts < b->max_concurrency ? "glance.closed_loop_few" :
		    "glance.closed_loop");
	if (isfinite(a->capacity.effective_concurrency) && isfinite(a->capacity.concurrency) &&
	    a->capacity.effective_concurrency < a->capacity.concurrency)
		para(c, "glance.fewer_prompts");
	if (a->capacity.available && isfinite(a->capacity.oversubscription)) {
		const char *parts[3] = {
			isfinite(a->capacity.kv_pool_gib) ? (log_dp(r) ? "glance.capacity_pool_gib_dp" :
			    "glance.capacity_pool_gib") : "glance.capacity_pool",
			isfinite(a->capacity.predicted_max_concurrency) ? "glance.capacity_fit" : "glance.capacity_end",
			"glance.capacity_demand" };
		para_joined(c, parts, 3);
		const br_server_log *lg = r->log;
		int capped = lg && isfinite(lg->max_num_seqs) && isfinite(a->capacity.effective_concurrency) &&
		    a->capacity.effective_concurrency > lg->max_num_seqs;
		/* no log states the slots: the count /slots listed bounds the running requests */
		int capped_slots = !(lg && isfinite(lg->max_num_seqs)) && isfinite(a->capacity.n_slots_listed) &&
		    isfinite(a->capacity.effective_concurrency) &&
		    a->capacity.effective_concurrency > a->capacity.n_slots_listed;
		int preempted = a->preemptions.count_available && a->preemptions.n_preemptions > 0;
		/* without a preemption counter, the log's stats lines may still state some */
		double log_pre = NAN;
		for (size_t i = 0; lg && i < lg->n_stats; i++) {
			if (isfinite(lg->stats[i].preemptions))
				log_pre = (isnan(log_pre) ? 0 : log_pre) + lg->stats[i].preemptions;
		}
		int log_preempted = !a->preemptions.count_available && log_pre > 0;
		/* the metrics (or the log's own stats lines) saw more running than the
		 * log's max_num_seqs allows: the analyses treat the cap as unknown */
		double seen = NAN;
		const char *where = NULL;
		int contradicted = lg && isfinite(lg->max_num_seqs) && !isfinite(br_log_cap(r, &seen, &where));
		if (capped && contradicted)
			capped = 2;
		/* one request at a time shares the pool with nothing: it does not
		 * queue for it, it simply does not fit */
		int single = br_isnum(a->capacity.effective_concurrency) && a->capacity.effective_concurrency > 0 &&
		    a->capacity.effective_concurrency <= 1;
		para(c, a->capacity.oversubscription > 1.0 && single ? "glance.single_too_long" :
		    a->capacity.oversubscription > 1.0 ? "glance.oversubscribed" :
		    preempted ? "glance.fits_yet_preempted" : log_preempted ? "glance.fits_log_preempted" :
		    capped == 1 ? "glance.fits_capped" : capped_slots ? "glance.fits_capped_slots" : "glance.fits");
		if (contradicted) {
			json_t *o = json_pack("{s:f, s:f, s:s}", "max_num_seqs", lg->max_num_seqs, "running", seen,
			    "where", where);
			char *t = br_template_fill(c->t, "glance.cap_contradicted", o);
			br_pdf_paragraph(c->d, t);
			free(t);
			json_decref(o);
		}
	}
	if (a->ledger.available) {
		double bad = sum_num(json_object_get(c->s, "ledger"), "n_disagree", NULL);
		double good = sum_num(json_object_get(c->s, "ledger"), "n_agree", NULL);
		if (bad > 0)
			para(c, "glance.ledger_bad");
		else if (a->ledger.n_capture_short > 0)
			para(c, "glance.ledger_capture_short");
		else if (good > 0)
			para(c, "glance.ledger_ok");
	}
	if (!a->latency.from_arrays && a->latency.n_succeeded > 0)
		para(c, b->backend && strncmp(b->backend, "sglang", 6) == 0 ? "glance.no_arrays_sglang" : "glance.no_arrays");
	else if (a->latency.n_checks > a->latency.n_checks_empty) {
		/* statistics the file states as 0 for a metric with no sample are
		 * placeholders, not among those compared: the "_empty" sentences
		 * count them apart (8 compared of 16 stated, one-token outputs) */
		char kb_empty[128];
		const char *k = a->latency.n_mismatches ? "glance.checks_bad" : a->latency.e2el_from_file ?
		    "glance.checks_ok_ttft_only" : a->latency.e2el_rebuilt ? "glance.checks_ok_rebuilt" : "glance.checks_ok";
		para(c, empty_variant(c, k, a->latency.n_checks_empty, kb_empty));
	}
	if (a->latency.from_arrays && a->latency.itl_stalls_known && a->latency.itl_stalls > 0)
		para(c, "glance.stalls");

	findings_kinds(c, 1, 2);
	if (r->n_warnings > 0) {
		heading(c, 2, "glance.missing_heading");
		br_pdf_bullets(c->d, (const char *const *)r->warnings, r->n_warnings);
	}
	strpool_free(&p);
}

static void
latency_section(ctx *c)
{
	const br_latency *l = &c->a->latency;
	strpool p = { 0 };
	heading(c, 1, "latency.heading");
	if (l->n_succeeded == 0) {
		/* nothing was measured: no table of n/a, no tail-sample note, no
		 * comparison with the file's placeholder zeros */
		para(c, l->n_failed > 0 ? "latency.none_succeeded" : "latency.no_requests");
		if (l->n_checks_empty > 0)
			note(c, "latency.checks_empty");
		failed_requests(c);
		strpool_free(&p);
		return;
	}
	/* ITL from the file: the lists were empty, or every one was left out */
	int itl_left_out = l->itl_from_file && l->n_itl_inconsistent > 0;
	para(c, !l->from_arrays ? "latency.intro_file" : l->e2el_from_file ? "latency.intro_arrays_ttft_only" :
	    itl_left_out ? "latency.intro_arrays_itl_left_out" :
	    l->itl_array_absent ? "latency.intro_arrays_itl_absent" :
	    l->itl_from_file ? "latency.intro_arrays_itl_file" : "latency.intro_arrays");
	if (l->from_arrays && l->e2el_rebuilt)
		para(c, "latency.e2el_rebuilt");


	const char *hdr[9];
	static const char *cols[9] = { "latency.col_metric", "latency.col_count", "latency.col_mean",
		"latency.col_median", "latency.col_p90", "latency.col_p99", "latency.col_p999",
		"latency.col_p9999", "latency.col_max" };
	for (int i = 0; i < 9; i++)
		hdr[i] = fill(c, &p, cols[i]);
	const char *cells[BR_N_LATENCY * 9];
	size_t rows = 0;
	/* latencies of 1e8 ms and more (a day) no longer fit nine columns in
	 * ms: the whole table is then in s (a cut "1,176,094,18 / 6" misleads) */
	double div = 1;
	for (int m = 0; m < BR_N_LATENCY; m++)
		if (l->has_stats[m] && (fabs(l->m[m].max) >= 1e8 || fabs(l->m[m].mean) >= 1e8))
			div = 1000;
	for (int m = 0; m < BR_N_LATENCY; m++) {
		const br_describe_t *d = &l->m[m];
		if (!l->has_stats[m])
			continue;
		const char **row = &cells[rows * 9];
		row[0] = br_latency_metric_label[m];
		row[1] = keep(&p, l->count_known[m] ? fmt_num((double)d->count, 0) : br_xstrdup("n/a"));
		const double v[7] = { d->mean, d->median, d->p90, d->p99, d->p999, d->p9999, d->max };
		for (int k = 0; k < 7; k++)
			row[2 + k] = keep(&p, fmt_ms_row(v[k] / div, d->median / div));
		rows++;
	}
	br_pdf_table t = { .n_cols = 9, .n_rows = rows, .header = hdr, .cells = cells };
	br_pdf_table(c->d, &t);
	note(c, div > 1 ? "latency.unit_note_s" : "latency.unit_note");
	if (l->n_itl_inconsistent > 0)
		note(c, "latency.itl_inconsistent");
	if (l->n_ttft_zero > 0)
		note(c, "latency.ttft_zero");
	for (int m = 0; m < BR_N_LATENCY; m++) {
		/* the file's percentiles fall as p rises: the table above shows
		 * them as stated, the note says none of them can be trusted */
		if (!l->has_stats[m] || !l->file_disorder[m] ||
		    !br_latency_from_file(l, &c->a->run->bench.runs[0], m))
			continue;
		json_t *v = json_pack("{s:s, s:f, s:f, s:f, s:f}", "metric", br_latency_metric_label[m],
		    "lower_pct", l->disorder_lo_pct[m], "lower_ms", l->disorder_lo_ms[m],
		    "higher_pct", l->disorder_hi_pct[m], "higher_ms", l->disorder_hi_ms[m]);
		char *s = br_template_fill(c->t, "latency.file_disorder", v);
		br_pdf_note(c->d, s);
		free(s);
		json_decref(v);
	}
	if (l->from_arrays && l->m[BR_TTFT].count > 1 && l->m[BR_TTFT].count < 10000)
		note(c, "latency.small_sample");   /* one request: the caveat single_request_ttft says it */

	/* the figure's own caption names the metrics it draws (a file with
	 * neither latencies nor ITLs draws TTFT alone) */
	figure(c, "figL-latency-cdf", NULL);
	{
		const br_bench *b = &c->a->run->bench.runs[0];
		if (isfinite(b->spec_decode_num_drafts) && b->spec_decode_num_drafts > 0) {
			heading(c, 2, "latency.spec_heading");
			const br_server_log *lg = c->a->run->log;
			int cfg = 0;
			for (size_t i = 0; lg && i < lg->n_args; i++)
				cfg |= strcmp(lg->args[i].name, "speculative_config") == 0;
			para(c, cfg ? "latency.spec_config" : "latency.spec_no_config");
			para(c, "latency.spec_itl");
		}
	}

	if (l->n_checks > 0) {
		heading(c, 2, "latency.checks_heading");
		char kb_empty[128];
		para(c, empty_variant(c, l->n_mismatches ? "latency.checks_some_bad" : l->e2el_from_file ?
		    "latency.checks_all_ok_ttft_only" : itl_left_out ? "latency.checks_all_ok_but_itl_left_out" :
		    l->itl_array_absent ? "latency.checks_all_ok_but_itl_absent" :
		    l->itl_from_file ? "latency.checks_all_ok_but_itl" : l->e2el_rebuilt ? "latency.checks_all_ok_rebuilt" :
		    "latency.checks_all_ok", l->n_checks_empty, kb_empty));
		if (l->n_checks_empty > 0)
			note(c, "latency.checks_empty");
		if (l->n_mismatches > 0) {
			const char *h2[4] = { fill(c, &p, "latency.col_key"), fill(c, &p, "latency.col_file"),
				fill(c, &p, "latency.col_recomputed"), fill(c, &p, "latency.col_reldiff") };
			const char **mc = br_xcalloc(l->n_mismatches * 4, sizeof *mc);
			size_t k = 0;
			for (size_t i = 0; i < l->n_checks; i++) {
				const br_latency_check *ck = &l->checks[i];
				if (ck->agrees)
					continue;
				mc[k * 4 + 0] = ck->key;
				mc[k * 4 + 1] = keep(&p, br_xasprintf("%.10g", ck->file_ms));
				mc[k * 4 + 2] = keep(&p, br_xasprintf("%.10g", ck->recomputed_ms));
				mc[k * 4 + 3] = keep(&p, br_xasprintf("%.2e", ck->rel_diff));
				k++;
			}
			br_pdf_table t2 = { .n_cols = 4, .n_rows = k, .header = h2, .cells = mc };
			br_pdf_table(c->d, &t2);
			free(mc);
		}
	}
	failed_requests(c);
	strpool_free(&p);
}


/*
 * engine_settings_table: for an SGLang or llama.cpp log, what it states
 * about capacity, one row per finite setting, named as the log prints it.
 */
static void
engine_settings_table(ctx *c, strpool *p, const br_server_log *log)
{
	const char *cells[2 * 9];
	size_t n = 0;
#define SET(name, v, digits) do { if (isfinite(v)) { cells[n * 2] = name; \
	cells[n * 2 + 1] = keep(p, fmt_num(v, digits)); n++; } } while (0)
	if (log->engine_kind == BR_ENGINE_SGLANG) {
		SET("max_total_num_tokens (KV pool, tokens)", log->kv_pool_tokens, 0);
		SET("max_running_requests", log->max_num_seqs, 0);
		SET("context_len (tokens)", log->max_model_len_tokens, 0);
		SET("chunked_prefill_size (tokens)", log->max_num_batched_tokens, 0);
		SET("tensor-parallel ranks (TPn tags of the KV lines)", log->tensor_parallel_size, 0);
		SET("data-parallel ranks (DPn tags; the pool is their sum)", log->data_parallel_size, 0);
		SET("KV cache K + V size (GiB per GPU)", log->kv_pool_gib, 2);
	} else {
		SET("n_ctx (tokens, all slots)", log->n_ctx_tokens, 0);
		SET("n_slots (--parallel)", log->max_num_seqs, 0);
		SET("context per slot (tokens)", log->ctx_per_slot_tokens, 0);
		SET("KV cache cells (tokens)", log->kv_pool_tokens, 0);
		SET("KV cache size (GiB)", log->kv_pool_gib, 3);
		if (log->kv_unified >= 0) {
			cells[n * 2] = "kv_unified";
			cells[n * 2 + 1] = log->kv_unified ? "true" : "false";
			n++;
		}
	}
#undef SET
	if (n == 0)
		return;
	const char *hdr[2] = { fill(c, p, "capacity.col_quantity"), fill(c, p, "capacity.col_value") };
	const double w[2] = { 3, 2 };
	const enum br_align al[2] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT };
	br_pdf_table t = { .n_cols = 2, .n_rows = n, .header = hdr, .cells = cells, .col_weight = w, .align = al };
	br_pdf_table(c->d, &t);
}

/*
 * args_table: a table of the log's arguments as printed (values cut at 90
 * bytes): every one when `only` is NULL, else those named in the
 * NULL-terminated list `only`, in its order. Nothing when none is there.
 */
static void
args_table(ctx *c, strpool *p, const br_server_log *log, const char *const *only)
{
	const char **cells = br_xcalloc(log->n_args * 2 + 1, sizeof *cells);
	size_t n = 0;
	for (size_t k = 0; only ? only[k] != NULL : k < log->n_args; k++) {
		const br_log_arg *a = NULL;
		if (only == NULL)
			a = &log->args[k];
		else
			for (size_t i = 0; i < log->n_args && a == NULL; i++)
				if (strcmp(log->args[i].name, only[k]) == 0)
					a = &log->args[i];
		if (a == NULL)
			continue;
		cells[n * 2] = a->name;
		const char *v = a->value;
		if (strlen(v) > 90) {
			size_t m = 87;
			while (m > 0 && ((unsigned char)v[m] & 0xC0) == 0x80)
				m--;
			cells[n * 2 + 1] = keep(p, br_xasprintf("%.*s…", (int)m, v));
		} else
			cells[n * 2 + 1] = v;
		n++;
	}
	if (n > 0) {
		const char *hdr[2] = { fill(c, p, "capacity.col_arg"), fill(c, p, "capacity.col_arg_value") };
		const double w[2] = { 2, 3 };
		const enum br_align al[2] = { BR_ALIGN_LEFT, BR_ALIGN_LEFT };
		br_pdf_table t = { .n_cols = 2, .n_rows = n, .header = hdr, .cells = cells,
			.col_weight = w, .align = al };
		br_pdf_table(c->d, &t);
	}
	free(cells);
}

static void
capacity_section(ctx *c)
{
	const br_capacity *cap = &c->a->capacity;
	const br_server_log *log = c->a->run->log;
	strpool p = { 0 };
	int other_engine = log != NULL && log->engine_kind != BR_ENGINE_VLLM;
	if (!cap->available && (log == NULL || (log->vllm_version == NULL && !other_engine))) {
		removed(c, "capacity.heading", "capacity.removed");
		strpool_free(&p);
		return;
	}
	heading(c, 1, "capacity.heading");
	if (log && log->did_not_start)
		para(c, "glance.did_not_start");
	if (!cap->available) {
		note(c, "capacity.removed");
	} else {
		para(c, "capacity.intro");
		const char *hdr[2] = { fill(c, &p, "capacity.col_quantity"), fill(c, &p, "capacity.col_value") };
		const char *cells[2 * 11];
		size_t n = 0;
#define ROW(key, val) do { cells[n * 2] = fill(c, &p, key); cells[n * 2 + 1] = keep(&p, val); n++; } while (0)
		br_engine eng = br_run_engine(c->a->run);
		const char *cap_name = eng == BR_ENGINE_SGLANG ? "max_running_requests" :
		    eng == BR_ENGINE_LLAMACPP ? "n_slots" : "max_num_seqs";
		ROW("capacity.row_pool", br_xasprintf("%s tokens (%s)", keep(&p, fmt_num(cap->kv_pool_tokens, 0)),
		    cap->kv_pool_source ? cap->kv_pool_source : "?"));
		if (isfinite(cap->kv_pool_gib))
			ROW(log_dp(c->a->run) ? "capacity.row_gib_dp" : "capacity.row_gib",
			    br_xasprintf("%s GiB", keep(&p, fmt_num(cap->kv_pool_gib, 2))));
		if (isfinite(cap->kv_bytes_per_token)) {
			/* vLLM prints the KV memory of one GPU and the pool in tokens of the
			 * whole tensor-parallel group: the ratio is one GPU's share */
			double tp = log ? log->tensor_parallel_size : NAN;
			double dcp = log ? log->decode_context_parallel_size : NAN;
			char par[160] = "";
			if (isfinite(tp) && tp > 1)
				snprintf(par, sizeof par, " per GPU, tensor_parallel_size %.0f", tp);
			/* decode context parallel spreads the pool's tokens over its ranks:
			 * one GPU's memory over the whole pool is not one token's cost */
			if (isfinite(dcp) && dcp > 1)
				snprintf(par + strlen(par), sizeof par - strlen(par), "%s decode_context_parallel_size "
				    "%.0f (each GPU holds 1/%.0f of the pool's tokens: memory × %.0f / P)",
				    par[0] ? "," : " per GPU,", dcp, dcp, dcp);
			/* to the digits the log's GiB carries (4.64 GiB: 3), not 57,356 */
			double bpt = br_round_sig(cap->kv_bytes_per_token, cap->kv_gib_sig_digits);
			double kib = br_round_sig(cap->kv_bytes_per_token / 1024.0, cap->kv_gib_sig_digits);   /* from the value, not the rounded bytes */
			/* "≈": from the log's rounded GiB (brk18 L10, brk19 B2: read as exact) */
			const char *approx = cap->kv_gib_sig_digits > 0 ? "≈" : "";
			ROW("capacity.row_bytes", br_xasprintf("%s%s bytes (%s%s KiB)%s", approx, keep(&p,
			    fmt_num(bpt, 0)), approx, keep(&p, fmt_num(kib, 1)), par));
		}
		if (isfinite(cap->max_model_len_tokens))
			ROW("capacity.row_m", br_xasprintf("%s tokens", keep(&p, fmt_num(cap->max_model_len_tokens, 0))));
		if (isfinite(cap->predicted_max_concurrency))
			ROW("capacity.row_pm", br_xasprintf("%s", keep(&p, fmt_num(cap->predicted_max_concurrency, 2))));
		if (isfinite(cap->log_max_concurrency_x))
			ROW("capacity.row_logx", br_xasprintf("%.2fx", cap->log_max_concurrency_x));
		if (isfinite(cap->concurrency))
			ROW("capacity.row_c", isfinite(cap->effective_concurrency) && cap->effective_concurrency < cap->concurrency ?
			    br_xasprintf("%s (%s in flight at most)", keep(&p, fmt_num(cap->concurrency, 0)),
				keep(&p, fmt_num(cap->effective_concurrency, 0))) : fmt_num(cap->concurrency, 0));
		if (isfinite(cap->mean_input_tokens))
			ROW("capacity.row_inout", br_xasprintf("%s + %s tokens", keep(&p, fmt_num(cap->mean_input_tokens, 1)),
			    keep(&p, fmt_num(cap->mean_output_tokens, 1))));
		if (isfinite(cap->demand_tokens))
			ROW("capacity.row_demand", br_xasprintf("%s tokens", keep(&p, fmt_num(cap->demand_tokens, 0))));
		if (isfinite(cap->oversubscription))
			ROW("capacity.row_oversub", br_xasprintf("%.3g×", cap->oversubscription));
		/* a cap the log states but the run contradicts is not applied: say
		 * so beside the row whose label names it */
		if (isfinite(cap->resident_estimate) && !cap->resident_capped_by_max_num_seqs &&
		    cap->log_cap_contradicted_where != NULL)
			ROW("capacity.row_resident", br_xasprintf("%s requests (the log's %s %s not applied: %s saw %s "
			    "running)", keep(&p, fmt_num(cap->resident_estimate, 2)), cap_name,
			    keep(&p, fmt_num(c->a->run->log->max_num_seqs, 0)), cap->log_cap_contradicted_where,
			    keep(&p, fmt_num(cap->log_cap_contradicted_by, 0))));
		else if (isfinite(cap->resident_estimate))
			ROW("capacity.row_resident", cap->resident_capped_by_max_num_seqs ?
			    br_xasprintf("%s requests (%s; the KV cache alone: %s)",
			    keep(&p, fmt_num(cap->resident_estimate, 0)), cap->resident_cap_from_slots ?
			    "the slots /slots lists" : cap_name,
			    keep(&p, fmt_num(cap->resident_kv_bound, 2))) :
			    br_xasprintf("%s requests", keep(&p, fmt_num(cap->resident_estimate, 2))));
#undef ROW
		const double w[2] = { 3, 2 };
		const enum br_align al[2] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT };
		br_pdf_table t = { .n_cols = 2, .n_rows = n, .header = hdr, .cells = cells, .col_weight = w, .align = al };
		br_pdf_table(c->d, &t);
	}
	if (log != NULL && log->vllm_version != NULL) {
		heading(c, 2, "capacity.server_heading");
		para(c, log->args_line == 0 ? "capacity.server_no_args" : log->args_all ?
		    (log->args_complete ? "capacity.server_namespace" : "capacity.server_namespace_cut") :
		    log->args_complete ? "capacity.server" : "capacity.server_args_cut");
		args_table(c, &p, log, NULL);
		if (log->n_stats > 0)
			para(c, "capacity.stats_lines");
	} else if (other_engine) {
		heading(c, 2, "capacity.server_heading");
		para(c, log->engine_version ? "capacity.server_build" : "capacity.server_nobuild");
		engine_settings_table(c, &p, log);
		if (log->engine_kind == BR_ENGINE_SGLANG) {
			/* ServerArgs lists ~200 arguments: the ones that shape scheduling and the pool */
			static const char *const sched[] = { "mem_fraction_static", "max_total_tokens",
				"max_running_requests", "max_queued_requests", "chunked_prefill_size",
				"max_prefill_tokens", "schedule_policy", "schedule_conservativeness", "page_size",
				"context_length", "kv_cache_dtype", "tp_size", "dp_size", "pp_size", "ep_size",
				"enable_dp_attention", "cuda_graph_max_bs", "disable_cuda_graph", "disable_radix_cache",
				"enable_mixed_chunk", "attention_backend", "speculative_algorithm", NULL };
			para(c, log->args_line == 0 ? "capacity.server_no_args_sglang" :
			    log->args_complete ? "capacity.server_args_sglang" : "capacity.server_args_sglang_cut");
			args_table(c, &p, log, sched);
		}
		if (log->n_stats > 0)
			para(c, "capacity.stats_lines");
		if (log->n_requests > 0)
			para(c, "capacity.timed_requests");
	}
	strpool_free(&p);
}

/*
 * engine_caveats: for a run of SGLang or llama.cpp, a note per role of
 * roles[0..n) the metrics hold whose series means something other than
 * vLLM's (br_role_caveat: counted at request finish, refreshed every 40
 * decode steps, busy slots, ...). Nothing for vLLM.
 */
static void
engine_caveats(ctx *c, const br_role *roles, size_t n)
{
	const br_series *s = c->a->run ? c->a->run->metrics : NULL;
	br_engine e = br_series_engine(s);
	if (e != BR_ENGINE_SGLANG && e != BR_ENGINE_LLAMACPP)
		return;
	const char *items[BR_N_ROLES];
	size_t k = 0;
	for (size_t i = 0; i < n && k < BR_N_ROLES; i++) {
		/* a series from the log's batch lines: its refresh is the intro's subject */
		if (c->a->run->metrics_kind == BR_METRICS_LOG && roles[i] == BR_ROLE_RUNNING)
			continue;
		const char *cv = br_role_name(s, roles[i]) ? br_role_caveat(e, roles[i]) : NULL;
		if (cv != NULL)
			items[k++] = cv;
	}
	if (k > 0)
		br_pdf_bullets(c->d, items, k);
}

static void
ledger_section(ctx *c)
{
	const br_ledger *l = &c->a->ledger;
	strpool p = { 0 };
	if (!l->available) {
		removed(c, "ledger.heading", "ledger.removed");
		strpool_free(&p);
		return;
	}
	heading(c, 1, "ledger.heading");
	para(c, "ledger.intro");
	{
		static const br_role counters[] = { BR_ROLE_PROMPT_TOKENS, BR_ROLE_GENERATION_TOKENS,
			BR_ROLE_REQUEST_SUCCESS, BR_ROLE_PREEMPTIONS };
		engine_caveats(c, counters, sizeof counters / sizeof counters[0]);
	}
	const char *hdr[5] = { fill(c, &p, "ledger.col_counter"), fill(c, &p, "ledger.col_delta"),
		fill(c, &p, "ledger.col_client"), fill(c, &p, "ledger.col_client_key"),
		fill(c, &p, "ledger.col_verdict") };
	const char **cells = br_xcalloc(l->n_rows * 5 + 1, sizeof *cells);
	int *hl = br_xcalloc(l->n_rows + 1, sizeof *hl);
	const char *agrees = fill(c, &p, "ledger.agrees"), *dis = fill(c, &p, "ledger.disagrees"),
		   *none = fill(c, &p, "ledger.no_counterpart"), *cut = fill(c, &p, "ledger.capture_short");
	for (size_t i = 0; i < l->n_rows; i++) {
		const br_ledger_row *r = &l->rows[i];
		int dec = fabs(r->server_delta) >= 1e12 ? -1 : (r->server_delta == floor(r->server_delta) ? 0 : 2);
		cells[i * 5 + 0] = r->series;
		cells[i * 5 + 1] = dec < 0 ? keep(&p, br_xasprintf("%.4g", r->server_delta)) : keep(&p, fmt_num(r->server_delta, dec));
		cells[i * 5 + 2] = isfinite(r->client_value) ?
		    keep(&p, br_xasprintf("%s %s", r->relation ? (strcmp(r->relation, ">=") == 0 ? "≥" : r->relation) : "",
			keep(&p, fmt_num(r->client_value, r->client_value == floor(r->client_value) ? 0 : 2)))) : "";
		cells[i * 5 + 3] = r->client_label ? r->client_label : "";
		cells[i * 5 + 4] = r->capture_short ? cut : r->agrees < 0 ? none : r->agrees ? agrees : dis;
		hl[i] = r->agrees < 0 ? 0 : r->agrees ? 1 : 2;
	}
	const double w[5] = { 3.6, 1.4, 1.4, 2.0, 1.4 };
	const enum br_align al[5] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_LEFT, BR_ALIGN_LEFT };
	br_pdf_table t = { .n_cols = 5, .n_rows = l->n_rows, .header = hdr, .cells = cells,
		.col_weight = w, .align = al, .row_highlight = hl };
	br_pdf_table(c->d, &t);
	int rounded = 0;
	for (size_t i = 0; i < l->n_rows; i++)
		rounded |= l->rows[i].tolerance > 0;
	if (rounded)
		note(c, "ledger.print_precision");
	if (l->n_with_failed > 0)
		note(c, "ledger.with_failed");
	if (l->n_capture_short > 0)
		note(c, l->window_cut == 3 ? "ledger.capture_short_note_both" : l->window_cut == 1 ?
		    "ledger.capture_short_note_start" : "ledger.capture_short_note_end");
	if (!log_v0(c->a->run))   /* how V1 counts prompt and iteration tokens; V0's are not described */
		note(c, "ledger.prefix_note");
	free(cells);
	free(hl);
	strpool_free(&p);
}

static void
residency_section(ctx *c)
{
	const br_residency *r = &c->a->residency;
	strpool p = { 0 };
	if (!r->available) {
		removed(c, "residency.heading", "residency.removed");
		strpool_free(&p);
		return;
	}
	heading(c, 1, "residency.heading");
	para(c, c->a->run->metrics_kind == BR_METRICS_LOG ? "residency.intro_log" :
	    c->a->run->metrics_kind == BR_METRICS_SLOTS ? "residency.intro_slots" :
	    c->a->run->metrics_cut != 0 ? "residency.intro_cut" :   /* no idle sample on a cut side */
	    "residency.intro");
	if (c->a->run->metrics_kind != BR_METRICS_LOG && isfinite(r->sample_interval_s) && r->sample_interval_s > 1.5)
		para(c, "residency.intro_coarse");
	{
		static const br_role gauges[] = { BR_ROLE_RUNNING, BR_ROLE_WAITING, BR_ROLE_KV_USAGE_FRAC };
		engine_caveats(c, gauges, sizeof gauges / sizeof gauges[0]);
	}
	const char *hdr[2] = { fill(c, &p, "capacity.col_quantity"), fill(c, &p, "capacity.col_value") };
	const char *cells[2 * 6];
	size_t n = 0;
#define ROW(key, val) do { cells[n * 2] = fill(c, &p, key); cells[n * 2 + 1] = keep(&p, val); n++; } while (0)
	ROW("residency.row_running", br_xasprintf("%s / %s / %s", keep(&p, fmt_num(r->running_mean, 2)),
	    keep(&p, fmt_num(r->running_median, 1)), keep(&p, fmt_num(r->running_peak, 0))));
	ROW("residency.row_waiting", br_xasprintf("%s / %s / %s", keep(&p, fmt_num(r->waiting_mean, 2)),
	    keep(&p, fmt_num(r->waiting_median, 1)), keep(&p, fmt_num(r->waiting_peak, 0))));
	ROW("residency.row_share", isfinite(r->resident_share) ? br_xasprintf("%.1f%%", 100 * r->resident_share) : br_xstrdup("n/a"));
	ROW("residency.row_kv", isfinite(r->kv_median_frac) ?
	    br_xasprintf("%.2f%% / %.2f%%", 100 * r->kv_median_frac, 100 * r->kv_peak_frac) : br_xstrdup("n/a"));
	ROW("residency.row_kv90", isfinite(r->kv_share_ge90) ?
	    br_xasprintf("%.1f%% / %.1f%%", 100 * r->kv_share_ge90, 100 * r->kv_share_ge95) : br_xstrdup("n/a"));
	ROW("residency.row_preempt", br_run_engine(c->a->run) == BR_ENGINE_LLAMACPP && !isfinite(r->preemptions) ?
	    br_xstrdup(fill(c, &p, "cards.preemptions_value_llamacpp")) :   /* not "n/a": it never preempts */
	    c->a->preemptions.count_lower_bound && isfinite(r->preemptions) ?
	    br_xasprintf("≥ %s", keep(&p, fmt_num(r->preemptions, 0))) : fmt_num(r->preemptions, 0));
#undef ROW
	const double w[2] = { 3, 2 };
	const enum br_align al[2] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT };
	br_pdf_table t = { .n_cols = 2, .n_rows = n, .header = hdr, .cells = cells, .col_weight = w, .align = al };
	br_pdf_table(c->d, &t);
	figure(c, "fig2-waveform", NULL);   /* its caption names only the series drawn */
	figure(c, "fig3-residency", NULL);
	figure(c, "figG-gpu", NULL);   /* only when the series has GPU telemetry */
	strpool_free(&p);
}

static void
preemptions_section(ctx *c)
{
	const br_preemptions *pr = &c->a->preemptions;
	strpool p = { 0 };
	if (!pr->available) {
		removed(c, "preemptions.heading", pr->count_from_v0_log ? "preemptions.count_only_v0_log" :
		    pr->count_available ? "preemptions.count_only" : "preemptions.removed");
		strpool_free(&p);
		return;
	}
	heading(c, 1, "preemptions.heading");
	/* V0 warns at every 50th preemption; V1 writes no line at all */
	para(c, log_v0(c->a->run) ? "preemptions.intro_v0" : "preemptions.intro");
	if (pr->n_events == 0) {
		para(c, c->a->run != NULL && c->a->run->metrics_cut ? "preemptions.none_cut" : "preemptions.none");
		strpool_free(&p);
		return;
	}
	{
		/* trigger level, spacing (two events or more), and what was released:
		 * a number, unreadable at 1 Hz, or unknown for want of the pool */
		const br_preemptions *P = &c->a->preemptions;
		int one = pr->n_events == 1, no_trigger = !isfinite(P->trigger_kv_frac);
		const char *parts[3] = {
			P->coarse ? (one ? "preemptions.sum_where_coarse_one" : "preemptions.sum_where_coarse") :
			    no_trigger ? (one ? "preemptions.sum_trigger_unread_one" : "preemptions.sum_trigger_unread") :
			    one ? "preemptions.sum_trigger_one" :
			    P->trigger_min_kv_frac < P->trigger_kv_frac - BR_PREEMPTION_BAND_FRAC ? "preemptions.sum_trigger_low" :
			    "preemptions.sum_trigger",
			isfinite(P->mean_interval_s) ? "preemptions.sum_interval" : "preemptions.sum_rate",
			P->coarse ? "preemptions.sum_release_coarse" :
			    isfinite(P->mean_released_per_preemption_tokens) ? "preemptions.sum_release" :
			    P->released_unreadable ? "preemptions.sum_release_unreadable" :
			    !isfinite(c->a->capacity.kv_pool_tokens) ? "preemptions.sum_release_no_pool" :
			    "preemptions.sum_release_unread" };
		para_joined(c, parts, 3);
	}
	if (pr->n_multi_events > 0)
		para(c, "preemptions.multi");
	if (pr->n_gap_events > 0)
		para(c, "preemptions.gap_events");
	if (pr->n_below_band > 0)
		para(c, isfinite(pr->mean_released_per_preemption_tokens) ? "preemptions.below_band" :
		    "preemptions.below_band_no_release");
	figure(c, "fig4-preemption-loop", isfinite(c->a->preemptions.trigger_kv_frac) ? NULL :
	    "figures.fig4-preemption-loop_no_trigger");
	figure(c, "fig5-preemption-staircase", NULL);

	heading(c, 2, "preemptions.events_heading");
	if (pr->n_events > EVENTS_IN_BODY) {
		para(c, "preemptions.events_in_appendix");
		c->events_in_appendix = 1;
	} else {
		events_table(c);
	}
	strpool_free(&p);
}

/* events_table: every preemption event of the run (t, count, KV before and
 * after, released tokens, running before and after) and the table's note. */
static void
events_table(ctx *c)
{
	const br_preemptions *pr = &c->a->preemptions;
	strpool p = { 0 };
	static const char *cols[7] = { "preemptions.col_t", "preemptions.col_count",
		"preemptions.col_kv_before", "preemptions.col_kv_after", "preemptions.col_released",
		"preemptions.col_run_before", "preemptions.col_run_after" };
	const char *hdr[7];
	for (int i = 0; i < 7; i++)
		hdr[i] = fill(c, &p, cols[i]);
	const char **cells = br_xcalloc(pr->n_events * 7 + 1, sizeof *cells);
	const char *gap = pr->n_gap_events > 0 ? fill(c, &p, "preemptions.cell_gap") : NULL;
	for (size_t i = 0; i < pr->n_events; i++) {
		const br_preemption_event *e = &pr->events[i];
		const char **row = &cells[i * 7];
		row[0] = keep(&p, fmt_num(e->t_since_start_s, 0));
		row[1] = keep(&p, fmt_num(e->count, 0));
		row[2] = keep(&p, isfinite(e->kv_before_frac) ? br_xasprintf("%.2f%%", 100 * e->kv_before_frac) : br_xstrdup("n/a"));
		row[3] = keep(&p, isfinite(e->kv_after_frac) ? br_xasprintf("%.2f%%", 100 * e->kv_after_frac) : br_xstrdup("n/a"));
		/* KV usage that did not fall over the sample: admissions refilled
		 * what the victim freed, and a negative "release" is no quantity
		 * (eighteenth breaker: "released -800 tokens") */
		row[4] = keep(&p, isfinite(e->released_tokens) && e->released_tokens <= 0 ? br_xstrdup("—") :
		    fmt_num(e->released_tokens, 0));
		row[5] = keep(&p, fmt_num(e->running_before, 0));
		row[6] = keep(&p, fmt_num(e->running_after, 0));
		if (e->across_gap)   /* before the gap: not this event's state */
			row[2] = row[4] = row[5] = gap;
	}
	br_pdf_table t = { .n_cols = 7, .n_rows = pr->n_events, .header = hdr, .cells = cells,
		.font_size_small = 1 };
	br_pdf_table(c->d, &t);
	free(cells);
	note(c, "preemptions.events_note");
	strpool_free(&p);
}

/* events_appendix: the long events table, as its own appendix chapter. */
static void
events_appendix(ctx *c)
{
	if (!c->events_in_appendix)
		return;
	heading(c, 1, "appendix.events_heading");
	events_table(c);
}

static void
ttft_section(ctx *c)
{
	const br_ttft_split *ts = &c->a->ttft_split;
	const br_littles_law *ll = &c->a->littles_law;
	strpool p = { 0 };
	if (!ts->available && !ll->available) {
		removed(c, "ttft.heading", "ttft.removed");
		removed(c, "ttft.little_heading", "ttft.little_removed");
		strpool_free(&p);
		return;
	}
	heading(c, 1, "ttft.heading");
	if (!ts->available)
		note(c, "ttft.removed");
	else {
		para(c, "ttft.intro");
		const char *hdr[3] = { fill(c, &p, "ttft.col_part"), fill(c, &p, "ttft.col_s"),
			fill(c, &p, "ttft.col_share") };
		const char *cells[5 * 3];
		size_t n = 0;
#define ROW(key, sec, share) do { cells[n * 3] = fill(c, &p, key); \
		cells[n * 3 + 1] = keep(&p, fmt_dur_s(sec)); \
		cells[n * 3 + 2] = keep(&p, isfinite(share) ? br_xasprintf("%.1f%%", 100 * (share)) : br_xstrdup("")); n++; } while (0)
		ROW("ttft.row_queue", ts->queue_s, ts->queue_share);
		ROW("ttft.row_prefill", ts->prefill_s, ts->prefill_share);
		ROW("ttft.row_frontend", ts->frontend_s, ts->frontend_share);
		ROW("ttft.row_client", ts->client_ttft_mean_s, 1.0);
		if (isfinite(ts->server_ttft_mean_s))
			ROW("ttft.row_server", ts->server_ttft_mean_s, NAN);
#undef ROW
		const double w[3] = { 4, 1.2, 1 };
		const enum br_align al[3] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT };
		br_pdf_table t = { .n_cols = 3, .n_rows = n, .header = hdr, .cells = cells, .col_weight = w, .align = al };
		br_pdf_table(c->d, &t);
		if (ts->frontend_negative)
			para(c, "ttft.negative");
	}
	heading(c, 2, "ttft.little_heading");
	if (!ll->available)
		note(c, "ttft.little_removed");
	else {
		para(c, ll->lambda_from_server ? "ttft.little_intro_server" : "ttft.little_intro");
		/* the measured side is said only when the metrics have it */
		if (isfinite(ll->w_resident_s))
			para(c, isfinite(ll->measured_resident_s) ? "ttft.little_resident" :
			    ll->measured_population_differs ? "ttft.little_resident_partial" : "ttft.little_resident_alone");
		if (isfinite(ll->w_queue_s))
			para(c, isfinite(ll->measured_queue_s) ? "ttft.little_queue" :
			    ll->measured_population_differs ? "ttft.little_queue_partial" : "ttft.little_queue_alone");
		if (!isfinite(ll->w_resident_s) && isfinite(ll->implied_running))
			para(c, "ttft.little_implied");
	}
	strpool_free(&p);
}

static void
flops_section(ctx *c)
{
	const br_flops_ledger *f = &c->a->flops;
	if (!f->available) {
		removed(c, "flops.heading", "flops.removed");
		return;
	}
	heading(c, 1, "flops.heading");
	para(c, "flops.intro");
	para(c, "flops.model");
	/* what the line rests on, when it is thin (2 points) or stretched (the
	 * run's context beyond the calibration's by more than 25%) */
	int thin = f->cal_n_used == 2, stretched = isfinite(f->extrapolation) && f->extrapolation > 1.25;   /* findings.c FLOPS_STRETCH_MAX */
	if (thin || stretched)
		para(c, thin && stretched ? "flops.basis_thin_extrapolated" : thin ? "flops.basis_thin" :
		    "flops.basis_extrapolated");
	if (isfinite(f->preemptions) && f->preemptions == 0) {
		para(c, "flops.no_preemption");   /* no recompute: the excess is something else */
		return;
	}
	if (!isfinite(f->preemptions)) {
		para(c, "flops.count_unknown");   /* recompute or something else: not told */
		return;
	}
	if (isfinite(f->recomputed_tokens))
		para(c, isfinite(f->released_tokens_total) ? "flops.recomputed" : "flops.recomputed_no_release");
	if (isfinite(f->recompute_s))
		para(c, "flops.time");
}

static void
budget_section(ctx *c)
{
	const br_budget *b = &c->a->budget;
	strpool p = { 0 };
	if (!b->available) {
		removed(c, "budget.heading", "budget.removed");
		strpool_free(&p);
		return;
	}
	heading(c, c->a->flops.available ? 2 : 1, "budget.heading");
	para(c, b->decode_in_gaps ? "budget.intro_gaps" : "budget.intro");
	const char *hdr[3] = { fill(c, &p, "budget.col_part"), fill(c, &p, "budget.col_s"),
		fill(c, &p, "budget.col_share") };
	const char *cells[4 * 3];
	size_t n = 0;
#define ROW(key, sec, frac) do { if (isfinite(sec)) { cells[n * 3] = fill(c, &p, key); \
		cells[n * 3 + 1] = keep(&p, fmt_num(sec, 1)); \
		cells[n * 3 + 2] = keep(&p, isfinite(frac) ? br_xasprintf("%.1f%%", 100 * (frac)) : br_xstrdup("")); n++; } } while (0)
	ROW("budget.row_decode", b->decode_s, b->decode_frac);
	ROW("budget.row_prefill", b->prefill_s, b->prefill_frac);
	ROW("budget.row_recompute", b->recompute_s, b->recompute_frac);
	ROW("budget.row_rest", b->rest_s, b->rest_frac);
#undef ROW
	const double w[3] = { 4, 1.2, 1.2 };
	const enum br_align al[3] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT };
	br_pdf_table t = { .n_cols = 3, .n_rows = n, .header = hdr, .cells = cells, .col_weight = w, .align = al };
	br_pdf_table(c->d, &t);
	if (b->decode_in_gaps)
		para(c, "budget.decode_gaps");   /* speculative decoding: steps are gaps, not tokens */
	if (b->rest_negative)
		para(c, "budget.negative");
	else if (isfinite(b->decode_frac) && b->decode_frac > 1.0)
		para(c, "budget.decode_over");   /* one estimate alone above the run: its inputs disagree */
	if (b->prefill_missing && b->recompute_missing)   /* one sentence for a shared reason */
		note(c, strcmp(b->prefill_missing, b->recompute_missing) == 0 ? "budget.part_missing_both" :
		    "budget.part_missing");
	else if (b->prefill_missing || b->recompute_missing)
		note(c, b->prefill_missing ? "budget.part_missing_prefill" : "budget.part_missing_recompute");
	figure(c, "fig9-budget", NULL);
	if (isfinite(b->decode_stolen_s)) {
		/* with preemptions a request's own wait after its eviction is in
		 * its decode time too; without, only others' prefill is; with the
		 * count unknown, either */
		double pre = br_preemption_count(c->a);
		/* one request at a time: no other request's prefill to share a
		 * step with (audit: said at C = 1); gaps of speculative decoding:
		 * the cause is not separated */
		double ceff = c->a->capacity.available ? c->a->capacity.effective_concurrency : NAN;
		int single = isfinite(ceff) && ceff <= 1;
		para(c, b->decode_in_gaps ? "budget.stolen_gaps" :
		    fabs(b->decode_stolen_frac) < 0.005 ? "budget.stolen_none" : b->decode_stolen_s < 0 ?
		    "budget.stolen_less" : isfinite(pre) && pre > 0 ? "budget.stolen_preempted" : single ?
		    "budget.stolen_single" :
		    (isfinite(pre) && pre == 0 && !c->a->preemptions.count_lower_bound) ||
		    br_run_engine(c->a->run) == BR_ENGINE_LLAMACPP ? "budget.stolen" :   /* llama.cpp never preempts */
		    "budget.stolen_count_unknown");
	}
	strpool_free(&p);
}

/* run_chapters: the detailed chapters of one run (single-run report or the
 * focus run of a campaign), in the order of the reference reports:
 * capacity, waveform and KV cache, preemptions, queue (TTFT split and
 * Little's law), recompute (FLOPs ledger), the wall-clock budget, then the
 * counters and the full measured latency. */
/*
 * log_timings_section: what llama-server's own timing lines say each request
 * took, beside the client's TPOT (only with such a log; nothing to remove
 * otherwise, as other engines print no such lines).
 */
static void
log_timings_section(ctx *c)
{
	const br_log_timings *t = &c->a->log_timings;
	if (!t->available)
		return;
	strpool p = { 0 };
	heading(c, 2, "log_timings.heading");
	int same_n = br_isnum(t->bench_completed) && t->bench_completed == (double)t->n;
	para(c, t->tokens_disagree ? "log_timings.intro_other_tokens" : same_n ?
	    "log_timings.intro_same_n" : "log_timings.intro_other_n");
	const char *hdr[2] = { fill(c, &p, "capacity.col_quantity"), fill(c, &p, "capacity.col_value") };
	const char *cells[2 * 6];
	size_t n = 0;
#define ROW(key, val) do { cells[n * 2] = fill(c, &p, key); cells[n * 2 + 1] = keep(&p, val); n++; } while (0)
	ROW("log_timings.row_prompt_tokens", fmt_num(t->prompt_tokens_mean, 1));
	ROW("log_timings.row_prompt_ms", br_xasprintf("%s / %s", keep(&p, fmt_num(t->prompt_ms_p50, 1)),
	    keep(&p, fmt_num(t->prompt_ms_p99, 1))));
	ROW("log_timings.row_prompt_tps", fmt_num(t->prompt_tps_p50, 1));
	ROW("log_timings.row_eval_tokens", fmt_num(t->eval_tokens_mean, 1));
	ROW("log_timings.row_eval_ms", br_xasprintf("%s / %s", keep(&p, fmt_num(t->eval_ms_per_token_p50, 2)),
	    keep(&p, fmt_num(t->eval_ms_per_token_p99, 2))));
	ROW("log_timings.row_eval_tps", fmt_num(t->eval_tps_p50, 1));
#undef ROW
	const double w[2] = { 3, 2 };
	const enum br_align al[2] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT };
	br_pdf_table bt = { .n_cols = 2, .n_rows = n, .header = hdr, .cells = cells, .col_weight = w, .align = al };
	br_pdf_table(c->d, &bt);
	/* the client cannot see tokens faster than the server made them: a
	 * negative difference says the two medians are not of the same
	 * requests, not that the client added a negative overhead */
	if (br_isnum(t->client_tpot_p50_ms) && br_isnum(t->eval_ms_per_token_p50) && same_n && !t->tokens_disagree)
		para(c, t->client_tpot_p50_ms >= t->eval_ms_per_token_p50 ? "log_timings.vs_client" :
		    "log_timings.vs_client_negative");
	strpool_free(&p);
}

static void
run_chapters(ctx *c)
{
	capacity_section(c);
	residency_section(c);
	preemptions_section(c);
	ttft_section(c);
	flops_section(c);
	budget_section(c);
	ledger_section(c);
	latency_section(c);
	log_timings_section(c);
}

/* removed_chapter: the sections the inputs could not give, with why. */
static void
removed_chapter(ctx *c)
{
	if (c->n_removed == 0)
		return;
	heading(c, BR_PDF_SHORT_CHAPTER, "removed.heading");
	para(c, "removed.intro");
	br_pdf_bullets(c->d, (const char *const *)c->removed, c->n_removed);
	for (size_t i = 0; i < c->n_removed; i++)
		free(c->removed[i]);
	free(c->removed);
	c->removed = NULL;
	c->n_removed = 0;
}

static void
appendix(ctx *c)
{
	const br_run *r = c->a->run;
	strpool p = { 0 };
	heading(c, 1, "definitions.heading");
	numbered_bullets(c, "definitions.items");
	events_appendix(c);   /* the appendices follow the definitions */

	heading(c, 1, "appendix.heading");
	heading(c, 2, "appendix.formulas_heading");
	numbered_bullets(c, "appendix.formulas");
	heading(c, 2, "appendix.files_heading");
	/* above the files table, not after it: a table that fills its last page
	 * would leave this line alone on one more */
	note(c, "appendix.generated");
	const char *hdr[4] = { fill(c, &p, "appendix.col_file"), fill(c, &p, "appendix.col_role"),
		fill(c, &p, "appendix.col_size"), fill(c, &p, "appendix.col_sha") };
	const char **cells = br_xcalloc(r->n_inputs * 4 + 1, sizeof *cells);
	for (size_t i = 0; i < r->n_inputs; i++) {
		cells[i * 4 + 0] = r->inputs[i].path;
		cells[i * 4 + 1] = r->inputs[i].role;
		cells[i * 4 + 2] = keep(&p, fmt_num((double)r->inputs[i].size_bytes, 0));
		cells[i * 4 + 3] = r->inputs[i].sha256;
	}
	const double w[4] = { 3.2, 1.3, 1.0, 4.4 };
	const enum br_align al[4] = { BR_ALIGN_LEFT, BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_LEFT };
	br_pdf_table t = { .n_cols = 4, .n_rows = r->n_inputs, .header = hdr, .cells = cells,
		.col_weight = w, .align = al, .font_size_small = 1 };
	br_pdf_table(c->d, &t);
	free(cells);
	strpool_free(&p);
}

/*
 * doc_open: a new PDF whose info (title from template key title_key,
 * subject, keywords) is filled from c->s. Returns 0 or -1 with *cause.
 * doc_close: save it (unless a figure failed), free it; returns 0 or -1.
 */
static int
doc_open(ctx *c, const char *title_key, char **cause)
{
	char *title = br_template_fill(c->t, title_key, c->s);
	char *subject = br_template_fill(c->t, "doc.subject", c->s);
	char *keywords = br_template_fill(c->t, "doc.keywords", c->s);
	br_pdf_info info = { .title = title, .subject = subject, .author = "benchreport 0.1.0",
		.keywords = keywords, .page_footer = br_template_get(c->t, "doc.page_footer"), .phrases = c->t };
	c->d = br_pdf_new(&info, cause);
	free(title);
	free(subject);
	free(keywords);
	return c->d == NULL ? -1 : 0;
}

static int
doc_close(ctx *c, const char *pdf_path, char **cause)
{
	int rc;
	if (c->err != NULL) {
		*cause = c->err;
		c->err = NULL;
		rc = -1;
	} else
		rc = br_pdf_save(c->d, pdf_path, cause);
	br_pdf_free(c->d);
	c->d = NULL;
	return rc;
}

int
br_report_write_pdf(const br_analysis *a, const json_t *summary,
    const br_figure *figs, size_t n_figs, const br_template *t,
    const char *pdf_path, char **cause)
{
	ctx c = { .a = a, .s = summary, .t = t, .figs = figs, .n_figs = n_figs };
	if (doc_open(&c, "doc.title", cause) != 0)
		return -1;
	title_page(&c);
	run_chapters(&c);
	/* after the chapters, as the reference reports close: the plan's
	 * checks, the next steps, the caveats */
	checks_table(&c, json_object_get(json_object_get(summary, "plan"), "checks"), "glance.plan_intro", 1);
	findings_kinds(&c, 4, findings_kinds(&c, 2, 1) > 0 ? 2 : 1);
	removed_chapter(&c);
	appendix(&c);
	return doc_close(&c, pdf_path, cause);
}

/* ================================================================ */
/* Campaign report                                                   */
/* ================================================================ */

/* jnum_or_null: a finite number, else JSON null. */
static json_t *
jnum_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *
br_campaign_summary_build(const br_campaign *c, json_t *const *run_summaries,
    const br_figure *figs, size_t n_figs)
{
	json_t *s = json_object();
	json_object_set_new(s, "schema_version", json_integer(BR_SUMMARY_SCHEMA_VERSION));
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("benchreport"));
	json_object_set_new(tool, "version", json_string("0.1.0"));
	json_object_set_new(s, "tool", tool);
	json_t *co = json_object();
	json_object_set_new(co, "name", json_string(c->name));
	json_object_set_new(co, "dir", json_string(c->dir));
	json_object_set_new(co, "n_runs", json_integer((json_int_t)c->n_runs));
	json_object_set_new(co, "focus_index", json_integer((json_int_t)c->focus));
	json_object_set_new(co, "focus_name", json_string(c->runs[c->focus].name));
	json_object_set_new(co, "focus_reason", json_string(c->focus_reason));
	json_object_set_new(co, "n_calibration_runs_extra", json_integer((json_int_t)c->n_calibration_runs));
	json_object_set_new(co, "calibration_missing",
	    c->calibration_missing ? json_string(c->calibration_missing) : json_null());
	json_t *w = json_array();
	for (size_t i = 0; i < c->n_warnings; i++)
		json_array_append_new(w, json_string(c->warnings[i]));
	json_object_set_new(co, "warnings", w);
	json_object_set_new(co, "max_repeats", json_integer((json_int_t)c->max_repeats));
	json_object_set_new(co, "n_configurations", json_integer((json_int_t)c->n_groups));
	json_object_set_new(co, "n_measurements", json_integer((json_int_t)c->n_measurements));
	json_object_set_new(s, "campaign", co);
	json_t *cfgs = json_array();
	for (size_t gi = 0; gi < c->n_groups; gi++) {
		const br_config_group *g = &c->groups[gi];
		json_t *go = json_object(), *names = json_array(), *st = json_object();
		for (size_t j = 0; j < g->n; j++)
			json_array_append_new(names, json_string(c->measurements[g->members[j]].name));
		for (int mi = 0; mi < BR_REPEAT_N_METRICS; mi++) {
			const br_mean_ci *m = &g->stat[mi];
			json_object_set_new(st, br_repeat_metric_name[mi], json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
			    "n", (json_int_t)m->n, "mean", jnum_or_null(m->mean), "sd", jnum_or_null(m->sd),
			    "ci95_lo", jnum_or_null(m->n >= BR_CI_MIN_REPEATS ? m->ci95_lo : NAN),
			    "ci95_hi", jnum_or_null(m->n >= BR_CI_MIN_REPEATS ? m->ci95_hi : NAN),
			    "min", jnum_or_null(m->min), "max", jnum_or_null(m->max)));
		}
		json_object_set_new(go, "label", json_string(g->label));
		json_object_set_new(go, "n_repeats", json_integer((json_int_t)g->n));
		json_object_set_new(go, "first_repeat_warmup_suspect", json_boolean(g->warmup_suspect));
		json_object_set_new(go, "n_all_failed", json_integer((json_int_t)g->n_all_failed));
		json_object_set_new(go, "runs", names);
		json_object_set_new(go, "stats", st);
		json_array_append_new(cfgs, go);
	}
	json_object_set_new(s, "configurations", cfgs);
	/* a run repeated in this campaign is not "one run, no repeat": its
	 * caveat gives way to one naming the repeats (summary and report) */
	for (size_t i = 0; i < c->n_runs; i++) {
		const br_config_group *g = br_campaign_group_of_run(c, i);
		json_t *fl = json_object_get(run_summaries[i], "findings");
		if (g == NULL || g->n < 2 || fl == NULL)
			continue;
		for (size_t k = 0; k < json_array_size(fl); k++) {
			json_t *f = json_array_get(fl, k);
			if (strcmp(json_string_value(json_object_get(f, "id")), "single_run") == 0) {
				json_object_set_new(f, "id", json_string("repeated_in_campaign"));
				break;
			}
		}
		json_object_set_new(run_summaries[i], "repeats", json_pack("{s:I, s:s}", "n",
		    (json_int_t)g->n, "configuration", g->label));
	}
	json_object_set_new(s, "calibration", br_summary_calibration(&c->calibration));
	br_story story;
	br_story_build(c, &story);
	json_object_set_new(s, "story", br_story_summary(c, &story));
	json_t *runs = json_array();
	for (size_t i = 0; i < c->n_runs; i++)
		json_array_append(runs, run_summaries[i]);
	json_object_set_new(s, "runs", runs);
	json_object_set_new(s, "figures", br_summary_figures(figs, n_figs));
	return s;
}

/* is_calibration_run: the calibration used run i of the campaign. */
static int
is_calibration_run(const br_campaign *c, size_t i)
{
	if (!c->has_calibration || i >= c->calibration.n_points)
		return 0;
	return c->calibration.points[i].used;
}

/*
 * story_json: the focus run's summary with the campaign's "story" object
 * beside it, so that one template sentence can cite both (a new reference
 * to focus; the story object is shared, not copied).
 */
static json_t *
story_json(const json_t *focus_summary, const json_t *campaign_summary)
{
	json_t *m = json_copy((json_t *)focus_summary);
	json_object_set(m, "story", json_object_get(campaign_summary, "story"));
	return m;
}

/* story_bullets: the campaign findings whose ids start (rec = 1) or do not start with "rec_". */
static void
story_bullets(ctx *c, const json_t *ids, int rec, const char ***items, size_t *n, strpool *p)
{
	for (size_t i = 0; i < json_array_size(ids); i++) {
		const char *id = json_string_value(json_array_get(ids, i));
		if (id == NULL || (strncmp(id, "rec_", 4) == 0) != rec)
			continue;
		char key[96];
		snprintf(key, sizeof key, "story.%s", id);
		*items = br_xrealloc(*items, (*n + 1) * sizeof **items);
		(*items)[(*n)++] = fill(c, p, key);
	}
}

/*
 * checks_table: the experiment plan's checks (or the standard expectations)
 * with the verdict from the data and what was measured (plan_intro_key: the
 * intro of a plan's table; NULL = the standard expectations): rows from the JSON
 * list `checks` ([{check, plan, verdict}], src/report/story_summary.c); the
 * plan's own words replace the standard wording when given; its heading at
 * the given level.
 */
static void
checks_table(ctx *c, const json_t *checks, const char *plan_intro_key, int level)
{
	int from_plan = plan_intro_key != NULL;
	if (json_array_size(checks) == 0)
		return;
	strpool p = { 0 };
	heading(c, level, from_plan ? "campaign.plan_heading" : "campaign.expect_heading");
	para(c, from_plan ? plan_intro_key : "campaign.expect_intro");
	const char *hdr[3] = { fill(c, &p, from_plan ? "campaign.col_plan" : "campaign.col_expect"),
		fill(c, &p, "campaign.col_verdict"), fill(c, &p, "campaign.col_measured") };
	size_t n = json_array_size(checks), rows = 0;
	const char **cells = br_xcalloc(3 * n + 1, sizeof *cells);
	for (size_t i = 0; i < n; i++) {
		const json_t *e = json_array_get(checks, i);
		const char *id = json_string_value(json_object_get(e, "check"));
		const char *verdict = json_string_value(json_object_get(e, "verdict"));
		const char *words = json_string_value(json_object_get(e, "plan"));
		if (id == NULL || verdict == NULL)
			continue;
		char key[96];
		snprintf(key, sizeof key, "expect.%s", id);
		/* the plan's words beside what the check tests: "We expect zero
		 * preemptions" with the verdict of "the scheduler preempts" would
		 * read as the opposite claim */
		cells[rows * 3] = words ? keep(&p, br_xasprintf("%s%s%s%s", words, fill(c, &p, "campaign.plan_checked_open"),
		    fill(c, &p, key), fill(c, &p, "campaign.plan_checked_close"))) : fill(c, &p, key);
		snprintf(key, sizeof key, "campaign.verdict_%s", verdict);
		cells[rows * 3 + 1] = fill(c, &p, key);
		/* the log-lines check with no preemption to log: the inputs do tell
		 * why it stays open (twelfth breaker: "the inputs cannot tell") */
		double n_pre = json_number_value(json_object_get(c->s, "derived") ?
		    json_object_get(json_object_get(c->s, "derived"), "preemptions") : NULL);
		int no_pre = json_is_number(json_object_get(json_object_get(c->s, "derived"), "preemptions")) && n_pre == 0;
		if (strcmp(verdict, "unknown") == 0)
			cells[rows * 3 + 2] = fill(c, &p, strcmp(id, "log_lines") == 0 && no_pre ?
			    "expect.log_lines_no_preemption_measured" : "expect.unknown_measured");
		else {
			/* the log-lines check has its own text for each verdict it can give */
			json_t *slog = json_object_get(c->s, "server_log");
			int v0_lines = json_integer_value(json_object_get(slog, "preemption_lines")) > 0;
			const char *sub = strcmp(id, "log_lines") != 0 ? "" : strcmp(verdict, "partly") == 0 ?
			    (v0_lines ? "_partly_v0" : "_partly") : strcmp(verdict, "holds") == 0 ? "_holds" : "";
			if (strcmp(id, "preemptions") == 0 && json_is_true(json_object_get(json_object_get(c->s,
			    "preemptions"), "count_from_v0_log")))
				sub = "_v0_log";
			/* the spike check decided by the run's lack of preemptions
			 * (with or without a light run: br_expect_verdicts) */
			if (strcmp(id, "itl_p99_spike") == 0 &&
			    (!json_is_number(json_object_get(json_object_get(c->s, "story"), "itl_p99_ratio")) ||
			    (no_pre && !json_is_true(json_object_get(json_object_get(c->s, "preemptions"), "count_is_lower_bound")))))
				sub = "_no_preemption";
			else if (strcmp(id, "itl_p99_spike") == 0) {
				/* "preemption gaps sit at p99.99" needs gaps past the stall
				 * threshold to have been counted and found (aud31) */
				json_t *stalls = json_object_get(json_object_get(c->s, "latency"), "itl_stalls");
				if (!json_is_integer(stalls) || !json_is_number(json_object_get(json_object_get(json_object_get(c->s,
				    "latency"), "itl"), "p99_99_ms")))
					sub = "_stalls_unknown";
				else if (json_integer_value(stalls) == 0)
					sub = "_no_stalls";
			}
			snprintf(key, sizeof key, "expect.%s%s_measured", id, sub);
			cells[rows * 3 + 2] = fill(c, &p, key);
		}
		rows++;
	}
	const double w[3] = { 2.6, 1.0, 3.6 };
	const enum br_align al[3] = { BR_ALIGN_LEFT, BR_ALIGN_LEFT, BR_ALIGN_LEFT };
	br_pdf_table t = { .n_cols = 3, .n_rows = rows, .header = hdr, .cells = cells,
		.col_weight = w, .align = al, .font_size_small = 1 };
	br_pdf_table(c->d, &t);
	free(cells);
	strpool_free(&p);
}

/*
 * campaign_title: the focus run's headline cards (and the calibration), the
 * campaign's own findings (the story), the focus run's conclusions and the
 * notes on the campaign itself (the rest closes the report:
 * campaign_closing).
 */
static void
campaign_title(ctx *c, const br_campaign *camp, json_t *const *run_summaries)
{
	strpool p = { 0 };
	const br_run *focus = &camp->runs[camp->focus];
	br_pdf_title(c->d, fill(c, &p, "campaign.title"), fill(c, &p, "campaign.subtitle"));
	const json_t *saved = c->s;
	json_t *merged = story_json(c->focus_summary, saved);
	const char *cal = fill(c, &p, camp->has_calibration ? "campaign.card_cal_value" : "campaign.card_cal_none");
	c->s = merged;
	headline_cards(c, "campaign.card_cal", cal);
	const json_t *ids = json_object_get(json_object_get(saved, "story"), "findings");
	/* the same-C length contrast as a callout across the page, as the
	 * reference's front page has it (the bullet below gives the detail) */
	for (size_t i = 0; i < json_array_size(ids); i++) {
		const char *id = json_string_value(json_array_get(ids, i));
		if (strcmp(id, "length_contrast") == 0 || strcmp(id, "length_contrast_n") == 0) {
			const char *lab = fill(c, &p, strcmp(id, "length_contrast") == 0 ? "campaign.card_contrast" :
			    "campaign.card_contrast_n");
			const char *val = fill(c, &p, "campaign.card_contrast_value");
			br_pdf_cards(c->d, &lab, &val, 1);
		}
	}
	c->s = saved;
	(void)focus;
	int any_story = 0;
	for (size_t i = 0; i < json_array_size(ids); i++)
		any_story |= strncmp(json_string_value(json_array_get(ids, i)), "rec_", 4) != 0;
	para(c, any_story ? "campaign.glance" : "campaign.glance_no_story");
	/* a CI gate's verdict comes before the story: it set the exit status */
	campaign_gate(c, camp, run_summaries);
	c->s = merged;
	const char **items = NULL;
	size_t n = 0;
	story_bullets(c, ids, 0, &items, &n, &p);
	if (n > 0) {
		heading(c, 2, "campaign.story_heading");
		br_pdf_bullets(c->d, items, n);
	}
	free(items);
	findings_kinds(c, 1, 2);
	c->s = saved;
	json_decref(merged);
	/* the campaign's notes, then each run's (an input set aside says why,
	 * and which of its sections and table cells it empties) */
	size_t n_notes = camp->n_warnings;
	for (size_t r = 0; r < camp->n_runs; r++)
		n_notes += camp->runs[r].n_warnings;
	if (n_notes > 0) {
		const char **notes = br_xcalloc(n_notes, sizeof *notes);
		size_t k = 0;
		for (size_t i = 0; i < camp->n_warnings; i++)
			notes[k++] = camp->warnings[i];
		for (size_t r = 0; r < camp->n_runs; r++)
			for (size_t i = 0; i < camp->runs[r].n_warnings; i++)
				notes[k++] = keep(&p, br_xasprintf("%s: %s", camp->runs[r].name, camp->runs[r].warnings[i]));
		heading(c, 2, "campaign.warnings_heading");
		br_pdf_bullets(c->d, notes, n_notes);
		free(notes);
	}
	strpool_free(&p);
}

/*
 * campaign_closing: after the focus run's chapters, as the reference
 * reports close: the expectations (or the plan's) table, the next steps
 * (the focus run's recommendations, then the story's) and the caveats.
 */
static void
campaign_closing(ctx *c, const br_campaign *camp)
{
	strpool p = { 0 };
	const json_t *saved = c->s;
	json_t *merged = story_json(c->focus_summary, saved);
	const json_t *ids = json_object_get(json_object_get(saved, "story"), "findings");
	const char **items = NULL;
	size_t n = 0;
	c->s = merged;
	{
		const json_t *st = json_object_get(saved, "story");
		checks_table(c, json_object_get(st, "checks"),
		    json_is_string(json_object_get(st, "plan_source")) ? "campaign.plan_intro" : NULL, 1);
	}
	/* next steps: the focus run's recommendations, then the campaign's */
	items = NULL;
	n = 0;
	json_t *list = json_object_get(c->s, "findings");
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *f = json_array_get(list, i);
		if (strcmp(json_string_value(json_object_get(f, "kind")), "recommendation") != 0)
			continue;
		char key[128];
		items = br_xrealloc(items, (n + 1) * sizeof *items);
		items[n++] = fill(c, &p, finding_key(c, f, key));
	}
	story_bullets(c, ids, 1, &items, &n, &p);
	if (n > 0) {
		heading(c, 1, "campaign.next_heading");
		br_pdf_bullets(c->d, items, n);
	}
	free(items);
	findings_kinds(c, 4, n > 0 ? 2 : 1);
	c->s = saved;
	json_decref(merged);
	strpool_free(&p);
}

/* fmt_lat: a latency (ms) as s when large, for the compact campaign table. */
static char *
fmt_lat(double ms)
{
	if (!isfinite(ms))
		return br_xstrdup("n/a");
	if (fabs(ms) >= 10000)
		return br_xasprintf("%.1f s", ms / 1000);
	if (fabs(ms) >= 1000)
		return br_xasprintf("%.2f s", ms / 1000);
	return br_xasprintf("%.1f ms", ms);
}

/* mean_sd: "mean ± sd" (dec decimals) with "[lo, hi]" for n >= BR_CI_MIN_REPEATS; the value
 * alone for n == 1; "n/a" when no repeat has it. */
static char *
mean_sd(const br_mean_ci *m, int dec)
{
	if (m->n == 0 || !isfinite(m->mean))
		return br_xstrdup("n/a");
	char *mean = fmt_num(m->mean, dec);
	if (m->n == 1 || !isfinite(m->sd))
		return mean;
	char *sd = fmt_num(m->sd, dec), *out;
	if (m->n >= BR_CI_MIN_REPEATS && isfinite(m->ci95_lo)) {
		/* every repeat metric is >= 0 (throughput, latency, counts): a
		 * lower bound below 0 (few repeats, a wide spread) is shown as 0 */
		double lo_v = m->min >= 0 && m->ci95_lo < 0 ? 0 : m->ci95_lo;
		char *lo = fmt_num(lo_v, dec), *hi = fmt_num(m->ci95_hi, dec);
		out = br_xasprintf("%s ± %s [%s, %s]", mean, sd, lo, hi);
		free(lo);
		free(hi);
	} else
		out = br_xasprintf("%s ± %s", mean, sd);
	free(mean);
	free(sd);
	return out;
}

/*
 * campaign_repeats: configurations measured more than once: mean ± sd (95%
 * interval from 3 repeats on) per configuration, and the runs behind each;
 * or one sentence that no configuration was repeated.
 */
static void
campaign_repeats(ctx *c, const br_campaign *camp)
{
	strpool p = { 0 };
	heading(c, 2, "campaign.repeats_heading");
	if (camp->max_repeats < 2) {
		para(c, "campaign.repeats_none");
		strpool_free(&p);
		return;
	}
	para(c, "campaign.repeats_intro");
	enum { NC = 5 };
	static const char *cols[NC] = { "campaign.col_config", "campaign.col_n", "campaign.col_rep_out_tps",
		"campaign.col_rep_ttft_p50", "campaign.col_rep_ttft_p99" };
	const char *hdr[NC];
	for (int i = 0; i < NC; i++)
		hdr[i] = fill(c, &p, cols[i]);
	const char **cells = br_xcalloc(camp->n_groups * NC, sizeof *cells);
	const char **runs = br_xcalloc(camp->n_groups, sizeof *runs);
	size_t nr = 0;
	for (size_t gi = 0; gi < camp->n_groups; gi++) {
		const br_config_group *g = &camp->groups[gi];
		const char **row = &cells[gi * NC];
		row[0] = g->n_all_failed ? keep(&p, br_xasprintf("%s (%zu of %zu: every request failed; "
		    "not in the means)", g->label, g->n_all_failed, g->n)) : g->label;
		row[1] = keep(&p, br_xasprintf("%zu", g->n));
		row[2] = keep(&p, mean_sd(&g->stat[BR_REPEAT_OUT_TPS], 1));
		row[3] = keep(&p, mean_sd(&g->stat[BR_REPEAT_TTFT_P50], 1));
		row[4] = keep(&p, mean_sd(&g->stat[BR_REPEAT_TTFT_P99], 1));
		if (g->n >= 2) {
			GString *s = g_string_new(NULL);
			g_string_append_printf(s, "%s: ", g->label);
			for (size_t j = 0; j < g->n; j++) {
				const br_measurement *m = &camp->measurements[g->members[j]];
				char *v = fmt_num(m->value[BR_REPEAT_OUT_TPS], 1);
				char *t = fmt_lat(m->value[BR_REPEAT_TTFT_P99]);
				/* a repeat that served nothing has no throughput or latency to list */
				const br_run *mr = &camp->runs[m->run];
				int none = mr->bench.n > m->result && mr->bench.runs[m->result].completed == 0;
				if (none)
					g_string_append_printf(s, "%s%s (every request failed)", j ? "; " : "", m->name);
				else
					g_string_append_printf(s, "%s%s (%s tok/s, TTFT p99 %s)", j ? "; " : "", m->name, v, t);
				free(v);
				free(t);
			}
			if (g->warmup_suspect) {
				char *a = fmt_lat(camp->measurements[g->members[g->first_run]].value[BR_REPEAT_TTFT_P99]);
				char *b = fmt_lat(g->warmup_rest_p99_ms);
				json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:f}", "config", g->label, "first",
				    camp->measurements[g->members[g->first_run]].name, "first_p99", a, "rest_p99", b, "ratio", g->warmup_ratio);
				char *txt = br_template_fill(c->t, "campaign.repeats_warmup", v);
				g_string_append_printf(s, ". %s", txt);
				free(txt);
				json_decref(v);
				free(a);
				free(b);
			}
			runs[nr++] = keep(&p, g_string_free(s, FALSE));
		}
	}
	const double w[NC] = { 2.6, 0.5, 2.2, 2.2, 2.2 };
	const enum br_align al[NC] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT };
	br_pdf_table t = { .n_cols = NC, .n_rows = camp->n_groups, .header = hdr, .cells = cells,
		.col_weight = w, .align = al, .font_size_small = 1 };
	br_pdf_table(c->d, &t);
	note(c, "campaign.repeats_note");
	br_pdf_bullets(c->d, runs, nr);
	free(cells);
	free(runs);
	strpool_free(&p);
}

static void
campaign_configs(ctx *c, const br_campaign *camp)
{
	strpool p = { 0 };
	heading(c, 1, "campaign.configs_heading");
	para(c, "campaign.configs_intro");
	/* two tables (capacity, then performance) so 13 columns never crowd A4 */
	/* an engine column (after the run name) when any run was served by SGLang or llama.cpp */
	int show_engine = 0;
	for (size_t i = 0; i < camp->n_runs; i++) {
		br_engine e = br_run_engine(&camp->runs[i]);
		show_engine |= e == BR_ENGINE_SGLANG || e == BR_ENGINE_LLAMACPP;
	}
	enum { NA_MAX = 9, NB = 7 };
	const size_t NA = show_engine ? 9 : 8;
	static const char *cols_all[NA_MAX] = { "campaign.col_run", "campaign.col_engine", "campaign.col_inout",
		"campaign.col_demand", "campaign.col_kvpeak", "campaign.col_resident", "campaign.col_waiting",
		"campaign.col_preempt", "campaign.col_role" };
	const char *cols_a[NA_MAX];
	for (size_t i = 0, k = 0; i < NA_MAX; i++)
		if (i != 1 || show_engine)
			cols_a[k++] = cols_all[i];
	static const char *cols_b[NB] = { "campaign.col_run", "campaign.col_out_tps", "campaign.col_total_tps",
		"campaign.col_ttft", "campaign.col_itl", "campaign.col_e2el", "campaign.col_preempt" };
	const char *hdr_a[NA_MAX], *hdr_b[NB];
	for (size_t i = 0; i < NA; i++)
		hdr_a[i] = fill(c, &p, cols_a[i]);
	for (int i = 0; i < NB; i++)
		hdr_b[i] = fill(c, &p, cols_b[i]);
	const char **ca = br_xcalloc(camp->n_runs * NA, sizeof *ca);
	const char **cb = br_xcalloc(camp->n_runs * NB, sizeof *cb);
	int *hl = br_xcalloc(camp->n_runs, sizeof *hl);
	for (size_t i = 0; i < camp->n_runs; i++) {
		const br_analysis *a = &camp->analyses[i];
		const br_bench *b = &camp->runs[i].bench.runs[0];
		const char **rb = &cb[i * NB];
		const char *row_a[NA_MAX];
		const char **ra = row_a;
		double in = a->capacity.mean_input_tokens, out = a->capacity.mean_output_tokens;
		if (!isfinite(in) && b->completed > 0) {
			in = b->total_input_tokens / b->completed;
			out = b->total_output_tokens / b->completed;
		}
		const char *preempt = br_run_engine(&camp->runs[i]) == BR_ENGINE_LLAMACPP ?
		    fill(c, &p, "campaign.preempt_none_llamacpp") :   /* a slot server has none */
		    keep(&p, fmt_num(a->preemptions.count_available ? a->preemptions.n_preemptions : NAN, 0));
		ra[0] = rb[0] = camp->runs[i].name;
		/* no-break spaces: "6,144 / 2,048" is one value, not three words to wrap */
		ra[1] = keep(&p, br_xasprintf("%s\u00a0/\u00a0%s", keep(&p, fmt_num(in, 0)), keep(&p, fmt_num(out, 0))));
		ra[2] = keep(&p, isfinite(a->capacity.oversubscription) ?
		    br_xasprintf("%.2f×", a->capacity.oversubscription) : br_xstrdup("n/a"));
		ra[3] = keep(&p, isfinite(a->residency.kv_peak_frac) ?
		    br_xasprintf("%.1f%%", 100 * a->residency.kv_peak_frac) : br_xstrdup("n/a"));
		ra[4] = keep(&p, isfinite(a->residency.running_mean) && isfinite(a->capacity.effective_concurrency) ?
		    br_xasprintf("%.1f / %.0f", a->residency.running_mean, a->capacity.effective_concurrency) :
		    br_xstrdup("n/a"));
		ra[5] = keep(&p, fmt_num(a->residency.waiting_peak, 0));
		ra[6] = rb[6] = preempt;
		ra[7] = i == camp->focus ? fill(c, &p, "campaign.role_focus") :
		    is_calibration_run(camp, i) ? fill(c, &p, "campaign.role_cal") : "";
		/* the row as shown: the engine after the run name when the column is on */
		for (size_t k = 0, j = 0; k < NA; k++)
			ca[i * NA + k] = show_engine && k == 1 ?
			    br_engine_name(br_run_engine(&camp->runs[i])) : row_a[j++];
		rb[1] = keep(&p, fmt_num(b->output_throughput_tps, 1));
		rb[2] = keep(&p, fmt_num(b->total_token_throughput_tps, 1));
		rb[3] = keep(&p, fmt_lat(a->latency.m[BR_TTFT].median));
		rb[4] = keep(&p, isfinite(a->latency.m[BR_ITL].median) ?
		    br_xasprintf("%s / %s / %s", keep(&p, fmt_num(a->latency.m[BR_ITL].median, 1)),
			keep(&p, fmt_num(a->latency.m[BR_ITL].p90, 1)), keep(&p, fmt_num(a->latency.m[BR_ITL].p99, 1))) :
		    br_xstrdup("n/a"));
		rb[5] = keep(&p, fmt_lat(a->latency.m[BR_E2EL].median));
		hl[i] = i == camp->focus ? 2 : 0;
	}
	static const double wa_all[NA_MAX] = { 2.4, 1.1, 1.6, 1.3, 1.1, 1.3, 1.1, 1.2, 1.3 };
	static const enum br_align ala_all[NA_MAX] = { BR_ALIGN_LEFT, BR_ALIGN_LEFT, BR_ALIGN_RIGHT,
		BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_LEFT };
	double wa[NA_MAX];
	enum br_align ala[NA_MAX];
	for (size_t i = 0, k = 0; i < NA_MAX; i++)
		if (i != 1 || show_engine) {
			wa[k] = wa_all[i];
			ala[k++] = ala_all[i];
		}
	br_pdf_table ta = { .n_cols = NA, .n_rows = camp->n_runs, .header = hdr_a, .cells = ca,
		.col_weight = wa, .align = ala, .row_highlight = hl, .font_size_small = 1 };
	br_pdf_table(c->d, &ta);
	const double wb[NB] = { 2.4, 1.2, 1.2, 1.2, 2.2, 1.2, 1.2 };
	br_pdf_table tb = { .n_cols = NB, .n_rows = camp->n_runs, .header = hdr_b, .cells = cb,
		.col_weight = wb, .row_highlight = hl, .font_size_small = 1 };
	br_pdf_table(c->d, &tb);
	free(ca);
	free(cb);
	free(hl);
	campaign_repeats(c, camp);
	figure(c, "fig1-kv-demand", NULL);   /* its own caption: it says whether the pool markers are drawn */
	/* runs of several engines: captions that name each engine's series */
	figure(c, "fig6-configs", show_engine ? "figures.fig6-configs_engines" : NULL);
	figure(c, "fig7-ttft-split", show_engine ? "figures.fig7-ttft-split_engines" : NULL);
	/* the light run against the focus: which part of TTFT grew */
	const json_t *st = json_object_get(c->s, "story");
	if (json_is_number(json_object_get(st, "queue_ratio")) && json_is_number(json_object_get(st, "light_prefill_s")) &&
	    json_is_number(json_object_get(st, "focus_prefill_s")))
		para(c, "story.ttft_growth");
	strpool_free(&p);
}

static void
campaign_calibration(ctx *c, const br_campaign *camp)
{
	strpool p = { 0 };
	heading(c, 1, "campaign.calibration_heading");
	if (!camp->has_calibration) {
		note(c, "campaign.calibration_missing");
		strpool_free(&p);
		return;
	}
	para(c, "campaign.calibration_intro");
	const br_flops_calibration *cal = &camp->calibration;
	const char *hdr[4] = { fill(c, &p, "campaign.col_run"), fill(c, &p, "campaign.col_x"),
		fill(c, &p, "campaign.col_y"), fill(c, &p, "campaign.col_used") };
	const char **cells = br_xcalloc(cal->n_points * 4 + 1, sizeof *cells);
	for (size_t i = 0; i < cal->n_points; i++) {
		const br_flops_cal_point *pt = &cal->points[i];
		cells[i * 4 + 0] = pt->name ? pt->name : "";
		cells[i * 4 + 1] = keep(&p, fmt_num(pt->x_tokens, 0));
		cells[i * 4 + 2] = keep(&p, isfinite(pt->y_gflop_per_token) ?
		    br_xasprintf("%.4f", pt->y_gflop_per_token) : br_xstrdup("n/a"));
		cells[i * 4 + 3] = pt->used && pt->gpu_assumed ? keep(&p, strcmp(pt->gpu_assumed, "unknown") == 0 ?
		    br_xstrdup("yes (the run judged names no GPU: same GPU assumed)") :
		    br_xasprintf("yes (names no GPU: assumed %s)", pt->gpu_assumed)) :
		    pt->used ? "yes" : (pt->why ? pt->why : "no");
	}
	const double w[4] = { 2.2, 1.3, 1.3, 3.2 };
	const enum br_align al[4] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_LEFT };
	br_pdf_table t = { .n_cols = 4, .n_rows = cal->n_points, .header = hdr, .cells = cells,
		.col_weight = w, .align = al, .font_size_small = 1 };
	br_pdf_table(c->d, &t);
	free(cells);
	/* the caption reads the focus run's distance from the line as recompute
	 * only where br_flops_excess_reading says so */
	static const char *const key[] = {
		[BR_EXCESS_RECOMPUTE] = NULL,
		[BR_EXCESS_COUNT_UNKNOWN] = "figures.fig8-flops-calibration_count_unknown",
		[BR_EXCESS_NO_PREEMPTIONS] = "figures.fig8-flops-calibration_no_preemptions",
		[BR_EXCESS_NONE] = "figures.fig8-flops-calibration_no_excess",
	};
	const br_flops_ledger *fl = c->a && c->a->flops.available ? &c->a->flops : NULL;
	figure(c, "fig8-flops-calibration", fl ? key[br_flops_excess_reading(fl->preemptions, fl->excess_frac)] : NULL);
	strpool_free(&p);
}

static void
campaign_appendix(ctx *c, const br_campaign *camp)
{
	strpool p = { 0 };
	heading(c, 1, "definitions.heading");
	numbered_bullets(c, "definitions.items");
	events_appendix(c);   /* the appendices follow the definitions */
	heading(c, 1, "appendix.heading");
	heading(c, 2, "appendix.formulas_heading");
	numbered_bullets(c, "appendix.formulas");
	heading(c, 2, "appendix.files_heading");
	/* above the files table, not after it: a table that fills its last page
	 * would leave this line alone on one more */
	note(c, "appendix.generated");
	size_t n = 0;
	for (size_t i = 0; i < camp->n_runs; i++)
		n += camp->runs[i].n_inputs;
	for (size_t i = 0; i < camp->n_calibration_runs; i++)
		n += camp->calibration_runs[i].n_inputs;
	const char *hdr[4] = { fill(c, &p, "appendix.col_file"), fill(c, &p, "appendix.col_role"),
		fill(c, &p, "appendix.col_size"), fill(c, &p, "appendix.col_sha") };
	const char **cells = br_xcalloc(n * 4 + 1, sizeof *cells);
	size_t k = 0;
	for (size_t pass = 0; pass < 2; pass++) {
		const br_run *runs = pass == 0 ? camp->runs : camp->calibration_runs;
		size_t nr = pass == 0 ? camp->n_runs : camp->n_calibration_runs;
		for (size_t i = 0; i < nr; i++)
			for (size_t j = 0; j < runs[i].n_inputs; j++, k++) {
				const br_input_file *f = &runs[i].inputs[j];
				cells[k * 4 + 0] = f->path;
				cells[k * 4 + 1] = f->role;
				cells[k * 4 + 2] = keep(&p, fmt_num((double)f->size_bytes, 0));
				cells[k * 4 + 3] = f->sha256;
			}
	}
	const double w[4] = { 3.2, 1.3, 1.0, 4.4 };
	const enum br_align al[4] = { BR_ALIGN_LEFT, BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_LEFT };
	br_pdf_table t = { .n_cols = 4, .n_rows = k, .header = hdr, .cells = cells,
		.col_weight = w, .align = al, .font_size_small = 1 };
	br_pdf_table(c->d, &t);
	free(cells);
	strpool_free(&p);
}

int
br_report_write_campaign_pdf(const br_campaign *camp, const json_t *campaign_summary,
    json_t *const *run_summaries, const br_figure *figs, size_t n_figs,
    const br_template *t, const char *pdf_path, char **cause)
{
	/* the focus reason in the report's language: campaign.reason_<id> of
	 * the template replaces summary.json's English text in a copy */
	static const char *const reasons[][2] = {
		{ "most preemptions", "reason_most_preemptions" }, { "--focus", "reason_focus_option" },
		{ "name order among the runs whose metrics count preemptions, none of which had any",
		  "reason_name_order_counted" },
		{ "name order, as no run's metrics count preemptions", "reason_name_order" } };
	json_t *view = json_copy((json_t *)campaign_summary);
	json_t *co = json_deep_copy(json_object_get(campaign_summary, "campaign"));
	for (size_t i = 0; co && i < sizeof reasons / sizeof reasons[0]; i++) {
		char key[64];
		snprintf(key, sizeof key, "campaign.%s", reasons[i][1]);
		if (camp->focus_reason && strcmp(camp->focus_reason, reasons[i][0]) == 0 && br_template_get(t, key))
			json_object_set_new(co, "focus_reason", json_string(br_template_get(t, key)));
	}
	if (co)
		json_object_set_new(view, "campaign", co);
	ctx c = { .a = &camp->analyses[camp->focus], .s = view, .t = t,
		.figs = figs, .n_figs = n_figs, .focus_summary = run_summaries[camp->focus] };
	if (doc_open(&c, "campaign.title", cause) != 0) {
		json_decref(view);
		return -1;
	}
	campaign_title(&c, camp, run_summaries);
	campaign_configs(&c, camp);
	campaign_calibration(&c, camp);
	heading(&c, 2, "campaign.focus_heading");
	para(&c, "campaign.focus_intro");
	/* the focus chapters read their numbers from the focus run's summary */
	c.s = run_summaries[camp->focus];
	run_chapters(&c);
	c.s = view;
	campaign_closing(&c, camp);
	removed_chapter(&c);
	campaign_appendix(&c, camp);
	int rc = doc_close(&c, pdf_path, cause);
	json_decref(view);
	return rc;
}
