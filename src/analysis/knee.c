/*
 * Knee of a load sweep (DESIGN.md §3.11): SLO parser, grouping of runs into
 * curves, per-run goodput and queue signal, knee search. Pure analysis: no
 * I/O. See include/benchreport/knee.h.
 */
#include <ctype.h>
#include <stdarg.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/model.h"
#include "benchreport/knee.h"
#include "analysis/term_parse.h"
#include "benchreport/stats.h"

static const char *const metric_names[BR_SLO_N_METRICS] = { "ttft", "tpot", "itl", "e2el" };

/* br_slo_metric_name: see knee.h. */
const char *
br_slo_metric_name(int metric)
{
	return metric >= 0 && metric < BR_SLO_N_METRICS ? metric_names[metric] : "?";
}

/*
 * slo_term_error: set *cause for term number idx (1-based) with text
 * [s, s+len) and the expectation `what`. Returns -1.
 */
static int
slo_term_error(char **cause, size_t idx, const char *s, size_t len, const char *what)
{
	if (cause)
		*cause = br_xasprintf("--slo: term %zu '%.*s': expected %s "
		    "(form metric_pNN<=VALUE(ms|s|us), e.g. ttft_p99<=500ms,e2el_p99<=20s)",
		    idx, (int)len, s, what);
	return -1;
}

/*
 * parse_term: one term [s, s+len) (already trimmed) into *t. Returns 0 or
 * -1 with *cause.
 */
static int
parse_term(const char *s, size_t len, size_t idx, br_slo_term *t, char **cause)
{
	char buf[128];
	int cl = br_term_copy_lower(s, len, buf, sizeof buf);
	if (cl == 1)
		return slo_term_error(cause, idx, s, len, "a term, found nothing (stray comma?)");
	if (cl == 2)
		return slo_term_error(cause, idx, s, len, "a term shorter than 128 characters");
	char *us = strchr(buf, '_');
	if (us == NULL)
		return slo_term_error(cause, idx, s, len, "metric_pNN before '<=' (metric ttft, tpot, itl or e2el)");
	*us = '\0';
	int m = -1;
	for (int k = 0; k < BR_SLO_N_METRICS; k++)
		if (strcmp(buf, metric_names[k]) == 0)
			m = k;
	if (m < 0)
		return slo_term_error(cause, idx, s, len, "metric ttft, tpot, itl or e2el before '_'");
	char *pp = us + 1;
	char *le = strchr(pp, '<');
	if (le == NULL)
		return slo_term_error(cause, idx, s, len, "'<=' or '<' between the percentile and the limit");
	int strict = le[1] != '=';
	*le = '\0';
	if (strpbrk(pp, "=>!") != NULL)   /* "=<", ">=", "!=": an SLO is a limit from above */
		return slo_term_error(cause, idx, s, len, "'<=' or '<' between the percentile and the limit "
		    "(an SLO is an upper limit)");
	/* trim spaces around the percentile */
	while (*pp == ' ')
		pp++;
	for (char *e = pp + strlen(pp); e > pp && e[-1] == ' '; e--)
		e[-1] = '\0';
	/* the percentiles --fail-on takes (median = p50, max = p100); not the
	 * mean: goodput counts the requests within each term's limit, which a
	 * mean does not define */
	static const char *const pct_txt[] = { "p50", "p90", "p95", "p99", "p99.9", "p99.99", "median", "max" };
	static const double pct_val[] = { 50, 90, 95, 99, 99.9, 99.99, 50, 100 };
	double pct = NAN;
	for (size_t k = 0; k < sizeof pct_txt / sizeof pct_txt[0]; k++)
		if (strcmp(pp, pct_txt[k]) == 0)
			pct = pct_val[k];
	if (isnan(pct))
		return slo_term_error(cause, idx, s, len, strcmp(pp, "mean") == 0 ?
		    "a percentile, not the mean (goodput counts the requests within each term's limit, which a mean "
		    "does not define): p50, p90, p95, p99, p99.9, p99.99, median or max after the metric" :
		    "percentile p50, p90, p95, p99, p99.9, p99.99, median or max after the metric");
	double val;
	char num[32], *u;
	if (br_term_number(le + (strict ? 1 : 2), &val, num, sizeof num, &u) != 0)
		return slo_term_error(cause, idx, s, len, strict ?
		    "a positive plain decimal after '<' (no exponent: 2000ms, not 2e3ms)" :
		    "a positive plain decimal after '<=' (no exponent: 2000ms, not 2e3ms)");
	double scale;
	if (strcmp(u, "ms") == 0)
		scale = 1;
	else if (strcmp(u, "s") == 0)
		scale = 1000;
	else if (strcmp(u, "us") == 0)
		scale = 1e-3;
	else
		return slo_term_error(cause, idx, s, len, "unit ms, s or us after the number");
	if (!(val > 0) || !isfinite(val))
		return slo_term_error(cause, idx, s, len, "a limit greater than 0");
	t->metric = m;
	t->percentile = pct;
	t->limit_ms = val * scale;
	t->strict = strict;
	char name[sizeof t->name], lim[sizeof t->limit_text];
	snprintf(name, sizeof name, "%s_%s", metric_names[m], pp);
	snprintf(lim, sizeof lim, "%.31s%.3s", num, u);
	memcpy(t->name, name, sizeof name);
	memcpy(t->limit_text, lim, sizeof lim);
	snprintf(t->text, sizeof t->text, "%s%s%s", name, strict ? "<" : "<=", lim);
	return 0;
}

/* br_slo_term_holds: see knee.h. */
int
br_slo_term_holds(const br_slo_term *t, double value_ms)
{
	int c = br_cmp_limit(value_ms, t->limit_ms);   /* equal within 1e-12: a unit conversion's last bit */
	return c == 2 ? 0 : t->strict ? c < 0 : c <= 0;
}

/* br_slo_parse: see knee.h. */
int
br_slo_parse(const char *text, br_slo *out, char **cause)
{
	memset(out, 0, sizeof *out);
	if (text == NULL || text[0] == '\0') {
		if (cause)
			*cause = br_xasprintf("--slo: expected at least one term metric_pNN<=VALUE(ms|s|us), "
			    "e.g. ttft_p99<=500ms, found an empty string");
		return -1;
	}
	const char *p = text;
	size_t idx = 0;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		const char *s = p;
		while (len > 0 && isspace((unsigned char)*s)) {
			s++;
			len--;
		}
		while (len > 0 && isspace((unsigned char)s[len - 1]))
			len--;
		idx++;
		if (out->n >= BR_SLO_MAX_TERMS) {
			slo_term_error(cause, idx, s, len, "at most 8 terms");
			memset(out, 0, sizeof *out);
			return -1;
		}
		br_slo_term *t = &out->terms[out->n];
		if (parse_term(s, len, idx, t, cause) != 0) {
			memset(out, 0, sizeof *out);
			return -1;
		}
		for (size_t k = 0; k < out->n; k++)
			if (out->terms[k].metric == t->metric && out->terms[k].percentile == t->percentile) {
				slo_term_error(cause, idx, s, len, "each metric and percentile once (duplicate term)");
				memset(out, 0, sizeof *out);
				return -1;
			}
		out->n++;
		if (c == NULL)
			break;
		p = c + 1;
	}
	size_t off = 0;
	for (size_t k = 0; k < out->n; k++)
		off += (size_t)snprintf(out->text + off, sizeof out->text - off, "%s%s",
		    k ? "," : "", out->terms[k].text);
	return 0;
}

/* ------------------------------------------------------------------ */

/*
 * per_request_ms: the samples (ms) of metric m over the successful requests
 * of b (arrays). ITL pools every chunk gap; TPOT only for output > 1;
 * latency from `latencies`, else ttft + Σ itls (FORMATS.md §1).
 * Returns the number of samples; *out malloc'd (free) or NULL.
 */
static size_t
per_request_ms(const br_bench *b, int m, double **out)
{
	br_dvec d = { 0 };
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *r = &b->requests[i];
		if (r->failed)
			continue;
		double lat = r->latency_s;
		if (!b->has_latencies || !isfinite(lat)) {
			lat = r->ttft_s;
			for (size_t k = 0; k < r->n_itls; k++)
				lat += r->itls_s[k];
		}
		switch (m) {
		case BR_SLO_TTFT:
			if (isfinite(r->ttft_s))
				br_dvec_push(&d, r->ttft_s * 1000.0);
			break;
		case BR_SLO_E2EL:
			if (isfinite(lat))
				br_dvec_push(&d, lat * 1000.0);
			break;
		case BR_SLO_TPOT:
			if (r->output_len_tokens > 1 && isfinite(lat) && isfinite(r->ttft_s))
				br_dvec_push(&d, (lat - r->ttft_s) / (r->output_len_tokens - 1) * 1000.0);
			break;
		case BR_SLO_ITL:
			for (size_t k = 0; k < r->n_itls; k++)
				if (isfinite(r->itls_s[k]))
					br_dvec_push(&d, r->itls_s[k] * 1000.0);
			break;
		}
	}
	*out = d.v;
	return d.n;
}

/*
 * file_pct: the file's own value (ms) of metric m at percentile p: "pP"
 * statistic, or "median" for p50. NAN when absent.
 */
