/*
 * CI gate: parse `--fail-on` terms and evaluate them on one analysed run
 * (include/benchreport/gate.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/gate.h"
#include "benchreport/model.h"
#include "analysis/term_parse.h"

static const char *const op_text[] = { "<=", "<", ">=", ">", "==" };

/* br_gate_op_text: see gate.h. */
const char *
br_gate_op_text(int op)
{
	return op >= 0 && op <= BR_GATE_EQ ? op_text[op] : "?";
}

/* Names of the non-latency quantities, indexed by enum br_gate_quantity. */
static const struct {
	const char *name;
	int quantity;
	const char *unit;      /* shown after the value */
} plain_quantities[] = {
	{ "failed", BR_GATE_FAILED, "" },
	{ "completed", BR_GATE_COMPLETED, "" },
	{ "preemptions", BR_GATE_PREEMPTIONS, "" },
	{ "failed_pct", BR_GATE_FAILED_PCT, "%" },
	{ "output_tps", BR_GATE_OUTPUT_TPS, "tok/s" },
	{ "total_tps", BR_GATE_TOTAL_TPS, "tok/s" },
	{ "rps", BR_GATE_RPS, "req/s" },
};
#define N_PLAIN (sizeof plain_quantities / sizeof plain_quantities[0])

static const struct {
	const char *text;
	const char *stat;
	double pct;
} latency_stats[] = {
	{ "p50", "p", 50 }, { "p90", "p", 90 }, { "p95", "p", 95 }, { "p99", "p", 99 },
	{ "p99.9", "p", 99.9 }, { "p99.99", "p", 99.99 },
	{ "mean", "mean", NAN }, { "median", "median", NAN }, { "max", "max", NAN },
};
#define N_LAT_STATS (sizeof latency_stats / sizeof latency_stats[0])

static int
term_error(char **cause, size_t idx, const char *s, size_t len, const char *expected)
{
	*cause = br_xasprintf("--fail-on: term %zu '%.*s': expected %s", idx + 1, (int)len, s, expected);
	return -1;
}

/*
 * parse_name: the quantity before the operator ("ttft_p99", "failed")
 * into t. Returns 0, or -1 with *cause.
 */
static int
parse_name(const char *name, br_gate_term *t)
{
	for (size_t k = 0; k < N_PLAIN; k++)
		if (strcmp(name, plain_quantities[k].name) == 0) {
			t->quantity = plain_quantities[k].quantity;
			t->metric = -1;
			t->percentile = NAN;
			return 0;
		}
	const char *us = strchr(name, '_');
	if (us == NULL)
		return -1;
	int m = -1;
	for (int k = 0; k < BR_N_LATENCY; k++)
		if ((size_t)(us - name) == strlen(br_latency_metric_name[k]) &&
		    strncmp(name, br_latency_metric_name[k], (size_t)(us - name)) == 0)
			m = k;
	if (m < 0)
		return -1;
	for (size_t k = 0; k < N_LAT_STATS; k++)
		if (strcmp(us + 1, latency_stats[k].text) == 0) {
			t->quantity = BR_GATE_LATENCY;
			t->metric = m;
			snprintf(t->stat, sizeof t->stat, "%s", latency_stats[k].stat);
			t->percentile = latency_stats[k].pct;
			return 0;
		}
	return -1;
}

/*
 * parse_term: one trimmed term [s, s+len) into *t. Returns 0 or -1 with
 * *cause.
 */
