/*
 * The knee report: summary.json and report.pdf of `benchreport knee`
 * (DESIGN.md §2, §3.11), written through a staging folder swapped into
 * place. Wording from templates/knee.LANG.json. See knee.h.
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
#include "benchreport/knee.h"
#include "benchreport/report.h"

/* jnum: a number, null when absent, "inf" for +infinity. */
static json_t *
jnum(double v)
{
	if (isinf(v) && v > 0)
		return json_string("inf");
	return isfinite(v) ? json_real(v) : json_null();
}

/* x_label: "4", "0.5", "inf". */
static char *
x_label(double x)
{
	if (isinf(x))
		return br_xstrdup("inf");
	if (isnan(x))
		return br_xstrdup("n/a");
	return br_xasprintf("%.4g", x);
}

/* source_text: "runs/r4/stress.json:1". */
static char *
source_text(const br_knee_point *p)
{
	return br_xasprintf("%s:%d", p->source_path ? p->source_path : "?", p->source_line > 0 ? p->source_line : 1);
}

/* goodput_method: what goodput a point has. */
static const char *
goodput_method(const br_knee_point *p)
{
	switch (p->slo_source) {
	case BR_KNEE_FROM_ARRAYS:
		return "per-request arrays";
	case BR_KNEE_FROM_FILE_PCT:
		return "approximation from the file's percentiles";
	default:
		return "unknown (a needed percentile is absent)";
	}
}

/* slo_verdict: the SLO status of a point as the table words it. */
static const char *
slo_verdict(const br_knee_point *p)
{
	if (p->verdict_withheld)
		return "no steady state";
	if (!p->slo_evaluable)
		return "not evaluable";
	return p->meets_slo ? "met" : "missed";
}

/* point_json: one run of a curve. */
static json_t *
point_json(const br_knee_point *p, const br_slo *slo, int kind)
{
	json_t *o = json_object();
	char *xl = x_label(p->x), *src = source_text(p);
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "source", json_string(src));
	json_object_set_new(o, "x", jnum(p->x));
	json_object_set_new(o, "x_label", json_string(xl));
	json_object_set_new(o, "offered_rps", kind == BR_KNEE_RATE ? jnum(p->offered_rps) : json_null());
	json_object_set_new(o, "max_concurrency", jnum(p->concurrency));
	json_object_set_new(o, "run_number", jnum(p->run_number));
	json_object_set_new(o, "num_prompts", jnum(p->num_prompts));
	json_object_set_new(o, "completed", jnum(p->completed));
	json_object_set_new(o, "failed", jnum(p->failed));
	json_object_set_new(o, "duration_s", jnum(p->duration_s));
	json_object_set_new(o, "achieved_rps", jnum(p->achieved_rps));
	json_object_set_new(o, "achieved_over_offered_frac",
	    kind == BR_KNEE_RATE && isfinite(p->offered_rps) && p->offered_rps > 0
	        ? jnum(p->achieved_rps / p->offered_rps) : json_null());
	json_object_set_new(o, "cannot_keep_up", json_boolean(p->cannot_keep_up));
	json_object_set_new(o, "output_tps", jnum(p->output_tps));
	json_object_set_new(o, "total_tps", jnum(p->total_tps));
	json_object_set_new(o, "mean_input_tokens", jnum(p->mean_input_tokens));
	json_object_set_new(o, "mean_output_tokens", jnum(p->mean_output_tokens));
	json_object_set_new(o, "ttft_p50_ms", jnum(p->ttft_p50_ms));
	json_object_set_new(o, "ttft_p99_ms", jnum(p->ttft_p99_ms));
	json_object_set_new(o, "tpot_p50_ms", jnum(p->tpot_p50_ms));
	json_object_set_new(o, "tpot_p99_ms", jnum(p->tpot_p99_ms));
	json_object_set_new(o, "e2el_p50_ms", jnum(p->e2el_p50_ms));
	json_object_set_new(o, "e2el_p99_ms", jnum(p->e2el_p99_ms));
	json_object_set_new(o, "latency_source", json_string(p->latency_from_arrays ? "per-request arrays" : "file percentiles"));
	json_t *terms = json_array();
	for (size_t k = 0; k < slo->n; k++) {
		json_t *t = json_object();
		json_object_set_new(t, "term", json_string(slo->terms[k].text));
		json_object_set_new(t, "value_ms", jnum(p->slo_value_ms[k]));
		json_object_set_new(t, "limit_ms", jnum(slo->terms[k].limit_ms));
		json_object_set_new(t, "ok", p->slo_term_ok[k] < 0 ? json_null() : json_boolean(p->slo_term_ok[k]));
		if (isfinite(p->slo_bound_ms[k])) {   /* decided from another stated percentile */
			json_object_set_new(t, "decided_by_pct", jnum(p->slo_bound_pct[k]));
			json_object_set_new(t, "decided_by_ms", jnum(p->slo_bound_ms[k]));
		}
		json_array_append_new(terms, t);
	}
	json_object_set_new(o, "slo_terms", terms);
	json_object_set_new(o, "meets_slo", json_boolean(p->meets_slo));
	json_object_set_new(o, "slo_evaluable", json_boolean(p->slo_evaluable));
	json_object_set_new(o, "failed_too_many", json_boolean(p->failed_too_many));
	json_object_set_new(o, "drain_tail", json_boolean(p->drain_tail));
	json_object_set_new(o, "keep_up_unknown", json_boolean(p->keep_up_unknown));
	json_object_set_new(o, "keep_up_short", json_boolean(p->keep_up_short));
	json_object_set_new(o, "drain_excess_s", jnum(p->drain_excess_s));
	json_object_set_new(o, "sent_rps", jnum(p->sent_rps));
	json_object_set_new(o, "ttft_growth", jnum(p->ttft_growth));
	json_object_set_new(o, "goodput_rps", jnum(p->goodput_rps));
	json_object_set_new(o, "goodput_exact", json_boolean(p->goodput_exact));
	json_object_set_new(o, "goodput_lo_rps", jnum(p->goodput_lo_rps));
	json_object_set_new(o, "goodput_hi_rps", jnum(p->goodput_hi_rps));
	json_object_set_new(o, "goodput_method", json_string(goodput_method(p)));
	json_object_set_new(o, "good_requests", jnum(p->good_requests));
	json_object_set_new(o, "waiting_share_frac", jnum(p->waiting_share_frac));
	json_object_set_new(o, "metrics_samples", p->n_metric_samples ? json_integer((json_int_t)p->n_metric_samples) : json_null());
	/* Little's law and steady state */
	json_object_set_new(o, "e2el_mean_ms", jnum(p->e2el_mean_ms));
	json_object_set_new(o, "L_requests", jnum(p->littles_l_requests));
	json_object_set_new(o, "in_system_mean_requests", jnum(p->in_system_mean_requests));
	json_object_set_new(o, "arrival_window_s", jnum(p->arrival_window_s));
	json_object_set_new(o, "steady_state", p->cannot_keep_up ? json_false() :
	    p->steady_state < 0 ? json_null() : json_boolean(p->steady_state));
	json_object_set_new(o, "verdict_withheld", json_boolean(p->verdict_withheld));
	json_object_set_new(o, "slo_verdict", json_string(slo_verdict(p)));
	free(xl);
	free(src);
	return o;
}

/* ratio: a / b, NAN unless both are finite and b > 0. */
static double
ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

/* little_point_json: one run's Little's-law reading (units in the names). */
static json_t *
little_point_json(const br_knee_point *p)
{
	json_t *o = json_object();
	char *xl = x_label(p->x);
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "x_label", json_string(xl));
	json_object_set_new(o, "offered_rps", jnum(p->offered_rps));
	json_object_set_new(o, "lambda_achieved_rps", jnum(p->achieved_rps));
	json_object_set_new(o, "W_e2el_mean_s", jnum(p->e2el_mean_ms / 1000.0));
	json_object_set_new(o, "L_requests", jnum(p->littles_l_requests));
	json_object_set_new(o, "measured_in_system_mean_requests", jnum(p->in_system_mean_requests));
	json_object_set_new(o, "measured_samples", p->in_system_samples ? json_integer((json_int_t)p->in_system_samples) : json_null());
	json_object_set_new(o, "L_over_measured_ratio", jnum(ratio(p->littles_l_requests, p->in_system_mean_requests)));
	json_object_set_new(o, "max_concurrency", jnum(p->concurrency));
	json_object_set_new(o, "L_over_concurrency_ratio", jnum(ratio(p->littles_l_requests, p->concurrency)));
	json_object_set_new(o, "arrival_window_s", jnum(p->arrival_window_s));
	json_object_set_new(o, "arrival_window_over_e2el_ratio", jnum(ratio(p->arrival_window_s, p->e2el_mean_ms / 1000.0)));
	json_object_set_new(o, "steady_state", p->cannot_keep_up ? json_false() :
	    p->steady_state < 0 ? json_null() : json_boolean(p->steady_state));
	json_object_set_new(o, "verdict_withheld", json_boolean(p->verdict_withheld));
	free(xl);
	return o;
}

