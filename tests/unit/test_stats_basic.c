/*
 * Statistics against numpy 1.24 (values printed with "%.17g" by
 * /usr/bin/python3 + numpy on the same arrays) and hand computation.
 */
#include "br_test.h"
#include <stdint.h>
#include "benchreport/stats.h"

/* The fixed sample; sorted: -3, -1.25, 0.5, 2, 2, 3.5, 4.25, 6.125, 7, 9, 11.75 */
static const double X11[11] = { 3.5, -1.25, 7.0, 2.0, 2.0, 11.75, 0.5, 4.25, 9.0, -3.0, 6.125 };

static void
sorted_copy(double *dst)
{
	memcpy(dst, X11, sizeof X11);
	br_sort_doubles(dst, 11);
}

/* numpy.percentile(x, p) for several p, both interpolation branches. */
static void
test_percentiles_vs_numpy(void **state)
{
	(void)state;
	double s[11];
	sorted_copy(s);
	assert_double_abs(s[0], -3.0, 0);
	assert_double_abs(s[10], 11.75, 0);
	/* numpy: np.percentile(x, p) */
	assert_double_rel(br_percentile_sorted(s, 11, 0), -3, 0);
	assert_double_rel(br_percentile_sorted(s, 11, 10), -1.25, 0);
	assert_double_rel(br_percentile_sorted(s, 11, 12), -0.90000000000000013, 1e-15); /* hand: -1.25 + 1.75·0.2 */
	assert_double_rel(br_percentile_sorted(s, 11, 25), 1.25, 1e-15);
	assert_double_rel(br_percentile_sorted(s, 11, 50), 3.5, 0);
	assert_double_rel(br_percentile_sorted(s, 11, 63), 4.8125, 1e-15);           /* hand: 4.25 + 1.875·0.3 */
	assert_double_rel(br_percentile_sorted(s, 11, 90), 9, 0);
	assert_double_rel(br_percentile_sorted(s, 11, 99), 11.475000000000001, 1e-15);
	assert_double_rel(br_percentile_sorted(s, 11, 99.9), 11.722500000000005, 1e-15);
	assert_double_rel(br_percentile_sorted(s, 11, 99.99), 11.747249999999998, 1e-15);
	assert_double_rel(br_percentile_sorted(s, 11, 100), 11.75, 0);
	/* np.percentile([0.1,0.2,0.3], 12.5) */
	double t[3] = { 0.1, 0.2, 0.3 };
	assert_double_rel(br_percentile_sorted(t, 3, 12.5), 0.125, 1e-15);
}

/* n = 1: every percentile is the value; n = 0: NAN everywhere. */
static void
test_edge_sizes(void **state)
{
	(void)state;
	double one = 42.5;
	assert_double_abs(br_percentile_sorted(&one, 1, 0), 42.5, 0);
	assert_double_abs(br_percentile_sorted(&one, 1, 99.99), 42.5, 0);
	assert_double_abs(br_percentile_sorted(&one, 1, 100), 42.5, 0);
	assert_double_abs(br_mean(&one, 1), 42.5, 0);
	assert_double_abs(br_std_pop(&one, 1), 0, 0);
	assert_double_abs(br_median_sorted(&one, 1), 42.5, 0);
	assert_nan(br_percentile_sorted(NULL, 0, 50));
	assert_nan(br_percentile_sorted(&one, 0, 50));
	assert_nan(br_mean(&one, 0));
	assert_nan(br_std_pop(&one, 0));
	assert_nan(br_median_sorted(&one, 0));

	br_describe_t d;
	br_describe(NULL, 0, &d);
	assert_int_equal(d.count, 0);
	assert_nan(d.mean);
	assert_nan(d.median);
	assert_nan(d.p99);
	assert_nan(d.max);
	double nans[2] = { NAN, NAN };
	br_describe(nans, 2, &d);
	assert_int_equal(d.count, 0);
	assert_nan(d.std);
}

/* mean and population std vs numpy.mean / numpy.std (ddof=0). */
static void
test_mean_std(void **state)
{
	(void)state;
	assert_double_rel(br_mean(X11, 11), 3.8068181818181817, 1e-15);
	assert_double_rel(br_std_pop(X11, 11), 4.2135346167964673, 1e-15);
	/* hand: {2,4,4,4,5,5,7,9}: mean 5, population variance 4 → std 2 (sample std would be 2.138) */
	double h[8] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	assert_double_abs(br_mean(h, 8), 5.0, 0);
	assert_double_abs(br_std_pop(h, 8), 2.0, 0);
}

