/*
 * The compare report: summary.json and report.pdf of `benchreport compare`
 * (DESIGN.md §2, §3.12), written through a staging folder swapped into
 * place. Wording from templates/compare.LANG.json; C chooses which
 * sentence applies and formats numbers and table cells. See compare.h.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>

#include "benchreport/common.h"
#include "benchreport/outdir.h"
#include "benchreport/compare.h"
#include "benchreport/model.h"
#include "benchreport/report.h"

#define MINUS "\xe2\x88\x92"   /* U+2212 */

/* jnum: a number, null when absent. */
static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* group: "1234567.5" → "1,234,567.5" (digits after an optional sign). */
static char *
group(const char *num)
{
	char out[128];
	size_t o = 0;
	const char *p = num;
	if (*p == '-')
		p++;
	size_t nd = strspn(p, "0123456789");
	for (size_t i = 0; i < nd && o < sizeof out - 8; i++) {
		out[o++] = p[i];
		size_t left = nd - i - 1;
		if (left > 0 && left % 3 == 0)
			out[o++] = ',';
	}
	snprintf(out + o, sizeof out - o, "%s", p + nd);
	return br_xstrdup(out);
}

/*
 * fmt_value: a value of metric m in its unit for a table cell or a
 * sentence: tokens grouped, fractions as %, ratios with ×, times with s or
 * ms. signed_ = 1 prefixes + / − (for changes). "n/a" when absent.
 */
static char *
fmt_value(int m, double v, int signed_)
{
	if (!isfinite(v))
		return br_xstrdup("n/a");
	const br_cmp_metric_info *mi = &br_cmp_metrics[m];
	const char *u = mi->unit;
	int dec = mi->decimals;
	double x = fabs(v);
	const char *sign = !signed_ ? (v < 0 ? MINUS : "") : v > 0 ? "+" : v < 0 ? MINUS : "±";
	char raw[64];
	const char *suffix = "";
	/* a value that would print as 0 at the usual decimals keeps 3 significant
	 * digits (oversubscription 0.00246×, not 0.00×) */
	double shown = strcmp(u, "frac") == 0 ? x * 100 : x;
	if (strcmp(u, "s") == 0 && shown > 0 && shown < 0.5 * pow(10.0, -dec)) {
		/* seconds too small for their decimals read in ms: a TTFT change of
		 * "−0.88 ms", not "−0.000878 s" (twenty-fourth breaker) */
		snprintf(raw, sizeof raw, "%.*f", x * 1000 >= 0.95 ? 1 : (int)-floor(log10(x * 1000)) + 1, x * 1000);
		char *g = group(raw);
		char *r = br_xasprintf("%s%s ms", sign, g);
		free(g);
		return r;
	}
	if (shown > 0 && shown < 0.5 * pow(10.0, -dec))
		dec = (int)-floor(log10(shown)) + 2;
	if (strcmp(u, "frac") == 0) {
		snprintf(raw, sizeof raw, "%.*f", dec, x * 100);
		suffix = signed_ ? " pp" : "%";
	} else {
		snprintf(raw, sizeof raw, "%.*f", dec, x);
		if (strcmp(u, "x") == 0)
			suffix = "×";
		else if (strcmp(u, "s") == 0)
			suffix = " s";
		else if (strcmp(u, "ms") == 0)
			suffix = " ms";
		else if (strcmp(u, "GiB") == 0)
			suffix = " GiB";
	}
	if (strspn(raw, "0.") == strlen(raw))
		sign = signed_ ? "±" : "";          /* no "−0.000" */
	char *g = group(raw);
	char *r = br_xasprintf("%s%s%s", sign, g, suffix);
	free(g);
	return r;
}

/* fmt_rel: a relative change as "+38.2%", "−17.6%", "±0.0%"; "n/a". */
static char *
fmt_rel(double r)
{
	if (!isfinite(r))
		return br_xstrdup("n/a");
	double pc = r * 100;
	char raw[32];
	snprintf(raw, sizeof raw, "%.1f", fabs(pc));
	if (strcmp(raw, "0.0") == 0)
		return br_xstrdup("±0.0%");
	return br_xasprintf("%s%s%%", pc > 0 ? "+" : MINUS, raw);
}

/* diff_state_name: "same", "differs", "unknown". */
static const char *
diff_state_name(int s)
{
	return s == BR_DIFF_SAME ? "same" : s == BR_DIFF_DIFFERS ? "differs" : "unknown";
}

static json_t *repeat_test_json(const br_cmp_repeat_test *t);
static const char *setting_name_key(const br_cmp_pair_result *p, int s);

/* verdict_name: as summary.json says it. */
static const char *
verdict_name(int v)
{
	return v == 1 ? "controlled" : v == 2 ? "same_settings" : v == 3 ? "no_difference_found" :
	    v == 4 ? "one_difference_unchecked" : v == 5 ? "different_engines" : "not_controlled";
}