/* x_list: the x labels of G's points with pred(p) true, distinct, joined by ", " ("" when none). */
static char *
x_list(const br_knee_group *G, int (*pred)(const br_knee_point *))
{
	char *s = br_xstrdup("");
	for (size_t i = 0; i < G->n; i++) {
		if (!pred(&G->pts[i]))
			continue;
		int seen = 0;
		for (size_t j = 0; j < i; j++)
			seen |= G->pts[j].x == G->pts[i].x && pred(&G->pts[j]);
		if (seen)
			continue;
		char *xl = x_label(G->pts[i].x);
		char *n = br_xasprintf("%s%s%s", s, s[0] ? ", " : "", xl);
		free(xl);
		free(s);
		s = n;
	}
	return s;
}

static int pred_withheld(const br_knee_point *p) { return p->verdict_withheld; }
static int pred_short_miss(const br_knee_point *p)
{
	return p->steady_state == 0 && !p->verdict_withheld && p->slo_evaluable && !p->meets_slo;
}
/* short, latencies within the SLO, but the server fell behind: no SLO miss */
static int pred_short_behind(const br_knee_point *p)
{
	return p->steady_state == 0 && !p->verdict_withheld && p->slo_evaluable && p->meets_slo && p->cannot_keep_up;
}
static int pred_short_other(const br_knee_point *p) { return p->steady_state == 0 && !p->slo_evaluable; }
static int pred_short(const br_knee_point *p) { return p->steady_state == 0; }

/*
 * littles_json: the curve's Little's-law object: μ from the plateau, the
 * λ = μ knee beside the SLO knee and first failing rate, their relation,
 * the measured-L comparison range, the steady-state threshold and every
 * point's reading.
 */
static json_t *
littles_json(const br_knee_group *G)
{
	json_t *o = json_object();
	int rate = G->kind == BR_KNEE_RATE;
	json_object_set_new(o, "formula", json_string("L = lambda * W"));
	json_object_set_new(o, "source", json_string("Little 1961; knee tutorial 3.3"));
	json_object_set_new(o, "mu_rps", jnum(G->mu_rps));
	json_object_set_new(o, "mu_plateau_levels", json_integer((json_int_t)G->mu_n_levels));
	json_object_set_new(o, "mu_plateau_band_frac", json_real(BR_KNEE_PLATEAU_FRAC));
	json_object_set_new(o, "mu_spread_frac", jnum(G->mu_spread_frac));
	if (G->mu_first_idx >= 0) {
		char *pl = br_xstrdup("");
		for (size_t i = (size_t)G->mu_first_idx; i < G->n; i++) {
			if (i > (size_t)G->mu_first_idx && G->pts[i].x == G->pts[i - 1].x)
				continue;
			char *xl = x_label(G->pts[i].x);
			char *n = br_xasprintf("%s%s%s", pl, pl[0] ? ", " : "", xl);
			free(xl);
			free(pl);
			pl = n;
		}
		json_object_set_new(o, "mu_plateau_x_labels", json_string(pl));
		free(pl);
	} else {
		json_object_set_new(o, "mu_plateau_x_labels", json_null());
	}
	json_object_set_new(o, "max_achieved_rps", jnum(G->max_achieved_rps));
	/* λ meets μ where offered = achieved = μ: the Little's-law knee */
	json_object_set_new(o, "knee_rate_rps", jnum(G->mu_rps));
	double kx = G->knee_idx >= 0 ? G->pts[G->knee_idx].x : NAN;
	double fx = G->first_fail_idx >= 0 ? G->pts[G->first_fail_idx].x : NAN;
	json_object_set_new(o, "slo_knee_rps", rate ? jnum(kx) : json_null());
	json_object_set_new(o, "first_failing_rps", rate ? jnum(fx) : json_null());
	/* λ is the achieved rate (the section's definition): the knee level's
	 * mean achieved rate over μ, not its offered rate */
	double ka = G->knee_idx >= 0 ? G->level_achieved_rps[G->knee_idx] : NAN;
	json_object_set_new(o, "slo_knee_achieved_rps", rate ? jnum(ka) : json_null());
	json_object_set_new(o, "slo_knee_over_mu_frac", rate ? jnum(ratio(ka, G->mu_rps)) : json_null());
	const char *rel = "unknown";
	if (rate && isfinite(G->mu_rps) && G->knee_idx >= 0) {
		if (kx > (1 + BR_KNEE_PLATEAU_FRAC) * G->mu_rps)
			rel = "slo_knee_above_mu";
		else if (G->first_fail_idx < 0)
			rel = "no_failure";
		else if (fx <= G->mu_rps)
			rel = "slo_binds_before_mu";
		else if (kx > G->mu_rps)   /* above μ, within the plateau's margin: not "below μ" (audit) */
			rel = "knee_at_mu";
		else
			rel = "between";
	}
	json_object_set_new(o, "relation", json_string(rel));
	/* L against the measured mean running + waiting */
	double lo = NAN, hi = NAN;
	size_t nm = 0, nl = 0;
	for (size_t i = 0; i < G->n; i++) {
		const br_knee_point *p = &G->pts[i];
		nl += isfinite(p->littles_l_requests);
		double r = ratio(p->littles_l_requests, p->in_system_mean_requests);
		if (!isfinite(r))
			continue;
		nm++;
		lo = !(r >= lo) ? r : lo;
		hi = !(r <= hi) ? r : hi;
	}
	json_object_set_new(o, "n_points", json_integer((json_int_t)G->n));
	json_object_set_new(o, "n_with_L", json_integer((json_int_t)nl));
	json_object_set_new(o, "n_measured", json_integer((json_int_t)nm));
	json_object_set_new(o, "L_over_measured_min_ratio", jnum(lo));
	json_object_set_new(o, "L_over_measured_max_ratio", jnum(hi));
	/* the client's W against the server's count: (L − measured) / λ is the
	 * time per request spent outside the server's running and waiting
	 * states (HTTP, tokenisation, detokenisation: the frontend), s */
	double olo = NAN, ohi = NAN;
	for (size_t i = 0; i < G->n; i++) {
		const br_knee_point *p = &G->pts[i];
		if (!isfinite(ratio(p->littles_l_requests, p->in_system_mean_requests)) || !(p->achieved_rps > 0))
			continue;
		double out_s = (p->littles_l_requests - p->in_system_mean_requests) / p->achieved_rps;
		olo = !(out_s >= olo) ? out_s : olo;
		ohi = !(out_s <= ohi) ? out_s : ohi;
	}
	json_object_set_new(o, "outside_server_min_s", jnum(olo));
	json_object_set_new(o, "outside_server_max_s", jnum(ohi));
	/* closed loop: L against the client's cap C */
	double clo = NAN, chi = NAN;
	for (size_t i = 0; i < G->n; i++) {
		double r = ratio(G->pts[i].littles_l_requests, G->pts[i].concurrency);
		if (!isfinite(r))
			continue;
		clo = !(r >= clo) ? r : clo;
		chi = !(r <= chi) ? r : chi;
	}
	json_object_set_new(o, "L_over_concurrency_min_ratio", jnum(clo));
	json_object_set_new(o, "L_over_concurrency_max_ratio", jnum(chi));
	/* steady state */
	json_object_set_new(o, "steady_state_min_windows", json_real(BR_KNEE_STEADY_WINDOWS));
	json_object_set_new(o, "n_withheld", json_integer((json_int_t)G->n_withheld));
	char *w = x_list(G, pred_withheld), *sm = x_list(G, pred_short_miss), *sh = x_list(G, pred_short);
	char *so = x_list(G, pred_short_other), *sb = x_list(G, pred_short_behind);
	json_object_set_new(o, "short_not_evaluable_x_labels", json_string(so));
	json_object_set_new(o, "short_behind_x_labels", json_string(sb));
	free(so);
	free(sb);
	json_object_set_new(o, "withheld_x_labels", json_string(w));
	json_object_set_new(o, "short_miss_x_labels", json_string(sm));
	json_object_set_new(o, "short_x_labels", json_string(sh));
	free(w);
	free(sm);
	free(sh);
	json_t *pts = json_array();
	for (size_t i = 0; i < G->n; i++)
		json_array_append_new(pts, little_point_json(&G->pts[i]));
	json_object_set_new(o, "points", pts);
	return o;
}

