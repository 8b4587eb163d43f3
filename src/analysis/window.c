/*
 * Run window in a metrics series and reset-aware counter deltas
 * (DESIGN.md §3.1).
 */
#include <math.h>
#include <stdlib.h>
#include "benchreport/analysis.h"
#include "benchreport/model.h"
#include "benchreport/common.h"
#include "benchreport/run.h"

/*
 * br_run_window: see analysis.h. The first and last busy rows are found;
 * the window extends one answered sample before the first and one after
 * the last (the idle samples that bracket the run; failed scrapes between
 * are passed over), so counter deltas over it catch everything the run did.
 */
int
br_run_window(const br_series *s, size_t *i0, size_t *i1)
{
	size_t first, last;
	if (br_run_busy_span(s, &first, &last) != 0)
		return -1;
	/* the bracketing samples are the nearest scrapes that answered: a
	 * failed one (no running value) next to the load would end the window
	 * on counters read while requests still ran (sixteenth breaker: every
	 * counter short by its last second, "3 disagree") */
	const double *running = br_role_col(s, BR_ROLE_RUNNING);
	size_t b = first, e = last + 1;
	if (b > 0) {
		b--;
		while (b > 0 && !br_isnum(running[b]))
			b--;
	}
	while (e < s->n_rows && !br_isnum(running[e]))
		e++;
	*i0 = b;
	*i1 = e < s->n_rows ? e : s->n_rows - 1;
	return 0;
}

/* br_run_counter_window: see analysis_blocks.h. */
int
br_run_counter_window(const br_run *run, size_t *i0, size_t *i1)
{
	const br_series *s = run ? run->metrics : NULL;
	if (br_run_window(s, i0, i1) != 0)
		return -1;
	const br_bench *b = run->bench.n > 0 ? &run->bench.runs[0] : NULL;
	if (b == NULL || !br_isnum(b->duration_s) || s->t_s == NULL || s->n_rows < 2)
		return 0;
	double step = (s->t_s[s->n_rows - 1] - s->t_s[0]) / (double)(s->n_rows - 1);
	double reach = b->duration_s + 2 * step;
	/* the rows where a work counter rose over its previous numeric sample */
	static const int work[3] = { BR_ROLE_REQUEST_SUCCESS, BR_ROLE_PROMPT_TOKENS, BR_ROLE_GENERATION_TOKENS };
	int *rise = br_xcalloc(s->n_rows, sizeof *rise);   /* rise[r]: rose at r; prev row in rise_from */
	size_t *rise_from = br_xcalloc(s->n_rows, sizeof *rise_from);
	for (int k = 0; k < 3; k++) {
		const double *c = br_role_col(s, work[k]);
		long prev = -1;
		for (size_t r = 0; c != NULL && r < s->n_rows; r++) {
			if (!br_isnum(c[r]))
				continue;
			if (prev >= 0 && c[r] > c[prev]) {
				if (!rise[r] || (size_t)prev < rise_from[r])
					rise_from[r] = (size_t)prev;
				rise[r] = 1;
			}
			prev = (long)r;
		}
	}
	/* grow outward, the nearest rise first, while the span stays in reach */
	size_t lo = *i0, hi = *i1;
	for (size_t r = lo + 1; r-- > 0;)   /* a rise at lo itself began before it */
		if (rise[r] && rise_from[r] < lo && s->t_s[hi] - s->t_s[rise_from[r]] <= reach)
			lo = rise_from[r];
	for (size_t r = hi + 1; r < s->n_rows; r++)
		if (rise[r] && s->t_s[r] - s->t_s[lo] <= reach)
			hi = r;
	free(rise);
	free(rise_from);
	*i0 = lo;
	*i1 = hi;
	return 0;
}

/* br_run_busy_span: see analysis_blocks.h. */
int
br_run_busy_span(const br_series *s, size_t *b0, size_t *b1)
{
	if (s == NULL || s->n_rows < 2)
		return -1;
	const double *running = br_role_col(s, BR_ROLE_RUNNING);
	const double *waiting = br_role_col(s, BR_ROLE_WAITING);
	if (running == NULL)
		return -1;
	size_t first = s->n_rows, last = 0;
	for (size_t r = 0; r < s->n_rows; r++) {
		if (br_rows_in_flight(running, waiting, r) > 0) {
			if (first == s->n_rows)
				first = r;
			last = r;
		}
	}
	if (first == s->n_rows)
		return -1;
	*b0 = first;
	*b1 = last;
	return 0;
}

/*
 * br_counter_delta: see analysis.h. Consecutive numeric samples a → b add
 * b − a when b >= a, else b (the counter restarted from 0 and reached b).
 */
double
br_counter_delta(const double *col, size_t i0, size_t i1, int *resets)
{
	if (resets != NULL)
		*resets = 0;
	if (col == NULL || i1 < i0)
		return NAN;
	double prev = NAN, sum = 0;
	size_t seen = 0;
	for (size_t r = i0; r <= i1; r++) {
		double v = col[r];
		if (!br_isnum(v))
			continue;
		if (seen > 0) {
			if (v >= prev) {
				sum += v - prev;
			} else {
				sum += v;
				if (resets != NULL)
					(*resets)++;
			}
		}
		prev = v;
		seen++;
	}
	return seen >= 2 ? sum : NAN;
}