static double
file_pct(const br_bench *b, int m, double p)
{
	double v = br_bench_file_stat(b, metric_names[m], "p", p);
	if (isnan(v) && p == 50)
		v = br_bench_file_stat(b, metric_names[m], "median", NAN);
	return v;
}

/*
 * goodput_bounds: without per-request arrays, the share of the completed
 * requests that meet every per-request term of slo (TTFT, TPOT, E2EL; ITL
 * terms are not per request) is bounded by the file's own percentiles. For
 * a stated percentile p of a term's metric over n = completed requests, at
 * position h = (n − 1)·p/100 (numpy's linear rule): a value within the
 * limit means at least floor(h) + 1 requests meet the term; a value above
 * it means at least n − ceil(h) miss it. Over the terms, the share meeting
 * all is at least 1 − Σ (share missing each) and at most the smallest share
 * meeting one. Out: *lo, *hi in [0, 1]; both NAN when n is unknown.
 */
static void
goodput_bounds(const br_bench *b, const br_slo *slo, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (!(br_isnum(b->completed) && b->completed >= 1))
		return;
	double n = b->completed, miss_sum = 0, meet_max = 1;
	for (size_t k = 0; k < slo->n; k++) {
		const br_slo_term *t = &slo->terms[k];
		if (t->metric == BR_SLO_ITL)
			continue;
		double meet_lo = 0, meet_hi = 1;
		for (size_t i = 0; i < b->n_stats; i++) {
			const br_file_stat *fs = &b->stats[i];
			double pct = strcmp(fs->stat, "median") == 0 ? 50 : strcmp(fs->stat, "p") == 0 ? fs->percentile : NAN;
			if (strcmp(fs->metric, metric_names[t->metric]) != 0 || !(pct >= 0 && pct <= 100) ||
			    !br_isnum(fs->value_ms))
				continue;
			double h = (n - 1) * pct / 100.0;
			if (br_slo_term_holds(t, fs->value_ms))
				meet_lo = fmax(meet_lo, (floor(h) + 1) / n);
			else
				meet_hi = fmin(meet_hi, ceil(h) / n);
		}
		miss_sum += 1 - meet_lo;
		meet_max = fmin(meet_max, meet_hi);
	}
	*lo = fmax(0, 1 - miss_sum);
	*hi = fmax(*lo, meet_max);
}

/*
 * good_request: 1 when successful request r meets every TTFT, TPOT and
 * E2EL term (per request, as vLLM's --goodput; ITL terms are not per
 * request and do not enter). TPOT undefined (output <= 1) passes.
 */
static int
good_request(const br_bench *b, const br_request *r, const br_slo *slo)
{
	if (r->failed)
		return 0;
	double lat = r->latency_s;
	if (!b->has_latencies || !isfinite(lat)) {
		lat = r->ttft_s;
		for (size_t k = 0; k < r->n_itls; k++)
			lat += r->itls_s[k];
	}
	for (size_t k = 0; k < slo->n; k++) {
		const br_slo_term *t = &slo->terms[k];
		double v = NAN;
		if (t->metric == BR_SLO_TTFT)
			v = r->ttft_s * 1000.0;
		else if (t->metric == BR_SLO_E2EL)
			v = lat * 1000.0;
		else if (t->metric == BR_SLO_TPOT) {
			if (r->output_len_tokens <= 1)
				continue;
			v = (lat - r->ttft_s) / (r->output_len_tokens - 1) * 1000.0;
		} else
			continue;
		if (!br_slo_term_holds(t, v))
			return 0;
	}
	return 1;
}

/*
 * run_window: the run window [*lo, *hi) of series s: from the sample
 * before running + waiting first leave 0 to the sample after they last
 * return to 0; the whole series without a running column or busy row.
 */
static void
run_window(const br_series *s, const double *w, const double *run, size_t *lo, size_t *hi)
{
	*lo = 0;
	*hi = s->n_rows;
	if (run == NULL)
		return;
	long first = -1, last = -1;
	for (size_t i = 0; i < s->n_rows; i++) {
		double busy = (isfinite(run[i]) ? run[i] : 0) + (w && isfinite(w[i]) ? w[i] : 0);
		if (busy > 0) {
			if (first < 0)
				first = (long)i;
			last = (long)i;
		}
	}
	if (first >= 0) {
		*lo = first > 0 ? (size_t)first - 1 : 0;
		*hi = (size_t)last + 2 < s->n_rows ? (size_t)last + 2 : s->n_rows;
	}
}

/* br_knee_waiting_share: see knee.h. */
double
br_knee_waiting_share(const br_series *s, size_t *n_samples)
{
	if (n_samples)
		*n_samples = 0;
	if (s == NULL || s->n_rows == 0)
		return NAN;
	const double *w = br_role_col(s, BR_ROLE_WAITING);
	const double *run = br_role_col(s, BR_ROLE_RUNNING);
	if (w == NULL)
		return NAN;
	size_t lo, hi;   /* window [lo, hi) */
	/* the busy span, as the run report's residency reads its gauges (the
	 * window's two idle bracket samples would dilute the share: eighteenth
	 * breaker, 83% here against 86% there) */
	size_t b0, b1;
	if (br_run_busy_span(s, &b0, &b1) == 0) {
		lo = b0;
		hi = b1 + 1;
	} else
		run_window(s, w, run, &lo, &hi);
	size_t n = 0, pos = 0;
	for (size_t i = lo; i < hi; i++) {
		if (!isfinite(w[i]))
			continue;
		n++;
		if (w[i] > 0)
			pos++;
	}
	if (n_samples)
		*n_samples = n;
	return n ? (double)pos / (double)n : NAN;
}

/* br_knee_in_system_mean: see knee.h. */
double
br_knee_in_system_mean(const br_series *s, double duration_s, size_t *n_samples)
{
	if (n_samples)
		*n_samples = 0;
	if (s == NULL || s->n_rows == 0)
		return NAN;
	const double *w = br_role_col(s, BR_ROLE_WAITING);
	const double *run = br_role_col(s, BR_ROLE_RUNNING);
	if (w == NULL || run == NULL)
		return NAN;
	size_t lo, hi;
	run_window(s, w, run, &lo, &hi);
	/* the time integral of running + waiting by trapezoids between usable
	 * samples (the window's idle end samples close the ramps), over the
	 * client's duration: the same denominator as λ, so L / measured is
	 * Σ E2EL against the server's request-seconds. Averaging the samples
	 * instead counted both idle end samples whole, 2/N too low. */
	size_t n = 0;
	double integral = 0, t_prev = NAN, v_prev = NAN, t_first = NAN, t_last = NAN;
	for (size_t i = lo; i < hi; i++) {
		if (!isfinite(w[i]) || !isfinite(run[i]) || s->t_s == NULL || !isfinite(s->t_s[i]))
			continue;
		double v = run[i] + w[i];
		if (n > 0 && s->t_s[i] > t_prev)
			integral += (v + v_prev) / 2.0 * (s->t_s[i] - t_prev);
		if (n == 0)
			t_first = s->t_s[i];
		t_last = s->t_s[i];
		t_prev = s->t_s[i];
		v_prev = v;
		n++;
	}
	if (n_samples)
		*n_samples = n;
	if (n == 0)
		return NAN;
	if (n == 1)
		return v_prev;
	double span = isfinite(duration_s) && duration_s > 0 ? duration_s : t_last - t_first;
	return span > 0 ? integral / span : NAN;
}

/* br_knee_mu_plateau: see knee.h. */
double
br_knee_mu_plateau(const double *achieved_rps, const int *saturated, size_t n,
    size_t *first, size_t *n_plateau, double *spread_frac)
{
	if (first)
		*first = 0;
	if (n_plateau)
		*n_plateau = 0;
	if (spread_frac)
		*spread_frac = NAN;
	/* the saturated levels at the top of the sweep: [top_lo, n) */
	size_t top_lo = n;
	while (top_lo > 0 && saturated[top_lo - 1] && isfinite(achieved_rps[top_lo - 1]) &&
	    achieved_rps[top_lo - 1] > 0)
		top_lo--;
	if (n - top_lo < 2)
		return NAN;
	double mx = 0;
	for (size_t i = top_lo; i < n; i++)
		mx = fmax(mx, achieved_rps[i]);
	/* walk down from the highest level while within the plateau band */
	size_t lo = n;
	while (lo > top_lo && achieved_rps[lo - 1] >= (1.0 - BR_KNEE_PLATEAU_FRAC) * mx)
		lo--;
	size_t m = n - lo;
	if (m < 2)
		return NAN;
	double *v = br_xmalloc(m * sizeof *v);
	for (size_t i = 0; i < m; i++)
		v[i] = achieved_rps[lo + i];
	br_sort_doubles(v, m);
	double mu = br_median_sorted(v, m);
	if (first)
		*first = lo;
	if (n_plateau)
		*n_plateau = m;
	if (spread_frac)
		*spread_frac = (v[m - 1] - v[0]) / mu;
	free(v);
	return mu;
}

/* round3: v rounded to 3 significant digits. */
static double
round3(double v)
{
	if (!(v > 0) || !isfinite(v))
		return v;
	double e = pow(10.0, floor(log10(v)) - 2);
	return round(v / e) * e;
}