/*
 * next_json: the next rates to run between the knee and the first failing
 * rate, with the command line of each (the sweep's other options stand as
 * "..."), or null when there are none.
 */
static json_t *
next_json(const br_knee_group *G, const char *model)
{
	if (G->kind != BR_KNEE_RATE || G->n_next_rates == 0)
		return json_null();
	json_t *o = json_object();
	const br_knee_point *k = &G->pts[G->knee_idx], *f = &G->pts[G->first_fail_idx];
	json_object_set_new(o, "from_rps", jnum(k->x));
	json_object_set_new(o, "to_rps", jnum(f->x));
	json_object_set_new(o, "step_ratio", jnum(pow(f->x / k->x, 1.0 / (BR_KNEE_NEXT_RATES + 1))));
	json_t *rates = json_array(), *np = json_array(), *cmds = json_array();
	char *list = br_xstrdup("");
	for (size_t i = 0; i < G->n_next_rates; i++) {
		double r = G->next_rates_rps[i], n = G->next_num_prompts[i];
		json_array_append_new(rates, jnum(r));
		json_array_append_new(np, jnum(n));
		char rb[32], nb[48] = "";
		snprintf(rb, sizeof rb, "%.3g", r);
		if (isfinite(n))
			snprintf(nb, sizeof nb, " --num-prompts %.0f", n);
		char *opts = br_xstrdup("");
		if (isfinite(k->concurrency) && !(isfinite(k->num_prompts) && k->concurrency >= k->num_prompts)) {
			char *t = br_xasprintf(" --max-concurrency %.0f", k->concurrency);
			free(opts);
			opts = t;
		}
		/* the client the sweep was run with: SGLang's bench_serving takes
		 * the same options under its own name */
		int sglang = G->backend != NULL && strncmp(G->backend, "sglang", 6) == 0;
		char *cmd = br_xasprintf("%s%s%s ...%s%s --request-rate %s",
		    sglang ? "python3 -m sglang.bench_serving --backend sglang" : "vllm bench serve",
		    model ? " --model " : "", model ? model : "", opts, nb, rb);
		json_array_append_new(cmds, json_string(cmd));
		free(cmd);
		free(opts);
		char *l2 = br_xasprintf("%s%s%s", list, list[0] ? ", " : "", rb);
		free(list);
		list = l2;
	}
	json_object_set_new(o, "rates_rps", rates);
	json_object_set_new(o, "rates_text", json_string(list));
	json_object_set_new(o, "num_prompts", np);
	json_object_set_new(o, "commands", cmds);
	free(list);
	return o;
}

/* queue_json: the queue signal of a curve: how many runs have it, and where it turns on. */
static json_t *
queue_json(const br_knee_group *G)
{
	json_t *o = json_object();
	json_object_set_new(o, "threshold_frac", json_real(BR_KNEE_QUEUE_FRAC));
	/* the waiting gauge by the engine the sweep ran against */
	int sglang = G->backend != NULL && strncmp(G->backend, "sglang", 6) == 0;
	json_object_set_new(o, "metric", json_string(sglang ? "sglang:num_queue_reqs" : "vllm:num_requests_waiting"));
	json_object_set_new(o, "n_known", json_integer((json_int_t)G->n_queue_known));
	json_object_set_new(o, "n_points", json_integer((json_int_t)G->n));
	json_object_set_new(o, "status", json_string(G->n_queue_known == 0 ? "unknown"
	    : G->n_queue_known < G->n ? "partial" : "known"));
	const long idx[2] = { G->queue_last_empty_idx, G->queue_first_idx };
	const char *key[2] = { "last_empty", "first_queue" };
	for (int k = 0; k < 2; k++) {
		if (idx[k] < 0) {
			json_object_set_new(o, key[k], json_null());
			continue;
		}
		const br_knee_point *p = &G->pts[idx[k]];
		json_t *q = json_object();
		char *xl = x_label(p->x);
		json_object_set_new(q, "x_label", json_string(xl));
		json_object_set_new(q, "x", jnum(p->x));
		json_object_set_new(q, "waiting_share_frac", jnum(p->waiting_share_frac));
		free(xl);
		json_object_set_new(o, key[k], q);
	}
	return o;
}

/* why_fail: the terms a point misses, e.g. "ttft_p99 6190.6 ms > 500 ms". */
static char *
why_fail(const br_knee_point *p, const br_slo *slo)
{
	char *s = br_xstrdup("");
	for (size_t k = 0; k < slo->n; k++) {
		if (p->slo_term_ok[k] == 1)
			continue;
		const br_slo_term *t = &slo->terms[k];
		const char *name = t->name, *over = t->strict ? "≥" : ">";
		char *part = p->slo_term_ok[k] < 0
		    ? br_xasprintf("%s unknown", name)
		    : isnan(p->slo_value_ms[k]) && isfinite(p->slo_bound_ms[k])
		    ? br_xasprintf("%s not stated, but p%g is already %.1f ms %s %g ms", name, p->slo_bound_pct[k],
		        p->slo_bound_ms[k], over, t->limit_ms)
		    : br_xasprintf("%s %.1f ms %s %g ms", name, p->slo_value_ms[k], over, t->limit_ms);
		char *n = br_xasprintf("%s%s%s", s, s[0] ? "; " : "", part);
		free(part);
		free(s);
		s = n;
	}
	if (p->failed_too_many) {
		char *n = br_xasprintf("%s%s%.0f of %.0f requests failed", s, s[0] ? "; " : "", p->failed,
		    p->failed + p->completed);
		free(s);
		s = n;
	}
	if (s[0] == '\0') {
		free(s);
		s = br_xstrdup(p->completed > 0 ? "a repeat at this setting misses the SLO" : "no request completed");
	}
	return s;
}

/* at_json: {x, x_label, achieved_rps, goodput_rps, why} of point i of G, or null. */
static json_t *
at_json(const br_knee_group *G, long i, const br_slo *slo, int with_why)
{
	if (i < 0)
		return json_null();
	const br_knee_point *p = &G->pts[i];
	json_t *o = json_object();
	char *xl = x_label(p->x);
	json_object_set_new(o, "x", jnum(p->x));
	json_object_set_new(o, "x_label", json_string(xl));
	json_object_set_new(o, "achieved_rps", jnum(p->achieved_rps));
	json_object_set_new(o, "goodput_rps", jnum(p->goodput_rps));
	json_object_set_new(o, "goodput_exact", json_boolean(p->goodput_exact));
	json_object_set_new(o, "goodput_lo_rps", jnum(p->goodput_lo_rps));
	json_object_set_new(o, "goodput_hi_rps", jnum(p->goodput_hi_rps));
	json_object_set_new(o, "offered_rps", G->kind == BR_KNEE_RATE ? jnum(p->offered_rps) : json_null());
	json_object_set_new(o, "failed", jnum(p->failed));
	json_object_set_new(o, "n_requests", jnum(p->completed + (isfinite(p->failed) ? p->failed : 0)));
	/* the repeats at this x, and how many of them could not keep up */
	size_t n_rep = 0, n_gap = 0;
	for (size_t j = 0; j < G->n; j++)
		if (G->pts[j].x == p->x) {
			n_rep++;
			n_gap += (size_t)G->pts[j].cannot_keep_up;
		}
	json_object_set_new(o, "level_repeats", json_integer((json_int_t)n_rep));
	json_object_set_new(o, "level_cannot_keep_up", json_integer((json_int_t)n_gap));
	/* the achieved rates of the repeats that fell behind (rate curves) */
	double lo = INFINITY, hi = -INFINITY;
	for (size_t j = 0; j < G->n; j++)
		if (G->pts[j].x == p->x && G->pts[j].cannot_keep_up && isfinite(G->pts[j].achieved_rps)) {
			lo = fmin(lo, G->pts[j].achieved_rps);
			hi = fmax(hi, G->pts[j].achieved_rps);
		}
	json_object_set_new(o, "level_behind_achieved_lo_rps", jnum(n_gap ? lo : NAN));
	json_object_set_new(o, "level_behind_achieved_hi_rps", jnum(n_gap ? hi : NAN));
	if (with_why) {
		/* the first repeat that misses the SLO explains it; a level whose
		 * every judged repeat meets it fails because the server fell behind
		 * there (knee.c: a rate it cannot keep up with is no knee) */
		const br_knee_point *q = NULL;
		size_t n_miss = 0;
		for (size_t j = 0; j < G->n; j++)
			if (G->pts[j].x == p->x && G->pts[j].slo_evaluable && !G->pts[j].verdict_withheld &&
			    !G->pts[j].meets_slo) {
				if (q == NULL)
					q = &G->pts[j];
				n_miss++;
			}
		char *w;
		if (q != NULL) {
			w = why_fail(q, slo);
			if (n_rep > 1) {
				char *m = br_xasprintf("%s (%zu of %zu repeats miss)", w, n_miss, n_rep);
				free(w);
				w = m;
			}
		} else if (n_gap > 0 && lo < hi) {
			w = br_xasprintf("the latencies meet the SLO, but the server falls behind: %zu of %zu repeats "
			    "achieved %.2f to %.2f req/s, below 95%% of the offered rate", n_gap, n_rep, lo, hi);
		} else if (n_gap > 0 && n_rep > 1) {
			w = br_xasprintf("the latencies meet the SLO, but the server falls behind: %zu of %zu repeats "
			    "achieved %.2f req/s, below 95%% of the offered rate", n_gap, n_rep, lo);
		} else if (n_gap > 0) {
			w = br_xasprintf("the latencies meet the SLO, but the server falls behind: it achieved %.2f req/s, "
			    "below 95%% of the offered rate", lo);
		} else {
			w = why_fail(p, slo);
		}
		json_object_set_new(o, "why", json_string(w));
		free(w);
	}
	free(xl);
	return o;
}