/* median: odd n is the middle; even n (a+b)/2; numpy.median(x[:10]) = 2.75 */
static void
test_median_and_describe(void **state)
{
	(void)state;
	double s[10];
	memcpy(s, X11, sizeof s);
	br_sort_doubles(s, 10);
	assert_double_abs(br_median_sorted(s, 10), 2.75, 0);

	br_describe_t d;
	double withnan[12];
	memcpy(withnan, X11, sizeof X11);
	withnan[11] = NAN;        /* skipped */
	br_describe(withnan, 12, &d);
	assert_int_equal(d.count, 11);
	assert_double_rel(d.mean, 3.8068181818181817, 1e-15);
	assert_double_rel(d.std, 4.2135346167964673, 1e-15);
	assert_double_abs(d.min, -3, 0);
	assert_double_abs(d.max, 11.75, 0);
	assert_double_abs(d.median, 3.5, 0);
	assert_double_abs(d.p90, 9, 0);
	assert_double_rel(d.p99, 11.475000000000001, 1e-15);
	assert_double_rel(d.p999, 11.722500000000005, 1e-15);
	assert_double_rel(d.p9999, 11.747249999999998, 1e-15);
	/* input untouched */
	assert_double_abs(withnan[0], 3.5, 0);
	assert_double_abs(withnan[10], 6.125, 0);
}

/* Pairwise summation: bit-identical to numpy on a 1000-element array where
 * naive left-to-right summation differs in the last bits:
 * x[i] = ((i·7919) mod 1000)/7 − 300/(i+1). numpy (a = np.arange(1000.0);
 * x = ((a*7919)%1000)/7.0 - 1.0/(a+1)*300): np.mean = 69.111501598977753,
 * np.std = 43.077628463471079; a naive Python loop gives mean 69.111501598977725. */
static void
test_pairwise_vs_numpy(void **state)
{
	(void)state;
	double *x = malloc(1000 * sizeof *x);
	for (int i = 0; i < 1000; i++) {
		double a = (double)i;
		x[i] = fmod(a * 7919, 1000) / 7.0 - 1.0 / (a + 1) * 300;
	}
	assert_double_rel(br_mean(x, 1000), 69.111501598977753, 0);
	assert_double_rel(br_std_pop(x, 1000), 43.077628463471079, 0);
	free(x);
}

/* linfit vs numpy.polyfit(X, Y, 1) and hand-computed errors:
 * X = 1..6, Y = 2.1 3.9 6.2 7.8 10.1 12.2. By hand: x̄ = 3.5, ȳ = 7.05,
 * Sxx = 17.5, Sxy = 35.35 → b = 2.02, a = 7.05 − 2.02·3.5 = −0.02;
 * SSR = 0.128 (residuals 0.1,−0.12,0.16,−0.26,0.02,0.1), SST = 71.535 → R² = 1 − 0.128/71.535;
 * s² = SSR/4 = 0.032; se_b = sqrt(s²/17.5), se_a = sqrt(s²(1/6 + 3.5²/17.5)); numpy
 * polyfit(cov=True) gives the same standard errors 0.0427618, 0.16653328. */
