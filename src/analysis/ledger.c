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

enum client_field {
	CF_NONE, CF_INPUT, CF_OUTPUT, CF_COMPLETED, CF_IN_PLUS_OUT,
	CF_DRAFTS, CF_DRAFT_TOKENS, CF_ACCEPTED
};

/* One ledger line: counter, label, the client number it is set against. */
static const struct ledger_def {
	const char *series, *label;
	enum client_field cf;
	const char *client_label, *relation;
} LEDGER[] = {
	{ "vllm:prompt_tokens_total", "prompt tokens", CF_INPUT, "total_input_tokens", "=" },
	{ "vllm:generation_tokens_total", "generation tokens", CF_OUTPUT, "total_output_tokens", "=" },
	{ "vllm:request_success_total", "successful requests", CF_COMPLETED, "completed", "=" },
	{ "vllm:iteration_tokens_total_sum", "scheduled tokens", CF_IN_PLUS_OUT,
	  "total_input_tokens + total_output_tokens", ">=" },
	{ "vllm:num_preemptions_total", "preemptions", CF_NONE, NULL, NULL },
	{ "vllm:spec_decode_num_drafts_total", "spec-decode drafts", CF_DRAFTS,
	  "spec_decode_num_drafts", "=" },
	{ "vllm:spec_decode_num_draft_tokens_total", "spec-decode draft tokens",
	  CF_DRAFT_TOKENS, "spec_decode_draft_tokens", "=" },
	{ "vllm:spec_decode_num_accepted_tokens_total", "spec-decode accepted tokens",
	  CF_ACCEPTED, "spec_decode_accepted_tokens", "=" },
	{ "vllm:estimated_flops_per_gpu_total", "estimated FLOPs per GPU", CF_NONE, NULL, NULL },
};

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
 * integers): "=" agrees when |Δ − client| < 0.5, ">=" when Δ > client − 0.5.
 */
void
br_analyze_ledger(const br_run *run, br_ledger *out)
{
	memset(out, 0, sizeof *out);
	out->window_start_t_s = out->window_end_t_s = NAN;
	out->missing = "needs two metrics snapshots (before/after) or a metrics series";
	if (run == NULL || run->metrics == NULL || run->metrics->n_rows < 2 ||
	    run->metrics_kind == BR_METRICS_NONE || run->metrics_kind == BR_METRICS_SNAPSHOT)
		return;
	const br_series *s = run->metrics;
	size_t i0 = 0, i1 = s->n_rows - 1;
	if (run->metrics_kind == BR_METRICS_PAIR) {
		out->window_source = "before/after snapshots";
	} else if (br_run_window(s, &i0, &i1) == 0) {
		out->window_source = "metrics series window";
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
	size_t nd = sizeof LEDGER / sizeof LEDGER[0];
	out->rows = br_xcalloc(nd, sizeof *out->rows);
	for (size_t k = 0; k < nd; k++) {
		const double *col = br_series_col(s, LEDGER[k].series);
		if (col == NULL)
			continue;
		int resets = 0;
		double d = br_counter_delta(col, i0, i1, &resets);
		if (!br_isnum(d))
			continue;
		if (resets > out->counter_resets)
			out->counter_resets = resets;
		br_ledger_row *r = &out->rows[out->n_rows++];
		r->series = LEDGER[k].series;
		r->label = LEDGER[k].label;
		r->server_delta = d;
		r->client_value = LEDGER[k].cf == CF_NONE ? NAN : client_value(b, LEDGER[k].cf);
		r->client_label = LEDGER[k].client_label;
		r->relation = LEDGER[k].relation;
		if (!br_isnum(r->client_value) || r->relation == NULL)
			r->agrees = -1;
		else if (strcmp(r->relation, "=") == 0)
			r->agrees = fabs(d - r->client_value) < 0.5;
		else
			r->agrees = d > r->client_value - 0.5;
	}
	out->available = 1;
	out->missing = NULL;
}
