/*
 * Counter ledger, first cut (DESIGN.md §3.8): server counter deltas over
 * the run (before/after snapshots or the series window) beside the client's
 * own totals.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/analysis.h"
#include "benchreport/common.h"
#include "benchreport/model.h"

enum client_field {
	CF_NONE, CF_INPUT, CF_OUTPUT, CF_COMPLETED, CF_IN_PLUS_OUT,
	CF_DRAFTS, CF_DRAFT_TOKENS, CF_ACCEPTED
};

/* One ledger line: the counter's role, label, the client number it is set against. */
static const struct ledger_def {
	br_role role;
	const char *label;
	enum client_field cf;
	const char *client_label, *relation;
} LEDGER[] = {
	{ BR_ROLE_PROMPT_TOKENS, "prompt tokens", CF_INPUT, "total_input_tokens", "=" },
	{ BR_ROLE_GENERATION_TOKENS, "generation tokens", CF_OUTPUT, "total_output_tokens", "=" },
	{ BR_ROLE_REQUEST_SUCCESS, "successful requests", CF_COMPLETED, "completed", "=" },
	{ BR_ROLE_SCHEDULED_TOKENS, "scheduled tokens", CF_IN_PLUS_OUT,
	  "total_input_tokens + total_output_tokens", ">=" },
	{ BR_ROLE_PREEMPTIONS, "preemptions", CF_NONE, NULL, NULL },
	{ BR_ROLE_SPEC_DRAFTS, "spec-decode drafts", CF_DRAFTS, "spec_decode_num_drafts", "=" },
	{ BR_ROLE_SPEC_DRAFT_TOKENS, "spec-decode draft tokens", CF_DRAFT_TOKENS,
	  "spec_decode_draft_tokens", "=" },
	{ BR_ROLE_SPEC_ACCEPTED, "spec-decode accepted tokens", CF_ACCEPTED,
	  "spec_decode_accepted_tokens", "=" },
	{ BR_ROLE_FLOPS, "estimated FLOPs per GPU", CF_NONE, NULL, NULL },
};

/*
 * relation_for: the relation a counter of engine e must keep with the
 * client's number: the table's, except where the engine counts differently
 * (model.h br_role_caveat): llama.cpp leaves a prompt prefix reused from
 * its cache out of prompt_tokens_total ("<="); SGLang's num_requests_total
 * counts aborted requests too (">=").
 */
static const char *
relation_for(br_engine e, const struct ledger_def *d)
{
	if (e == BR_ENGINE_LLAMACPP && d->role == BR_ROLE_PROMPT_TOKENS)
		return "<=";
	if (e == BR_ENGINE_SGLANG && d->role == BR_ROLE_REQUEST_SUCCESS)
		return ">=";
	if (e == BR_ENGINE_SGLANG && d->role == BR_ROLE_PREEMPTIONS)
		return NULL;
	return d->relation;
}

/*
 * print_resolution: the uncertainty of a counter value as llama.cpp prints
 * it: its /metrics stream keeps 6 significant digits (ENGINES.md §1.2:
 * 1.90511e+06), so a value of 10^6 or more is known to half a unit of its
 * 6th digit; exact below that (and for other engines: 0).
 */
static double
print_resolution(br_engine e, double v)
{
	if (e != BR_ENGINE_LLAMACPP || !br_isnum(v) || fabs(v) < 1e6)
		return 0;
	return 0.5 * pow(10, floor(log10(fabs(v))) - 5);
}

/* client_value: the client's number for field cf, NAN when absent. */
static double
client_value(const br_bench *b, enum client_field cf)
{
	if (b == NULL)
		return NAN;
	switch (cf) {
	case CF_INPUT: return b->total_input_tokens;
	case CF_OUTPUT: return b->total_output_tokens;
	case CF_COMPLETED: return b->completed;
	case CF_IN_PLUS_OUT: return b->total_input_tokens + b->total_output_tokens;
	case CF_DRAFTS: return b->spec_decode_num_drafts;
	case CF_DRAFT_TOKENS: return b->spec_decode_draft_tokens;
	case CF_ACCEPTED: return b->spec_decode_accepted_tokens;
	default: return NAN;
	}
}

/*
 * br_analyze_ledger: see analysis.h. A pair (or any set of bare snapshots)
 * uses row 0 → last row; a time series uses br_run_window, or all rows when
 * no busy window is found. Counters are compared exactly (they are
 * integers): "=" agrees when |Δ − client| < 0.5, ">=" when Δ > client − 0.5,
 * "<=" when Δ < client + 0.5; each widened by the tolerance of printed
 * values (print_resolution: llama.cpp's 6 significant digits).
 */