static int
parse_term(const char *s, size_t len, size_t idx, br_gate_term *t, char **cause)
{
	char buf[128];
	int cl = br_term_copy_lower(s, len, buf, sizeof buf);
	if (cl == 1)
		return term_error(cause, idx, s, len, "a term, found nothing (stray comma?)");
	if (cl == 2)
		return term_error(cause, idx, s, len, "a term shorter than 128 characters");
	memset(t, 0, sizeof *t);
	/* the operator: the first of < > = in the term */
	char *opp = strpbrk(buf, "<>=");
	if (opp == NULL)
		return term_error(cause, idx, s, len, "an operator (<=, <, >=, > or ==) between the "
		    "quantity and the limit");
	size_t oplen;
	if (opp[0] == '<' && opp[1] == '=') t->op = BR_GATE_LE, oplen = 2;
	else if (opp[0] == '>' && opp[1] == '=') t->op = BR_GATE_GE, oplen = 2;
	else if (opp[0] == '=' && opp[1] == '=') t->op = BR_GATE_EQ, oplen = 2;
	else if (opp[0] == '<' && opp[1] != '<' && opp[1] != '>') t->op = BR_GATE_LT, oplen = 1;
	else if (opp[0] == '>' && opp[1] != '>' && opp[1] != '<') t->op = BR_GATE_GT, oplen = 1;
	else
		return term_error(cause, idx, s, len, "an operator <=, <, >=, > or ==");
	char *rhs = opp + oplen;
	*opp = '\0';
	char *name = g_strstrip(buf);
	if (parse_name(name, t) != 0)
		return term_error(cause, idx, s, len, "a quantity before the operator: ttft, tpot, itl or "
		    "e2el with _p50, _p90, _p95, _p99, _p99.9, _p99.99, _mean, _median or _max; or failed, "
		    "completed, preemptions, failed_pct, output_tps, total_tps, rps");
	double val;
	char num[32], *unit;
	if (br_term_number(rhs, &val, num, sizeof num, &unit) != 0 || strpbrk(unit, "0123456789.") != NULL)
		/* a digit after the "unit" (0x10s, 1_000ms): the number was not a plain decimal */
		return term_error(cause, idx, s, len, "a number (0 or more, plain decimal of at most 31 characters, no "
		    "exponent: 2000ms, not 2e3ms) after the operator");
	if (t->quantity == BR_GATE_LATENCY) {
		double scale;
		if (strcmp(unit, "ms") == 0)
			scale = 1;
		else if (strcmp(unit, "s") == 0)
			scale = 1000;
		else if (strcmp(unit, "us") == 0)
			scale = 1e-3;
		else
			return term_error(cause, idx, s, len, "a unit us, ms or s after the latency limit");
		val *= scale;
		snprintf(t->unit, sizeof t->unit, "%s", unit);
	} else if (t->quantity == BR_GATE_FAILED_PCT && strcmp(unit, "%") == 0) {
		/* failed_pct<=5% reads as failed_pct<=5: the quantity is in % already;
		 * the term's text keeps the % the user wrote */
		snprintf(t->unit, sizeof t->unit, "%%");
	} else if (*unit != '\0')
		return term_error(cause, idx, s, len, "a plain number after the operator (counts and "
		    "rates take no unit: failed==0, output_tps>=1000; failed_pct may end in %)");
	if (!isfinite(val))
		return term_error(cause, idx, s, len, "a finite limit");
	t->limit = val;
	char text[sizeof t->text];
	snprintf(text, sizeof text, "%s%s%s%s", name, op_text[t->op], num, t->unit);
	memcpy(t->text, text, sizeof text);
	return 0;
}

/* br_gate_parse: see gate.h. */
int
br_gate_parse(const char *text, br_gate_spec *out, char **cause)
{
	memset(out, 0, sizeof *out);
	if (text == NULL || *text == '\0') {
		*cause = br_xasprintf("--fail-on: expected at least one term, e.g. 'ttft_p99<=2s,failed==0'");
		return -1;
	}
	const char *p = text;
	size_t idx = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const char *s = p;
		while (len > 0 && *s == ' ')
			s++, len--;
		while (len > 0 && s[len - 1] == ' ')
			len--;
		if (out->n >= BR_GATE_MAX_TERMS)
			return term_error(cause, idx, s, len, "at most 16 terms");
		br_gate_term *t = &out->terms[out->n];
		if (parse_term(s, len, idx, t, cause) != 0)
			return -1;
		for (size_t k = 0; k < out->n; k++)
			if (strcmp(out->terms[k].text, t->text) == 0)
				return term_error(cause, idx, s, len, "each term once (this one repeats an earlier term)");
		if (out->n > 0)
			g_strlcat(out->text, ",", sizeof out->text);
		g_strlcat(out->text, t->text, sizeof out->text);
		out->n++;
		idx++;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	return 0;
}