/* br_knee_next_rates: see knee.h. */
size_t
br_knee_next_rates(double knee_rps, double fail_rps, double *out)
{
	if (!(isfinite(knee_rps) && isfinite(fail_rps) && knee_rps > 0 && fail_rps > knee_rps))
		return 0;
	for (size_t i = 0; i < BR_KNEE_NEXT_RATES; i++)
		out[i] = round3(knee_rps * pow(fail_rps / knee_rps, (double)(i + 1) / (BR_KNEE_NEXT_RATES + 1)));
	return BR_KNEE_NEXT_RATES;
}

/* br_knee_find: see knee.h. */
void
br_knee_find(const int *meets, const double *goodput, size_t n, long *knee, long *first_fail)
{
	*knee = -1;
	*first_fail = -1;
	for (size_t i = 0; i < n; i++)
		if (!meets[i]) {
			*first_fail = (long)i;
			break;
		}
	double prev = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!meets[i])
			break;
		double g = goodput[i];
		if (!(g > prev) && i > 0)
			break;
		*knee = (long)i;
		prev = isfinite(g) ? g : prev;
	}
}

/*
 * loop_closed: 1 when input i is a closed-loop (concurrency) point.
 * Rule: request_rate inf with a max_concurrency is a closed loop, whatever
 * num_prompts is (a `vllm bench serve --max-concurrency 1` batch-1 run is
 * the C = 1 point of a concurrency sweep, not a rate). A finite rate is
 * always open loop (a capped rate sweep when max_concurrency is set).
 * One exception, for the saturation point of an open-loop rate sweep: some
 * sweep scripts send "inf" with max_concurrency = num_prompts. A cap >=
 * num_prompts never binds, so when another input of the same model is an
 * open-loop finite rate, such an inf point is that rate sweep's saturation
 * point (rate inf), not a closed-loop point.
 */
static int
loop_closed(const br_knee_input *in, size_t n, size_t i)
{
	const br_bench *b = in[i].bench;
	double c = b->max_concurrency;
	if (!isfinite(c) || c <= 0)
		return 0;
	if (!isinf(b->request_rate_rps) || b->request_rate_rps < 0)
		return 0;    /* finite (or absent) rate: open loop, capped */
	if (isfinite(b->num_prompts) && c >= b->num_prompts)
		for (size_t j = 0; j < n; j++) {
			const br_bench *o = in[j].bench;
			if (j != i && isfinite(o->request_rate_rps) && o->request_rate_rps > 0 &&
			    g_strcmp0(o->model_id, b->model_id) == 0)
				return 0;
		}
	return 1;
}

/* start_cmp: order of (start time, TTFT) pairs by start time. */
static int
start_cmp(const void *pa, const void *pb)
{
	const double *a = pa, *b = pb;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/*
 * latency_growth: median TTFT (e2el = 0) or E2E latency (e2el = 1) of the
 * last quarter of successful requests (by start time) over that of the first
 * quarter; NAN without start times, with fewer than 8 such requests or a
 * first-quarter median of 0. A server that keeps up shows ~1; a growing
 * queue shows in TTFT, a decode that falls behind in E2EL.
 */
static double
latency_growth(const br_bench *b, int e2el)
{
	size_t n = 0;
	double *st = br_xcalloc(2 * (b->n_requests + 1), sizeof *st);
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		double v = q->ttft_s;
		if (e2el) {
			v = q->latency_s;
			if (!isfinite(v) && isfinite(q->ttft_s)) {
				v = q->ttft_s;
				for (size_t j = 0; j < q->n_itls; j++)
					if (isfinite(q->itls_s[j]))
						v += q->itls_s[j];
			}
		}
		if (q->failed || !isfinite(q->start_time_s) || !isfinite(v))
			continue;
		st[2 * n] = q->start_time_s;
		st[2 * n + 1] = v;
		n++;
	}
	double g = NAN;
	if (n >= 8) {
		qsort(st, n, 2 * sizeof *st, start_cmp);
		size_t qn = n / 4;
		double *a = br_xcalloc(qn, sizeof *a), *z = br_xcalloc(qn, sizeof *z);
		for (size_t i = 0; i < qn; i++) {
			a[i] = st[2 * i + 1];
			z[i] = st[2 * (n - qn + i) + 1];
		}
		br_sort_doubles(a, qn);
		br_sort_doubles(z, qn);
		double ma = br_median_sorted(a, qn), mz = br_median_sorted(z, qn);
		g = ma > 0 ? mz / ma : NAN;
		free(a);
		free(z);
	}
	free(st);
	return g;
}

/*
 * fill_point: compute every number of one run for the SLO; `closed` as
 * loop_closed says.
 */