/* slo_display: "ttft_p99 ≤ 500 ms, e2el_p99 ≤ 20 s" for sentences. */
static char *
slo_display(const br_slo *slo)
{
	char *s = br_xstrdup("");
	for (size_t k = 0; k < slo->n; k++) {
		const br_slo_term *t = &slo->terms[k];
		char *n = br_xasprintf("%s%s%s %s %s", s, k ? ", " : "", t->name, t->strict ? "<" : "≤", t->limit_text);
		free(s);
		s = n;
	}
	return s;
}

/* br_knee_summary: see knee.h. */
json_t *
br_knee_summary(const br_knee_result *r, const br_figure *figs, size_t n_figs)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema_version", json_integer(BR_SUMMARY_SCHEMA_VERSION));
	json_object_set_new(root, "command", json_string("knee"));
	json_t *slo = json_object();
	json_object_set_new(slo, "text", json_string(r->slo.text));
	char *disp = slo_display(&r->slo);
	json_object_set_new(slo, "display", json_string(disp));
	json_t *terms = json_array();
	for (size_t k = 0; k < r->slo.n; k++) {
		const br_slo_term *t = &r->slo.terms[k];
		json_t *o = json_object();
		json_object_set_new(o, "text", json_string(t->text));
		json_object_set_new(o, "metric", json_string(br_slo_metric_name(t->metric)));
		json_object_set_new(o, "percentile", json_real(t->percentile));
		json_object_set_new(o, "limit_ms", json_real(t->limit_ms));
		json_object_set_new(o, "op", json_string(t->strict ? "<" : "<="));
		json_array_append_new(terms, o);
	}
	json_object_set_new(slo, "terms", terms);
	json_object_set_new(root, "slo", slo);
	json_object_set_new(root, "n_runs", json_integer((json_int_t)r->n_runs));
	json_object_set_new(root, "n_groups", json_integer((json_int_t)r->n_groups));
	json_object_set_new(root, "any_meets_slo", json_boolean(r->any_meets));
	json_t *groups = json_array();
	json_t *first_knee = NULL;
	for (size_t g = 0; g < r->n_groups; g++) {
		const br_knee_group *G = &r->groups[g];
		json_t *o = json_object();
		json_object_set_new(o, "index", json_integer((json_int_t)g + 1));
		json_object_set_new(o, "label", json_string(G->label));
		json_object_set_new(o, "key", json_string(G->key));
		json_object_set_new(o, "kind", json_string(G->kind == BR_KNEE_RATE ? "rate" : "concurrency"));
		json_object_set_new(o, "kind_label", json_string(G->kind == BR_KNEE_RATE
		    ? "request-rate sweep (open loop)" : "concurrency sweep (closed loop)"));
		json_object_set_new(o, "x_name", json_string(G->kind == BR_KNEE_RATE ? "offered_rps" : "max_concurrency"));
		json_object_set_new(o, "slo_text", json_string(disp));
		json_object_set_new(o, "n_points", json_integer((json_int_t)G->n));
		json_object_set_new(o, "has_repeats", json_boolean(G->has_repeats));
		json_object_set_new(o, "goodput_approx", json_boolean(G->goodput_approx));
		json_object_set_new(o, "any_meets_slo", json_boolean(G->any_meets));
		json_object_set_new(o, "knee", at_json(G, G->knee_idx, &r->slo, 0));
		/* false: the largest setting judged meets the SLO, so the knee lies at or beyond it */
		json_object_set_new(o, "knee_reached", G->knee_idx >= 0 ? json_boolean(!G->knee_open) : json_null());
		/* a setting run more than once: the knee's numbers are the means over
		 * its repeats (the knee rule uses them), not the first repeat's */
		if (G->knee_idx >= 0 && G->level_n[G->knee_idx] > 1) {
			json_t *kn = json_object_get(o, "knee");
			json_object_set_new(kn, "achieved_rps", jnum(G->level_achieved_rps[G->knee_idx]));
			json_object_set_new(kn, "goodput_rps", jnum(G->level_goodput_rps[G->knee_idx]));
			json_object_set_new(kn, "level_repeats", json_integer((json_int_t)G->level_n[G->knee_idx]));
			/* ... the goodput range too, over the repeats that state one (audit:
			 * the first repeat's 1.04-2.10 beside the mean achieved 2.05) */
			double lo = 0, hi = 0;
			size_t nr = 0;
			for (size_t i = 0; i < G->n; i++)
				if (G->pts[i].x == G->pts[G->knee_idx].x && isfinite(G->pts[i].goodput_lo_rps) &&
				    isfinite(G->pts[i].goodput_hi_rps)) {
					lo += G->pts[i].goodput_lo_rps;
					hi += G->pts[i].goodput_hi_rps;
					nr++;
				}
			if (nr > 0 && !G->pts[G->knee_idx].goodput_exact) {
				json_object_set_new(kn, "goodput_lo_rps", jnum(lo / (double)nr));
				json_object_set_new(kn, "goodput_hi_rps", jnum(hi / (double)nr));
			}
		}
		json_object_set_new(o, "first_failing", at_json(G, G->first_fail_idx, &r->slo, 1));
		json_object_set_new(o, "pass_after_fail", at_json(G, G->pass_after_fail_idx, &r->slo, 0));
		if (G->first_fail_warmup_only) {
			/* the first failure rests on a warm-up-like first repeat alone */
			json_t *wo = json_object();
			long f = G->first_fail_idx;
			json_object_set_new(wo, "n_others", json_integer((json_int_t)(G->level_evaluable[f] - 1)));
			json_object_set_new(wo, "n_others_meeting", json_integer((json_int_t)G->level_pass[f]));
			json_object_set_new(wo, "knee", at_json(G, G->knee_idx_without_warmup, &r->slo, 0));
			json_object_set_new(wo, "first_failing", at_json(G, G->first_fail_idx_without_warmup, &r->slo, 1));
			json_object_set_new(o, "first_failing_warmup_only", wo);
		} else
			json_object_set_new(o, "first_failing_warmup_only", json_null());
		json_object_set_new(o, "first_cannot_keep_up", at_json(G, G->first_gap_idx, &r->slo, 0));
		json_t *pts = json_array();
		for (size_t i = 0; i < G->n; i++)
		{
			json_t *pj = point_json(&G->pts[i], &r->slo, G->kind);
			/* the point's x level: repeats meeting the SLO of those evaluable */
			json_object_set_new(pj, "level_repeats", json_integer((json_int_t)G->level_n[i]));
			json_object_set_new(pj, "level_meeting_slo", json_integer((json_int_t)G->level_pass[i]));
			json_object_set_new(pj, "level_evaluable", json_integer((json_int_t)G->level_evaluable[i]));
			json_object_set_new(pj, "level_first_repeat_warmup_suspect", json_boolean(G->level_warmup[i]));
			json_array_append_new(pts, pj);
		}
		json_object_set_new(o, "points", pts);
		json_object_set_new(o, "littles_law", littles_json(G));
		json_object_set_new(o, "next_rates", next_json(G, G->model_id));
		json_object_set_new(o, "queue_signal", queue_json(G));
		if (first_knee == NULL) {
			first_knee = json_object();
			json_object_set_new(first_knee, "group", json_integer((json_int_t)g + 1));
			json_object_set(first_knee, "kind", json_object_get(o, "kind"));
			json_object_set(first_knee, "knee", json_object_get(o, "knee"));
			json_object_set(first_knee, "first_failing", json_object_get(o, "first_failing"));
			json_object_set(first_knee, "littles_law", json_object_get(o, "littles_law"));
		}
		if (G->kind == BR_KNEE_RATE && json_object_get(root, "littles_law") == NULL)
			json_object_set(root, "littles_law", json_object_get(o, "littles_law"));
		json_array_append_new(groups, o);
	}
	json_object_set_new(root, "groups", groups);
	free(disp);
	json_object_set_new(root, "first_group", first_knee ? first_knee : json_null());
	json_t *notes = json_array();
	for (size_t i = 0; i < r->n_notes; i++)
		json_array_append_new(notes, json_string(r->notes[i]));
	json_object_set_new(root, "notes", notes);
	json_object_set_new(root, "figures", br_summary_figures(figs, n_figs));
	return root;
}