static int holds(int op, double v, double limit);

/* latency_value: the term's latency statistic (ms), or NAN with
 * o->why_unknown; a stated neighbouring percentile that settles the term
 * is returned as a bound (o->bound). */
static double
latency_value(const br_gate_term *t, const br_analysis *a, br_gate_outcome *o)
{
	const br_latency *l = &a->latency;
	const br_bench *b = &a->run->bench.runs[0];
	int k = t->metric;
	const char *name = br_latency_metric_name[k];
	/* the per-request arrays decide whenever the analysis took the metric
	 * from them, even with no sample at all: a file's 0 for an empty set
	 * (every request one token long: no ITL, no TPOT) is a placeholder */
	if (!br_latency_from_file(l, b, k) && (l->samples_ms[k] != NULL || l->n_samples[k] == 0)) {
		size_t n = l->n_samples[k];
		if (n == 0) {
			snprintf(o->why_unknown, sizeof o->why_unknown, "no %s sample: no successful request%s",
			    name, k == BR_ITL || k == BR_TPOT ? " with more than one output token" : "");
			return NAN;
		}
		snprintf(o->source, sizeof o->source, "per-request arrays");
		if (strcmp(t->stat, "p") == 0) {
			double v;
			br_ranked_percentiles(l->ranked[k], &t->percentile, 1, &v);
			return v;
		}
		if (strcmp(t->stat, "mean") == 0)
			return l->m[k].mean;
		if (strcmp(t->stat, "median") == 0)
			return l->m[k].median;
		return l->m[k].max;
	}
	if (b->completed == 0) {
		snprintf(o->why_unknown, sizeof o->why_unknown, "no successful request");
		return NAN;
	}
	if ((k == BR_ITL || k == BR_TPOT) && br_isnum(b->total_output_tokens) && br_isnum(b->completed) &&
	    b->total_output_tokens <= b->completed) {
		/* one output token a request (or none): no gap to time, so the
		 * file's ITL / TPOT statistics are vLLM's 0 for an empty set */
		snprintf(o->why_unknown, sizeof o->why_unknown, "no %s sample: every successful request "
		    "produced at most one output token (%.0f tokens over %.0f requests), so the file's %s "
		    "statistics are placeholders", name, b->total_output_tokens, b->completed, name);
		return NAN;
	}
	if (l->file_disorder[k]) {
		/* a file whose percentiles fall as p rises has no trustworthy one:
		 * neither the stated value nor a bound from a neighbour decides */
		snprintf(o->why_unknown, sizeof o->why_unknown, "the file's %s percentiles contradict each "
		    "other: p%g %.4g ms > p%g %.4g ms", br_latency_metric_label[k], l->disorder_lo_pct[k],
		    l->disorder_lo_ms[k], l->disorder_hi_pct[k], l->disorder_hi_ms[k]);
		return NAN;
	}
	int is_max = strcmp(t->stat, "max") == 0;   /* the maximum is p100 */
	double v = is_max ? br_bench_file_stat(b, name, "p", 100) : br_bench_file_stat(b, name, t->stat, t->percentile);
	/* p50 and the median are one statistic under two names */
	if (!br_isnum(v) && strcmp(t->stat, "p") == 0 && t->percentile == 50)
		v = br_bench_file_stat(b, name, "median", NAN);
	else if (!br_isnum(v) && strcmp(t->stat, "median") == 0)
		v = br_bench_file_stat(b, name, "p", 50);
	if (!br_isnum(v) && (strcmp(t->stat, "p") == 0 || strcmp(t->stat, "median") == 0 || is_max)) {
		/* not stated, but maybe settled by a stated neighbour: percentiles
		 * rise with p, so a higher one is an upper bound, a lower one a
		 * lower bound (br_bench_file_pct_bounds); the bound that settles
		 * the term is the value, marked as a bound */
		double p = is_max ? 100 : strcmp(t->stat, "median") == 0 ? 50 : t->percentile;
		double lo, lo_pct, hi, hi_pct;
		br_bench_file_pct_bounds(b, name, p, &lo, &lo_pct, &hi, &hi_pct);
		/* an upper bound settles a "<=" / "<" term it meets and a ">=" / ">"
		 * term it misses; a lower bound the other way round */
		int below_op = t->op == BR_GATE_LE || t->op == BR_GATE_LT;
		int upper_settles = br_isnum(hi) && holds(t->op, hi, t->limit) == below_op;
		int lower_settles = br_isnum(lo) && holds(t->op, lo, t->limit) != below_op;
		if (t->op != BR_GATE_EQ && (upper_settles || lower_settles)) {
			o->bound = upper_settles ? -1 : 1;
			snprintf(o->source, sizeof o->source, is_max ? "the file's p%.6g; it states no maximum" :
			    "the file's p%.6g; it states no p%.6g", upper_settles ? hi_pct : lo_pct, p);
			return upper_settles ? hi : lo;
		}
	}
	if (!br_isnum(v) && is_max) {
		snprintf(o->why_unknown, sizeof o->why_unknown, "the bench file has no per-request %s "
		    "array and states no maximum%s", name, " (nor a percentile that settles the term)");
		return NAN;
	}
	if (!br_isnum(v)) {
		int sglang = b->backend != NULL && strncmp(b->backend, "sglang", 6) == 0;
		/* a metric the file states nothing of is missing from vllm bench
		 * serve's --percentile-metrics; a percentile of one it lists, from
		 * --metric-percentiles (twentieth breaker: e2el_mean pointed at the
		 * second when the file had no e2el statistic at all) */
		int listed = br_isnum(br_bench_file_stat(b, name, "mean", NAN)) ||
		    br_isnum(br_bench_file_stat(b, name, "median", NAN));
		if (sglang)
			snprintf(o->why_unknown, sizeof o->why_unknown, "the bench file has no per-request %s values "
			    "(sglang.bench_serving --output-details) and does not state this statistic", name);
		else if (!listed)
			snprintf(o->why_unknown, sizeof o->why_unknown, "the bench file has no per-request %s array "
			    "(--save-detailed) and no %s statistic at all (add %s to --percentile-metrics)", name, name,
			    name);
		else
			snprintf(o->why_unknown, sizeof o->why_unknown, "the bench file has no per-request %s array "
			    "(--save-detailed) and does not state this statistic (--metric-percentiles)", name);
		return NAN;
	}
	snprintf(o->source, sizeof o->source, "the file's statistics");
	return v;
}