void
br_analyze_ledger(const br_run *run, br_ledger *out)
{
	memset(out, 0, sizeof *out);
	out->window_start_t_s = out->window_end_t_s = NAN;
	out->missing = "needs two metrics snapshots (before/after) or a metrics series";
	if (run != NULL && run->metrics_kind == BR_METRICS_LOG)
		out->missing = "needs /metrics: the series from the SGLang log's batch lines holds no counters";
	if (run != NULL && run->metrics_kind == BR_METRICS_SLOTS)
		out->missing = "needs /metrics: llama-server's /slots snapshots hold no counters";
	if (run == NULL || run->metrics == NULL || run->metrics->n_rows < 2 ||
	    run->metrics_kind == BR_METRICS_NONE || run->metrics_kind == BR_METRICS_SNAPSHOT ||
	    br_metrics_is_standin(run->metrics_kind))
		return;
	const br_series *s = run->metrics;
	size_t i0 = 0, i1 = s->n_rows - 1;
	if (run->metrics_kind == BR_METRICS_PAIR) {
		out->window_source = "before/after snapshots";
	} else if (br_run_counter_window(run, &i0, &i1) == 0) {
		out->window_source = "metrics series window";
		out->window_cut = run->metrics_cut;
	} else {
		i0 = 0;
		i1 = s->n_rows - 1;
		out->window_source = "whole metrics series (no busy window found)";
	}
	if (s->t_s != NULL) {
		out->window_start_t_s = s->t_s[i0];
		out->window_end_t_s = s->t_s[i1];
	}
	const br_bench *b = run->bench.n > 0 ? &run->bench.runs[0] : NULL;
	br_engine engine = br_series_engine(s);
	size_t nd = sizeof LEDGER / sizeof LEDGER[0];
	out->rows = br_xcalloc(nd, sizeof *out->rows);
	for (size_t k = 0; k < nd; k++) {
		const double *col = br_role_col(s, LEDGER[k].role);
		if (col == NULL)
			continue;
		int resets = 0;
		double d = br_counter_delta(col, i0, i1, &resets);
		if (!br_isnum(d))
			continue;
		if (resets > out->counter_resets)
			out->counter_resets = resets;
		br_ledger_row *r = &out->rows[out->n_rows++];
		r->role = LEDGER[k].role;
		r->series = br_role_name(s, LEDGER[k].role);
		r->label = LEDGER[k].label;
		r->server_delta = d;
		r->client_value = LEDGER[k].cf == CF_NONE ? NAN : client_value(b, LEDGER[k].cf);
		r->client_label = LEDGER[k].client_label;
		r->relation = relation_for(engine, &LEDGER[k]);
		/* requests the client saw fail (a dropped stream, a timeout) may
		 * have run to the end on the server, which counts their tokens
		 * and success while the client's totals leave them out: '=' then
		 * holds only as '≥', the successes at most the failed ones more
		 * (audit: 128 = 126 "DISAGREES" with 2 failed) */
		int failed_upper = 0;
		if (br_isnum(b->failed) && b->failed > 0 && r->relation != NULL && strcmp(r->relation, "=") == 0 &&
		    (r->role == BR_ROLE_PROMPT_TOKENS || r->role == BR_ROLE_GENERATION_TOKENS ||
		    r->role == BR_ROLE_REQUEST_SUCCESS)) {
			r->relation = ">=";
			r->with_failed = 1;
			failed_upper = r->role == BR_ROLE_REQUEST_SUCCESS;
			out->n_with_failed++;
		}
		/* the delta of two printed values is known to their two resolutions */
		r->tolerance = print_resolution(engine, col[i0]) + print_resolution(engine, col[i1]);
		double tol = 0.5 + r->tolerance;
		if (!br_isnum(r->client_value) || r->relation == NULL)
			r->agrees = -1;
		else if (strcmp(r->relation, "=") == 0)
			r->agrees = fabs(d - r->client_value) < tol;
		else if (strcmp(r->relation, "<=") == 0)
			r->agrees = d < r->client_value + tol;
		else
			r->agrees = d > r->client_value - tol && !(failed_upper && d > r->client_value + b->failed + tol);
		if (r->agrees == 0 && out->window_cut != 0 && d < r->client_value) {
			/* part of the load fell outside the capture: a shortfall is what
			 * that predicts, so it proves nothing either way */
			r->agrees = -1;
			r->capture_short = 1;
			out->n_capture_short++;
		}
	}
	out->available = 1;
	out->missing = NULL;
}

/* br_ledger_other_load: see analysis_blocks.h. */
char *
br_ledger_other_load(const br_ledger *l, const br_bench *b)
{
	if (l == NULL || !l->available || b == NULL)
		return NULL;
	double failed = br_isnum(b->failed) ? b->failed : 0;
	for (size_t i = 0; i < l->n_rows; i++) {
		const br_ledger_row *r = &l->rows[i];
		double d = r->server_delta, c = r->client_value;
		if (!br_isnum(d) || !br_isnum(c) || c <= 0 || r->relation == NULL || strcmp(r->relation, "<=") == 0)
			continue;
		char dn[32], cn[32];
		if (r->role == BR_ROLE_REQUEST_SUCCESS) {
			double sent = c + failed;
			if (d >= 1.25 * sent && d - sent >= 2)
				return br_xasprintf("over the run window (%s) the server counted %s successful requests "
				    "(%s), %.2f× the %s the bench sent: it served more than this bench (another run's "
				    "series, or other clients at the same time), so its residency, preemptions and queue "
				    "cannot be credited to this run", l->window_source, br_format_count(d, dn), r->series,
				    d / sent, br_format_count(sent, cn));
		} else if ((r->role == BR_ROLE_PROMPT_TOKENS || r->role == BR_ROLE_GENERATION_TOKENS) &&
		    failed == 0 && d >= 1.5 * c) {
			return br_xasprintf("over the run window (%s) the server counted %s %s (%s), %.2f× the "
			    "%s the bench's %s says, with no request failed: it served more than this bench "
			    "(another run's series, or other clients at the same time), so its residency, "
			    "preemptions and queue cannot be credited to this run", l->window_source,
			    br_format_count(d, dn), r->label, r->series, d / c, br_format_count(c, cn), r->client_label);
		}
	}
	return NULL;
}