/* pair_json: one matched pair. */
static json_t *
pair_json(const br_cmp_pair_result *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "name_a", jstr(p->name_a));
	json_object_set_new(o, "name_b", jstr(p->name_b));
	json_object_set_new(o, "verdict", json_string(verdict_name(p->verdict)));
	json_object_set_new(o, "same_files", json_boolean(p->same_files));
	json_object_set_new(o, "controlled", json_boolean(p->verdict == 1));
	json_object_set_new(o, "n_differences", json_integer((json_int_t)p->n_differ));
	/* (added) open loop: the rates the clients really sent, and whether they,
	 * not the server, set the throughput */
	json_object_set_new(o, "sent_rps_a", jnum(p->sent_rps_a));
	json_object_set_new(o, "sent_rps_b", jnum(p->sent_rps_b));
	json_object_set_new(o, "achieved_rps_a", jnum(p->achieved_rps_a));
	json_object_set_new(o, "achieved_rps_b", jnum(p->achieved_rps_b));
	json_object_set_new(o, "arrivals_set_throughput", json_boolean(p->arrivals_set_throughput));
	if (isfinite(p->sent_rps_a) && isfinite(p->sent_rps_b) && p->sent_rps_a > 0) {
		char *st = fmt_rel(p->sent_rps_b / p->sent_rps_a - 1);
		json_object_set_new(o, "sent_rel_text", json_string(st));
		free(st);
	}
	if (p->engine_a != BR_ENGINE_UNKNOWN || p->engine_b != BR_ENGINE_UNKNOWN) {
		/* (added) the engines, and between two engines what only one exposes */
		json_object_set_new(o, "engine_a", json_string(br_engine_name((br_engine)p->engine_a)));
		json_object_set_new(o, "engine_b", json_string(br_engine_name((br_engine)p->engine_b)));
		json_object_set_new(o, "different_engines", json_boolean(p->different_engines));
	}
	if (p->different_engines) {
		json_object_set_new(o, "diagnosis_a", jstr(p->diagnosis_a));
		json_object_set_new(o, "diagnosis_b", jstr(p->diagnosis_b));
		json_object_set_new(o, "same_workload", json_boolean(p->same_workload));
		const br_series *ma = p->a->run ? p->a->run->metrics : NULL;
		const br_series *mb = p->b->run ? p->b->run->metrics : NULL;
		for (int side = 0; side < 2; side++) {
			json_t *only = json_array();
			GString *t = g_string_new(NULL);
			for (int k = 0; k < BR_N_ROLES; k++) {
				/* a series this side holds that the other engine never exposes
				 * (a series merely missing from the other side's files is not listed) */
				const char *x = br_role_name(side ? mb : ma, (br_role)k);
				br_engine other = (br_engine)(side ? p->engine_a : p->engine_b);
				if (x != NULL && br_role_absent(other, (br_role)k) != NULL) {
					json_array_append_new(only, json_string(x));
					g_string_append_printf(t, "%s%s", t->len ? ", " : "", x);
				}
			}
			json_object_set_new(o, side ? "only_b_series" : "only_a_series", only);
			json_object_set_new(o, side ? "only_b_series_text" : "only_a_series_text",
			    t->len ? json_string(t->str) : json_null());
			g_string_free(t, TRUE);
		}
	}
	json_t *settings = json_object(), *diffs = json_array(), *unknown = json_array(), *hw = json_array();
	GString *dt = g_string_new(NULL), *ut = g_string_new(NULL);
	size_t n_same = 0;
	for (int s = 0; s < BR_SET_N; s++) {
		const br_cmp_diff *d = &p->diffs[s];
		json_t *so = json_object();
		json_object_set_new(so, "a", json_string(d->a_text));
		json_object_set_new(so, "b", json_string(d->b_text));
		json_object_set_new(so, "state", json_string(diff_state_name(d->state)));
		json_object_set_new(settings, br_cmp_setting_key[s], so);
		if (s == BR_SET_KV_POOL) {
			/* an outcome, not a setting: reported beside them (pool_moved_alone),
			 * neither counted as equal nor listed as unchecked */
		} else if (d->state == BR_DIFF_DIFFERS) {
			json_t *x = json_object();
			json_object_set_new(x, "setting", json_string(br_cmp_setting_key[s]));
			json_object_set_new(x, "a", json_string(d->a_text));
			json_object_set_new(x, "b", json_string(d->b_text));
			json_array_append_new(diffs, x);
			g_string_append_printf(dt, "%s%s %s → %s", dt->len ? "; " : "", setting_name_key(p, s),
			    d->a_text, d->b_text);
		} else if (d->state == BR_DIFF_UNKNOWN) {
			json_array_append_new(unknown, json_string(br_cmp_setting_key[s]));
			if (br_cmp_rarely_stated(br_cmp_setting_key[s]))
				json_array_append_new(hw, json_string(br_cmp_setting_key[s]));
			g_string_append_printf(ut, "%s%s", ut->len ? ", " : "", setting_name_key(p, s));
		} else {
			n_same++;
		}
	}
	json_t *extra = json_object();
	for (size_t i = 0; i < p->n_extra; i++) {
		const br_cmp_extra *x = &p->extra[i];
		json_object_set_new(extra, x->name, json_pack("{s:s, s:s, s:s}", "a", x->a_text, "b", x->b_text,
		    "state", diff_state_name(x->state)));
		if (x->state == BR_DIFF_DIFFERS) {
			json_array_append_new(diffs, json_pack("{s:s, s:s, s:s}", "setting", x->name, "a", x->a_text,
			    "b", x->b_text));
			g_string_append_printf(dt, "%s%s %s → %s", dt->len ? "; " : "", x->name, x->a_text, x->b_text);
		} else if (x->state == BR_DIFF_UNKNOWN) {
			json_array_append_new(unknown, json_string(x->name));
			if (br_cmp_rarely_stated(x->name))
				json_array_append_new(hw, json_string(x->name));
			g_string_append_printf(ut, "%s%s", ut->len ? ", " : "", x->name);
		} else
			n_same++;
	}
	json_object_set_new(o, "other_settings", extra);
	json_object_set_new(o, "pool_moved_alone", json_boolean(p->pool_moved_alone));
	json_object_set_new(o, "settings", settings);
	json_object_set_new(o, "differences", diffs);
	json_object_set_new(o, "differences_text", json_string(dt->str));
	json_object_set_new(o, "unknown_settings", unknown);
	json_object_set_new(o, "unknown_text", json_string(ut->str));
	/* (added) the unknown ones that do not withhold a controlled verdict */
	json_object_set_new(o, "unchecked_hardware", hw);
	json_object_set_new(o, "n_same_settings", json_integer((json_int_t)n_same));
	json_object_set_new(o, "n_settings_checked", json_integer((json_int_t)(BR_SET_N - 1 + p->n_extra)));
	size_t n_known = 0;     /* stated by both sides (the KV pool is an outcome, not counted) */
	for (int k = 0; k < BR_SET_N; k++)
		n_known += k != BR_SET_KV_POOL && p->diffs[k].state != BR_DIFF_UNKNOWN;
	for (size_t i = 0; i < p->n_extra; i++)
		n_known += p->extra[i].state != BR_DIFF_UNKNOWN;
	json_object_set_new(o, "n_settings_known", json_integer((json_int_t)n_known));
	g_string_free(dt, TRUE);
	g_string_free(ut, TRUE);

	json_t *rows = json_object(), *order = json_array(), *ab = json_array();
	for (int m = 0; m < BR_CMP_N_METRICS; m++) {
		const br_cmp_row *r = &p->rows[m];
		const br_cmp_metric_info *mi = &br_cmp_metrics[m];
		json_t *ro = json_object();
		json_object_set_new(ro, "a", jnum(r->a));
		json_object_set_new(ro, "b", jnum(r->b));
		json_object_set_new(ro, "abs_change", jnum(r->abs_change));
		json_object_set_new(ro, "rel_change", jnum(r->rel_change));
		json_object_set_new(ro, "unit", json_string(mi->unit));
		char *ta = fmt_value(m, r->a, 0), *tb = fmt_value(m, r->b, 0), *tc = fmt_value(m, r->abs_change, 1),
		     *tr = fmt_rel(r->rel_change);
		json_object_set_new(ro, "a_text", json_string(ta));
		json_object_set_new(ro, "b_text", json_string(tb));
		json_object_set_new(ro, "abs_change_text", json_string(tc));
		json_object_set_new(ro, "rel_change_text", json_string(tr));
		free(ta);
		free(tb);
		free(tc);
		free(tr);
		json_object_set_new(rows, mi->key, ro);
		json_array_append_new(order, json_string(mi->key));
		if (mi->in_ab_table)
			json_array_append_new(ab, json_string(mi->key));
	}
	json_object_set_new(o, "rows", rows);
	json_object_set_new(o, "row_order", order);
	json_object_set_new(o, "ab_table", ab);

	const br_cmp_elasticity *e = &p->elasticity;
	json_t *eo = json_object();
	json_object_set_new(eo, "available", json_boolean(e->available));
	json_object_set_new(eo, "pool_changed", json_boolean(e->pool_changed));
	json_object_set_new(eo, "pool_rel_change", jnum(e->pool_rel));
	json_object_set_new(eo, "resident_rel_change", jnum(e->resident_rel));
	json_object_set_new(eo, "throughput_rel_change", jnum(e->throughput_rel));
	json_object_set_new(eo, "resident_per_pool", jnum(e->resident_per_pool));
	json_object_set_new(eo, "throughput_per_resident", jnum(e->throughput_per_resident));
	json_object_set_new(eo, "throughput_per_pool", jnum(e->throughput_per_pool));
	char *t1 = fmt_rel(e->pool_rel), *t2 = fmt_rel(e->resident_rel), *t3 = fmt_rel(e->throughput_rel);
	json_object_set_new(eo, "pool_text", json_string(t1));
	json_object_set_new(eo, "resident_text", json_string(t2));
	json_object_set_new(eo, "throughput_text", json_string(t3));
	free(t1);
	free(t2);
	free(t3);
	json_object_set_new(o, "elasticity", eo);
	return o;
}

/* br_compare_summary: see compare.h. */
json_t *
br_compare_summary(const br_compare_input *in, const br_figure *figs, size_t n_figs)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema_version", json_integer(BR_SUMMARY_SCHEMA_VERSION));
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("benchreport"));
	json_object_set_new(tool, "version", json_string("0.1.0"));
	json_object_set_new(root, "tool", tool);
	json_object_set_new(root, "command", json_string("compare"));
	json_object_set_new(root, "kind", json_string(in->campaigns ? "campaigns" : "runs"));
	json_object_set_new(root, "kind_label", json_string(in->campaigns ? "campaigns" : "runs"));
	json_t *a = json_object(), *b = json_object();
	json_object_set_new(a, "dir", jstr(in->dir_a));
	json_object_set_new(a, "name", jstr(in->name_a));
	json_object_set_new(b, "dir", jstr(in->dir_b));
	json_object_set_new(b, "name", jstr(in->name_b));
	json_object_set_new(root, "a", a);
	json_object_set_new(root, "b", b);
	json_object_set_new(root, "same_path", json_boolean(in->same_path && !in->same_files));
	json_object_set_new(root, "same_bench_only", json_boolean(in->same_bench_only));
	json_object_set_new(root, "same_files", json_boolean(in->same_files));
	json_object_set_new(root, "n_pairs", json_integer((json_int_t)in->n_pairs));
	/* campaigns: "name", or "configuration name" when no run name was in both */
	json_object_set_new(root, "pairs_matched_by", in->campaigns ? json_string(in->matched_by_stem ?
	    "configuration name" : "name") : json_null());
	size_t n_controlled = 0;
	json_t *pairs = json_array();
	for (size_t i = 0; i < in->n_pairs; i++) {
		json_array_append_new(pairs, pair_json(&in->pairs[i]));
		n_controlled += in->pairs[i].verdict == 1;
	}
	json_object_set_new(root, "pairs", pairs);
	json_object_set_new(root, "n_controlled_pairs", json_integer((json_int_t)n_controlled));
	json_t *rts = json_array();
	for (size_t i = 0; i < in->n_repeat_tests; i++)
		json_array_append_new(rts, repeat_test_json(&in->repeat_tests[i]));
	json_object_set_new(root, "repeat_tests", rts);
	json_t *rc = json_array();
	GString *rct = g_string_new(NULL);
	for (size_t i = 0; i < in->n_repeats_copied; i++) {
		json_array_append_new(rc, json_string(in->repeats_copied[i]));
		g_string_append_printf(rct, "%s%s", i ? ", " : "", in->repeats_copied[i]);
	}
	json_object_set_new(root, "repeats_not_tested_copies", rc);
	json_object_set_new(root, "repeats_not_tested_copies_text", json_string(rct->str));
	json_object_set_new(root, "n_repeats_not_tested_copies", json_integer((json_int_t)in->n_repeats_copied));
	g_string_free(rct, TRUE);
	if (in->n_pairs > 0) {
		json_object_set_new(root, "focus_pair", json_integer((json_int_t)in->focus_pair));
		json_object_set(root, "focus", json_array_get(pairs, in->focus_pair));
	} else {
		json_object_set_new(root, "focus_pair", json_null());
		json_object_set_new(root, "focus", json_null());
	}
	json_t *ua = json_array(), *ub = json_array();
	GString *ta = g_string_new(NULL), *tb = g_string_new(NULL);
	for (size_t i = 0; i < in->n_only_a; i++) {
		json_array_append_new(ua, json_string(in->only_a[i]));
		g_string_append_printf(ta, "%s%s", i ? ", " : "", in->only_a[i]);
	}
	for (size_t i = 0; i < in->n_only_b; i++) {
		json_array_append_new(ub, json_string(in->only_b[i]));
		g_string_append_printf(tb, "%s%s", i ? ", " : "", in->only_b[i]);
	}
	json_object_set_new(root, "unmatched_a", ua);
	json_object_set_new(root, "unmatched_b", ub);
	json_object_set_new(root, "unmatched_a_text", json_string(ta->str));
	json_object_set_new(root, "unmatched_b_text", json_string(tb->str));
	json_object_set_new(root, "n_unmatched_a", json_integer((json_int_t)in->n_only_a));
	json_object_set_new(root, "n_unmatched_b", json_integer((json_int_t)in->n_only_b));
	g_string_free(ta, TRUE);
	g_string_free(tb, TRUE);
	json_object_set_new(root, "figures", br_summary_figures(figs, n_figs));
	return root;
}