/* ------------------------------------------------------------------ PDF */

/* fmt2: "a / b" of two numbers with `dec` decimals; "n/a" parts when absent. */
static char *
fmt_pair(double a, double b, int dec)
{
	char x[32], y[32];
	if (isfinite(a))
		snprintf(x, sizeof x, "%.*f", dec, a);
	else
		snprintf(x, sizeof x, "n/a");
	if (isfinite(b))
		snprintf(y, sizeof y, "%.*f", dec, b);
	else
		snprintf(y, sizeof y, "n/a");
	return br_xasprintf("%s / %s", x, y);
}

/* fmt1: one number with `dec` decimals, or "n/a". */
static char *
fmt1(double v, int dec)
{
	if (!isfinite(v))
		return br_xstrdup("n/a");
	return br_xasprintf("%.*f", dec, v);
}

/* lat_dec: decimals for a latency pair in ms. */
static int
lat_dec(double v)
{
	return !isfinite(v) || v >= 100 ? 0 : v >= 10 ? 1 : 2;
}

/* paragraph_key: fill key from obj and add it as a paragraph. */
static void
para(br_pdf *d, const br_template *t, const char *key, const json_t *obj)
{
	char *s = br_template_fill(t, key, obj);
	br_pdf_paragraph(d, s);
	free(s);
}

static char *tword(const br_template *t, const char *key);

/* verdict_key: the template key of slo_verdict's word (summary.json keeps the English). */
static const char *
verdict_key(const br_knee_point *p)
{
	if (p->verdict_withheld)
		return "table.verdict_withheld";
	if (!p->slo_evaluable)
		return "table.verdict_not_evaluable";
	/* latencies within the SLO at a rate the server fell behind at: no knee */
	if (p->meets_slo && p->cannot_keep_up)
		return "table.verdict_met_behind";
	return p->meets_slo ? "table.verdict_met" : "table.verdict_missed";
}

/*
 * decided_by_higher: for each SLO term that some point of G met although
 * its files do not state that percentile (a higher stated one is within
 * the limit: knee.c), a note naming the percentile used and the largest
 * such value of the curve, so "met *" is not read as a measured p90.
 */
static void
decided_by_higher(br_pdf *d, const br_template *t, const br_knee_group *G, const br_slo *slo)
{
	for (size_t k = 0; slo != NULL && k < slo->n; k++) {
		double worst = NAN, pct = NAN;
		for (size_t i = 0; i < G->n; i++) {
			const br_knee_point *p = &G->pts[i];
			if (p->slo_term_ok[k] == 1 && isnan(p->slo_value_ms[k]) && isfinite(p->slo_bound_ms[k]) &&
			    !(p->slo_bound_ms[k] <= worst)) {
				worst = p->slo_bound_ms[k];
				pct = p->slo_bound_pct[k];
			}
		}
		if (isnan(worst))
			continue;
		json_t *o = json_pack("{s:s, s:f, s:f, s:f}", "name", slo->terms[k].name, "pct", pct, "value_ms", worst,
		    "limit_ms", slo->terms[k].limit_ms);
		para(d, t, "group.decided_by_higher", o);
		json_decref(o);
	}
}

/* group_table: the per-run table of one curve (words from the template t). */
static void
group_table(br_pdf *d, const br_template *t, const br_knee_group *G)
{
	enum { NC = 9 };
	static const char *const hkeys[NC] = { NULL, "table.col_achieved", "table.col_output", "table.col_ttft",
		"table.col_tpot", "table.col_e2el", "table.col_goodput", "table.col_slo", "table.col_waiting" };
	char *hwords[NC];
	const char *hdr[NC];
	for (int k = 0; k < NC; k++) {
		hwords[k] = tword(t, k == 0 ? (G->kind == BR_KNEE_RATE ? "table.col_offered" : "table.col_concurrency")
		    : hkeys[k]);
		hdr[k] = hwords[k];
	}
	char *w_short = tword(t, "table.short"), *w_run = tword(t, "table.run");
	char **cells = br_xcalloc(G->n * NC, sizeof *cells);
	int *hl = br_xcalloc(G->n ? G->n : 1, sizeof *hl);
	for (size_t i = 0; i < G->n; i++) {
		const br_knee_point *p = &G->pts[i];
		char **c = &cells[i * NC];
		char *xl = x_label(p->x);
		c[0] = isfinite(p->run_number) && G->has_repeats ? br_xasprintf("%s (%s %.0f)", xl, w_run, p->run_number)
		                                                  : br_xstrdup(xl);
		free(xl);
		/* below 95% of the offered rate: the share, and why it is not called
		 * falling behind ("drain": TTFT flat, no queue; "?": cannot tell) */
		if (G->kind == BR_KNEE_RATE && (p->cannot_keep_up || p->drain_tail || p->keep_up_unknown))
		{
			char *drain = p->drain_tail ? tword(t, "table.drain") : NULL;
			c[1] = br_xasprintf("%.2f (%.0f%%%s)", p->achieved_rps, 100.0 * p->achieved_rps / p->offered_rps,
			    drain ? drain : p->keep_up_unknown ? "?" : "");
			free(drain);
		}
		else
			c[1] = fmt1(p->achieved_rps, 2);
		c[2] = fmt1(p->output_tps, 0);
		c[3] = fmt_pair(p->ttft_p50_ms / 1000, p->ttft_p99_ms / 1000, lat_dec(p->ttft_p50_ms / 1000));
		c[4] = fmt_pair(p->tpot_p50_ms, p->tpot_p99_ms, lat_dec(p->tpot_p50_ms));
		c[5] = fmt_pair(p->e2el_p50_ms / 1000, p->e2el_p99_ms / 1000, lat_dec(p->e2el_p50_ms / 1000));
		/* without arrays the goodput is a range ("0.92–1.99") */
		if (p->goodput_exact || !(isfinite(p->goodput_lo_rps) && isfinite(p->goodput_hi_rps)))
			c[6] = fmt1(p->goodput_rps, 2);
		else if (p->goodput_hi_rps - p->goodput_lo_rps < 0.005)
			c[6] = fmt1(p->goodput_lo_rps, 2);
		else
			c[6] = br_xasprintf("%.2f–%.2f", p->goodput_lo_rps, p->goodput_hi_rps);
		int first_of_level = i == 0 || G->pts[i - 1].x != p->x;
		GString *rep = g_string_new(NULL);
		if (first_of_level && G->level_n && G->level_n[i] > 1) {
			/* the repeats of this setting: "; 1 of 2 meet; 1st warm-up?" in the report's words */
			size_t ne = G->level_n[i] - G->level_evaluable[i];
			json_t *o = json_pack("{s:I, s:I}", "pass", (json_int_t)G->level_pass[i], "n",
			    (json_int_t)G->level_evaluable[i]);
			char *m = br_template_fill(t, "table.repeats_meet", o);
			g_string_append(rep, m);
			free(m);
			json_decref(o);
			if (ne > 0) {
				o = json_pack("{s:I}", "n", (json_int_t)ne);
				m = br_template_fill(t, "table.repeats_not_evaluable", o);
				g_string_append(rep, m);
				free(m);
				json_decref(o);
			}
			if (G->level_warmup[i]) {
				m = tword(t, "table.repeats_warmup");
				g_string_append(rep, m);
				free(m);
			}
		}
		char *vw = tword(t, verdict_key(p));
		c[7] = br_xasprintf("%s%s%s%s%s", vw, p->steady_state == 0 && !p->verdict_withheld ? " " : "",
		    p->steady_state == 0 && !p->verdict_withheld ? w_short : "", p->goodput_exact ? "" : "\u00a0*", rep->str);
		g_string_free(rep, TRUE);
		free(vw);
		c[8] = isfinite(p->waiting_share_frac) ? br_xasprintf("%.0f%%", 100.0 * p->waiting_share_frac)
		                                        : br_xstrdup("n/a");
		hl[i] = !p->meets_slo && p->slo_evaluable && !p->verdict_withheld ? 2 : 0;
	}
	if (G->knee_idx >= 0)
		for (size_t i = (size_t)G->knee_idx; i < G->n && G->pts[i].x == G->pts[G->knee_idx].x; i++)
			hl[i] = 1;
	/* wide enough that "concurrency", "goodput" and "waiting" stay whole words and a goodput range ("10.90–12.46") one line */
	const double w[NC] = { G->kind == BR_KNEE_RATE ? 1.0 : 1.4, 1.1, 0.8, 1.15, 1.15, 1.15, 1.3, 1.35, 0.85 };
	br_pdf_table tb = { .n_cols = NC, .n_rows = G->n, .header = hdr, .cells = (const char *const *)cells,
		.col_weight = w, .row_highlight = hl, .font_size_small = 1 };
	br_pdf_table(d, &tb);
	for (size_t i = 0; i < G->n * NC; i++)
		free(cells[i]);
	free(cells);
	free(hl);
	for (int k = 0; k < NC; k++)
		free(hwords[k]);
	free(w_short);
	free(w_run);
}

