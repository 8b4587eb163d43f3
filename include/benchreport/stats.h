/*
 * Statistics the analyses rest on, own code tested against numpy.
 * No allocation is visible to callers except where stated.
 */
#ifndef BENCHREPORT_STATS_H
#define BENCHREPORT_STATS_H

#include <stddef.h>

/* Sort ascending in place (NaN must have been removed by the caller). */
void br_sort_doubles(double *x, size_t n);

/*
 * br_percentile_sorted: percentile p (0..100) of an ascending array, numpy
 * `percentile(..., method="linear")` (Hyndman–Fan type 7): position
 * h = (n-1)·p/100, x[floor h] + (h - floor h)·(x[floor h + 1] - x[floor h]).
 * n == 0 → NAN.
 */
double br_percentile_sorted(const double *sorted, size_t n, double p);

/*
 * br_median_sorted: numpy.median of an ascending array: the middle element,
 * or (a + b) / 2 of the two middle ones (may differ from the 50th
 * percentile in the last bit). n == 0 → NAN. (Added by the analysis helper.)
 */
double br_median_sorted(const double *sorted, size_t n);

double br_mean(const double *x, size_t n);       /* NAN when n == 0 */
double br_std_pop(const double *x, size_t n);    /* population (ddof=0), as numpy.std; NAN when n == 0 */

/* Descriptive statistics of a sample, in the unit of the input. */
typedef struct br_describe_t {
	size_t count;
	double mean, std, min, max;
	double median, p90, p99, p999, p9999;   /* numpy-linear percentiles */
} br_describe_t;

/*
 * br_describe: statistics of x[0..n) (NaN entries skipped; the input is not
 * modified, a sorted copy is made internally). n == 0 → count 0, all NAN.
 */
void br_describe(const double *x, size_t n, br_describe_t *out);

/*
 * br_describe_sort: br_describe on x[0..n) (no NaN allowed), sorting x in
 * place: afterwards x is ascending. Same numbers as br_describe.
 */
void br_describe_sort(double *x, size_t n, br_describe_t *out);

/*
 * Ordinary least squares y = a + b·x with standard errors and R².
 * se_a, se_b from the residual variance s² = SSR/(n-2) (NAN when n < 3).
 * Returns 0, or -1 when n < 2 or all x equal.
 */
typedef struct br_linfit_t {
	double a, b, se_a, se_b, r2;
	size_t n;
} br_linfit_t;
int br_linfit(const double *x, const double *y, size_t n, br_linfit_t *out);

/* ---- Repeat statistics (src/stats/repeats.c) ---- */

/*
 * Student's t distribution with df > 0 degrees of freedom (df may be
 * fractional, Welch). Formulas: P(|T| > |t|) = I_x(df/2, 1/2) with
 * x = df/(df + t²), I the regularised incomplete beta function evaluated by
 * its continued fraction with modified Lentz (Numerical Recipes 3rd ed.
 * §6.4, betacf) and a cancellation-free log Beta for large df. df = +INFINITY
 * gives the standard normal. Accuracy about 1e-13 relative to scipy for df
 * in [1, 1e6], |t| <= 50; the tail is relative-accurate (no 1 - x loss).
 */
double br_t_cdf(double t, double df);            /* P(T <= t); NAN for bad df */
/*
 * br_t_quantile: t with br_t_cdf(t, df) = p, by safeguarded Newton/bisection
 * to ~1e-13 relative; p = 0.5 → 0. Symmetric: quantile(1-p) = -quantile(p).
 * NAN for p outside (0, 1), p NaN, or bad df (df <= 0 or NaN).
 */
double br_t_quantile(double p, double df);       /* inverse of br_t_cdf for 0<p<1; NAN otherwise */

/* Mean of n repeats with its spread: sd with ddof = 1 (numpy std(ddof=1)), sem = sd/sqrt(n),
 * 95% interval mean ± t_{0.975, n-1}·sem. n == 0: everything NAN; n == 1: mean = x[0], sd/sem/ci NAN.
 * NaN inputs are skipped (n counts the finite values). */
/*
 * br_mean_ci95: x[0..n) in any unit; out in the same unit (out->n is a
 * count). Non-finite values (NaN and ±Inf) are skipped; out->n is the number
 * of finite values used. Sums are numpy's pairwise summation, so mean and sd
 * match numpy.mean / numpy.std(ddof=1) to the last bit in the usual case.
 * min/max: of the finite values (NAN when none). All equal values (n >= 2):
 * sd = sem = 0 and the interval is [mean, mean]. x may be NULL when n == 0.
 * Interval: Student (1908) t interval, t_{0.975, n-1} from br_t_quantile.
 * Allocates a scratch copy with br_xmalloc (aborts on failure).
 */
typedef struct br_mean_ci {
	size_t n;
	double mean, sd, sem, ci95_lo, ci95_hi;
	double min, max;
} br_mean_ci;
void br_mean_ci95(const double *x, size_t n, br_mean_ci *out);

/* Welch's unequal-variance t test of mean(b) − mean(a). Needs >= 2 finite values on each side;
 * returns 0 and fills out, or -1 (out->ok = 0, all NAN except the means/diff when computable).
 * df: Welch–Satterthwaite. p_two_sided as scipy.stats.ttest_ind(b, a, equal_var=False).
 * ci95: diff ± t_{0.975, df}·se. When both variances are 0: se = 0; if diff == 0 then t = 0, p = 1,
 * else t = ±INFINITY, p = 0 (state this in the comment). */
/*
 * br_welch_test: a[0..na), b[0..nb) in the same unit; diff, se, ci95 in that
 * unit, t and df dimensionless, p in [0, 1]. Non-finite values are skipped
 * (n_a, n_b count the finite ones). With vA = var(a, ddof=1)/n_a and
 * vB = var(b, ddof=1)/n_b: se = sqrt(vA + vB), t = diff/se,
 * df = (vA + vB)² / (vA²/(n_a-1) + vB²/(n_b-1)) (Welch 1947; Satterthwaite
 * 1946), p = 2·br_t_cdf(-|t|, df).
 * Both variances 0 (ok = 1, returns 0): se = 0 and df = NAN (undefined;
 * scipy substitutes 1, which does not matter), ci95 = [diff, diff]; if
 * diff == 0 then t = 0, p = 1, else t = ±INFINITY (sign of diff), p = 0
 * (scipy gives NaN for 0/0 here; this is the documented choice).
 * -1 when n_a < 2 or n_b < 2: ok = 0; mean_a/mean_b are set when that side
 * has >= 1 finite value, diff when both have; everything else NAN.
 * Allocates scratch copies with br_xmalloc (aborts on failure).
 */
typedef struct br_welch {
	int ok;
	size_t n_a, n_b;
	double mean_a, mean_b, diff, se, t, df, p_two_sided, ci95_lo, ci95_hi;
} br_welch;
int br_welch_test(const double *a, size_t na, const double *b, size_t nb, br_welch *out);

#endif