/* ------------------------------------------------------------------ PDF */

/* Strings made while composing, freed together. */
typedef struct pool {
	char **v;
	size_t n;
} pool;

static const char *
keep(pool *p, char *s)
{
	p->v = br_xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	p->v[p->n++] = s;
	return s;
}

static void
pool_free(pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof *p);
}

typedef struct ctx {
	br_pdf *d;
	const br_template *t;
	const json_t *s;          /* root summary */
	const br_compare_input *in;
	const br_figure *figs;
	size_t n_figs;
	char *err;
} ctx;

/* value: a setting's value as the report prints it ("default" in the
 * report's language); kept in p. */
static const char *
value(const ctx *c, pool *p, const char *v)
{
	char *tr = br_template_phrase(c->t, v);
	return tr ? keep(p, tr) : v;
}

/*
 * how: `key` + "_by_stem" when the campaigns' runs were paired by
 * configuration name (br_compare_input.matched_by_stem) and the template
 * has that variant, else `key`; buf holds the composed key (128 bytes).
 * fill, para, note and heading look every key up through it, so the words
 * for "matched by name" change in the templates alone.
 */
static const char *
how(const ctx *c, const char *key, char buf[128])
{
	if (!c->in->matched_by_stem)
		return key;
	int n = snprintf(buf, 128, "%s_by_stem", key);
	if (n < 0 || n >= 128)
		return key;
	return br_template_get(c->t, buf) != NULL ? buf : key;
}

static const char *
fill(ctx *c, pool *p, const char *key, const json_t *obj)
{
	char kb[128];
	return keep(p, br_template_fill(c->t, how(c, key, kb), obj ? obj : c->s));
}

static void
para(ctx *c, const char *key, const json_t *obj)
{
	char kb[128];
	char *s = br_template_fill(c->t, how(c, key, kb), obj ? obj : c->s);
	br_pdf_paragraph(c->d, s);
	free(s);
}

static void
note(ctx *c, const char *key, const json_t *obj)
{
	char kb[128];
	char *s = br_template_fill(c->t, how(c, key, kb), obj ? obj : c->s);
	br_pdf_note(c->d, s);
	free(s);
}

static void
heading(ctx *c, int level, const char *key, const json_t *obj)
{
	char kb[128];
	char *s = br_template_fill(c->t, how(c, key, kb), obj ? obj : c->s);
	br_pdf_heading(c->d, level, s);
	free(s);
}

/* has_other_engine: a side of the pair served by SGLang or llama.cpp (its
 * notes and verdicts then name each engine's series and settings). */
static int
has_other_engine(const br_cmp_pair_result *p)
{
	return p->engine_a == BR_ENGINE_SGLANG || p->engine_a == BR_ENGINE_LLAMACPP ||
	    p->engine_b == BR_ENGINE_SGLANG || p->engine_b == BR_ENGINE_LLAMACPP;
}

/*
 * setting_name_key: the settings.names key of fixed setting s for pair p:
 * the server version is "sglang_version" / "llamacpp_build" when both sides
 * ran that engine, "server_version" for a pair with another engine on a
 * side, else the setting's own key ("vllm_version").
 */
static const char *
setting_name_key(const br_cmp_pair_result *p, int s)
{
	if (s == BR_SET_VLLM && has_other_engine(p))
		return p->engine_a == p->engine_b ? (p->engine_a == BR_ENGINE_SGLANG ? "sglang_version" :
		    "llamacpp_build") : "server_version";
	return br_cmp_setting_key[s];
}

/*
 * vkey: the verdict template key for pair p: "<key>_sglang" when both sides
 * are SGLang and the template has it, "<key>_engines" when a side is
 * SGLang or llama.cpp and it has that, else key. buf holds 128 bytes.
 */
static const char *
vkey(const ctx *c, const br_cmp_pair_result *p, const char *key, char buf[128])
{
	if (!has_other_engine(p))
		return key;
	if (p->engine_a == p->engine_b && (p->engine_a == BR_ENGINE_SGLANG || p->engine_a == BR_ENGINE_LLAMACPP)) {
		snprintf(buf, 128, "%s_%s", key, p->engine_a == BR_ENGINE_SGLANG ? "sglang" : "llamacpp");
		if (br_template_get(c->t, buf) != NULL)
			return buf;
	}
	snprintf(buf, 128, "%s_engines", key);
	return br_template_get(c->t, buf) != NULL ? buf : key;
}

/* label: the template's label for "prefix.key", else key itself. */
static const char *
label(const ctx *c, const char *prefix, const char *key)
{
	char k[128];
	snprintf(k, sizeof k, "%s.%s", prefix, key);
	const char *v = br_template_get(c->t, k);
	return v ? v : key;
}

/*
 * setting_label: label() of a fixed setting, the server version named for
 * what it is when a side was served by SGLang or llama.cpp ("server
 * version (vLLM; SGLang / llama.cpp build)").
 */
static const char *
setting_label(const ctx *c, const br_cmp_pair_result *p, int s)
{
	return label(c, "settings.names", setting_name_key(p, s));
}

/* figure: embed a figure by id with its own caption. */
static void
figure(ctx *c, const char *id)
{
	for (size_t i = 0; i < c->n_figs; i++)
		if (c->figs[i].id && strcmp(c->figs[i].id, id) == 0 && c->figs[i].png_path) {
			/* the title leads the caption (no heading of its own: a heading could be
			 * left at the foot of a page when the figure moves to the next) */
			char *err = NULL;
			/* ". " in English, "。" in Chinese (brk19: "KV 占用. A 和 B") */
			const char *sep = br_template_get(c->t, "format.title_sep");
			char *own = br_xasprintf("%s%s%s", c->figs[i].title ? c->figs[i].title : "", sep ? sep : ". ",
			    c->figs[i].caption ? c->figs[i].caption : "");
			char *cap = br_template_figure_caption(c->t, own, &c->figs[i]);
			free(own);
			int frc = br_pdf_figure(c->d, &c->figs[i], cap, &err);
			free(cap);
			if (frc != 0) {
				if (c->err == NULL)
					c->err = err;
				else
					free(err);
			}
		}
}

/*
 * rows_table: metric | A | B | change | change % for the metrics of pair p
 * with in_ab_table (ab_only) or all metrics known on either side.
 */