/* term_value: the measured value of t on a (NAN with why_unknown). */
static double
term_value(const br_gate_term *t, const br_analysis *a, br_gate_outcome *o)
{
	const br_bench *b = &a->run->bench.runs[0];
	double v = NAN;
	const char *need = "the bench file does not state it";
	switch (t->quantity) {
	case BR_GATE_LATENCY:
		return latency_value(t, a, o);
	case BR_GATE_FAILED:
		v = b->failed;
		break;
	case BR_GATE_COMPLETED:
		v = b->completed;
		break;
	case BR_GATE_FAILED_PCT:
		v = br_isnum(b->failed) && b->num_prompts > 0 ? 100.0 * b->failed / b->num_prompts : NAN;
		need = !br_isnum(b->failed) ? "the bench file states no number of failures" :
		    "the bench file states no number of prompts";
		break;
	case BR_GATE_OUTPUT_TPS:
		v = b->output_throughput_tps;
		break;
	case BR_GATE_TOTAL_TPS:
		v = b->total_token_throughput_tps;
		break;
	case BR_GATE_RPS:
		v = b->request_throughput_rps;
		break;
	case BR_GATE_PREEMPTIONS:
		if (a->preemptions.count_available) {
			snprintf(o->source, sizeof o->source, "%s",
			    a->preemptions.count_source ? a->preemptions.count_source : "metrics");
			return a->preemptions.n_preemptions;
		}
		if (a->run && br_run_engine(a->run) == BR_ENGINE_LLAMACPP) {
			/* fixed slots: a request keeps its slot to the end (no counter needed) */
			snprintf(o->source, sizeof o->source, "llama.cpp does not preempt");
			return 0;
		}
		snprintf(o->why_unknown, sizeof o->why_unknown, "%s",
		    br_run_metrics_set_aside(a->run) ? br_run_metrics_set_aside(a->run) :
		    a->run->metrics == NULL ? "no /metrics series or before/after snapshots of this run" :
		    a->preemptions.missing ? a->preemptions.missing :
		    "the metrics hold no preemption counter over the run");
		return NAN;
	}
	if (!br_isnum(v)) {
		snprintf(o->why_unknown, sizeof o->why_unknown, "%s", need);
		return NAN;
	}
	snprintf(o->source, sizeof o->source, "bench result");
	return v;
}