static void
fill_point(const br_knee_input *in, int closed, const br_slo *slo, br_knee_point *p)
{
	const br_bench *b = in->bench;
	memset(p, 0, sizeof *p);
	p->name = br_xstrdup(in->name ? in->name : b->source_path);
	p->source_path = br_xstrdup(b->source_path);
	p->date = b->date && *b->date ? br_xstrdup(b->date) : NULL;
	p->source_line = b->source_line;
	p->offered_rps = closed ? NAN : b->request_rate_rps;
	p->concurrency = isfinite(b->max_concurrency) ? b->max_concurrency : NAN;
	p->x = closed ? b->max_concurrency : b->request_rate_rps;
	p->run_number = b->run_number;
	p->num_prompts = b->num_prompts;
	p->completed = b->completed;
	p->failed = b->failed;
	p->duration_s = b->duration_s;
	p->achieved_rps = (isfinite(b->completed) && b->duration_s > 0) ? b->completed / b->duration_s : NAN;
	p->output_tps = b->output_throughput_tps;
	if (isnan(p->output_tps) && isfinite(b->total_output_tokens) && b->duration_s > 0)
		p->output_tps = b->total_output_tokens / b->duration_s;
	p->total_tps = b->total_token_throughput_tps;
	if (isnan(p->total_tps) && isfinite(b->total_output_tokens) && isfinite(b->total_input_tokens) &&
	    b->duration_s > 0)
		p->total_tps = (b->total_input_tokens + b->total_output_tokens) / b->duration_s;
	p->mean_input_tokens = b->completed > 0 ? b->total_input_tokens / b->completed : NAN;
	p->mean_output_tokens = b->completed > 0 ? b->total_output_tokens / b->completed : NAN;

	int arrays = b->n_requests > 0;
	p->latency_from_arrays = arrays;
	double *lat_p[3][2] = { { &p->ttft_p50_ms, &p->ttft_p99_ms }, { &p->tpot_p50_ms, &p->tpot_p99_ms },
		{ &p->e2el_p50_ms, &p->e2el_p99_ms } };
	static const int lat_m[3] = { BR_SLO_TTFT, BR_SLO_TPOT, BR_SLO_E2EL };
	double *samples[BR_SLO_N_METRICS] = { 0 };
	size_t ns[BR_SLO_N_METRICS] = { 0 };
	if (arrays)
		for (int m = 0; m < BR_SLO_N_METRICS; m++) {
			ns[m] = per_request_ms(b, m, &samples[m]);
			if (ns[m])
				br_sort_doubles(samples[m], ns[m]);
		}
	for (int k = 0; k < 3; k++) {
		int m = lat_m[k];
		if (arrays) {
			*lat_p[k][0] = ns[m] ? br_percentile_sorted(samples[m], ns[m], 50) : NAN;
			*lat_p[k][1] = ns[m] ? br_percentile_sorted(samples[m], ns[m], 99) : NAN;
		} else {
			*lat_p[k][0] = file_pct(b, m, 50);
			*lat_p[k][1] = file_pct(b, m, 99);
		}
	}

	p->meets_slo = 1;
	int unknown = 0, some_term_fails = 0;
	for (size_t k = 0; k < slo->n; k++) {
		const br_slo_term *t = &slo->terms[k];
		double v = arrays ? (ns[t->metric] ? br_percentile_sorted(samples[t->metric], ns[t->metric], t->percentile) : NAN)
		                  : file_pct(b, t->metric, t->percentile);
		p->slo_value_ms[k] = v;
		/* the file does not state this percentile, but a lower one it states
		 * already exceeds the limit (pX >= pY for Y <= X: the term fails), or
		 * a higher one is within it (pX <= pZ for Z >= X: the term is met) */
		double lower = NAN, lower_pct = NAN, upper = NAN, upper_pct = NAN;
		p->slo_bound_ms[k] = p->slo_bound_pct[k] = NAN;
		if (isnan(v) && !arrays) {
			br_bench_file_pct_bounds(b, metric_names[t->metric], t->percentile, &lower, &lower_pct,
			    &upper, &upper_pct);
			if (!(isfinite(lower) && !br_slo_term_holds(t, lower)))
				lower = NAN;   /* keep a lower stated pX only when it already fails */
			if (!br_slo_term_holds(t, upper))
				upper = NAN;   /* keep a higher one only when it already holds */
		}
		if (isnan(v) && isfinite(upper)) {
			p->slo_bound_ms[k] = upper;
			p->slo_bound_pct[k] = upper_pct;
			p->slo_term_ok[k] = 1;
			continue;
		}
		if (isnan(v) && isfinite(lower)) {
			p->slo_bound_ms[k] = lower;
			p->slo_bound_pct[k] = lower_pct;
			p->slo_term_ok[k] = 0;
			p->meets_slo = 0;
			some_term_fails = 1;
		} else if (isnan(v)) {
			p->slo_term_ok[k] = -1;
			unknown = 1;
			p->meets_slo = 0;
			if (arrays && b->completed > 0)
				p->slo_no_sample = 1;   /* arrays, but no TPOT / ITL sample */
		} else {
			p->slo_term_ok[k] = br_slo_term_holds(t, v);
			if (!p->slo_term_ok[k]) {
				p->meets_slo = 0;
				some_term_fails = 1;
			}
		}
	}
	/* a known term over its limit fails the SLO whatever the unknown ones say */
	p->slo_evaluable = !unknown || some_term_fails;
	/* failed requests are never good: a run losing more than 1% of them
	 * does not meet any SLO, however fast the survivors were */
	if (br_isnum(b->failed) && b->failed > 0 && br_isnum(b->completed) &&
	    b->failed > 0.01 * (b->failed + b->completed)) {
		p->meets_slo = 0;
		p->failed_too_many = 1;
		p->slo_evaluable = 1;
	}
	/* no successful request at all: nothing meets anything */
	if (!(b->completed > 0)) {
		p->meets_slo = 0;
		p->slo_evaluable = 1;   /* a run of failures fails the SLO, it is not unknown */
	}
	if (arrays) {
		size_t good = 0;
		for (size_t i = 0; i < b->n_requests; i++)
			good += (size_t)good_request(b, &b->requests[i], slo);
		p->good_requests = (double)good;
		p->goodput_rps = b->duration_s > 0 ? (double)good / b->duration_s : NAN;
		p->goodput_exact = 1;
		p->slo_source = BR_KNEE_FROM_ARRAYS;
	} else {
		p->good_requests = NAN;
		p->goodput_exact = 0;
		p->slo_source = unknown ? BR_KNEE_UNKNOWN : BR_KNEE_FROM_FILE_PCT;
		/* not known: bounded by the file's percentiles (goodput_bounds);
		 * the knee search reads the upper bound */
		double lo, hi;
		goodput_bounds(b, slo, &lo, &hi);
		p->goodput_rps = NAN;
		p->goodput_lo_rps = lo * p->achieved_rps;
		p->goodput_hi_rps = hi * p->achieved_rps;
		if (!(b->completed > 0))
			p->goodput_lo_rps = p->goodput_hi_rps = 0;
	}
	if (p->goodput_exact)
		p->goodput_lo_rps = p->goodput_hi_rps = p->goodput_rps;
	if (unknown && arrays)
		p->slo_source = BR_KNEE_UNKNOWN;
	for (int m = 0; m < BR_SLO_N_METRICS; m++)
		free(samples[m]);

	p->waiting_share_frac = br_knee_waiting_share(in->metrics, &p->n_metric_samples);
	/* what the client really sent: the arrivals of a finite Poisson (or
	 * gamma) draw stray from the nominal rate; the server is held to that */
	p->sent_rps = !closed && isfinite(p->offered_rps) ? br_bench_sent_rps(b) : NAN;
	double held_to = isfinite(p->sent_rps) ? p->sent_rps : p->offered_rps;
	p->cannot_keep_up = !closed && isfinite(held_to) && isfinite(p->achieved_rps) &&
	    p->achieved_rps < BR_KNEE_KEEPUP_FRAC * held_to;
	p->ttft_growth = latency_growth(b, 0);
	double e2el_growth = latency_growth(b, 1);
	/* the drain tail: neither TTFT nor E2EL grew over the run, the queue
	 * stayed empty and no request failed (a server shedding load also
	 * completes fewer than it was offered) */
	if (p->cannot_keep_up && isfinite(p->ttft_growth) && p->ttft_growth <= 1.5 &&
	    isfinite(e2el_growth) && e2el_growth <= 1.5 && !(p->failed > 0) &&
	    !(p->waiting_share_frac >= 0.05)) {
		p->cannot_keep_up = 0;
		p->drain_tail = 1;
	}
	/* without start times there is no growth to look at: a run that outlasts
	 * its arrivals by at most one median E2EL is what a drain leaves (the
	 * last request arrives at N / rate and takes about an E2EL), and one that
	 * fell behind outlasts them by about twice its median queue wait */
	double n_req = b->completed + (br_isnum(b->failed) ? b->failed : 0);
	p->drain_excess_s = isfinite(p->offered_rps) && p->offered_rps > 0 && br_isnum(b->duration_s) ?
	    b->duration_s - n_req / p->offered_rps : NAN;
	if (p->cannot_keep_up && !isfinite(p->ttft_growth) && !(p->failed > 0) &&
	    isfinite(p->drain_excess_s) && isfinite(p->e2el_p50_ms) &&
	    p->drain_excess_s <= p->e2el_p50_ms / 1000.0 && !(p->waiting_share_frac >= 0.05)) {
		p->cannot_keep_up = 0;
		p->keep_up_unknown = 1;
	}

	/* Little's law L = λ·W (Little 1961; knee tutorial §3.3): λ the achieved
	 * rate, W the mean E2EL; a finite run that starts and ends empty obeys it
	 * exactly over its duration, so L is the mean number of requests in the
	 * system, to set beside the measured mean of running + waiting */
	p->e2el_mean_ms = NAN;
	if (arrays) {
		double sum = 0;
		size_t cnt = 0;
		double *e = NULL;
		size_t ne = per_request_ms(b, BR_SLO_E2EL, &e);
		for (size_t i = 0; i < ne; i++) {
			sum += e[i];
			cnt++;
		}
		free(e);
		if (cnt > 0)
			p->e2el_mean_ms = sum / (double)cnt;
	} else {
		p->e2el_mean_ms = br_bench_file_stat(b, "e2el", "mean", NAN);
	}
	p->littles_l_requests = isfinite(p->achieved_rps) && isfinite(p->e2el_mean_ms)
	    ? p->achieved_rps * p->e2el_mean_ms / 1000.0 : NAN;
	p->in_system_mean_requests = br_knee_in_system_mean(in->metrics, p->duration_s, &p->in_system_samples);

	/* steady state: the arrivals must last several in-system times W (see
	 * BR_KNEE_STEADY_WINDOWS) for the run to show its plateau, not its ramp */
	double n_arr = br_isnum(b->num_prompts) ? b->num_prompts : n_req;
	p->arrival_window_s = !closed && isfinite(p->offered_rps) && p->offered_rps > 0 && br_isnum(n_arr)
	    ? n_arr / p->offered_rps : NAN;
	p->steady_state = -1;
	if (isfinite(p->arrival_window_s) && isfinite(p->e2el_mean_ms) && p->e2el_mean_ms > 0)
		p->steady_state = p->arrival_window_s >= BR_KNEE_STEADY_WINDOWS * p->e2el_mean_ms / 1000.0;
	/* a run too short for its rate shows no drain tail: over a few arrivals
	 * its latencies cannot grow whether or not the server keeps up
	 * (eighteenth breaker: 12 prompts at 16 req/s, 3.4 req/s completed, was
	 * "keeps up") */
	if (p->drain_tail && p->steady_state == 0) {
		p->drain_tail = 0;
		p->keep_up_unknown = 1;
		p->keep_up_short = 1;
	}
	/* a short run's pass is no verdict: it started with an empty server and
	 * its queue had no time to form (the ramp biases its latencies down). Its
	 * miss stands: a longer run from the same start only adds queueing (a
	 * cold server's warm-up is the other cause; see the repeats' warm-up
	 * rule). A run that could not keep up is a miss whatever it lasted */
	p->verdict_withheld = p->steady_state == 0 && p->slo_evaluable && p->meets_slo && !p->cannot_keep_up;
}

/*
 * br_bench_extra_is_setting (knee.h): 1 when an extra key is a setting that separates curves
 * (`--metadata` strings such as tp, swept server parameters such as
 * max_num_seqs); 0 for anything measured. Measured results are never
 * settings: spec-decode statistics (spec_decode_*, e.g. the per-position
 * acceptance rates), max_output_tokens_per_s, max_concurrent_requests,
 * rtfx, durations, throughputs and goodputs, *_ms statistics, date, and
 * any array or object value (per-request data, per-position rates);
 * bookkeeping (run_number, errors, generated_texts) neither.
 */
int
br_bench_extra_is_setting(const char *key, const char *value)
{
	static const char *const skip[] = { "run_number", "rtfx", "date", "generated_texts", "errors",
		"gpu_memory", "max_output_tokens_per_s", "max_concurrent_requests", "completed", "failed",
		"duration", "input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", NULL };
	static const char *const skip_prefix[] = { "spec_decode_", "mean_", "median_", "std_", "total_",
		"request_goodput", "request_throughput", NULL };
	static const char *const skip_part[] = { "throughput", "goodput", "duration", "tokens_per_s", NULL };
	for (size_t i = 0; skip[i]; i++)
		if (strcmp(key, skip[i]) == 0)
			return 0;
	for (size_t i = 0; skip_prefix[i]; i++)
		if (strncmp(key, skip_prefix[i], strlen(skip_prefix[i])) == 0)
			return 0;
	for (size_t i = 0; skip_part[i]; i++)
		if (strstr(key, skip_part[i]) != NULL)
			return 0;
	size_t kl = strlen(key);
	if (kl > 3 && strcmp(key + kl - 3, "_ms") == 0)
		return 0;
	/* pNN_* statistics the ingest did not recognise */
	if (key[0] == 'p' && isdigit((unsigned char)key[1]))
		return 0;
	if (value != NULL) {
		while (isspace((unsigned char)*value))
			value++;
		if (*value == '[' || *value == '{')
			return 0;   /* arrays and objects are measured data, never a setting */
	}
	return 1;
}