/* tword: a template word (the key itself when absent; keys are ours). */
static char *
tword(const br_template *t, const char *key)
{
	return br_template_fill(t, key, NULL);
}

/* little_table: per run of G, λ, W, L = λ·W, the measured mean running +
 * waiting, their ratio, the arrival window and the steady-state status. */
static void
little_table(br_pdf *d, const br_template *t, const br_knee_group *G)
{
	enum { NC = 9 };
	static const char *const keys[NC] = { NULL, "little.col_lambda", "little.col_w", "little.col_l",
		"little.col_measured", "little.col_ratio", "little.col_window", "little.col_window_ratio",
		"little.col_steady" };
	char *hdr[NC];
	hdr[0] = tword(t, G->kind == BR_KNEE_RATE ? "little.col_x_rate" : "little.col_x_concurrency");
	for (int k = 1; k < NC; k++)
		hdr[k] = tword(t, keys[k]);
	char *unk = tword(t, "little.unknown"), *na = tword(t, "little.steady_na");
	char *yes = tword(t, "little.steady_yes"), *no = tword(t, "little.steady_no");
	char *w_run = tword(t, "table.run");
	char **cells = br_xcalloc(G->n * NC + 1, sizeof *cells);
	for (size_t i = 0; i < G->n; i++) {
		const br_knee_point *p = &G->pts[i];
		char **c = &cells[i * NC];
		char *xl = x_label(p->x);
		c[0] = isfinite(p->run_number) && G->has_repeats ? br_xasprintf("%s (%s %.0f)", xl, w_run, p->run_number)
		                                                  : br_xstrdup(xl);
		free(xl);
		double w_s = p->e2el_mean_ms / 1000.0;
		c[1] = isfinite(p->achieved_rps) ? fmt1(p->achieved_rps, 3) : br_xstrdup(unk);
		c[2] = isfinite(w_s) ? fmt1(w_s, w_s >= 100 ? 1 : w_s >= 10 ? 2 : 3) : br_xstrdup(unk);
		c[3] = isfinite(p->littles_l_requests) ? fmt1(p->littles_l_requests, p->littles_l_requests >= 100 ? 1 : 2)
		                                       : br_xstrdup(unk);
		c[4] = isfinite(p->in_system_mean_requests)
		    ? fmt1(p->in_system_mean_requests, p->in_system_mean_requests >= 100 ? 1 : 2) : br_xstrdup(unk);
		double r = ratio(p->littles_l_requests, p->in_system_mean_requests);
		c[5] = isfinite(r) ? fmt1(r, 3) : br_xstrdup(unk);
		c[6] = isfinite(p->arrival_window_s) ? fmt1(p->arrival_window_s, p->arrival_window_s >= 100 ? 0 : 1)
		                                     : br_xstrdup(na);
		double wr = ratio(p->arrival_window_s, w_s);
		c[7] = isfinite(wr) ? fmt1(wr, wr >= 10 ? 1 : 2) : br_xstrdup(na);
		/* a run the server fell behind at has no steady state at any
		 * length (its queue grows as long as it lasts) */
		c[8] = p->cannot_keep_up ? tword(t, "little.steady_behind") :
		    br_xstrdup(p->steady_state < 0 ? (isfinite(p->arrival_window_s) ? unk : na)
		    : p->steady_state ? yes : no);
	}
	const double w[NC] = { G->kind == BR_KNEE_RATE ? 1.0 : 1.4, 1.1, 1.1, 0.9, 1.2, 1.15, 1.1, 0.85, 0.85 };
	br_pdf_table tb = { .n_cols = NC, .n_rows = G->n, .header = (const char *const *)hdr,
		.cells = (const char *const *)cells, .col_weight = w, .font_size_small = 1 };
	br_pdf_table(d, &tb);
	for (size_t i = 0; i < G->n * NC; i++)
		free(cells[i]);
	free(cells);
	for (int k = 0; k < NC; k++)
		free(hdr[k]);
	free(unk);
	free(na);
	free(yes);
	free(w_run);
	free(no);
}

/*
 * little_section: Little's law, the steady-state check, the next rates and
 * the queue signal of one curve (group object go of the summary).
 */
static void
little_section(br_pdf *d, const br_template *t, const br_knee_group *G, const json_t *go)
{
	int rate = G->kind == BR_KNEE_RATE;
	const json_t *ll = json_object_get(go, "littles_law");
	char *h = br_template_fill(t, "little.heading", go);
	br_pdf_heading(d, 2, h);
	free(h);
	para(d, t, "little.intro", go);
	if (rate) {
		if (isfinite(G->mu_rps)) {
			para(d, t, "little.mu", go);
			const char *rel = json_string_value(json_object_get(ll, "relation"));
			if (rel && strcmp(rel, "between") == 0)
				para(d, t, "little.rel_between", go);
			else if (rel && strcmp(rel, "knee_at_mu") == 0)
				para(d, t, "little.rel_at_mu", go);
			else if (rel && strcmp(rel, "slo_binds_before_mu") == 0)
				para(d, t, "little.rel_binds", go);
			else if (rel && strcmp(rel, "slo_knee_above_mu") == 0)
				para(d, t, "little.rel_above", go);
			else if (rel && strcmp(rel, "no_failure") == 0)
				para(d, t, "little.rel_no_fail", go);
			else
				para(d, t, "little.rel_unknown_knee", go);
		} else if (isfinite(G->max_achieved_rps)) {
			para(d, t, "little.mu_unknown", go);
		}
	} else if (json_is_number(json_object_get(ll, "L_over_concurrency_min_ratio"))) {
		para(d, t, "little.mu_closed", go);
	}
	size_t n_measured = (size_t)json_integer_value(json_object_get(ll, "n_measured"));
	para(d, t, n_measured > 0 ? "little.measured" : "little.measured_none", go);
	/* beyond ±10%: what the gap is, not left for the reader to suspect the
	 * metrics (eighteenth breaker: 1.27–1.39 with a 1 s frontend, unsaid) */
	double rmin = json_number_value(json_object_get(ll, "L_over_measured_min_ratio"));
	double rmax = json_number_value(json_object_get(ll, "L_over_measured_max_ratio"));
	if (n_measured > 0 && rmin >= 1.1)
		para(d, t, "little.measured_outside", go);
	else if (n_measured > 0 && rmax <= 0.9)
		para(d, t, "little.measured_more", go);
	else if (n_measured > 0 && (rmax > 1.1 || rmin < 0.9))
		para(d, t, "little.measured_mixed", go);
	little_table(d, t, G);
	char *note = br_template_fill(t, "little.table_note", go);
	br_pdf_note(d, note);
	free(note);
	if (rate) {
		/* steady state of the finite-rate runs */
		size_t n_fin = 0, n_unknown = 0, n_short = 0, n_behind = 0;
		for (size_t i = 0; i < G->n; i++) {
			if (!isfinite(G->pts[i].arrival_window_s))
				continue;
			n_fin++;
			n_behind += (size_t)G->pts[i].cannot_keep_up;
			n_unknown += G->pts[i].steady_state < 0;
			n_short += G->pts[i].steady_state == 0;
		}
		if (G->n_withheld > 0)
			para(d, t, "steady.withheld", go);
		const char *sm = json_string_value(json_object_get(ll, "short_miss_x_labels"));
		if (sm && sm[0])
			para(d, t, "steady.short_miss", go);
		const char *sbh = json_string_value(json_object_get(ll, "short_behind_x_labels"));
		if (sbh && sbh[0])
			para(d, t, "steady.short_behind", go);
		const char *so = json_string_value(json_object_get(ll, "short_not_evaluable_x_labels"));
		if (so && so[0])
			para(d, t, "steady.short_not_evaluable", go);
		if (n_fin > 0 && n_short == 0 && n_unknown == 0)
			para(d, t, n_behind > 0 ? "steady.all_long_enough_behind" : "steady.all_steady", go);
		if (n_unknown > 0)
			para(d, t, "steady.unknown", go);
		/* where to measure next */
		const json_t *nx = json_object_get(go, "next_rates");
		if (json_is_object(nx)) {
			para(d, t, "next.rates", go);
			const json_t *cmds = json_object_get(nx, "commands");
			size_t nc = json_array_size(cmds);
			const char **items = br_xcalloc(nc + 1, sizeof *items);
			for (size_t i = 0; i < nc; i++)
				items[i] = json_string_value(json_array_get(cmds, i));
			br_pdf_bullets(d, items, nc);
			free(items);
		} else {
			para(d, t, "next.none", go);
		}
	}
	/* the queue signal */
	if (G->n_queue_known == 0)
		para(d, t, "queue.unknown", go);
	else {
		int conc = G->kind != BR_KNEE_RATE;   /* x is C, not a rate */
		if (G->queue_first_idx >= 0 && G->queue_last_empty_idx >= 0)
			para(d, t, conc ? "queue.onset_conc" : "queue.onset", go);
		else if (G->queue_first_idx >= 0)
			para(d, t, conc ? "queue.onset_first_conc" : "queue.onset_first", go);
		else
			para(d, t, conc ? "queue.never_conc" : "queue.never", go);
		if (G->n_queue_known < G->n)
			para(d, t, "queue.partial", go);
	}
}