static int
holds(int op, double v, double limit)
{
	int c = br_cmp_limit(v, limit);   /* equal within 1e-12: a unit conversion's last bit */
	if (c == 2)
		return 0;
	switch (op) {
	case BR_GATE_LE: return c <= 0;
	case BR_GATE_LT: return c < 0;
	case BR_GATE_GE: return c >= 0;
	case BR_GATE_GT: return c > 0;
	default: return c == 0;
	}
}

/* br_gate_evaluate: see gate.h. */
void
br_gate_evaluate(const br_gate_spec *spec, const br_analysis *a, br_gate_result *out)
{
	memset(out, 0, sizeof *out);
	out->n = spec->n;
	for (size_t i = 0; i < spec->n; i++) {
		br_gate_outcome *o = &out->terms[i];
		o->value = term_value(&spec->terms[i], a, o);
		const br_gate_term *t = &spec->terms[i];
		if (t->quantity == BR_GATE_PREEMPTIONS && br_isnum(o->value) && a->run != NULL &&
		    a->preemptions.count_lower_bound) {
			/* a capture that missed the run's start or end counted a lower
			 * bound: it decides only when even that much settles the term */
			double v = o->value;
			int settled = t->op == BR_GATE_GE || t->op == BR_GATE_GT ? holds(t->op, v, t->limit) :
			    t->op == BR_GATE_EQ ? v > t->limit : !holds(t->op, v, t->limit);
			o->bound = 1;   /* "at least" */
			if (!settled) {
				if (a->preemptions.count_from_v0_log)
					snprintf(o->why_unknown, sizeof o->why_unknown, "the server log's V0 warnings (one "
					    "per 50 preemptions) prove at least %.0f during the run; the true count can be "
					    "higher", v);
				else if (a->run->metrics_cut == 0)
					snprintf(o->why_unknown, sizeof o->why_unknown, "the server restarted during the "
					    "run (%d time%s): %.0f counted, what happened before each restart is unknown",
					    a->preemptions.server_restarts, a->preemptions.server_restarts == 1 ? "" : "s", v);
				else
					snprintf(o->why_unknown, sizeof o->why_unknown, "the metrics capture %s: %.0f counted "
					    "while it sampled, the whole run's count is unknown",
					    a->run->metrics_cut == 3 ? "missed the run's start and end" :
					    a->run->metrics_cut == 1 ? "began after the load had started" :
					    "ended before the load did", v);
				o->value = NAN;
			}
		}
		/* prompts neither completed nor failed (a run cut short) may be
		 * failures: failed lies in [failed, failed + unaccounted], and the
		 * term decides only when both ends agree (twentieth breaker:
		 * failed==0 passed with 2 of 10 prompts unaccounted for) */
		const br_bench *b = a->run ? &a->run->bench.runs[0] : NULL;
		if ((t->quantity == BR_GATE_FAILED || t->quantity == BR_GATE_FAILED_PCT) && br_isnum(o->value) &&
		    b != NULL && br_isnum(b->num_prompts) && br_isnum(b->completed) && br_isnum(b->failed) &&
		    b->num_prompts > b->completed + b->failed) {
			double miss = b->num_prompts - b->completed - b->failed;
			double hi = t->quantity == BR_GATE_FAILED ? o->value + miss : o->value + 100.0 * miss / b->num_prompts;
			int lo_ok = holds(t->op, o->value, t->limit), hi_ok = holds(t->op, hi, t->limit);
			o->bound = 1;   /* "at least" */
			if (lo_ok != hi_ok) {
				snprintf(o->why_unknown, sizeof o->why_unknown, "%.0f of the %.0f prompts are neither "
				    "completed nor failed (a run cut short): failed%s lies between %g and %g", miss,
				    b->num_prompts, t->quantity == BR_GATE_FAILED ? "" : " (%)", o->value, hi);
				o->value = NAN;
			} else if (((t->op == BR_GATE_LE || t->op == BR_GATE_LT) && lo_ok) ||
			    ((t->op == BR_GATE_GE || t->op == BR_GATE_GT) && !lo_ok)) {
				/* the end that settles it is the upper one: "at most" (breaker:
				 * failed>100 FAIL "measured at least 0" with failed in [0, 72]) */
				o->value = hi;
				o->bound = -1;
			}
		}
		if (!br_isnum(o->value)) {
			o->value = NAN;
			o->status = BR_GATE_UNKNOWN;
			out->n_unknown++;
		} else if (holds(spec->terms[i].op, o->value, spec->terms[i].limit)) {
			o->status = BR_GATE_PASS;
			out->n_pass++;
		} else {
			o->status = BR_GATE_FAIL;
			out->n_fail++;
		}
	}
	out->passed = out->n_pass == out->n;
}