/* fmt_num: a setting value as short text ("4", "1.5", "inf"). */
static void
fmt_num(char *buf, size_t len, double v)
{
	if (isinf(v))
		snprintf(buf, len, "inf");
	else if (isnan(v))
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%.6g", v);
}

/*
 * exact_key: the part of the group key that must match exactly: mode,
 * model, backend, burstiness (rate sweeps), max_concurrency (capped rate sweeps),
 * every extra key=value sorted by key; the bench file when file_tag is
 * not NULL (see model_less_files).
 */
static char *
exact_key(const br_bench *b, int closed, const char *server, const char *file_tag)
{
	char bur[32], mc[32];
	fmt_num(bur, sizeof bur, b->burstiness);
	fmt_num(mc, sizeof mc, b->max_concurrency);
	char *k = br_xasprintf("%s|model=%s|backend=%s", closed ? "concurrency" : "rate",
	    b->model_id ? b->model_id : "?", b->backend ? b->backend : "?");
	if (!closed) {
		char *k2 = br_xasprintf("%s|burstiness=%s", k, bur);
		free(k);
		k = k2;
		if (isfinite(b->max_concurrency) && !(isfinite(b->num_prompts) && b->max_concurrency >= b->num_prompts)) {
			k2 = br_xasprintf("%s|max_concurrency=%s", k, mc);
			free(k);
			k = k2;
		}
	}
	/* extras sorted by key (insertion sort: few keys) */
	size_t n = b->n_extras;
	const br_bench_extra **ex = br_xcalloc(n ? n : 1, sizeof *ex);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!br_bench_extra_is_setting(b->extras[i].key, b->extras[i].value))
			continue;
		size_t j = m++;
		while (j > 0 && strcmp(ex[j - 1]->key, b->extras[i].key) > 0) {
			ex[j] = ex[j - 1];
			j--;
		}
		ex[j] = &b->extras[i];
	}
	for (size_t i = 0; i < m; i++) {
		char *k2 = br_xasprintf("%s|%s=%s", k, ex[i]->key, ex[i]->value ? ex[i]->value : "null");
		free(k);
		k = k2;
	}
	free(ex);
	if (server != NULL) {
		char *k2 = br_xasprintf("%s|server=%s", k, server);
		free(k);
		k = k2;
	}
	if (file_tag != NULL) {
		char *k2 = br_xasprintf("%s|file=%s", k, file_tag);
		free(k);
		k = k2;
	}
	return k;
}

/*
 * model_less_files: tag[i] = the bench file of point i when its model is
 * not stated and some run of another such file sits at the same setting
 * (x, loop): those files are not taken for one setup, since two files that
 * name no model may hold two models (twenty-fourth breaker:
 * SGLang's 70B and 405B sweeps read as repeats of one curve). Every point
 * of a tagged file is tagged, so a file stays one curve. NULL otherwise (a
 * sweep split over several files at distinct settings stays one curve).
 * Returns the number of files tagged.
 */
static size_t
model_less_files(const br_knee_input *in, const br_knee_point *pts, const int *closed_of, size_t n,
    const char **tag)
{
	char *hit = br_xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		tag[i] = NULL;
		for (size_t j = i + 1; j < n; j++)
			if (!in[i].bench->model_id && !in[j].bench->model_id && closed_of[i] == closed_of[j] &&
			    pts[i].x == pts[j].x && pts[i].source_path && pts[j].source_path &&
			    strcmp(pts[i].source_path, pts[j].source_path) != 0)
				hit[i] = hit[j] = 1;
	}
	size_t files = 0;
	for (size_t i = 0; i < n; i++) {
		if (!hit[i])
			continue;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = hit[j] && strcmp(pts[j].source_path, pts[i].source_path) == 0;
		files += !seen;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n && !tag[i]; j++)
			if (hit[j] && !in[i].bench->model_id && pts[i].source_path &&
			    strcmp(pts[i].source_path, pts[j].source_path) == 0)
				tag[i] = pts[i].source_path;
	free(hit);
	return files;
}

/* close_rel: |a-b| <= 10% of max(|a|,|b|), or both absent. */
static int
close_rel(double a, double b)
{
	if (isnan(a) && isnan(b))
		return 1;
	if (isnan(a) || isnan(b))
		return 0;
	return fabs(a - b) <= 0.10 * fmax(fabs(a), fabs(b));
}

/* point_cmp: ascending x, then run_number (NAN last), then the bench
 * file's date (the earlier first, so a level's "first repeat" is the one
 * run first even when repeats are separate run folders; no date last),
 * then name. */