static void
rows_table(ctx *c, const br_cmp_pair_result *p, int ab_only)
{
	pool sp = { 0 };
	const char *hdr[5] = { fill(c, &sp, "table.col_metric", NULL), fill(c, &sp, "table.col_a", NULL),
		fill(c, &sp, "table.col_b", NULL), fill(c, &sp, "table.col_change", NULL),
		fill(c, &sp, "table.col_rel", NULL) };
	const char **cells = br_xcalloc(BR_CMP_N_METRICS * 5, sizeof *cells);
	size_t n = 0;
	/* the reference order: capacity, residency, then throughput and latency */
	static const int ab_order[] = { BR_CMP_KV_POOL_TOKENS, BR_CMP_PRED_MAX_CONCURRENCY, BR_CMP_RUNNING_MEAN,
		BR_CMP_OVERSUBSCRIPTION, BR_CMP_OUTPUT_TPS, BR_CMP_DURATION_S, BR_CMP_TTFT_P50_S, BR_CMP_E2EL_P50_S,
		BR_CMP_PREEMPTIONS, BR_CMP_WAITING_MEAN };
	size_t nm = ab_only ? sizeof ab_order / sizeof ab_order[0] : BR_CMP_N_METRICS;
	for (size_t i = 0; i < nm; i++) {
		int m = ab_only ? ab_order[i] : (int)i;
		const br_cmp_row *r = &p->rows[m];
		if (!ab_only && !isfinite(r->a) && !isfinite(r->b))
			continue;
		const char **row = &cells[n * 5];
		row[0] = label(c, "rows", br_cmp_metrics[m].key);
		row[1] = keep(&sp, fmt_value(m, r->a, 0));
		row[2] = keep(&sp, fmt_value(m, r->b, 0));
		row[3] = keep(&sp, fmt_value(m, r->abs_change, 1));
		row[4] = keep(&sp, fmt_rel(r->rel_change));
		n++;
	}
	static const double w[5] = { 3.4, 1.5, 1.5, 1.5, 1.1 };
	br_pdf_table t = { .n_cols = 5, .n_rows = n, .header = hdr, .cells = cells, .col_weight = w,
		.font_size_small = !ab_only };
	br_pdf_table(c->d, &t);
	free(cells);
	pool_free(&sp);
}

/* settings_table: setting | A | B | same? */
static void
settings_table(ctx *c, const br_cmp_pair_result *p)
{
	pool sp = { 0 };
	const char *hdr[4] = { fill(c, &sp, "settings.col_setting", NULL), fill(c, &sp, "table.col_a", NULL),
		fill(c, &sp, "table.col_b", NULL), fill(c, &sp, "settings.col_state", NULL) };
	/* the fixed settings, then every other compared setting (bench keys,
	 * driver, CUDA, server arguments), so each difference the verdict
	 * names has its row */
	size_t nr = (size_t)BR_SET_N + p->n_extra;
	const char **cells = br_xcalloc(nr * 4, sizeof *cells);
	int *hl = br_xcalloc(nr, sizeof *hl);
	for (int s = 0; s < BR_SET_N; s++) {
		const br_cmp_diff *d = &p->diffs[s];
		cells[s * 4 + 0] = setting_label(c, p, s);
		cells[s * 4 + 1] = d->a_text;
		cells[s * 4 + 2] = d->b_text;
		cells[s * 4 + 3] = label(c, "settings.state", diff_state_name(d->state));
		hl[s] = d->state == BR_DIFF_DIFFERS ? 2 : 0;
	}
	for (size_t k = 0; k < p->n_extra; k++) {
		size_t r = (size_t)BR_SET_N + k;
		cells[r * 4 + 0] = p->extra[k].name;
		cells[r * 4 + 1] = p->extra[k].a_text;
		cells[r * 4 + 2] = p->extra[k].b_text;
		cells[r * 4 + 3] = label(c, "settings.state", diff_state_name(p->extra[k].state));
		hl[r] = p->extra[k].state == BR_DIFF_DIFFERS ? 2 : 0;
	}
	static const double w[4] = { 2.0, 2.6, 2.6, 1.0 };
	static const enum br_align al[4] = { BR_ALIGN_LEFT, BR_ALIGN_LEFT, BR_ALIGN_LEFT, BR_ALIGN_LEFT };
	br_pdf_table t = { .n_cols = 4, .n_rows = nr, .header = hdr, .cells = cells, .col_weight = w,
		.align = al, .row_highlight = hl, .font_size_small = 1 };
	br_pdf_table(c->d, &t);
	free(cells);
	free(hl);
	pool_free(&sp);
}

/* verdict_paragraphs: the honesty sentences for pair object po. */
static void
verdict_paragraphs(ctx *c, const br_cmp_pair_result *p, const json_t *po)
{
	char kb[128];
	if (c->in->same_path)
		para(c, c->in->campaigns ? "verdict.self_campaigns" : c->in->same_files == 3 ? "verdict.self_copy_resaved_stats" :
		    c->in->same_files == 2 ? "verdict.self_copy_resaved" :
		    c->in->same_files ? "verdict.self_copy" : "verdict.self", NULL);
	else if (p->same_files)
		para(c, p->same_files == 3 ? "verdict.pair_copy_resaved_stats" : p->same_files == 2 ?
		    "verdict.pair_copy_resaved" : "verdict.pair_copy", NULL);
	else if (p->verdict == 1 || p->verdict == 2) {
		if (c->in->same_bench_only)
			para(c, "verdict.same_bench_only", NULL);
		para(c, p->verdict == 1 ? vkey(c, p, "verdict.controlled", kb) : "verdict.same_settings", po);
		if (p->n_unchecked_hw > 0)
			para(c, "verdict.hw_unchecked", po);
	}
	else if (p->verdict == 3)
		para(c, "verdict.no_difference_found", po);
	else if (p->verdict == 4)
		para(c, "verdict.one_difference_unchecked", po);
	else {
		para(c, vkey(c, p, p->verdict == 5 ? (p->n_differ > 0 ? "verdict.different_engines" :
		    "verdict.different_engines_only") : !p->pool_moved_alone ? "verdict.not_controlled" :
		    p->n_differ == 0 ? "verdict.pool_moved_alone_only" : "verdict.pool_moved_alone", kb), po);
		pool sp = { 0 };
		const char **items = br_xcalloc(BR_SET_N + p->n_extra, sizeof *items);
		size_t n = 0;
		for (int s = 0; s < BR_SET_N; s++)
			if (p->diffs[s].state == BR_DIFF_DIFFERS && s != BR_SET_KV_POOL)
				items[n++] = keep(&sp, br_xasprintf("%s: %s → %s", setting_label(c, p, s),
				    value(c, &sp, p->diffs[s].a_text), value(c, &sp, p->diffs[s].b_text)));
		for (size_t k = 0; k < p->n_extra; k++)
			if (p->extra[k].state == BR_DIFF_DIFFERS)
				items[n++] = keep(&sp, br_xasprintf("%s: %s → %s", p->extra[k].name,
				    value(c, &sp, p->extra[k].a_text), value(c, &sp, p->extra[k].b_text)));
		br_pdf_bullets(c->d, items, n);
		free(items);
		pool_free(&sp);
	}
	if (p->arrivals_set_throughput && !p->same_files && !c->in->same_path)   /* another draw, or another rate */
		para(c, p->diffs[BR_SET_REQUEST_RATE].state == BR_DIFF_DIFFERS ? "verdict.arrivals_rate_changed" :
		    "verdict.arrivals", po);
	/* verdicts 3 and 4 name the unknown settings in their own sentence, 1 and 2
	 * (where only GPU, driver and CUDA can be unknown) in verdict.hw_unchecked */
	if ((p->verdict == 0 || p->verdict == 5) && json_array_size(json_object_get(po, "unknown_settings")) > 0)
		note(c, "verdict.unknown", po);
	if (p->verdict == 5) {
		/* the diagnosis of each side, then what only one engine exposes */
		static const char *const keys[2][2] = {
			{ "verdict.diagnosis_capacity_a", "verdict.diagnosis_decode_a" },
			{ "verdict.diagnosis_capacity_b", "verdict.diagnosis_decode_b" } };
		for (int side = 0; side < 2; side++) {
			const char *d = side ? p->diagnosis_b : p->diagnosis_a;
			if (d != NULL)
				para(c, keys[side][strcmp(d, "decode") == 0], po);
		}
		if (!p->same_workload)
			para(c, "verdict.diagnosis_other_workload", po);
		else if (p->diagnosis_a == NULL && p->diagnosis_b == NULL)
			para(c, "verdict.diagnosis_none", po);
		if (json_is_string(json_object_get(po, "only_a_series_text")))
			para(c, "verdict.only_a_series", po);
		if (json_is_string(json_object_get(po, "only_b_series_text")))
			para(c, "verdict.only_b_series", po);
	}
}

