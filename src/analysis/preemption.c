/*
 * Preemption events (DESIGN.md §3.5) from a 1 Hz metrics series.
 *
 * An event is a sample r of the run window where vllm:num_preemptions_total
 * rose over the previous numeric sample q (count = the rise; after a counter
 * reset, the new value). For each event:
 *   KV before = vllm:kv_cache_usage_perc of sample q, KV after = of r,
 *   released  = (KV before − KV after) · P tokens  (P = KV pool tokens, §3.3),
 *   running before/after = vllm:num_requests_running of q and r.
 * When q is more than BR_PREEMPTION_COARSE_STEP_S before r (rows dropped or
 * scrapes missed), the event spans a gap: its count stands but its KV
 * before, release and running before are not read (NAN), and it is neither
 * a multi-preemption sample nor part of max_per_event.
 * An event whose KV before lies more than BR_PREEMPTION_BAND_FRAC below the
 * median of the events' (5 or more readings) and whose release is under
 * BR_PREEMPTION_BAND_RELEASE_FRAC of the others' median is below_band: KV
 * climbed to the trigger and fell back between two samples (mark_below_band);
 * it counts, but stays out of the trigger level and the released means,
 * which average only the readings where KV fell. The pace of the events is
 * tested against a constant rate (steady_pace).
 * Summary: trigger level = mean KV before; interval = mean gap between
 * consecutive events; rate = Δcounter / window length · 60 per minute; mean
 * released tokens per event (and Σ released / Σ preemptions per
 * preemption). One sample holding several preemptions is counted in
 * n_multi_events. A before/after pair gives the count (its delta) only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/analysis_overload.h"
#include "benchreport/model.h"
#include "benchreport/common.h"
#include "benchreport/stats.h"

static const char NEED_SERIES[] =
    "needs a 1 Hz metrics series with vllm:num_preemptions_total";
static const char NEED_SERIES_PAIR[] =
    "preemption times need a 1 Hz metrics series with vllm:num_preemptions_total; "
    "a before/after pair gives the count only";

/* cell: col[r], or NAN when the column is absent. */
static double
cell(const double *col, size_t r)
{
	return col != NULL ? col[r] : NAN;
}

/*
 * reset_out: every number NAN, no events, unavailable with NEED_SERIES.
 */
static void
reset_out(br_preemptions *out)
{
	memset(out, 0, sizeof *out);
	out->missing = NEED_SERIES;
	out->n_preemptions = NAN;
	out->window_start_t_s = out->window_end_t_s = out->window_s = NAN;
	out->max_per_event = out->trigger_kv_frac = out->mean_interval_s = NAN;
	out->rate_per_min = out->mean_released_tokens = out->total_released_tokens = NAN;
	out->mean_released_per_preemption_tokens = out->sample_step_s = NAN;
	out->max_gap_event_s = NAN;
	out->below_band_min_kv_frac = out->trigger_min_kv_frac = NAN;
	out->steady_first_s = out->steady_last_s = out->steady_ks_d = out->steady_ks_crit = NAN;
}

/*
 * mark_below_band: mark the events whose reading is a climb and release
 * the samples missed: KV before more than BR_PREEMPTION_BAND_FRAC below the
 * median KV before of the events read (across_gap ones aside; 5 readings or
 * more) AND a release reading under BR_PREEMPTION_BAND_RELEASE_FRAC of the
 * median positive release of the others (r2 simulated: 95.11% -> 95.04%,
 * 80 tokens against ~6,250). A preemption that read low but released a
 * victim's worth fired there (large prefill chunks can preempt below a full
 * cache; brk23: 19 of 30 such events were genuine): it stays in. Without
 * release readings (no pool) nothing is marked. Counts them
 * (n_below_band, below_band_min_kv_frac).
 */