/*
 * figure_extra: the template sentences a knee figure's caption gains: on
 * the rate throughput figure the Little's-law line (μ and the λ = μ crossing
 * of the first rate curve, or that μ is unknown), on a latency figure the
 * queue signal of its kind's curves (drawn on the right axis, or unknown:
 * no run has a series).
 * NULL for other figures. Malloc'd.
 */
static char *
figure_extra(const br_knee_result *r, const json_t *summary, const br_template *t, const br_figure *f)
{
	if (f->id == NULL)
		return NULL;
	int kind = strstr(f->id, "-rate-") ? BR_KNEE_RATE : strstr(f->id, "-concurrency-") ? BR_KNEE_CONCURRENCY : -1;
	if (kind < 0 || (kind == BR_KNEE_CONCURRENCY && strstr(f->id, "latency") == NULL))
		return NULL;      /* a concurrency curve has no μ line; its latency figure has the queue signal */
	const json_t *groups = json_object_get(summary, "groups");
	const json_t *go = NULL;
	size_t n_rate = 0, n_mu = 0, n_queue = 0;
	for (size_t g = 0; g < r->n_groups; g++) {
		if (r->groups[g].kind != kind)
			continue;
		if (go == NULL)
			go = json_array_get(groups, g);
		n_rate++;
		n_mu += isfinite(r->groups[g].mu_rps);
		n_queue += r->groups[g].n_queue_known;
	}
	if (go == NULL)
		return NULL;
	if (strstr(f->id, "throughput") != NULL)
		return br_template_fill(t, n_mu == 0 ? "figures_knee.littles_unknown" : n_rate > 1
		    ? "figures_knee.littles_line_multi" : "figures_knee.littles_line", go);
	if (strstr(f->id, "latency") != NULL)
		return br_template_fill(t, n_queue > 0 ? "figures_knee.queue_drawn" : "figures_knee.queue_unknown", go);
	return NULL;
}