/* elasticity_paragraph: the chain sentence. */
static void
elasticity_paragraph(ctx *c, const br_cmp_pair_result *p, const json_t *po)
{
	const br_cmp_elasticity *e = &p->elasticity;
	double oa = p->rows[BR_CMP_OVERSUBSCRIPTION].a, ob = p->rows[BR_CMP_OVERSUBSCRIPTION].b;
	if (!isfinite(e->resident_rel) || !isfinite(e->throughput_rel))
		note(c, "elasticity.missing", po);
	else if (p->same_files || c->in->same_files)
		para(c, "elasticity.copy", po);     /* one run saved twice: nothing moved */
	else if (c->in->same_path)
		para(c, "elasticity.self", po);     /* one folder given twice: not a repeat */
	else if (p->verdict == 2)
		/* one configuration twice: its changes are run-to-run variation,
		 * and a ratio of two noises is no elasticity */
		para(c, "elasticity.repeat", po);
	else if (p->different_engines)
		/* two servers: no change is any setting's, so no ratio either */
		para(c, "elasticity.engines", po);
	else if (p->arrivals_set_throughput)
		/* throughput followed the clients' arrivals: no ratio of it */
		para(c, "elasticity.arrivals", po);
	else if (e->available && e->pool_changed && isfinite(oa) && isfinite(ob) && oa <= 1 && ob <= 1)
		/* the demand fits both pools: the pool bound neither run */
		para(c, "elasticity.pool_not_binding", po);
	else if (e->available && e->pool_changed)
		para(c, isfinite(e->throughput_per_resident) ? "elasticity.chain" : "elasticity.chain_flat", po);
	else if (e->available)   /* "_flat": resident did not move, so no ratio per 1% of it */
		para(c, isfinite(e->throughput_per_resident) ? "elasticity.no_pool_change" :
		    "elasticity.no_pool_change_flat", po);
	else
		para(c, isfinite(e->throughput_per_resident) ? "elasticity.pool_unknown" :
		    "elasticity.pool_unknown_flat", po);
	if (p->verdict == 0 && isfinite(e->resident_rel))
		note(c, p->pool_moved_alone && p->n_differ == 0 ? "elasticity.pool_alone" : "elasticity.not_controlled", po);
}

/*
 * preemptions_with_pool: when the KV pool moved by 10% or more between two
 * oversubscribed runs that both preempted, and the preemption count moved
 * by at most 15%, say what the round-2 reference concluded from its 37 → 38
 * preemptions beside a 38% larger pool: a preemption fires when the pool
 * is full, whatever its size; each releases about the victim's context
 * (the mean released tokens moved by less than half the pool's change);
 * with more requests resident they come closer together. Every number is
 * from the two runs' preemption analyses; nothing is said when a count is
 * a lower bound, the releases are unreadable or a number is missing.
 */
/* signed_pct: x (a fraction) as "+38.2%" / "−6.5%" (the Unicode minus, as tables print it). */
static void
signed_pct(double x, char *buf, size_t len)
{
	snprintf(buf, len, "%s%.1f%%", x < 0 ? "\xe2\x88\x92" : "+", fabs(100 * x));
}

static void
preemptions_with_pool(ctx *c, const br_cmp_pair_result *p)
{
	if (p->a == NULL || p->b == NULL)
		return;
	const br_preemptions *ea = &p->a->preemptions, *eb = &p->b->preemptions;
	double pool_chg = p->rows[BR_CMP_KV_POOL_TOKENS].rel_change;
	double oa = p->rows[BR_CMP_OVERSUBSCRIPTION].a, ob = p->rows[BR_CMP_OVERSUBSCRIPTION].b;
	if (!ea->count_available || !eb->count_available || ea->count_lower_bound || eb->count_lower_bound ||
	    !(ea->n_preemptions > 0) || !(eb->n_preemptions > 0) || !isfinite(pool_chg) || fabs(pool_chg) < 0.10 ||
	    !(oa > 1) || !(ob > 1))
		return;
	double dn = (eb->n_preemptions - ea->n_preemptions) / ea->n_preemptions;
	double ra = ea->mean_released_per_preemption_tokens, rb = eb->mean_released_per_preemption_tokens;
	double dr = isfinite(ra) && isfinite(rb) && ra > 0 ? (rb - ra) / ra : NAN;
	if (fabs(dn) > 0.15 || ea->released_unreadable || eb->released_unreadable || !isfinite(dr) ||
	    fabs(dr) >= fabs(pool_chg) / 2 || !isfinite(ea->trigger_kv_frac) || !isfinite(eb->trigger_kv_frac) ||
	    !isfinite(ea->mean_interval_s) || !isfinite(eb->mean_interval_s))
		return;
	char pool_t[32], dn_t[32], dr_t[32];
	signed_pct(pool_chg, pool_t, sizeof pool_t);
	signed_pct(dn, dn_t, sizeof dn_t);
	signed_pct(dr, dr_t, sizeof dr_t);
	json_t *o = json_pack("{s:f, s:f, s:s, s:s, s:f, s:f, s:f, s:f, s:s, s:f, s:f, s:f, s:f}",
	    "n_a", ea->n_preemptions, "n_b", eb->n_preemptions, "n_change_text", dn_t, "pool_change_text", pool_t,
	    "trigger_a_frac", ea->trigger_kv_frac, "trigger_b_frac", eb->trigger_kv_frac,
	    "released_a", ra, "released_b", rb, "released_change_text", dr_t,
	    "interval_a_s", ea->mean_interval_s, "interval_b_s", eb->mean_interval_s,
	    "running_a", p->rows[BR_CMP_RUNNING_MEAN].a, "running_b", p->rows[BR_CMP_RUNNING_MEAN].b);
	para(c, "preemption_pool.text", o);
	json_decref(o);
}

/*
 * pool_chain_reading: what the elasticity chain says when the pool bound
 * both runs (oversubscribed on each side), moved by 10% or more, resident
 * requests followed it nearly one for one (0.8 to 1.25% per 1%) and output
 * throughput followed resident requests less than one for one (below 0.8)
 * while ITL p50 rose by more than 2%: the round-2 reference's reading of
 * +38% pool → +40% resident → +21% throughput (each step serves more
 * requests and takes longer). Nothing is said otherwise, nor for a repeat,
 * a copy or two engines.
 */
static void
pool_chain_reading(ctx *c, const br_cmp_pair_result *p)
{
	const br_cmp_elasticity *e = &p->elasticity;
	double oa = p->rows[BR_CMP_OVERSUBSCRIPTION].a, ob = p->rows[BR_CMP_OVERSUBSCRIPTION].b;
	double ia = p->rows[BR_CMP_ITL_P50_MS].a, ib = p->rows[BR_CMP_ITL_P50_MS].b;
	double di = p->rows[BR_CMP_ITL_P50_MS].rel_change;
	if (p->same_files || c->in->same_files || p->verdict == 2 || p->different_engines || !e->available ||
	    !e->pool_changed || !(fabs(e->pool_rel) >= 0.10) || !(oa > 1) || !(ob > 1) ||
	    !(e->resident_per_pool >= 0.8 && e->resident_per_pool <= 1.25) || !(e->throughput_per_resident < 0.8) ||
	    !(di > 0.02) || !isfinite(ia) || !isfinite(ib))
		return;
	char itl_t[32];
	signed_pct(di, itl_t, sizeof itl_t);
	json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:s}", "resident_per_pool", e->resident_per_pool,
	    "throughput_per_resident", e->throughput_per_resident, "itl_a_ms", ia, "itl_b_ms", ib, "itl_change_text", itl_t);
	para(c, "elasticity.reading", o);
	json_decref(o);
}

/*
 * tokens_per_gap: output tokens an ITL gap carries on average in run a
 * (successful requests: (output tokens − completed) / ITL gaps; each
 * request's first token opens no gap). 1 without speculative decoding;
 * more with it. NAN without per-request arrays.
 */
static double
tokens_per_gap(const br_analysis *a)
{
	if (a == NULL || a->run == NULL || a->run->bench.n == 0 || !a->latency.from_arrays ||
	    a->latency.n_samples[BR_ITL] == 0)
		return NAN;
	const br_bench *b = &a->run->bench.runs[0];
	double t = b->total_output_tokens - b->completed;
	return br_isnum(t) && t > 0 ? t / (double)a->latency.n_samples[BR_ITL] : NAN;
}

/*
 * itl_units_note: when an ITL gap carries a different number of tokens on
 * the two sides (speculative decoding on one side, or another acceptance
 * length), the ITL rows compare decoding steps, not tokens: said, with the
 * per-token TPOT beside it (thirty-fifth audit: ITL p50 +102% read as a 2x
 * slowdown where TPOT fell 27%).
 */
static void
itl_units_note(ctx *c, const br_cmp_pair_result *p)
{
	double ta = tokens_per_gap(p->a), tb = tokens_per_gap(p->b);
	if (!(isfinite(ta) && isfinite(tb)) || fabs(ta / tb - 1) <= 0.1)
		return;
	const br_cmp_row *tp = &p->rows[BR_CMP_TPOT_P50_MS];
	json_t *o = json_pack("{s:f, s:f}", "a_tokens_per_gap", ta, "b_tokens_per_gap", tb);
	json_object_set_new(o, "a_tpot_p50_ms", isfinite(tp->a) ? json_real(tp->a) : json_null());
	json_object_set_new(o, "b_tpot_p50_ms", isfinite(tp->b) ? json_real(tp->b) : json_null());
	note(c, isfinite(tp->a) && isfinite(tp->b) ? "ab_table.itl_units" : "ab_table.itl_units_no_tpot", o);
	json_decref(o);
}