static int
point_cmp(const void *pa, const void *pb)
{
	const br_knee_point *a = pa, *b = pb;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	int ar = isfinite(a->run_number), brn = isfinite(b->run_number);
	if (ar && brn && a->run_number != b->run_number)
		return a->run_number < b->run_number ? -1 : 1;
	if (ar != brn)
		return ar ? -1 : 1;
	if (a->date && b->date && strcmp(a->date, b->date) != 0)
		return strcmp(a->date, b->date);
	if ((a->date != NULL) != (b->date != NULL))
		return a->date ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void split_servers(br_knee_result *out);

/* add_note: append a caveat (formatted) to the result. */
static void
add_note(br_knee_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void
add_note(br_knee_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = br_xvasprintf(fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < r->n_notes; i++)
		if (strcmp(r->notes[i], s) == 0) {
			free(s);
			return;
		}
	r->notes = br_xrealloc(r->notes, (r->n_notes + 1) * sizeof *r->notes);
	r->notes[r->n_notes++] = s;
}

/*
 * group_label: a short human label from the first point's bench: model,
 * in/out tokens, the loop and cap, extras.
 */
static char *
group_label(const br_bench *b, const br_knee_point *p, int closed)
{
	char *s = br_xasprintf("%s", b->model_id ? b->model_id : "model not stated");
	char *t;
	if (isfinite(p->mean_input_tokens) && isfinite(p->mean_output_tokens)) {
		t = br_xasprintf("%s · in/out %.0f/%.0f", s, p->mean_input_tokens, p->mean_output_tokens);
		free(s);
		s = t;
	}
	if (!closed && isfinite(b->max_concurrency) && !(isfinite(b->num_prompts) && b->max_concurrency >= b->num_prompts)) {
		t = br_xasprintf("%s · cap C=%.0f", s, b->max_concurrency);
		free(s);
		s = t;
	}
	if (!closed && isfinite(b->burstiness) && b->burstiness != 1.0) {
		t = br_xasprintf("%s · burstiness %g", s, b->burstiness);
		free(s);
		s = t;
	}
	for (size_t i = 0; i < b->n_extras; i++) {
		if (!br_bench_extra_is_setting(b->extras[i].key, b->extras[i].value))
			continue;
		t = br_xasprintf("%s · %s=%s", s, b->extras[i].key, b->extras[i].value ? b->extras[i].value : "null");
		free(s);
		s = t;
	}
	return s;
}

/* same_num: equal numbers, NAN equal to NAN. */
static int
same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/*
 * same_result: 1 when a and b are the same result object (the same file
 * given twice, or a run=N.json and its copy in summary.json): header,
 * counts, duration, token totals, the file's statistics and the
 * per-request TTFTs and latencies all equal. Two real runs never agree on
 * a duration to the last bit.
 */
static int
same_result(const br_bench *a, const br_bench *b)
{
	if (a == b)
		return 1;
	if (g_strcmp0(a->model_id, b->model_id) != 0 || g_strcmp0(a->date, b->date) != 0 ||
	    g_strcmp0(a->backend, b->backend) != 0)
		return 0;
	const double na[] = { a->duration_s, a->completed, a->failed, a->total_input_tokens,
		a->total_output_tokens, a->request_rate_rps, a->max_concurrency, a->num_prompts,
		a->run_number, a->burstiness, a->output_throughput_tps };
	const double nb[] = { b->duration_s, b->completed, b->failed, b->total_input_tokens,
		b->total_output_tokens, b->request_rate_rps, b->max_concurrency, b->num_prompts,
		b->run_number, b->burstiness, b->output_throughput_tps };
	for (size_t i = 0; i < sizeof na / sizeof na[0]; i++)
		if (!same_num(na[i], nb[i]))
			return 0;
	if (a->n_stats != b->n_stats || a->n_requests != b->n_requests)
		return 0;
	for (size_t i = 0; i < a->n_stats; i++)
		if (strcmp(a->stats[i].key, b->stats[i].key) != 0 || !same_num(a->stats[i].value_ms, b->stats[i].value_ms))
			return 0;
	for (size_t i = 0; i < a->n_requests; i++)
		if (!same_num(a->requests[i].ttft_s, b->requests[i].ttft_s) ||
		    !same_num(a->requests[i].latency_s, b->requests[i].latency_s))
			return 0;
	return 1;
}

/*
 * littles_group: the curve-level Little's-law numbers of G (points sorted,
 * knee and first failure found): μ from the plateau of the level means of
 * the achieved rate (rate curves only), the largest achieved rate, the next
 * rates to run between the knee and the first failing rate with enough
 * prompts for a steady state, and where the queue signal turns on.
 */
static void
littles_group(br_knee_group *G)
{
	G->mu_rps = NAN;
	G->mu_spread_frac = NAN;
	G->mu_first_idx = -1;
	G->mu_n_levels = 0;
	G->max_achieved_rps = NAN;
	G->queue_first_idx = G->queue_last_empty_idx = -1;
	for (size_t i = 0; i < G->n; i++)
		if (isfinite(G->pts[i].achieved_rps) && !(G->pts[i].achieved_rps <= G->max_achieved_rps))
			G->max_achieved_rps = G->pts[i].achieved_rps;
	/* queue signal: the first point with a queue, the last known-empty one before it */
	for (size_t i = 0; i < G->n; i++) {
		double w = G->pts[i].waiting_share_frac;
		if (!isfinite(w))
			continue;
		G->n_queue_known++;
		if (G->queue_first_idx < 0 && w >= BR_KNEE_QUEUE_FRAC)
			G->queue_first_idx = (long)i;
		else if (G->queue_first_idx < 0)
			G->queue_last_empty_idx = (long)i;
	}
	if (G->kind != BR_KNEE_RATE)
		return;
	/* levels: mean achieved rate; saturated when every repeat could not keep
	 * up, or the inf point (every request at once) */
	double *ach = br_xcalloc(G->n ? G->n : 1, sizeof *ach);
	int *sat = br_xcalloc(G->n ? G->n : 1, sizeof *sat);
	size_t *lf = br_xcalloc(G->n ? G->n : 1, sizeof *lf);
	size_t nl = 0;
	for (size_t i = 0; i < G->n;) {
		size_t j = i;
		int all_gap = 1;
		while (j < G->n && G->pts[j].x == G->pts[i].x) {
			all_gap &= G->pts[j].cannot_keep_up;
			j++;
		}
		ach[nl] = G->level_achieved_rps[i];
		sat[nl] = all_gap || isinf(G->pts[i].x);
		lf[nl] = i;
		nl++;
		i = j;
	}
	size_t first = 0, np = 0;
	G->mu_rps = br_knee_mu_plateau(ach, sat, nl, &first, &np, &G->mu_spread_frac);
	G->mu_n_levels = np;
	if (np > 0)
		G->mu_first_idx = (long)lf[first];
	free(ach);
	free(sat);
	free(lf);
	/* next rates: between the knee and the first failing rate; prompts
	 * enough for BR_KNEE_STEADY_WINDOWS in-system times at the first
	 * failing rate's mean E2EL (the longest W of the interval), never fewer
	 * than the knee run had */
	if (G->knee_idx >= 0 && G->first_fail_idx >= 0) {
		const br_knee_point *k = &G->pts[G->knee_idx], *f = &G->pts[G->first_fail_idx];
		G->n_next_rates = br_knee_next_rates(k->x, f->x, G->next_rates_rps);
		for (size_t i = 0; i < G->n_next_rates; i++) {
			double need = isfinite(f->e2el_mean_ms)
			    ? ceil(BR_KNEE_STEADY_WINDOWS * G->next_rates_rps[i] * f->e2el_mean_ms / 1000.0) : NAN;
			/* the prompts the knee run sent: num_prompts, else (SGLang's
			 * lines state none) its completed + failed requests */
			double have = isfinite(k->num_prompts) ? k->num_prompts :
			    isfinite(k->completed) ? k->completed + (isfinite(k->failed) ? k->failed : 0) : NAN;
			G->next_num_prompts[i] = isfinite(have) && isfinite(need) ? fmax(have, need)
			    : isfinite(have) ? have : need;
		}
	}
}

#define DUP_NOTE "Some inputs were given more than once (the same file or folder, or an identical " \
	"result object such as a run=N.json beside its summary.json): each run is counted once."

/* br_knee_add_note: see knee.h. */
void
br_knee_add_note(br_knee_result *r, const char *note)
{
	add_note(r, "%s", note);
}

/* br_knee_duplicate_note: see knee.h. */
const char *
br_knee_duplicate_note(void)
{
	return DUP_NOTE;
}

/* br_knee_analyze: see knee.h. */
int
br_knee_analyze(const br_knee_input *in, size_t n, const br_slo *slo,
    br_knee_result *out, char **cause)
{
	memset(out, 0, sizeof *out);
	if (n == 0) {
		if (cause)
			*cause = br_xstrdup("knee: no runs given");
		return -1;
	}
	out->slo = *slo;
	/* the same run given twice is counted once: keep the first of identical results */
	br_knee_input *uin = br_xmalloc(n * sizeof *uin);
	size_t nu = 0, ndup = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < nu; j++)
			if (same_result(uin[j].bench, in[i].bench))
				break;
		if (j < nu)
			ndup++;
		else
			uin[nu++] = in[i];
	}
	if (ndup > 0)
		add_note(out, "%s", DUP_NOTE);
	in = uin;
	n = nu;
	out->n_runs = n;
	int *closed_of = br_xcalloc(n, sizeof *closed_of);
	for (size_t i = 0; i < n; i++)
		closed_of[i] = loop_closed(in, n, i);
	/* assign runs to groups; rate groups first */
	size_t *gid = br_xmalloc(n * sizeof *gid);
	char **keys = NULL;
	size_t *first = NULL;     /* first input of each group */
	size_t ng = 0;
	br_knee_point *pts = br_xcalloc(n, sizeof *pts);
	for (size_t i = 0; i < n; i++)
		fill_point(&in[i], closed_of[i], slo, &pts[i]);
	/* arrivals that strayed from the nominal rate are said: the table and
	 * the knee keep the offered rate (the setting), the keep-up test the
	 * rate sent */
	for (size_t i = 0; i < n; i++) {
		const br_knee_point *q = &pts[i];
		if (isfinite(q->sent_rps) && isfinite(q->offered_rps) && q->offered_rps > 0 &&
		    fabs(q->sent_rps / q->offered_rps - 1) > 0.05)
			add_note(out, "%s: at %.4g req/s offered the client sent %.3g req/s (%+.0f%%, the arrivals of a "
			    "finite random draw, from its start times): the table and the knee keep the offered rate, the "
			    "setting; whether the server kept up is judged against the rate it was sent.", q->name,
			    q->offered_rps, q->sent_rps, 100 * (q->sent_rps / q->offered_rps - 1));
	}
	/* runs with no completed request have no in/out shape, and runs that
	 * state nothing of their server (no log, no GPU) cannot be told from
	 * any setup: each joins, after the others, the one curve of the same
	 * settings (when exactly one; several setups: the "not stated" curve of
	 * its own) */
	char **bkeys = NULL;      /* each group's key without the server part */
	const char **file_tag = br_xcalloc(n ? n : 1, sizeof *file_tag);
	size_t n_tagged = model_less_files(in, pts, closed_of, n, file_tag);
	if (n_tagged > 0)
		add_note(out, "%zu bench files state no model and hold runs at the same settings: each file is its own "
		    "curve, since runs at one setting from files that name no model may come from different models or "
		    "servers, and they are not taken for repeats of one another.", n_tagged);
	for (int pass = 0; pass < 8; pass++)
		for (size_t i = 0; i < n; i++) {
			int closed = closed_of[i];
			int noserver = in[i].server == NULL;
			int noshape = !isfinite(pts[i].mean_input_tokens);
			if (closed != pass / 4 || noserver != (pass / 2) % 2 || noshape != pass % 2)
				continue;
			char *k = exact_key(in[i].bench, closed, in[i].server, file_tag[i]);
			char *bk = exact_key(in[i].bench, closed, NULL, file_tag[i]);
			size_t g, n_same = 0, same = 0;
			for (g = 0; g < ng; g++) {
				int key_ok = noserver ? strcmp(bkeys[g], bk) == 0 : strcmp(keys[g], k) == 0;
				if (!key_ok)
					continue;
				if (noshape || (close_rel(pts[first[g]].mean_input_tokens, pts[i].mean_input_tokens) &&
				    close_rel(pts[first[g]].mean_output_tokens, pts[i].mean_output_tokens))) {
					if (strcmp(keys[g], k) == 0 && (!noshape || !isfinite(pts[first[g]].mean_input_tokens)))
						break;      /* its own curve: the same setup (or both not stated), and
						               the same shape (or both none) */
					n_same++;
					same = g;
				}
			}
			if (g == ng && n_same == 1)
				g = same;
			if (g == ng) {
				keys = br_xrealloc(keys, (ng + 1) * sizeof *keys);
				bkeys = br_xrealloc(bkeys, (ng + 1) * sizeof *bkeys);
				first = br_xrealloc(first, (ng + 1) * sizeof *first);
				keys[ng] = k;
				bkeys[ng] = bk;
				first[ng] = i;
				ng++;
			} else {
				free(k);
				free(bk);
			}
			gid[i] = g;
		}
	out->groups = br_xcalloc(ng, sizeof *out->groups);
	out->n_groups = ng;
	for (size_t g = 0; g < ng; g++) {
		br_knee_group *G = &out->groups[g];
		const br_bench *b0 = in[first[g]].bench;
		G->kind = closed_of[first[g]] ? BR_KNEE_CONCURRENCY : BR_KNEE_RATE;
		G->label = group_label(b0, &pts[first[g]], G->kind == BR_KNEE_CONCURRENCY);
		if (file_tag[first[g]] != NULL) {   /* its own curve for its file: the file names it */
			char *l2 = br_xasprintf("%s · %s", G->label, br_basename(file_tag[first[g]]));
			free(G->label);
			G->label = l2;
		}
		G->model_id = b0->model_id ? br_xstrdup(b0->model_id) : NULL;
		G->server = in[first[g]].server ? br_xstrdup(in[first[g]].server) : NULL;
		G->backend = b0->backend ? br_xstrdup(b0->backend) : NULL;
		/* same exact key with different lengths: tell the groups apart */
		for (size_t h = 0; h < ng; h++)
			if (h != g && strcmp(keys[h], keys[g]) == 0) {
				char *k2 = br_xasprintf("%s|in=%.0f|out=%.0f", keys[g],
				    pts[first[g]].mean_input_tokens, pts[first[g]].mean_output_tokens);
				G->key = k2;
				break;
			}
		if (G->key == NULL)
			G->key = br_xstrdup(keys[g]);
		for (size_t i = 0; i < n; i++)
			if (gid[i] == g) {
				G->pts = br_xrealloc(G->pts, (G->n + 1) * sizeof *G->pts);
				G->pts[G->n++] = pts[i];
			}
		qsort(G->pts, G->n, sizeof *G->pts, point_cmp);
		/* distinct x levels */
		int *meets = br_xcalloc(G->n, sizeof *meets);
		int *meets_nw = br_xcalloc(G->n, sizeof *meets_nw);   /* the same without a warm-up repeat */
		double *gp = br_xcalloc(G->n, sizeof *gp);
		double *gp_nw = br_xcalloc(G->n, sizeof *gp_nw);
		size_t *lvl_first = br_xcalloc(G->n, sizeof *lvl_first);
		size_t nl = 0;
		G->level_pass = br_xcalloc(G->n, sizeof *G->level_pass);
		G->level_evaluable = br_xcalloc(G->n, sizeof *G->level_evaluable);
		G->level_n = br_xcalloc(G->n, sizeof *G->level_n);
		G->level_warmup = br_xcalloc(G->n, sizeof *G->level_warmup);
		G->level_goodput_rps = br_xcalloc(G->n, sizeof *G->level_goodput_rps);
		G->level_achieved_rps = br_xcalloc(G->n, sizeof *G->level_achieved_rps);
		long *lvl_map = br_xcalloc(G->n, sizeof *lvl_map);   /* level index → its meets/gp slot, -1 skipped */
		for (size_t i = 0; i < G->n;) {
			size_t j = i;
			int ok = 1, ok_rest = 1;    /* ok_rest: the repeats after the first */
			double sum = 0, sum_rest = 0;
			size_t cnt = 0, cnt_rest = 0, pass = 0, eval = 0, eval_rest = 0;
			while (j < G->n && G->pts[j].x == G->pts[i].x) {
				/* a rate the server cannot keep up with is no knee, whatever
				 * the latencies of a finite run say */
				if (G->pts[j].cannot_keep_up) {
					ok = 0;
					if (j > i)
						ok_rest = 0;
				}
				if (G->pts[j].verdict_withheld)
					G->n_withheld++;    /* too short for a verdict: neither meets nor fails */
				else if (G->pts[j].slo_evaluable) {
					ok &= G->pts[j].meets_slo;
					eval++;
					pass += (size_t)G->pts[j].meets_slo;
					if (j > i) {
						ok_rest &= G->pts[j].meets_slo;
						eval_rest++;
					}
				}
				/* the goodput, or for a point without arrays the top of its
				 * range: goodput stops rising only where even that cannot rise
				 * (the percentiles cannot show a fall they do not bound) */
				double gp_j = G->pts[j].goodput_exact ? G->pts[j].goodput_rps : G->pts[j].goodput_hi_rps;
				if (isfinite(gp_j)) {
					sum += gp_j;
					cnt++;
					if (j > i) {
						sum_rest += gp_j;
						cnt_rest++;
					}
				}
				if (!G->pts[j].goodput_exact)
					G->goodput_approx = 1;
				j++;
			}
			if (j - i > 1)
				G->has_repeats = 1;
			/* warm-up: the level's first repeat with a TTFT p99 > 3 × the
			 * median of the others' */
			int warm = 0;
			if (j - i >= 2 && isfinite(G->pts[i].ttft_p99_ms)) {
				double *o = br_xcalloc(j - i, sizeof *o);
				size_t no = 0;
				for (size_t k = i + 1; k < j; k++)
					if (isfinite(G->pts[k].ttft_p99_ms))
						o[no++] = G->pts[k].ttft_p99_ms;
				br_sort_doubles(o, no);
				double med = br_median_sorted(o, no);
				warm = no > 0 && med > 0 && G->pts[i].ttft_p99_ms > 3 * med;
				if (warm)
					add_note(out, "At x = %.4g the first repeat (%s) looks like a warm-up: its TTFT "
					    "p99 of %.1f ms is %.1f× the median TTFT p99 of the other repeats (%.1f ms); drop it or run a "
					    "warm-up round before measuring.", G->pts[i].x, G->pts[i].name,
					    G->pts[i].ttft_p99_ms, G->pts[i].ttft_p99_ms / med, med);
				free(o);
			}
			double asum = 0;
			size_t acnt = 0;
			for (size_t k = i; k < j; k++)
				if (isfinite(G->pts[k].achieved_rps)) {
					asum += G->pts[k].achieved_rps;
					acnt++;
				}
			for (size_t k = i; k < j; k++) {
				G->level_goodput_rps[k] = cnt ? sum / (double)cnt : NAN;
				G->level_achieved_rps[k] = acnt ? asum / (double)acnt : NAN;
				G->level_pass[k] = pass;
				G->level_evaluable[k] = eval;
				G->level_n[k] = j - i;
				G->level_warmup[k] = warm;
			}
			if (eval > 0) {        /* a level no repeat of which is evaluable is skipped */
				meets[nl] = ok;
				meets_nw[nl] = warm && eval_rest > 0 ? ok_rest : ok;
				gp_nw[nl] = warm && cnt_rest > 0 ? sum_rest / (double)cnt_rest : cnt ? sum / (double)cnt : NAN;
				gp[nl] = cnt ? sum / (double)cnt : NAN;
				lvl_first[nl] = i;
				nl++;
			}
			i = j;
		}
		free(lvl_map);
		long knee, ff;
		br_knee_find(meets, gp, nl, &knee, &ff);
		G->knee_idx = knee >= 0 ? (long)lvl_first[knee] : -1;
		G->first_fail_idx = ff >= 0 ? (long)lvl_first[ff] : -1;
		G->pass_after_fail_idx = -1;
		for (long l = ff >= 0 ? ff + 1 : (long)nl; l < (long)nl; l++)
			if (meets[l]) {
				G->pass_after_fail_idx = (long)lvl_first[l];
				break;
			}
		/* the first failing level fails only through a first repeat that
		 * looks like a warm-up: the verdict stands (every repeat must meet),
		 * but the knee and first failure without that repeat are kept */
		G->first_fail_warmup_only = 0;
		G->knee_idx_without_warmup = G->first_fail_idx_without_warmup = -1;
		if (ff >= 0 && meets_nw[ff] && G->level_warmup[lvl_first[ff]]) {
			long knw, ffnw;
			br_knee_find(meets_nw, gp_nw, nl, &knw, &ffnw);
			G->first_fail_warmup_only = 1;
			G->knee_idx_without_warmup = knw >= 0 ? (long)lvl_first[knw] : -1;
			G->first_fail_idx_without_warmup = ffnw >= 0 ? (long)lvl_first[ffnw] : -1;
		}
		G->first_gap_idx = -1;
		for (size_t i = 0; i < G->n; i++)
			if (G->pts[i].cannot_keep_up) {
				G->first_gap_idx = (long)i;
				break;
			}
		/* not reached: the knee is the largest setting swept (a setting the
		 * SLO cannot judge counts: it was swept), none failed and the server
		 * kept up everywhere (audit: "sweep higher rates" beside an 8 req/s
		 * run it could not keep up with, its percentiles missing) */
		G->knee_open = knee >= 0 && ff < 0 && knee == (long)nl - 1 && G->first_gap_idx < 0 &&
		    G->pts[G->knee_idx].x == G->pts[G->n - 1].x;
		littles_group(G);
		for (size_t l = 0; l < nl; l++)
			G->any_meets |= meets[l];
		out->any_meets |= G->any_meets;
		free(meets);
		free(meets_nw);
		free(gp);
		free(gp_nw);
		free(lvl_first);
		if (G->has_repeats)
			add_note(out, "Some settings were run more than once (repeats); a setting meets the SLO only "
			    "when every evaluable repeat does (the table gives the pass count, e.g. 1 of 2), and "
			    "its goodput is the mean of the repeats.");
		if (G->goodput_approx)
			add_note(out, "Some runs have no per-request arrays (--save-detailed): their SLO status uses "
			    "the file's own percentiles, and their goodput is not known but bounded by them (a stated "
			    "percentile within a limit means at least that share of requests meets it; one above, at "
			    "most that share): the table gives the range, the knee search its upper end, and the "
			    "goodput line leaves them out.");
		if (G->n == 1)
			add_note(out, "A curve with a single point has no knee to find: more settings are needed.");
	}
	for (size_t i = 0; i < n; i++) {
		if (isinf(in[i].bench->request_rate_rps) && !closed_of[i])
			add_note(out, "The inf point sends every request at once: it measures the saturated server, "
			    "not a steady state, and is plotted at the right end of the rate axis.");
		if (!pts[i].slo_evaluable && pts[i].slo_no_sample)
			add_note(out, "Some runs have per-request arrays but no sample of a metric the SLO names: "
			    "every request produced a single output token, so there is no TPOT or ITL (the file's "
			    "0s for them are placeholders). The SLO is not evaluable for them; they neither meet "
			    "nor fail it, and a setting none of whose runs is evaluable is left out of the knee. "
			    "Their goodput column follows vllm bench serve, which counts a one-token request's "
			    "TPOT as 0, within any TPOT limit.");
		else if (pts[i].slo_source == BR_KNEE_UNKNOWN && !pts[i].slo_evaluable)
			add_note(out, "Some runs lack a percentile the SLO needs (the file does not state it and has "
			    "no per-request arrays): the SLO is not evaluable for them; they neither meet nor "
			    "fail it, and a setting none of whose runs is evaluable is left out of the knee.");
		if (pts[i].drain_tail)
			add_note(out, "Some runs completed fewer requests per second than offered only because "
			    "a finite run ends with a drain: their TTFT did not grow over the run and the "
			    "queue stayed empty, so they count as keeping up.");
		if (pts[i].failed > 0)
			add_note(out, "Some runs have failed requests: they are never good requests and are left "
			    "out of the percentiles, as vllm bench serve does.");
	}
	for (size_t k = 0; k < slo->n; k++)
		if (slo->terms[k].metric == BR_SLO_ITL)
			add_note(out, "ITL terms apply to the run's pooled ITL percentile; per-request goodput uses "
			    "only the TTFT, TPOT and E2EL terms (ITL is not a per-request quantity).");
	split_servers(out);
	for (size_t g = 0; g < ng; g++) {
		free(keys[g]);
		free(bkeys[g]);
	}
	free(keys);
	free(bkeys);
	free(first);
	free(gid);
	free(file_tag);
	free(pts);     /* the points moved into the groups */
	free(closed_of);
	free(uin);
	return 0;
}