static void
mark_below_band(br_preemptions *out)
{
	double *v = br_xmalloc((out->n_events + 1) * sizeof *v);   /* KV befores, then releases */
	size_t n = 0;
	for (size_t k = 0; k < out->n_events; k++)
		if (!out->events[k].across_gap && br_isnum(out->events[k].kv_before_frac))
			v[n++] = out->events[k].kv_before_frac;
	double med = NAN;
	if (n >= 5) {
		br_sort_doubles(v, n);
		med = br_median_sorted(v, n);
	}
	/* the median positive release of the events in the band */
	size_t nr = 0;
	for (size_t k = 0; br_isnum(med) && k < out->n_events; k++) {
		const br_preemption_event *e = &out->events[k];
		if (!e->across_gap && br_isnum(e->kv_before_frac) && e->kv_before_frac >= med - BR_PREEMPTION_BAND_FRAC &&
		    br_isnum(e->released_tokens) && e->released_tokens > 0)
			v[nr++] = e->released_tokens;
	}
	double med_rel = NAN;
	if (nr > 0) {
		br_sort_doubles(v, nr);
		med_rel = br_median_sorted(v, nr);
	}
	for (size_t k = 0; br_isnum(med_rel) && k < out->n_events; k++) {
		br_preemption_event *e = &out->events[k];
		if (e->across_gap || !br_isnum(e->kv_before_frac) || !(e->kv_before_frac < med - BR_PREEMPTION_BAND_FRAC) ||
		    !br_isnum(e->released_tokens) || !(e->released_tokens < BR_PREEMPTION_BAND_RELEASE_FRAC * med_rel))
			continue;
		e->below_band = 1;
		out->n_below_band++;
		if (!(out->below_band_min_kv_frac <= e->kv_before_frac))
			out->below_band_min_kv_frac = e->kv_before_frac;
	}
	free(v);
}

/*
 * steady_pace: test whether the preemptions came at a constant rate from
 * the first event to the last (the reference's Figure 5: "an almost
 * straight staircase ... part of the steady state"): the one-sample
 * Kolmogorov-Smirnov distance D between the cumulative count (each event
 * weighted by its count n_k, N in all) and the uniform distribution on
 * [t_first, t_last]: D = max over events of |C_k / N - u_k| and
 * |C_(k-1) / N - u_k|, u_k = (t_k - t_first) / (t_last - t_first); and
 * its 5% critical value by Stephens' approximation (Stephens 1970, JRSS B
 * 32: 1.358 / (sqrt N + 0.12 + 0.11 / sqrt N)). Not tested (NAN) with
 * fewer than BR_PREEMPTION_STEADY_MIN preemptions, an event across a gap
 * (its time is unknown), a time missing, all events in one sample, or a
 * first-to-last span under BR_PREEMPTION_STEADY_SPAN_FRAC of the window.
 */
static void
steady_pace(br_preemptions *out)
{
	double total = 0;
	for (size_t k = 0; k < out->n_events; k++) {
		const br_preemption_event *e = &out->events[k];
		if (e->across_gap || !br_isnum(e->t_since_start_s) || !br_isnum(e->count) || e->count <= 0)
			return;
		total += e->count;
	}
	if (total < BR_PREEMPTION_STEADY_MIN)
		return;
	double a = out->events[0].t_since_start_s, b = out->events[out->n_events - 1].t_since_start_s;
	if (!(b > a) || !(b - a >= BR_PREEMPTION_STEADY_SPAN_FRAC * out->window_s))
		return;   /* a burst, however even inside, is not the run's steady state */
	double d = 0, cum = 0;
	for (size_t k = 0; k < out->n_events; k++) {
		double u = (out->events[k].t_since_start_s - a) / (b - a);
		double lo = fabs(cum / total - u);
		cum += out->events[k].count;
		double hi = fabs(cum / total - u);
		if (lo > d)
			d = lo;
		if (hi > d)
			d = hi;
	}
	double rn = sqrt(total);
	out->steady_first_s = a;
	out->steady_last_s = b;
	out->steady_ks_d = d;
	out->steady_ks_crit = 1.358 / (rn + 0.12 + 0.11 / rn);
}

/*
 * summarize: the summary numbers from the events already collected and the
 * window; each is NAN when its inputs are (no event with a KV number, fewer
 * than two events for an interval, a window of zero length, ...).
 */