/* pair_detail: the A/B table, verdict, elasticities, full table, settings, figures. */

static void
pair_detail(ctx *c, const br_cmp_pair_result *p, const json_t *po)
{
	heading(c, 1, c->in->campaigns ? "sec.focus" : "sec.ab_table", po);
	para(c, "ab_table.intro", po);
	rows_table(c, p, 1);
	itl_units_note(c, p);
	elasticity_paragraph(c, p, po);
	pool_chain_reading(c, p);
	preemptions_with_pool(c, p);
	note(c, has_other_engine(p) ? "ab_table.note_engines" : "ab_table.note", po);
	heading(c, 2, "sec.settings", po);
	verdict_paragraphs(c, p, po);
	settings_table(c, p);
	note(c, has_other_engine(p) ? "settings.note_engines" : "settings.note", po);
	heading(c, 1, "sec.figures", po);
	if (c->n_figs == 0)
		note(c, "figures.none", po);
	figure(c, "figC1-compare-waveform");
	figure(c, "figC2-compare-latency-cdf");
	figure(c, "figC3-compare-ttft-split");
	heading(c, 1, "sec.all_numbers", po);
	para(c, "all_numbers.intro", po);
	rows_table(c, p, 0);
}

/* campaign_overview: one row per matched pair, then the unmatched runs. */
/* repeat_test_json: one Welch test as summary.json and the template see it. */
static json_t *
repeat_test_json(const br_cmp_repeat_test *t)
{
	const br_welch *w = &t->w;
	return json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:b, s:b}",
	    "configuration", t->config, "metric", br_repeat_metric_name[t->metric],
	    "n_a", (json_int_t)w->n_a, "n_b", (json_int_t)w->n_b, "mean_a", jnum(w->mean_a),
	    "mean_b", jnum(w->mean_b), "diff", jnum(w->diff), "ci95_lo", jnum(w->ci95_lo),
	    "ci95_hi", jnum(w->ci95_hi), "t", jnum(w->t), "df", jnum(w->df), "p_two_sided", jnum(w->p_two_sided),
	    "p_holm", jnum(t->p_holm), "n_tests", (json_int_t)t->n_tests,
	    "exceeds_noise", t->exceeds_noise, "no_spread", t->no_spread);
}

/*
 * repeat_tests_section: configurations repeated on both sides: the mean
 * difference per metric with Welch's interval and p-value, and in words
 * whether it exceeds run-to-run variation (p < 0.05).
 */
static void
repeat_tests_section(ctx *c)
{
	const br_compare_input *in = c->in;
	heading(c, 2, "sec.repeats", NULL);
	if (in->n_repeats_copied > 0)
		para(c, in->n_repeats_copied == 1 ? "repeats.copied_one" : "repeats.copied", NULL);
	if (in->n_repeat_tests == 0) {
		if (in->n_repeats_copied == 0)
			para(c, "repeats.none", NULL);
		return;
	}
	para(c, "repeats.intro", NULL);
	pool sp = { 0 };
	const char **items = br_xcalloc(in->n_repeat_tests, sizeof *items);
	for (size_t i = 0; i < in->n_repeat_tests; i++) {
		json_t *o = repeat_test_json(&in->repeat_tests[i]);
		json_object_set_new(o, "metric_label", json_string(label(c, "repeats.metric_names",
		    br_repeat_metric_name[in->repeat_tests[i].metric])));
		items[i] = fill(c, &sp, !in->repeat_tests[i].w.ok || in->repeat_tests[i].no_spread ?
		    "repeats.line_untestable" :
		    in->repeat_tests[i].exceeds_noise ? "repeats.line_exceeds" : "repeats.line_noise", o);
		json_decref(o);
	}
	br_pdf_bullets(c->d, items, in->n_repeat_tests);
	free(items);
	pool_free(&sp);
}

static void
campaign_overview(ctx *c)
{
	const br_compare_input *in = c->in;
	pool sp = { 0 };
	heading(c, 1, "sec.pairs", NULL);
	para(c, "pairs.intro", NULL);
	enum { NC = 6 };
	static const char *const ck[NC] = { "pairs.col_run", "pairs.col_out_tps", "pairs.col_ttft",
		"pairs.col_preempt", "pairs.col_running", "pairs.col_verdict" };
	const char *hdr[NC];
	for (int i = 0; i < NC; i++)
		hdr[i] = fill(c, &sp, ck[i], NULL);
	const char **cells = br_xcalloc(in->n_pairs * NC + 1, sizeof *cells);
	int *hl = br_xcalloc(in->n_pairs + 1, sizeof *hl);
	static const int mets[4] = { BR_CMP_OUTPUT_TPS, BR_CMP_TTFT_P50_S, BR_CMP_PREEMPTIONS, BR_CMP_RUNNING_MEAN };
	for (size_t i = 0; i < in->n_pairs; i++) {
		const br_cmp_pair_result *p = &in->pairs[i];
		const char **row = &cells[i * NC];
		/* paired by configuration name, the two runs have their own names */
		row[0] = p->name_b != NULL && p->name_a != NULL && strcmp(p->name_a, p->name_b) != 0 ?
		    keep(&sp, br_xasprintf("%s → %s", p->name_a, p->name_b)) : p->name_a;
		for (int k = 0; k < 4; k++) {
			const br_cmp_row *r = &p->rows[mets[k]];
			char *x = fmt_value(mets[k], r->a, 0), *y = fmt_value(mets[k], r->b, 0), *z = fmt_rel(r->rel_change);
			row[1 + k] = keep(&sp, br_xasprintf("%s → %s (%s)", x, y, z));
			free(x);
			free(y);
			free(z);
		}
		const json_t *po = json_array_get(json_object_get(c->s, "pairs"), i);
		int hw = p->n_unchecked_hw > 0;
		/* one folder compared with itself: each pair is one run twice, not a
		 * repeat (twenty-fourth breaker: "same settings" in every row) */
		row[5] = fill(c, &sp, in->same_path ? "pairs.verdict_same_folder" : p->same_files ? "pairs.verdict_copy" :
		    p->verdict == 1 ? (hw ? "pairs.verdict_controlled_hw" : "pairs.verdict_controlled") :
		    p->verdict == 2 ? (hw ? "pairs.verdict_same_hw" : "pairs.verdict_same") : p->verdict == 3 || p->verdict == 4 ? "pairs.verdict_unknown" :
		    p->verdict == 5 ? "pairs.verdict_engines" :
		    p->pool_moved_alone && p->n_differ == 0 ? "pairs.verdict_pool_alone" : "pairs.verdict_not", po);
		hl[i] = i == in->focus_pair ? 1 : 0;
	}
	static const double w[NC] = { 1.9, 2.0, 2.0, 1.6, 1.7, 2.2 };
	static const enum br_align al[NC] = { BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT, BR_ALIGN_RIGHT,
		BR_ALIGN_RIGHT, BR_ALIGN_LEFT };
	br_pdf_table t = { .n_cols = NC, .n_rows = in->n_pairs, .header = hdr, .cells = cells, .col_weight = w,
		.align = al, .row_highlight = hl, .font_size_small = 1 };
	br_pdf_table(c->d, &t);
	note(c, "pairs.note", NULL);
	free(cells);
	free(hl);
	repeat_tests_section(c);
	heading(c, 2, "sec.unmatched", NULL);
	if (in->n_only_a == 0 && in->n_only_b == 0)
		para(c, "unmatched.none", NULL);
	if (in->n_only_a > 0)
		para(c, "unmatched.only_a", NULL);
	if (in->n_only_b > 0)
		para(c, "unmatched.only_b", NULL);
	pool_free(&sp);
}

/*
 * focus_test: the Welch test of the focus pair's configuration (its run
 * name's stem, br_run_name_stem) for card metric m (output tok/s, TTFT p50,
 * preemptions),
 * when testable (w.ok, spread); else NULL.
 */
static const br_cmp_repeat_test *
focus_test(const br_compare_input *in, const br_cmp_pair_result *p, int m)
{
	int rm = m == BR_CMP_OUTPUT_TPS ? BR_REPEAT_OUT_TPS : m == BR_CMP_TTFT_P50_S ? BR_REPEAT_TTFT_P50 :
	    m == BR_CMP_PREEMPTIONS ? BR_REPEAT_PREEMPTIONS : -1;
	if (rm < 0 || p->name_a == NULL)
		return NULL;
	char *stem = br_run_name_stem(p->name_a);
	const br_cmp_repeat_test *found = NULL;
	for (size_t i = 0; i < in->n_repeat_tests && found == NULL; i++) {
		const br_cmp_repeat_test *t = &in->repeat_tests[i];
		if (t->metric == rm && t->w.ok && !t->no_spread && t->config && strcmp(t->config, stem) == 0)
			found = t;
	}
	free(stem);
	return found;
}

