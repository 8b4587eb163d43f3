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

#endif