/* write_pdf: compose the knee report. */
static int
write_pdf(const br_knee_result *r, const json_t *summary, const br_figure *figs, size_t n_figs,
    const br_template *t, const char *path, char **cause)
{
	char *title = br_template_fill(t, "doc.title", summary);
	char *subtitle = br_template_fill(t, "doc.subtitle", summary);
	char *subject = br_template_fill(t, "doc.subject", summary);
	char *keywords = br_template_fill(t, "doc.keywords", summary);
	br_pdf_info info = { .title = title, .subject = subject, .author = "benchreport 0.1.0", .keywords = keywords,
		.page_footer = br_template_get(t, "doc.page_footer"), .phrases = t };
	br_pdf *d = br_pdf_new(&info, cause);
	int rc = -1;
	if (d == NULL)
		goto out;
	br_pdf_title(d, title, subtitle);

	/* per curve: knee sentence first, then the table */
	char *h = br_template_fill(t, "sec.curves", summary);
	br_pdf_heading(d, 2, h);
	free(h);
	const json_t *groups = json_object_get(summary, "groups");
	for (size_t g = 0; g < r->n_groups; g++) {
		const br_knee_group *G = &r->groups[g];
		const json_t *go = json_array_get(groups, g);
		char *gh = br_template_fill(t, "group.heading", go);
		br_pdf_heading(d, 2, gh);
		free(gh);
		para(d, t, "group.settings", go);
		int rate = G->kind == BR_KNEE_RATE;
		size_t n_eval = 0;
		for (size_t i = 0; i < G->n; i++)      /* judged: evaluable and long enough for a verdict */
			n_eval += (size_t)(G->pts[i].slo_evaluable && !G->pts[i].verdict_withheld);
		int all_no_sample = 1;   /* each unjudged run: arrays without a TPOT / ITL sample */
		for (size_t i = 0; i < G->n; i++)
			all_no_sample &= G->pts[i].slo_evaluable || G->pts[i].slo_no_sample;
		if (n_eval == 0)      /* no run can be judged: neither "no run meets" nor "every setting meets" */
			para(d, t, all_no_sample ? "group.not_evaluable_no_sample" : "group.not_evaluable", go);
		else if (G->knee_open)   /* every setting judged meets it: a bound, not a knee (twenty-fourth
		                            breaker: "while goodput still rises" of one point) */
			para(d, t, rate ? "group.knee_rate_open" : "group.knee_concurrency_open", go);
		else if (G->knee_idx >= 0 && !G->pts[G->knee_idx].goodput_exact)
			para(d, t, rate ? "group.knee_rate_bound" : "group.knee_concurrency_bound", go);
		else if (G->knee_idx >= 0)
			para(d, t, rate ? "group.knee_rate" : "group.knee_concurrency", go);
		else {
			int some_run = 0, some_kept = 0;   /* a single repeat meets it, its setting does not */
			for (size_t i = 0; i < G->n; i++) {
				some_run |= G->pts[i].meets_slo && !G->pts[i].verdict_withheld;
				some_kept |= G->pts[i].meets_slo && !G->pts[i].verdict_withheld && !G->pts[i].cannot_keep_up;
			}
			/* a setting met in every repeat, but only above the first
			 * failure: the knee search stops there; the runs that meet it
			 * all fell behind their arrivals (thirty-fourth breaker: "in
			 * every one of its repeats" said of a single run that met the
			 * SLO at 2.70 of 8 req/s) */
			para(d, t, G->any_meets && G->first_fail_idx >= 0 ? "group.no_knee_first_fails" :
			    some_run && !some_kept ? "group.no_knee_fell_behind" :
			    some_run ? "group.no_knee_repeats" : n_eval < G->n ? (all_no_sample ?
			    "group.no_knee_partial_no_sample" : "group.no_knee_partial") :
			    "group.no_knee", go);
		}
		if (n_eval == 0)
			;
		else if (G->first_fail_idx >= 0) {
			para(d, t, rate ? "group.first_fail_rate" : "group.first_fail_concurrency", go);
			if (G->pass_after_fail_idx >= 0 && G->knee_idx >= 0)   /* with no knee, no_knee_first_fails said it */
				para(d, t, rate ? "group.pass_after_fail_rate" : "group.pass_after_fail_concurrency", go);
			if (G->first_fail_warmup_only)
				para(d, t, G->first_fail_idx_without_warmup < 0 ? "group.first_fail_warmup_only_none" :
				    G->knee_idx_without_warmup < 0 ? "group.first_fail_warmup_only_no_knee" :
				    "group.first_fail_warmup_only", go);
		}
		else if (G->n_withheld > 0)
			para(d, t, "group.no_fail_withheld", go);   /* the runs too short for a verdict are not "meets" */
		else if (G->knee_open)
			;   /* the headline said it */
		else if (n_eval < G->n)   /* some settings could not be judged: not "every setting meets" */
			para(d, t, "group.no_fail_unjudged", go);
		else if (G->knee_idx >= 0 && G->n > 0 && G->pts[G->knee_idx].x != G->pts[G->n - 1].x)
			para(d, t, "group.no_fail_goodput", go);   /* the knee is where goodput stopped rising */
		else
			para(d, t, "group.no_fail", go);
		if (rate) {
			int any_finite = 0;
			for (size_t i = 0; i < G->n; i++)
				any_finite |= isfinite(G->pts[i].offered_rps);
			if (G->first_gap_idx >= 0) {
				/* a repeat at the same rate that kept up makes it "in k of n repeats" */
				size_t n_rep = 0, n_gap = 0;
				for (size_t i = 0; i < G->n; i++)
					if (G->pts[i].x == G->pts[G->first_gap_idx].x) {
						n_rep++;
						n_gap += (size_t)G->pts[i].cannot_keep_up;
					}
				/* the shortfall is the failed requests: answered (completed +
				 * failed) per second still kept the offered pace */
				const br_knee_point *g0 = &G->pts[G->first_gap_idx];
				int by_failures = g0->failed > 0 && isfinite(g0->duration_s) && g0->duration_s > 0 &&
				    (g0->completed + g0->failed) / g0->duration_s >= BR_KNEE_KEEPUP_FRAC * g0->offered_rps;
				para(d, t, n_gap < n_rep ? "group.gap_repeats" : by_failures ? "group.gap_failed" :
				    n_rep > 1 ? "group.gap_all_repeats" : "group.gap", go);
				/* a higher rate kept up: "from x on" is no threshold (audit:
				 * "cannot keep up from 3.7" beside 3.8 kept up) */
				for (size_t i = 0; i < G->n; i++)
					if (G->pts[i].x > g0->x && isfinite(G->pts[i].offered_rps) && !G->pts[i].cannot_keep_up &&
					    !G->pts[i].keep_up_unknown) {
						json_t *o = point_json(&G->pts[i], &r->slo, G->kind);
						para(d, t, "group.gap_then_kept_up", o);
						json_decref(o);
						break;
					}
			}
			/* a shortfall the inputs cannot attribute (the first one below the
			 * first gap, or any when there is none): said, not called keeping up */
			long ku = -1;
			for (size_t i = 0; i < G->n && ku < 0; i++)
				if (G->pts[i].keep_up_unknown && (G->first_gap_idx < 0 ||
				    G->pts[i].x < G->pts[G->first_gap_idx].x))
					ku = (long)i;
			if (ku >= 0) {
				json_t *o = point_json(&G->pts[ku], &r->slo, G->kind);
				para(d, t, G->pts[ku].keep_up_short ? "group.keep_up_unknown_short" : "group.keep_up_unknown", o);
				json_decref(o);
			} else if (G->first_gap_idx < 0 && any_finite) {
				int drain = 0;
				for (size_t i = 0; i < G->n; i++)
					drain |= G->pts[i].drain_tail;
				/* kept up with what each client sent, which a finite random
				 * draw can set below the offered rate (audit: "within 5% of the
				 * offered rate" beside 1.47 achieved of 2 offered, 1.52 sent) */
				int strayed = 0;
				for (size_t i = 0; i < G->n; i++)
					strayed |= isfinite(G->pts[i].offered_rps) && isfinite(G->pts[i].achieved_rps) &&
					    G->pts[i].achieved_rps < BR_KNEE_KEEPUP_FRAC * G->pts[i].offered_rps;
				para(d, t, drain ? "group.no_gap_drain" : strayed ? "group.no_gap_sent" : "group.no_gap", go);
			}
		} else {
			para(d, t, "group.closed", go);
		}
		group_table(d, t, G);
		char *note = br_template_fill(t, "group.table_note", go);
		br_pdf_note(d, note);
		free(note);
		decided_by_higher(d, t, G, &r->slo);
		little_section(d, t, G, go);
	}

	h = br_template_fill(t, "sec.figures", summary);
	br_pdf_heading(d, 1, h);
	free(h);
	if (n_figs == 0) {
		char *s = br_template_fill(t, "figures.none", summary);
		br_pdf_note(d, s);
		free(s);
	}
	/* No heading per figure: a heading could be left at the foot of a page
	 * while its figure moves to the next; the figure's title opens its
	 * caption instead, which br_pdf_figure keeps with the image. */
	for (size_t i = 0; i < n_figs; i++) {
		char *extra = figure_extra(r, summary, t, &figs[i]);
		char *full = extra ? br_xasprintf("%s %s", figs[i].caption ? figs[i].caption : "", extra) : NULL;
		char *cap = br_template_figure_caption(t, full ? full : figs[i].caption, &figs[i]);
		free(extra);
		free(full);
		int frc = br_pdf_figure(d, &figs[i], cap, cause);
		free(cap);
		if (frc != 0)
			goto out;
	}

	h = br_template_fill(t, "sec.slo", summary);
	br_pdf_heading(d, 1, h);
	free(h);
	para(d, t, "slo.text", summary);
	para(d, t, "slo.goodput", summary);
	para(d, t, "slo.knee", summary);

	h = br_template_fill(t, "sec.caveats", summary);
	br_pdf_heading(d, 2, h);
	free(h);
	if (r->n_notes > 0) {
		para(d, t, "caveats.intro", summary);
		br_pdf_bullets(d, (const char *const *)r->notes, r->n_notes);
	} else {
		para(d, t, "caveats.none", summary);
	}

	h = br_template_fill(t, "sec.inputs", summary);
	br_pdf_heading(d, 2, h);
	free(h);
	size_t ni = 0;
	for (size_t g = 0; g < r->n_groups; g++)
		ni += r->groups[g].n;
	const char *ih[3] = { br_template_get(t, "inputs.col_curve"), br_template_get(t, "inputs.col_run"),
		br_template_get(t, "inputs.col_file") };
	char **ic = br_xcalloc(ni * 3 + 1, sizeof *ic);
	size_t k = 0;
	for (size_t g = 0; g < r->n_groups; g++)
		for (size_t i = 0; i < r->groups[g].n; i++, k++) {
			ic[k * 3] = br_xasprintf("%zu", g + 1);
			ic[k * 3 + 1] = br_xstrdup(r->groups[g].pts[i].name);
			ic[k * 3 + 2] = source_text(&r->groups[g].pts[i]);
		}
	static const double iw[3] = { 0.5, 2.0, 5.0 };
	static const enum br_align ia[3] = { BR_ALIGN_RIGHT, BR_ALIGN_LEFT, BR_ALIGN_LEFT };
	br_pdf_table it = { .n_cols = 3, .n_rows = ni, .header = ih, .cells = (const char *const *)ic,
		.col_weight = iw, .align = ia, .font_size_small = 1 };
	br_pdf_table(d, &it);
	for (size_t i = 0; i < ni * 3; i++)
		free(ic[i]);
	free(ic);

	rc = br_pdf_save(d, path, cause);
out:
	br_pdf_free(d);
	free(title);
	free(subtitle);
	free(subject);
	free(keywords);
	return rc;
}

/* ------------------------------------------------------------ writing */

/* br_knee_write_report: see knee.h. */
int
br_knee_write_report(const br_knee_result *r, br_outdir *out, const char *template_path,
    json_t **summary_out, char **cause)
{
	int rc = -1;
	br_figure *figs = NULL;
	size_t n_figs = 0;
	json_t *summary = NULL;
	char *fig_dir = NULL, *sum_path = NULL, *pdf_path = NULL;
	br_template *t = br_template_load(template_path, cause);
	if (summary_out)
		*summary_out = NULL;
	if (t == NULL)
		goto out;
	if (br_outdir_stage(out, cause) != 0)
		goto out;
	fig_dir = br_path_join(br_outdir_staging(out), "figures");
	sum_path = br_path_join(br_outdir_staging(out), "summary.json");
	pdf_path = br_path_join(br_outdir_staging(out), "report.pdf");
	if (br_mkdir_p(fig_dir, cause) != 0)
		goto out;
	if (br_fig_knee(r, t, fig_dir, &figs, &n_figs, cause) != 0)
		goto fail;
	summary = br_knee_summary(r, figs, n_figs);
	br_summary_english_titles(json_object_get(summary, "figures"), t);
	if (br_summary_write(summary, sum_path, cause) != 0)
		goto fail;
	if (write_pdf(r, summary, figs, n_figs, t, pdf_path, cause) != 0)
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
	br_figures_free(figs, n_figs);
	br_template_free(t);
	free(fig_dir);
	free(sum_path);
	free(pdf_path);
	return rc;
}