static void
test_linfit(void **state)
{
	(void)state;
	double X[6] = { 1, 2, 3, 4, 5, 6 }, Y[6] = { 2.1, 3.9, 6.2, 7.8, 10.1, 12.2 };
	br_linfit_t f;
	assert_int_equal(br_linfit(X, Y, 6, &f), 0);
	assert_int_equal(f.n, 6);
	assert_double_rel(f.b, 2.0199999999999996, 1e-13);
	assert_double_abs(f.a, -0.019999999999995341, 1e-12);
	assert_double_rel(f.se_b, 0.042761798705987869, 1e-12);
	assert_double_rel(f.se_a, 0.16653327995729048, 1e-12);
	assert_double_rel(f.r2, 1.0 - 0.128 / 71.535, 1e-9);
	assert_double_rel(f.r2, 0.99821066610749987, 1e-12);

	/* exact line, n = 2: no standard errors */
	double x2[2] = { 0, 2 }, y2[2] = { 1, 5 };
	assert_int_equal(br_linfit(x2, y2, 2, &f), 0);
	assert_double_abs(f.a, 1, 1e-15);
	assert_double_abs(f.b, 2, 1e-15);
	assert_nan(f.se_a);
	assert_nan(f.se_b);
	assert_double_abs(f.r2, 1, 1e-15);

	/* degenerate */
	double xs[3] = { 4, 4, 4 }, ys[3] = { 1, 2, 3 };
	assert_int_equal(br_linfit(xs, ys, 3, &f), -1);
	assert_nan(f.b);
	assert_int_equal(br_linfit(X, Y, 1, &f), -1);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Above 65,536 samples br_sort_doubles uses an in-place radix sort on the
 * bit patterns: its order must equal a comparison sort's, for negative values,
 * zeros, subnormals, huge values and many ties (expected = qsort's order).
 * br_describe_sort must give the same numbers as br_describe.
 */
static void
test_large_sort(void **state)
{
	(void)state;
	size_t n = 200003;
	double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
	uint64_t r = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {
		r ^= r << 13; r ^= r >> 7; r ^= r << 17;   /* xorshift64 */
		double u = (double)(r >> 11) / 9007199254740992.0;
		switch (i % 7) {
		case 0: x[i] = -u * 1e6; break;
		case 1: x[i] = u * 1e-310; break;           /* subnormal */
		case 2: x[i] = (double)(r % 10); break;      /* many ties */
		case 3: x[i] = i % 2 ? 0.0 : -0.0; break;
		case 4: x[i] = u * 1e300; break;
		default: x[i] = u * 50.0; break;
		}
	}
	memcpy(y, x, n * sizeof *x);
	memcpy(z, x, n * sizeof *x);
	qsort(y, n, sizeof *y, cmp_d);
	br_sort_doubles(x, n);
	for (size_t i = 0; i < n; i++)
		if (!(x[i] == y[i]))
			fail_msg("position %zu: %.17g, qsort has %.17g", i, x[i], y[i]);
	br_describe_t a, b;
	br_describe(z, n, &a);
	br_describe_sort(z, n, &b);
	assert_true(a.count == b.count);
	assert_true(a.mean == b.mean && a.std == b.std && a.median == b.median);
	assert_true(a.p90 == b.p90 && a.p99 == b.p99 && a.p999 == b.p999 && a.p9999 == b.p9999);
	assert_true(a.min == b.min && a.max == b.max);
	for (size_t i = 1; i < n; i++)
		assert_true(z[i - 1] <= z[i]);
	/* the population std without a squared copy: the same bits as summing
	 * one (numpy's x - mean, x * x, add.reduce), on the mixed sample and on
	 * values near 50 */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			for (size_t i = 0; i < n; i++)
				z[i] = 50.0 + (double)(i % 977) * 1e-3;
		double m = br_mean(z, n);
		double *sq = malloc(n * sizeof *sq);
		for (size_t i = 0; i < n; i++) {
			double e = z[i] - m;
			sq[i] = e * e;
		}
		double want = sqrt(br_pairwise_sum(sq, n) / (double)n);
		free(sq);
		if (!(br_std_pop(z, n) == want))
			fail_msg("std pass %d: %.17g, a squared copy gives %.17g", pass, br_std_pop(z, n), want);
	}
	/* powers of two differ only in the top 16 bits of their keys: the
	 * lower bytes are shared and skipped level by level */
	for (size_t i = 0; i < n; i++) {
		r ^= r << 13; r ^= r >> 7; r ^= r << 17;
		x[i] = ldexp(1.0, (int)(r % 200) - 100);
	}
	memcpy(y, x, n * sizeof *x);
	qsort(y, n, sizeof *y, cmp_d);
	br_sort_doubles(x, n);
	for (size_t i = 0; i < n; i++)
		if (!(x[i] == y[i]))
			fail_msg("powers of two, position %zu: %.17g, qsort has %.17g", i, x[i], y[i]);
	/* a million keys and more: the first partition's buckets are sorted on
	 * two threads */
	size_t nb = 1200007;
	double *bx = malloc(nb * sizeof *bx), *by = malloc(nb * sizeof *by);
	for (size_t i = 0; i < nb; i++) {
		r ^= r << 13; r ^= r >> 7; r ^= r << 17;
		bx[i] = i % 3 == 0 ? (double)(r % 1000) : 15.0 + 20.0 * (double)(r >> 11) / 9007199254740992.0;
	}
	memcpy(by, bx, nb * sizeof *bx);
	qsort(by, nb, sizeof *by, cmp_d);
	br_sort_doubles(bx, nb);
	for (size_t i = 0; i < nb; i++)
		if (!(bx[i] == by[i]))
			fail_msg("1.2 M, position %zu: %.17g, qsort has %.17g", i, bx[i], by[i]);
	free(bx);
	free(by);
	free(x);
	free(y);
	free(z);
}

/*
 * br_percentiles_select against sort + br_percentile_sorted (equal values),
 * on arrays of each size below, filled like test_large_sort (ties, signed
 * zeros, subnormals, huge values) or all equal, with ascending and
 * unordered percentile lists.
 */
static void
test_percentiles_select(void **state)
{
	(void)state;
	static const size_t sizes[] = { 1, 2, 3, 16, 17, 18, 1000, 100001 };
	static const double asc[] = { 0, 25, 50, 90, 99, 99.9, 99.99, 100 };
	static const double mixed[] = { 99, 50, 99.9, 0, 90, 100, 1 };
	uint64_t r = 2463534242ull;
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
		for (int fill = 0; fill < 2; fill++) {
			size_t n = sizes[si];
			double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
			for (size_t i = 0; i < n; i++) {
				r ^= r << 13; r ^= r >> 7; r ^= r << 17;
				double u = (double)(r >> 11) / 9007199254740992.0;
				x[i] = fill ? 21.46 : i % 5 == 0 ? (double)(r % 10) : i % 5 == 1 ? -u * 1e6 :
				    i % 5 == 2 ? u * 1e-310 : i % 5 == 3 ? (i % 2 ? 0.0 : -0.0) : u * 1e300;
			}
			memcpy(y, x, n * sizeof *x);
			br_sort_doubles(y, n);
			for (int list = 0; list < 2; list++) {
				const double *p = list ? mixed : asc;
				size_t k = list ? sizeof mixed / sizeof *mixed : sizeof asc / sizeof *asc;
				double got[8];
				br_percentiles_select(x, n, p, k, got);
				for (size_t i = 0; i < k; i++) {
					double want = br_percentile_sorted(y, n, p[i]);
					if (!(got[i] == want))   /* -0.0 and 0.0 are ties: either may sit there */
						fail_msg("n %zu fill %d p %g: %.17g, sorted gives %.17g", n, fill, p[i], got[i], want);
				}
			}
			free(x);
			free(y);
		}
	double nan_out[1];
	br_percentiles_select(NULL, 0, (const double[]){ 50 }, 1, nan_out);
	assert_true(isnan(nan_out[0]));
}

/* count_le / count_lt: values of the ascending y[0..n) <= v / < v. */
static size_t
count_le(const double *y, size_t n, double v, int strict)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strict ? y[mid] < v : y[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * br_ranked against a sorted scaled copy y (br_sort_doubles, then
 * br_median_sorted / br_percentile_sorted: equal values) on sizes each side
 * of the 65,536 sorted-copy threshold and fills: ITL-like values near
 * 0.02 s (one binade), all equal, the mixed fill of test_percentiles_select
 * (ties, signed zeros, subnormals, 1e300), and 99% one value with a spread
 * tail (one bucket holds nearly all). Scales 1 and 1000. Checked: x is
 * left as it was, bit for bit; median, 9 percentiles (a NaN one), 64 ranks
 * and a rank past the end; the count above a sample value; describe
 * against br_describe; every CDF point is a value x of y at #(y <= x)/n,
 * x strictly ascending, each distinct value of the 500 largest present.
 */
static void
test_ranked(void **state)
{
	(void)state;
	static const size_t sizes[] = { 1, 2, 3, 1999, 2001, 65535, 65536, 65537, 200001 };
	static const double p[] = { 0, 25, 50, 90, 99, 99.9, 99.99, 100, NAN };
	enum { NP = sizeof p / sizeof *p };
	static const double scales[2] = { 1.0, 1000.0 };
	uint64_t r = 0x9e3779b97f4a7c15ull;
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
		for (int fill = 0; fill < 5; fill++)
			for (int sc = 0; sc < 2; sc++) {
				size_t n = sizes[si];
				double *x = malloc(n * sizeof *x), *keep = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
				for (size_t i = 0; i < n; i++) {
					r ^= r << 13; r ^= r >> 7; r ^= r << 17;
					double u = (double)(r >> 11) / 9007199254740992.0;
					x[i] = fill == 0 ? 0.02 + 0.005 * u : fill == 1 ? 21.46 :
					    fill == 3 ? (i % 100 ? 0.0213 : 0.5 + 10 * u) :
					    fill == 4 ? (i % 50 ? 1e-6 + u : 0.0) :   /* 2% zeros: the minimum tied */
					    i % 5 == 0 ? (double)(r % 10) : i % 5 == 1 ? -u * 1e6 :
					    i % 5 == 2 ? u * 1e-310 : i % 5 == 3 ? (i % 2 ? 0.0 : -0.0) : u * 1e300;
				}
				memcpy(keep, x, n * sizeof *x);
				for (size_t i = 0; i < n; i++)
					y[i] = x[i] * scales[sc];
				br_sort_doubles(y, n);
				br_ranked *rk = br_ranked_new(x, n, scales[sc]);
				assert_int_equal(br_ranked_count(rk), n);
				double med = br_ranked_median(rk), got[NP];
				if (!(med == br_median_sorted(y, n)))
					fail_msg("n %zu fill %d scale %g: median %.17g, sorted %.17g", n, fill, scales[sc],
					    med, br_median_sorted(y, n));
				br_ranked_percentiles(rk, p, NP, got);
				for (int i = 0; i < NP; i++)
					if (!(got[i] == br_percentile_sorted(y, n, p[i])) && !(isnan(p[i]) && isnan(got[i])))
						fail_msg("n %zu fill %d scale %g p %g: %.17g, sorted %.17g", n, fill, scales[sc],
						    p[i], got[i], br_percentile_sorted(y, n, p[i]));
				size_t rank[65];
				double at[65];
				for (int j = 0; j < 64; j++) {
					r ^= r << 13; r ^= r >> 7; r ^= r << 17;
					rank[j] = j == 0 ? 0 : j == 1 ? n - 1 : (size_t)(r % n);
				}
				rank[64] = n;
				br_ranked_at(rk, rank, 65, at);
				for (int j = 0; j < 64; j++)
					if (!(at[j] == y[rank[j]]))
						fail_msg("n %zu fill %d rank %zu: %.17g, sorted %.17g", n, fill, rank[j], at[j], y[rank[j]]);
				assert_true(isnan(at[64]));
				double lim = y[n / 3];
				assert_int_equal(br_ranked_count_above(rk, lim), n - count_le(y, n, lim, 0));
				if (sc == 0) {
					br_describe_t d, e;
					br_describe_ranked(x, n, rk, &d);
					br_describe(x, n, &e);
					assert_int_equal(d.count, e.count);
					const double dv[] = { d.mean, d.std, d.min, d.max, d.median, d.p90, d.p99, d.p999, d.p9999 };
					const double ev[] = { e.mean, e.std, e.min, e.max, e.median, e.p90, e.p99, e.p999, e.p9999 };
					for (int i = 0; i < 9; i++)
						if (!(dv[i] == ev[i]))
							fail_msg("n %zu fill %d describe field %d: %.17g, br_describe %.17g", n, fill, i,
							    dv[i], ev[i]);
				}
				double *cx, *cy;
				size_t np = br_ranked_cdf(rk, 2000, 500, &cx, &cy);
				size_t distinct = 0;
				for (size_t i = 0; i < n; i++)
					distinct += i == 0 || y[i] != y[i - 1];
				assert_true(np >= 1 && np <= 2000 && np <= distinct);
				if (n <= 2000)
					assert_int_equal(np, distinct);
				for (size_t i = 0; i < np; i++) {
					/* a value of the sample, at the share of the sample <= it */
					double c = cy[i] * (double)n;
					size_t lo = count_le(y, n, cx[i], 1), hi = count_le(y, n, cx[i], 0);
					if (!(hi > lo && fabs(c - (double)hi) <= 1e-6))
						fail_msg("n %zu fill %d cdf point %zu (%.17g, %.17g): not a sample value at its "
						    "share (%zu below, %zu at or below, of %zu)", n, fill, i, cx[i], cy[i], lo, hi, n);
					if (i > 0)
						assert_true(cx[i - 1] < cx[i]);
				}
				/* the tail: each distinct value of the 500 largest (all when n <= 2000) */
				size_t tail = n <= 2000 ? n : 500, k = np;
				for (size_t i = n; i-- > n - tail;)
					if (i == n - 1 || y[i] != y[i + 1]) {
						assert_true(k > 0);
						k--;
						assert_true(cx[k] == y[i]);
						assert_double_rel(cy[k], (double)count_le(y, n, y[i], 0) / (double)n, 1e-15);
					}
				free(cx);
				free(cy);
				br_ranked_free(rk);
				assert_memory_equal(x, keep, n * sizeof *x);
				free(x);
				free(keep);
				free(y);
			}
	assert_null(br_ranked_new(NULL, 0, 1.0));
	double out[1];
	br_ranked_percentiles(NULL, (const double[]){ 50 }, 1, out);
	assert_true(isnan(out[0]) && isnan(br_ranked_median(NULL)));
	assert_int_equal(br_ranked_count_above(NULL, 1.0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_large_sort),
		cmocka_unit_test(test_percentiles_select),
		cmocka_unit_test(test_ranked),
		cmocka_unit_test(test_percentiles_vs_numpy),
		cmocka_unit_test(test_edge_sizes),
		cmocka_unit_test(test_mean_std),
		cmocka_unit_test(test_median_and_describe),
		cmocka_unit_test(test_pairwise_vs_numpy),
		cmocka_unit_test(test_linfit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