static void
summarize(br_preemptions *out)
{
	mark_below_band(out);
	double kv_sum = 0, rel_sum = 0, rel_cnt_sum = 0;
	size_t kv_n = 0, rel_n = 0, rel_in_band = 0;
	for (size_t k = 0; k < out->n_events; k++) {
		const br_preemption_event *e = &out->events[k];
		if (e->across_gap) {
			out->n_gap_events++;
			out->n_gap_multi_events += e->count > 1;
			if (!(out->max_gap_event_s >= e->span_s))
				out->max_gap_event_s = e->span_s;
			continue;
		}
		if (!(out->max_per_event >= e->count))
			out->max_per_event = e->count;
		if (e->count > 1)
			out->n_multi_events++;
		if (br_isnum(e->released_tokens)) {   /* every reading, for the "unreadable" rule */
			rel_n++;
			out->n_release_negative += e->released_tokens <= 0;
		}
		if (e->below_band)   /* counted; not a trigger level or a release */
			continue;
		if (br_isnum(e->kv_before_frac)) {
			kv_sum += e->kv_before_frac;
			kv_n++;
			if (!(out->trigger_min_kv_frac <= e->kv_before_frac))
				out->trigger_min_kv_frac = e->kv_before_frac;
		}
		/* a reading where KV did not fall says nothing of the release (the
		 * table prints "—"): only the falls are averaged */
		if (br_isnum(e->released_tokens) && e->released_tokens > 0) {
			rel_sum += e->released_tokens;
			rel_cnt_sum += e->count;
			rel_in_band++;
		}
	}
	if (kv_n > 0)
		out->trigger_kv_frac = kv_sum / (double)kv_n;
	out->n_release_readings = rel_n;
	out->n_release_used = rel_in_band;
	/* one reading in five or more shows KV rising: admissions between two
	 * samples hide what the victims freed, and the sum undercounts it */
	int hidden = rel_n > 0 && 5 * out->n_release_negative >= rel_n;
	if (rel_in_band > 0 && rel_sum > 0 && !hidden) {
		out->total_released_tokens = rel_sum;
		out->mean_released_tokens = rel_sum / (double)rel_in_band;
		if (rel_cnt_sum > 0)
			out->mean_released_per_preemption_tokens = rel_sum / rel_cnt_sum;
	} else if (rel_n > 0) {
		/* KV usage did not fall over the preemption samples (or rose over
		 * a fifth of them): at 1 Hz the blocks a victim frees are refilled
		 * by admissions within the same second, so the series cannot show
		 * how much a preemption released (a negative "release" is not a
		 * quantity of recompute) */
		out->released_unreadable = 1;
	}
	if (out->n_events >= 2) {
		double a = out->events[0].t_epoch_s;
		double b = out->events[out->n_events - 1].t_epoch_s;
		if (br_isnum(a) && br_isnum(b))
			out->mean_interval_s = (b - a) / (double)(out->n_events - 1);
	}
	if (br_isnum(out->window_s) && out->window_s > 0 && br_isnum(out->n_preemptions))
		out->rate_per_min = out->n_preemptions / out->window_s * 60.0;
	steady_pace(out);
}

/*
 * v0_log_count: with no metrics counter, the count the server log's V0
 * preemption warnings prove inside the run (br_server_log.v0_in_run_bound,
 * a lower bound: V0 prints one warning per 50 preemptions); nothing when
 * the log has none inside the run.
 */
static void
v0_log_count(const br_run *run, br_preemptions *out)
{
	const br_server_log *l = run != NULL ? run->log : NULL;
	if (l == NULL || l->n_v0_in_run == 0 || !br_isnum(l->v0_in_run_bound))
		return;
	out->n_preemptions = l->v0_in_run_bound;
	out->count_available = 1;
	out->count_lower_bound = 1;
	out->count_from_v0_log = 1;
	out->count_source = "server log (V0 preemption warnings)";
}

/*
 * br_analyze_preemptions: see analysis_overload.h. The rows are the run
 * window of the series (br_counter_span: the whole series when it has no
 * window). res may supply the window start (the same br_run_window rows);
 * cap supplies P. Never fails: unavailable blocks say why.
 */