/* base_key: G's key without its "|server=..." part and its "|in=..|out=.."
 * suffix (malloc'd). */
static char *
base_key(const br_knee_group *G)
{
	if (G->server == NULL)
		return br_xstrdup(G->key);
	char *seg = br_xasprintf("|server=%s", G->server);
	const char *at = strstr(G->key, seg);
	char *k = at == NULL ? br_xstrdup(G->key) :
	    br_xasprintf("%.*s%s", (int)(at - G->key), G->key, at + strlen(seg));
	free(seg);
	char *io = strstr(k, "|in=");   /* lengths: compared by same_shape */
	if (io != NULL)
		*io = '\0';
	return k;
}

/* same_shape: the first points of two curves have close mean input and
 * output lengths (close_rel). */
static int
same_shape(const br_knee_group *a, const br_knee_group *b)
{
	return a->n > 0 && b->n > 0 && close_rel(a->pts[0].mean_input_tokens, b->pts[0].mean_input_tokens) &&
	    close_rel(a->pts[0].mean_output_tokens, b->pts[0].mean_output_tokens);
}

/* item_key: the name part of a fingerprint item ("arg max_model_len" of
 * "arg max_model_len=8192"), as a length. */
static size_t
item_key_len(const char *item)
{
	const char *eq = strchr(item, '=');
	return eq ? (size_t)(eq - item) : strlen(item);
}

