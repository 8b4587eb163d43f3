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
 * br_percentiles_select: out[i] = br_percentile_sorted of x's values at
 * p[i] (0..100), bit for bit, for i < k, without sorting: x[0..n) (no NaN)
 * is reordered in place by quickselect, O(n) per percentile (ascending p
 * reuse the previous partition). For a few percentiles of millions of
 * values (the simulator's ITLs). n == 0 or a NaN p → NAN.
 */
void br_percentiles_select(double *x, size_t n, const double *p, size_t k, double *out);

/*
 * br_median_sorted: numpy.median of an ascending array: the middle element,
 * or (a + b) / 2 of the two middle ones (may differ from the 50th
 * percentile in the last bit). n == 0 → NAN. (Added by the analysis helper.)
 */
double br_median_sorted(const double *sorted, size_t n);

/* br_pairwise_sum: Σ a[0..n) by numpy's pairwise summation (8 accumulators
 * up to 128 elements, else halves at a multiple of 8), so sums, means and
 * standard deviations are bit-identical to numpy's. 0 for n == 0. */
double br_pairwise_sum(const double *a, size_t n);
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
 * br_ranked: the order statistics of a sample without sorting it, for
 * millions of values (5 M ITLs: a sort cost 0.4 s of CPU and the percentiles
 * and CDF need a few thousand ranks).
 *
 * br_ranked_new: an index of x[0..n) (finite values, no NaN), the sample
 * being scale·x[i] (scale > 0; every value handed out is bit for bit what a
 * sort of a scaled copy would hold at that rank). x is borrowed: it must
 * stay alive and unchanged until br_ranked_free. Below 65,536 values the
 * index is a sorted scaled copy; above, two read passes build a histogram
 * of 65,536 buckets over the keys' highest differing bits (512 KB) and
 * each query gathers, with one read pass over x, only the buckets holding
 * the ranks it asks for, and sorts those. Queries do not change the index:
 * threads may query one index at once. n == 0 or x NULL → NULL (queries
 * on NULL give NAN, 0 or nothing). Caller frees with br_ranked_free.
 */
typedef struct br_ranked br_ranked;
br_ranked *br_ranked_new(const double *x, size_t n, double scale);
void br_ranked_free(br_ranked *r);
size_t br_ranked_count(const br_ranked *r);                  /* n; 0 for NULL */
/* br_ranked_at: out[j] = the value at 0-based rank[j] of the ascending
 * sample (NAN for a rank >= n), j < k. */
void br_ranked_at(const br_ranked *r, const size_t *rank, size_t k, double *out);
/* br_ranked_percentiles: out[i] = br_percentile_sorted of the sample at
 * p[i] (0..100; NaN p → NAN), bit for bit, i < k. */
void br_ranked_percentiles(const br_ranked *r, const double *p, size_t k, double *out);
/* br_ranked_median: numpy.median of the sample (as br_median_sorted). */
double br_ranked_median(const br_ranked *r);
/* br_ranked_count_above: the number of values > lim (0 for NaN lim). */
size_t br_ranked_count_above(const br_ranked *r, double lim);
/*
 * br_describe_ranked: br_describe of x[0..n) (no NaN) whose index r was
 * built on the same x with scale 1: mean and std summed in x's order (as
 * numpy), min, max, median and percentiles from r in one query; x is not
 * changed. r's count != n → count 0, all NAN.
 */
void br_describe_ranked(const double *x, size_t n, const br_ranked *r, br_describe_t *out);
/*
 * br_ranked_cdf: points (x[i], cdf[i]) on the sample's empirical CDF,
 * x strictly ascending and each a value of the sample, cdf[i] the exact
 * share of the sample <= x[i] (ties count whole: 5,000 zeros in 250,000
 * give (0, 0.02)), at most max_points: every distinct value when n <=
 * max_points; else the tail_points largest ranks' values, and below them
 * points evenly spaced in rank: on a sorted copy the values at those ranks,
 * on a bucket index the minimum and the largest value of the bucket
 * holding each rank (a bucket spans 2^-12 of a binade or less: below a
 * pixel). Out: *x and *cdf malloc'd (caller frees), returns the count.
 */
size_t br_ranked_cdf(const br_ranked *r, size_t max_points, size_t tail_points, double **x, double **cdf);

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

/* ---- Repeat statistics (src/stats/repeats.c; tests/unit/test_stats_repeats.c vs scipy 1.10) ---- */

/*
 * Student's t distribution with df > 0 degrees of freedom (df may be
 * fractional, Welch). br_t_cdf: P(T <= t), dimensionless. With
 * x = df/(df + t²), P(|T| > |t|) = I_x(df/2, 1/2), I the regularised
 * incomplete beta: continued fraction by modified Lentz (Numerical Recipes
 * 3rd ed. §6.4, betai/betacf) for df < 40 or t² > 6.39·df, else the
 * large-a small-b expansion in incomplete gamma functions (DiDonato & Morris
 * 1992, BGRAT; Temme 1996 §11.3.3), where the fraction would lose ~df·1e-16.
 * Lower tails are relative-accurate (no 1 - x cancellation); measured against
 * mpmath (40 digits): <= 2e-13 relative for df in [1, 1e12], |t| <= 50.
 * Edge cases: t = ±INFINITY → 0 / 1; t = 0 → 0.5; df = +INFINITY → standard
 * normal; NAN when t is NaN or df is NaN or <= 0.
 */
double br_t_cdf(double t, double df);            /* P(T <= t); NAN for bad df */
/*
 * br_t_quantile: the t with br_t_cdf(t, df) = p: doubling bracket, then
 * Newton steps with bisection fallback, to ~1e-15 relative (<= 1e-14 vs
 * mpmath for df in [1, 1e6], p in [1e-10, 1 - 1e-10]; note scipy 1.10's
 * stats.t.ppf itself is only good to ~2e-9, ~1e-7 at p = 1 - 1e-10).
 * p = 0.5 → 0; p > 0.5 → -br_t_quantile(1 - p) (exact symmetry). A quantile
 * beyond the double range → ±INFINITY. NAN for p outside (0, 1), p NaN, or
 * bad df (NaN or <= 0); df = +INFINITY → normal quantile.
 */
double br_t_quantile(double p, double df);       /* inverse of br_t_cdf for 0<p<1; NAN otherwise */

/* Mean of n repeats with its spread: sd with ddof = 1 (numpy std(ddof=1)), sem = sd/sqrt(n),
 * 95% interval mean ± t_{0.975, n-1}·sem. n == 0: everything NAN; n == 1: mean = x[0], sd/sem/ci NAN.
 * NaN inputs are skipped (n counts the finite values). */
/*
 * br_mean_ci95: x[0..n) in any unit; mean, sd, sem, ci95_lo/hi, min, max in
 * that unit. Non-finite inputs (NaN and ±Inf) are skipped; out->n is the
 * number of finite values (0 → all NAN, 1 → mean = min = max = that value).
 * Sums use numpy's pairwise summation, so mean and sd match numpy.mean and
 * numpy.std(ddof=1) to the last bit in the usual case. All values equal
 * (n >= 2): sd = sem = 0, interval [mean, mean]. Interval: Student (1908),
 * t_{0.975, n-1} from br_t_quantile. x may be NULL when n == 0. Allocates a
 * scratch copy with br_xmalloc (aborts on failure); x is not modified.
 */
typedef struct br_mean_ci {
	size_t n;
	double mean, sd, sem, ci95_lo, ci95_hi;
	double min, max;
} br_mean_ci;
void br_mean_ci95(const double *x, size_t n, br_mean_ci *out);

/* Reports (PDF and summary.json) give a mean's 95% interval from this many
 * repeats on: with 2, t_{0.975, 1} = 12.7 stretches it to ±12.7 sem, an
 * interval that says only that two values are too few. */
#define BR_CI_MIN_REPEATS 3

/* Welch's unequal-variance t test of mean(b) − mean(a). Needs >= 2 finite values on each side;
 * returns 0 and fills out, or -1 (out->ok = 0, all NAN except the means/diff when computable).
 * df: Welch–Satterthwaite. p_two_sided as scipy.stats.ttest_ind(b, a, equal_var=False).
 * ci95: diff ± t_{0.975, df}·se. When both variances are 0: se = 0; if diff == 0 then t = 0, p = 1,
 * else t = ±INFINITY, p = 0. */
/*
 * br_welch_test: a[0..na), b[0..nb) in the same unit; mean_a, mean_b, diff,
 * se, ci95 in that unit; t and df dimensionless; p_two_sided in [0, 1].
 * Non-finite values are skipped (n_a, n_b count the finite ones). With
 * vA = var(a, ddof=1)/n_a, vB = var(b, ddof=1)/n_b: se = sqrt(vA + vB),
 * t = diff/se, df = (vA + vB)² / (vA²/(n_a-1) + vB²/(n_b-1)) (Welch 1947;
 * Satterthwaite 1946), p = 2·br_t_cdf(-|t|, df).
 * Both variances 0 (ok = 1, returns 0): se = 0, df = NAN (undefined; scipy
 * substitutes 1), ci95 = [diff, diff]; t = ±INFINITY (sign of diff) and
 * p = 0 as scipy, or, when diff == 0 too, t = 0 and p = 1 (scipy: NaN).
 * Returns -1 when n_a < 2 or n_b < 2: ok = 0, mean_a / mean_b set when that
 * side has a finite value, diff when both do, all else NAN. a (b) may be
 * NULL when na (nb) == 0. Allocates scratch copies with br_xmalloc.
 */
typedef struct br_welch {
	int ok;
	size_t n_a, n_b;
	double mean_a, mean_b, diff, se, t, df, p_two_sided, ci95_lo, ci95_hi;
} br_welch;
int br_welch_test(const double *a, size_t na, const double *b, size_t nb, br_welch *out);

#endif