/* title_page: title, cards, at a glance. */
static void
title_page(ctx *c)
{
	const br_compare_input *in = c->in;
	pool sp = { 0 };
	const json_t *po = json_object_get(c->s, "focus");
	br_pdf_title(c->d, fill(c, &sp, "doc.title", NULL), fill(c, &sp, in->campaigns ? "doc.subtitle_campaigns"
	    : "doc.subtitle_runs", NULL));
	const char *labels[12], *values[12];   /* at most 9 cards below */
	size_t n = 0;
	labels[n] = fill(c, &sp, "cards.a", NULL);
	values[n++] = in->name_a;
	labels[n] = fill(c, &sp, "cards.b", NULL);
	values[n++] = in->name_b;
	if (in->n_pairs > 0) {
		const br_cmp_pair_result *p = &in->pairs[in->focus_pair];
		int hw = p->n_unchecked_hw > 0;
		/* a campaign's card speaks for the pair shown in detail; the count of
		 * controlled pairs stands on the pairs card */
		labels[n] = fill(c, &sp, in->campaigns ? "cards.verdict_focus" : "cards.verdict", po);
		values[n++] = fill(c, &sp, in->same_files || p->same_files ? "cards.verdict_self_copy" : in->same_path ? "cards.verdict_self" : p->verdict == 1 ? (hw ?
		    "cards.verdict_controlled_hw" : "cards.verdict_controlled")
		    : p->verdict == 2 ? (hw ? "cards.verdict_same_hw" : "cards.verdict_same") : p->verdict == 3 || p->verdict == 4 ? "cards.verdict_unknown" :
		    p->verdict == 5 ? "cards.verdict_engines" :
		    p->pool_moved_alone && p->n_differ == 0 ? "cards.verdict_pool_alone" : "cards.verdict_not", po);
		static const int cm[5] = { BR_CMP_KV_POOL_TOKENS, BR_CMP_OUTPUT_TPS, BR_CMP_TTFT_P50_S,
			BR_CMP_RUNNING_MEAN, BR_CMP_PREEMPTIONS };
		for (int k = 0; k < 5; k++) {
			const br_cmp_row *r = &p->rows[cm[k]];
			/* campaigns: a repeated configuration's card gives the means over
			 * its repeats and Welch's p, not one arbitrary pair (eighteenth
			 * breaker: +13.8% on the card beside p = 0.79) */
			const br_cmp_repeat_test *t = in->campaigns ? focus_test(in, p, cm[k]) : NULL;
			if (t != NULL) {
				double sc = cm[k] == BR_CMP_TTFT_P50_S ? 1e-3 : 1;   /* the test's ms to the row's s */
				double ma = t->w.mean_a * sc, mb = t->w.mean_b * sc;
				/* a mean count keeps its decimal (twenty-fourth breaker: "3 → 0"
				 * for a mean of 2.7) */
				int frac = cm[k] == BR_CMP_PREEMPTIONS && (ma != floor(ma) || mb != floor(mb));
				char *x = frac ? br_xasprintf("%.1f", ma) : fmt_value(cm[k], ma, 0);
				char *y = frac ? br_xasprintf("%.1f", mb) : fmt_value(cm[k], mb, 0);
				char *z = fmt_rel(t->w.mean_a != 0 ? t->w.mean_b / t->w.mean_a - 1 : NAN);
				json_t *o = json_pack("{s:s, s:I, s:I}", "metric", label(c, "rows", br_cmp_metrics[cm[k]].key),
				    "n_a", (json_int_t)t->w.n_a, "n_b", (json_int_t)t->w.n_b);
				labels[n] = fill(c, &sp, "cards.repeat_mean", o);
				json_decref(o);
				values[n++] = keep(&sp, br_xasprintf("%s → %s (%s; p = %.2f)", x, y, z, t->w.p_two_sided));
				free(x);
				free(y);
				free(z);
				continue;
			}
			char *x = fmt_value(cm[k], r->a, 0), *y = fmt_value(cm[k], r->b, 0), *z = fmt_rel(r->rel_change);
			if (in->campaigns) {   /* one pair's value beside the repeat means: named as such */
				json_t *o = json_pack("{s:s, s:s}", "metric", label(c, "rows", br_cmp_metrics[cm[k]].key),
				    "name_a", p->name_a ? p->name_a : "");
				labels[n] = fill(c, &sp, "cards.pair_value", o);
				json_decref(o);
			} else
				labels[n] = label(c, "rows", br_cmp_metrics[cm[k]].key);
			values[n++] = keep(&sp, br_xasprintf("%s → %s (%s)", x, y, z));
			free(x);
			free(y);
			free(z);
		}
	}
	if (in->campaigns) {
		labels[n] = fill(c, &sp, "cards.pairs", NULL);
		values[n++] = fill(c, &sp, "cards.pairs_value", NULL);
	}
	br_pdf_cards(c->d, labels, values, n);

	heading(c, 2, "glance.heading", NULL);
	if (in->same_path)
		para(c, in->campaigns ? "verdict.self_campaigns" : in->same_files == 3 ? "verdict.self_copy_resaved_stats" :
		    in->same_files == 2 ? "verdict.self_copy_resaved" :
		    in->same_files ? "verdict.self_copy" : "verdict.self", NULL);
	else if (in->campaigns && in->same_files)
		para(c, "verdict.self_copy_campaigns", NULL);
	if (in->campaigns) {
		para(c, "glance.campaigns", NULL);
		/* the headline over repeats is the mean difference, not one pair */
		for (size_t i = 0; i < in->n_repeat_tests; i++) {
			const br_cmp_repeat_test *t = &in->repeat_tests[i];
			if (t->metric != BR_REPEAT_OUT_TPS)
				continue;
			json_t *o = repeat_test_json(t);
			para(c, !t->w.ok || t->no_spread ? "glance.repeats_untestable" :
			    t->exceeds_noise ? "glance.repeats_exceeds" : "glance.repeats_noise", o);
			json_decref(o);
		}
		if (in->n_repeats_copied > 0 && !in->same_files)
			para(c, in->n_repeats_copied == 1 ? "repeats.copied_one" : "repeats.copied", NULL);
		if (in->n_only_a > 0)
			para(c, "glance.unmatched_a", NULL);
		if (in->n_only_b > 0)
			para(c, "glance.unmatched_b", NULL);
	}
	if (in->n_pairs == 0) {
		para(c, "glance.no_pairs", NULL);
		pool_free(&sp);
		return;
	}
	const br_cmp_pair_result *p = &in->pairs[in->focus_pair];
	if (in->campaigns)
		para(c, in->focus_controlled ? "glance.focus_controlled" : "glance.focus", po);
	para(c, "glance.headline", po);
	/* a run folder holding several results (a sweep's summary.json, appended
	 * results): the pair is their last ones, not the repeats as a whole */
	for (int side = 0; side < 2 && !in->campaigns; side++) {
		const br_analysis *an = side ? p->b : p->a;
		if (an == NULL || an->run == NULL || an->run->bench.n < 2)
			continue;
		json_t *o = json_pack("{s:s, s:s, s:I, s:I}", "side", side ? "B" : "A",
		    "name", side ? p->name_b : p->name_a, "n_results", (json_int_t)an->run->bench.n,
		    "line", (json_int_t)an->run->bench.runs[0].source_line);
		para(c, "glance.several_results", o);
		json_decref(o);
	}
	elasticity_paragraph(c, p, po);
	if (!in->same_path)
		verdict_paragraphs(c, p, po);
	pool_free(&sp);
}