/* has_item: 1 when the "; "-joined fingerprint fp holds item exactly;
 * with by_key, when it holds an item of the same name. */
static int
has_item(const char *fp, const char *item, int by_key)
{
	if (fp == NULL)
		return 0;
	gchar **v = g_strsplit(fp, "; ", -1);
	size_t kl = item_key_len(item);
	int found = 0;
	for (size_t i = 0; v[i] != NULL && !found; i++)
		found = by_key ? item_key_len(v[i]) == kl && strncmp(v[i], item, kl) == 0 :
		    strcmp(v[i], item) == 0;
	g_strfreev(v);
	return found;
}

/*
 * split_servers: curves of one workload (the same key but for the server
 * part) whose runs met different server setups (GPU, version, running cap,
 * arguments: br_knee_input.server) are kept apart by the grouping; here
 * they are numbered ("server 1", "server 2" in their labels) and a note
 * says what differs between them, so that no reader takes them for one
 * sweep. A run that states no setup (no server log, no GPU in run.json) is
 * its own "not stated" server.
 */
static void
split_servers(br_knee_result *out)
{
	size_t ng = out->n_groups;
	char **base = br_xcalloc(ng ? ng : 1, sizeof *base);
	for (size_t g = 0; g < ng; g++)
		base[g] = base_key(&out->groups[g]);
	for (size_t g = 0; g < ng; g++) {
		if (out->groups[g].server_number != 0)
			continue;
		/* the family of g: the curves with its base key */
		size_t fam[64], nf = 0;
		for (size_t h = g; h < ng && nf < 64; h++)
			if (strcmp(base[h], base[g]) == 0 && same_shape(&out->groups[h], &out->groups[g]))
				fam[nf++] = h;
		if (nf < 2)
			continue;
		GPtrArray *lines = g_ptr_array_new_with_free_func(free);
		for (size_t k = 0; k < nf; k++) {
			br_knee_group *G = &out->groups[fam[k]];
			G->server_number = (int)k + 1;
			char *l2 = br_xasprintf("%s · server %d", G->label, G->server_number);
			free(G->label);
			G->label = l2;
			/* its items not shared by every curve of the family, and the
			 * names the others state that it does not */
			GString *d = g_string_new(NULL);
			gchar **v = G->server ? g_strsplit(G->server, "; ", -1) : NULL;
			for (size_t i = 0; v && v[i] != NULL; i++) {
				int everywhere = 1;
				for (size_t j = 0; j < nf && everywhere; j++)
					everywhere = out->groups[fam[j]].server == NULL ||
					    has_item(out->groups[fam[j]].server, v[i], 0);
				if (!everywhere)
					g_string_append_printf(d, "%s%s", d->len ? ", " : "", v[i]);
			}
			g_strfreev(v);
			for (size_t j = 0; j < nf; j++) {
				gchar **o = out->groups[fam[j]].server ? g_strsplit(out->groups[fam[j]].server, "; ", -1) : NULL;
				for (size_t i = 0; o && o[i] != NULL; i++) {
					size_t kl = item_key_len(o[i]);
					if (has_item(G->server, o[i], 1))
						continue;
					char *nm = br_xasprintf("%.*s not stated", (int)kl, o[i]);
					if (strstr(d->str, nm) == NULL)
						g_string_append_printf(d, "%s%s", d->len ? ", " : "", nm);
					free(nm);
				}
				g_strfreev(o);
			}
			char *line = br_xasprintf("server %d (%zu run%s): %s.", G->server_number, G->n,
			    G->n == 1 ? "" : "s", G->server == NULL ? "not stated (no server log, no gpu in run.json), "
			    "so it may be any of the others" :
			    d->len ? d->str : "as the others");
			g_ptr_array_add(lines, line);
			g_string_free(d, TRUE);
		}
		add_note(out, "The runs of one workload met %zu different server setups, so each is its own curve "
		    "with its own knee (one curve over several servers would describe none of them); what differs "
		    "follows.", nf);
		for (size_t k = 0; k < lines->len; k++)
			add_note(out, "%s", (const char *)g_ptr_array_index(lines, k));
		g_ptr_array_free(lines, TRUE);
	}
	for (size_t g = 0; g < ng; g++)
		free(base[g]);
	free(base);
}

/* free_point: strings of one point. */
static void
free_point(br_knee_point *p)
{
	free(p->name);
	free(p->source_path);
	free(p->date);
}

/* br_knee_free: see knee.h. */
void
br_knee_free(br_knee_result *r)
{
	if (r == NULL)
		return;
	for (size_t g = 0; g < r->n_groups; g++) {
		br_knee_group *G = &r->groups[g];
		for (size_t i = 0; i < G->n; i++)
			free_point(&G->pts[i]);
		free(G->pts);
		free(G->label);
		free(G->key);
		free(G->model_id);
		free(G->backend);
		free(G->server);
		free(G->level_pass);
		free(G->level_evaluable);
		free(G->level_n);
		free(G->level_warmup);
		free(G->level_goodput_rps);
		free(G->level_achieved_rps);
	}
	free(r->groups);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	memset(r, 0, sizeof *r);
}