/* br_gate_format_value: see gate.h. */
/* gate_prec: the significant digits that show value apart from the term's
 * limit (6 at least, up to 15), or 6 when the gate holds them equal
 * (br_cmp_limit: within 1e-12, a unit conversion's last bit): a value
 * the comparison calls equal prints as its limit. */
static int
gate_prec(const br_gate_term *t, double value)
{
	int prec = 6;
	if (br_cmp_limit(value, t->limit) == 0)
		return prec;
	for (; prec < 15; prec += 2) {
		char a[40], b[40];
		snprintf(a, sizeof a, "%.*g", prec, value);
		snprintf(b, sizeof b, "%.*g", prec, t->limit);
		if (strcmp(a, b) != 0)
			break;
	}
	return prec;
}

/* format_at: value in the term's unit with prec significant digits. */
static char *format_at(const br_gate_term *t, double value, int prec, char *buf, size_t size);

/* br_gate_format_limit: see gate.h. */
char *
br_gate_format_limit(const br_gate_term *t, double value, char *buf, size_t size)
{
	return format_at(t, t->limit, br_isnum(value) ? gate_prec(t, value) : 6, buf, size);
}

char *
br_gate_format_value(const br_gate_term *t, double value, char *buf, size_t size)
{
	if (!br_isnum(value)) {
		snprintf(buf, size, "unknown");
		return buf;
	}
	/* enough digits that a failing value never prints as its limit */
	return format_at(t, value, gate_prec(t, value), buf, size);
}

static char *
format_at(const br_gate_term *t, double value, int prec, char *buf, size_t size)
{
	if (t->quantity == BR_GATE_LATENCY) {
		double scale = strcmp(t->unit, "s") == 0 ? 1e-3 : strcmp(t->unit, "us") == 0 ? 1e3 : 1;
		/* the comparison is in ms: scale both the same way */
		snprintf(buf, size, "%.*g %s", prec, value * scale, t->unit);
		return buf;
	}
	for (size_t k = 0; k < N_PLAIN; k++)
		if (plain_quantities[k].quantity == t->quantity) {
			if (plain_quantities[k].unit[0] == '\0')
				snprintf(buf, size, "%.*g", prec, value);
			else
				snprintf(buf, size, "%.*g %s", prec, value, plain_quantities[k].unit);
		}
	return buf;
}