void
br_analyze_preemptions(const br_run *run, const br_residency *res,
    const br_capacity *cap, br_preemptions *out)
{
	reset_out(out);
	/* the wording of what is missing, for the engine that served the run */
	br_engine engine = br_run_engine(run);
	const char *absent = br_role_absent(engine, BR_ROLE_PREEMPTIONS);
	if (absent != NULL)
		out->missing = absent;
	else if (engine == BR_ENGINE_SGLANG)
		out->missing = "needs a 1 Hz metrics series with sglang:num_retracted_requests_total "
		    "(SGLang's retractions, its preemptions)";
	if (run == NULL || run->metrics == NULL) {
		v0_log_count(run, out);
		return;
	}
	const br_series *s = run->metrics;
	const double *pre = br_role_col(s, BR_ROLE_PREEMPTIONS);
	if (pre == NULL) {
		v0_log_count(run, out);
		return;
	}
	if (run->preemptions_suspect) {
		out->missing = run->preemptions_suspect == 2 ? "the preemption counter holds a value that is not "
		    "a count (see the notes), so its count is unknown" : "the preemption counter falls while the "
		    "other counters rise, so its count is suspect";
		return;
	}
	size_t i0, i1;
	const char *source;
	if (br_counter_span(run, &i0, &i1, &source) != 0)
		return;
	int resets = 0;
	out->n_preemptions = br_counter_delta(pre, i0, i1, &resets);
	/* a restart the counter did not show (it was 0 on both sides) may be
	 * marked by the sampler's own column */
	long mk = br_series_col_index(s, "benchreport:server_restart");
	int marked = 0;
	for (size_t r = i0 + 1; mk >= 0 && r <= i1 && r < s->n_rows; r++)
		marked += s->cols[mk][r] == 1;
	out->server_restarts = marked > resets ? marked : resets;
	out->count_available = br_isnum(out->n_preemptions);
	out->count_source = out->count_available ? source : NULL;
	out->count_lower_bound = out->count_available && (run->metrics_cut != 0 || out->server_restarts > 0);
	if (run->metrics_kind == BR_METRICS_PAIR) {
		/* a counter that is not a number in either snapshot (NaN, an
		 * empty cell) leaves not even the count (eighteenth breaker: the
		 * count vanished under "a pair gives the count only") */
		out->missing = !out->count_available ? "the before/after pair does not hold a numeric preemption "
		    "counter in both snapshots (NaN or absent in one), so not even the preemption count is known" :
		    engine == BR_ENGINE_SGLANG ? "retraction times need a 1 Hz metrics "
		    "series; a before/after pair gives the count only" : NEED_SERIES_PAIR;
		return;
	}
	if (!out->count_available)
		return;   /* fewer than two numeric counter samples */

	if (s->t_s != NULL) {
		out->window_start_t_s = s->t_s[i0];
		out->window_end_t_s = s->t_s[i1];
	}
	if (res != NULL && res->available && br_isnum(res->window_start_t_s) &&
	    br_isnum(res->window_end_t_s)) {
		out->window_start_t_s = res->window_start_t_s;
		out->window_end_t_s = res->window_end_t_s;
	}
	out->window_s = out->window_end_t_s - out->window_start_t_s;

	double P = cap != NULL ? cap->kv_pool_tokens : NAN;
	const double *kv = br_role_col(s, BR_ROLE_KV_USAGE_FRAC);
	const double *running = br_role_col(s, BR_ROLE_RUNNING);
	size_t cap_ev = 0, q = 0;
	double prev = NAN;
	for (size_t r = i0; r <= i1; r++) {
		double v = pre[r];
		if (!br_isnum(v))
			continue;
		double rise = NAN;
		size_t before = q;                     /* the sample the counter was last read in */
		if (br_isnum(prev))
			rise = v >= prev ? v - prev : v;   /* v < prev: restarted from 0 */
		prev = v;
		q = r;
		if (!br_isnum(rise) || rise <= 0 || r == 0)
			continue;
		if (out->n_events == cap_ev) {
			cap_ev = cap_ev ? 2 * cap_ev : 16;
			out->events = br_xrealloc(out->events, cap_ev * sizeof *out->events);
		}
		br_preemption_event *e = &out->events[out->n_events++];
		e->row = r;
		e->t_epoch_s = s->t_s != NULL ? s->t_s[r] : NAN;
		e->t_since_start_s = e->t_epoch_s - out->window_start_t_s;
		e->count = rise;
		e->span_s = s->t_s != NULL ? s->t_s[r] - s->t_s[before] : NAN;
		e->across_gap = br_isnum(e->span_s) && e->span_s > BR_PREEMPTION_COARSE_STEP_S;
		e->below_band = 0;   /* mark_below_band, once every event is read */
		e->kv_before_frac = e->across_gap ? NAN : cell(kv, before);
		e->kv_after_frac = cell(kv, r);
		e->released_tokens = br_isnum(P) && P > 0 ?
		    (e->kv_before_frac - e->kv_after_frac) * P : NAN;
		e->running_before = e->across_gap ? NAN : cell(running, before);
		e->running_after = cell(running, r);
	}
	out->available = 1;
	out->missing = NULL;
	summarize(out);
	out->sample_step_s = br_series_median_step_s(s, i0, i1);
	if (br_isnum(out->sample_step_s) && out->sample_step_s > BR_PREEMPTION_COARSE_STEP_S &&
	    out->n_events > 0) {
		out->coarse = 1;
		out->trigger_kv_frac = out->trigger_min_kv_frac = NAN;
		out->mean_released_tokens = out->total_released_tokens = NAN;
		out->mean_released_per_preemption_tokens = NAN;
		out->released_unreadable = 1;
	}
}

/* br_preemptions_free: free the events array (NULL ok) and reset counts. */
void
br_preemptions_free(br_preemptions *p)
{
	if (p == NULL)
		return;
	free(p->events);
	p->events = NULL;
	p->n_events = 0;
}