/* appendix: definitions and the input files of A and B. */
static void
appendix(ctx *c)
{
	pool sp = { 0 };
	heading(c, 1, "appendix.heading", NULL);
	heading(c, 2, "appendix.formulas_heading", NULL);
	const char *items[16];
	size_t n = 0;
	for (int i = 1; i < 16; i++) {
		char key[64];
		snprintf(key, sizeof key, "appendix.formulas.%d", i);
		if (br_template_get(c->t, key) == NULL)
			break;
		items[n++] = fill(c, &sp, key, NULL);
	}
	br_pdf_bullets(c->d, items, n);
	heading(c, 2, "appendix.files_heading", NULL);
	note(c, "appendix.generated", NULL);   /* above the table: never alone on a last page */
	size_t nf = 0;
	for (size_t i = 0; i < c->in->n_inputs_runs; i++)
		nf += c->in->inputs_runs[i]->n_inputs;
	const char *hdr[4] = { fill(c, &sp, "appendix.col_file", NULL), fill(c, &sp, "appendix.col_role", NULL),
		fill(c, &sp, "appendix.col_size", NULL), fill(c, &sp, "appendix.col_sha", NULL) };
	const char **cells = br_xcalloc(nf * 4 + 1, sizeof *cells);
	size_t k = 0;
	for (size_t i = 0; i < c->in->n_inputs_runs; i++) {
		const br_run *r = c->in->inputs_runs[i];
		for (size_t j = 0; j < r->n_inputs; j++, k++) {
			cells[k * 4 + 0] = r->inputs[j].path;
			cells[k * 4 + 1] = r->inputs[j].role;
			char num[32];
			snprintf(num, sizeof num, "%lld", r->inputs[j].size_bytes);
			cells[k * 4 + 2] = keep(&sp, group(num));
			cells[k * 4 + 3] = r->inputs[j].sha256;
		}
	}
	static const double w[4] = { 3.2, 1.3, 1.0, 4.4 };
	static const enum br_align al[4] = { BR_ALIGN_LEFT, BR_ALIGN_LEFT, BR_ALIGN_RIGHT, BR_ALIGN_LEFT };
	br_pdf_table t = { .n_cols = 4, .n_rows = k, .header = hdr, .cells = cells, .col_weight = w, .align = al,
		.font_size_small = 1 };
	br_pdf_table(c->d, &t);
	free(cells);
	pool_free(&sp);
}

/* write_pdf: compose the compare report. */
static int
write_pdf(const br_compare_input *in, const json_t *summary, const br_figure *figs, size_t n_figs,
    const br_template *t, const char *path, char **cause)
{
	char *title = br_template_fill(t, "doc.title", summary);
	char *subject = br_template_fill(t, "doc.subject", summary);
	char *keywords = br_template_fill(t, "doc.keywords", summary);
	br_pdf_info info = { .title = title, .subject = subject, .author = "benchreport 0.1.0", .keywords = keywords,
		.page_footer = br_template_get(t, "doc.page_footer"), .phrases = t };
	ctx c = { .t = t, .s = summary, .in = in, .figs = figs, .n_figs = n_figs };
	c.d = br_pdf_new(&info, cause);
	int rc = -1;
	if (c.d == NULL)
		goto out;
	title_page(&c);
	if (in->campaigns)
		campaign_overview(&c);
	if (in->n_pairs > 0) {
		const json_t *po = json_object_get(summary, "focus");
		pair_detail(&c, &in->pairs[in->focus_pair], po);
	}
	appendix(&c);
	if (c.err != NULL) {
		*cause = c.err;
		c.err = NULL;
	} else {
		rc = br_pdf_save(c.d, path, cause);
	}
out:
	br_pdf_free(c.d);
	free(title);
	free(subject);
	free(keywords);
	return rc;
}

/* ------------------------------------------------------------ writing */

/*
 * add_labels: per pair, the differences and unknown settings named with the
 * template's labels ("KV pool (tokens) 86864 → 120064") and the label of
 * the one differing setting, for the sentences of the PDF (english: with
 * the English labels, for summary.json, which does not depend on --lang).
 */
static void
add_labels(json_t *summary, const br_compare_input *in, const br_template *t, int english)
{
	const char *sep = english ? NULL : br_template_get(t, "settings.list_sep");
	if (sep == NULL)
		sep = ", ";
	json_t *pairs = json_object_get(summary, "pairs");
	for (size_t i = 0; i < in->n_pairs; i++) {
		const br_cmp_pair_result *p = &in->pairs[i];
		json_t *po = json_array_get(pairs, i);
		GString *dt = g_string_new(NULL), *ut = g_string_new(NULL), *ht = g_string_new(NULL);
		const char *one = NULL;
		for (int s = 0; s < BR_SET_N; s++) {
			char k[96];
			snprintf(k, sizeof k, "settings.names.%s", setting_name_key(p, s));
			const char *lab = english ? br_template_english(t, k) : br_template_get(t, k);
			if (lab == NULL)
				lab = br_cmp_setting_key[s];
			if (p->diffs[s].state == BR_DIFF_DIFFERS && s == BR_SET_KV_POOL) {
				continue;   /* an outcome, not a setting */
			} else if (p->diffs[s].state == BR_DIFF_DIFFERS) {
				char *ta = english ? NULL : br_template_phrase(t, p->diffs[s].a_text);
				char *tb = english ? NULL : br_template_phrase(t, p->diffs[s].b_text);
				g_string_append_printf(dt, "%s%s %s → %s", dt->len ? "; " : "", lab, ta ? ta : p->diffs[s].a_text,
				    tb ? tb : p->diffs[s].b_text);
				free(ta);
				free(tb);
				one = lab;
			} else if (p->diffs[s].state == BR_DIFF_UNKNOWN) {
				g_string_append_printf(ut, "%s%s", ut->len ? sep : "", lab);
				if (br_cmp_rarely_stated(br_cmp_setting_key[s]))
					g_string_append_printf(ht, "%s%s", ht->len ? sep : "", lab);
			}
		}
		for (size_t k = 0; k < p->n_extra; k++) {
			const br_cmp_extra *x = &p->extra[k];
			if (x->state == BR_DIFF_DIFFERS) {
				char *ta = english ? NULL : br_template_phrase(t, x->a_text);
				char *tb = english ? NULL : br_template_phrase(t, x->b_text);
				g_string_append_printf(dt, "%s%s %s → %s", dt->len ? "; " : "", x->name, ta ? ta : x->a_text,
				    tb ? tb : x->b_text);
				free(ta);
				free(tb);
				one = x->name;
			} else if (x->state == BR_DIFF_UNKNOWN) {
				char *tn = english ? NULL : br_template_phrase(t, x->name);
				g_string_append_printf(ut, "%s%s", ut->len ? sep : "", tn ? tn : x->name);
				if (br_cmp_rarely_stated(x->name))
					g_string_append_printf(ht, "%s%s", ht->len ? sep : "", tn ? tn : x->name);
				free(tn);
			}
		}
		json_object_set_new(po, "differences_label_text", json_string(dt->str));
		json_object_set_new(po, "unknown_label_text", json_string(ut->str));
		json_object_set_new(po, "unchecked_hw_label_text", ht->len ? json_string(ht->str) : json_null());
		json_object_set_new(po, "differing_setting_label", p->n_differ == 1 && one ? json_string(one) : json_null());
		g_string_free(dt, TRUE);
		g_string_free(ut, TRUE);
		g_string_free(ht, TRUE);
	}
}

/* br_compare_write_report: see compare.h. */
int
br_compare_write_report(const br_compare_input *in, br_outdir *out,
    const char *template_path, json_t **summary_out, char **cause)
{
	int rc = -1;
	br_figure *figs = NULL;
	size_t n_figs = 0;
	json_t *summary = NULL, *view = NULL;
	char *fig_dir = NULL, *sum_path = NULL, *pdf_path = NULL;
	if (summary_out)
		*summary_out = NULL;
	br_template *t = br_template_load(template_path, cause);
	if (t == NULL)
		goto out;
	if (br_outdir_stage(out, cause) != 0)
		goto out;
	fig_dir = br_path_join(br_outdir_staging(out), "figures");
	sum_path = br_path_join(br_outdir_staging(out), "summary.json");
	pdf_path = br_path_join(br_outdir_staging(out), "report.pdf");
	if (br_mkdir_p(fig_dir, cause) != 0)
		goto out;
	if (in->n_pairs > 0) {
		const br_cmp_pair_result *p = &in->pairs[in->focus_pair];
		if (br_fig_compare(p->a, p->b, t, p->name_a, p->name_b, fig_dir, &figs, &n_figs, cause) != 0)
			goto fail;
	}
	summary = br_compare_summary(in, figs, n_figs);
	view = json_deep_copy(summary);   /* the PDF's: labels in the report's language */
	if (json_is_object(json_object_get(summary, "focus")))   /* one object, as in summary */
		json_object_set(view, "focus", json_array_get(json_object_get(view, "pairs"), in->focus_pair));
	add_labels(view, in, t, 0);
	add_labels(summary, in, t, 1);
	br_summary_english_titles(json_object_get(summary, "figures"), t);
	if (br_summary_write(summary, sum_path, cause) != 0)
		goto fail;
	if (write_pdf(in, view, figs, n_figs, t, pdf_path, cause) != 0)
		goto fail;
	if ((rc = br_render_wait(cause)) != 0 || (rc = br_outdir_commit(out, cause)) != 0)
		goto out;
	rc = 0;
	if (summary_out) {
		*summary_out = summary;
		summary = NULL;
	}
	goto out;
fail:
	rc = -1;
out:
	json_decref(summary);
	json_decref(view);
	br_figures_free(figs, n_figs);
	br_template_free(t);
	free(fig_dir);
	free(sum_path);
	free(pdf_path);
	return rc;
}
