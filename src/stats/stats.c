/*
 * Descriptive statistics, own code checked against numpy 1.24:
 * pairwise summation (as numpy's add.reduce on a contiguous float64 array),
 * population standard deviation, and linear (type 7) percentiles with
 * numpy's two-sided interpolation.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/stats.h"
#include "stats_priv.h"

/* qsort comparator for doubles, ascending (callers removed NaN). */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ldk / stk: the 64-bit word at x + i, through memcpy (x's memory holds
 * doubles before and after the sort, keys during it). */
static inline uint64_t
ldk(const double *x, size_t i)
{
	uint64_t u;
	memcpy(&u, x + i, sizeof u);
	return u;
}

static inline void
stk(double *x, size_t i, uint64_t u)
{
	memcpy(x + i, &u, sizeof u);
}

/*
 * flag_sort: in-place MSD radix sort ("American flag sort", McIlroy, Bostic
 * and McIlroy 1993) of the 64-bit keys held in x[0..n), which all agree on
 * their bits from `hi` up: count the next digit's values (12 bits for
 * 65,536 keys or more, else 8; 12 measured fastest of 8/11/12/16 on 5 M
 * ITL-like values), permute the keys into their buckets by
 * following cycles, then sort each bucket on the bits below. A digit every
 * key shares costs one counting pass; buckets of 32 keys or fewer are
 * insertion-sorted. Extra memory: the digit's counters per level, none per
 * element (5 M ITLs: no 40 MB scratch).
 */
static void flag_sort_par(double *x, size_t n, int hi, int par);

static void
flag_sort(double *x, size_t n, int hi)
{
	flag_sort_par(x, n, hi, 0);
}

/* A run of buckets sorted on a second thread: buckets [d0, d1) of the
 * partition, whose ends are head[] and sizes count[]. */
typedef struct bucket_run {
	double *x;
	const size_t *head, *count;
	size_t d0, d1;
	int shift;
} bucket_run;

static void
sort_buckets(const bucket_run *b)
{
	for (size_t d = b->d0; d < b->d1; d++)
		if (b->count[d] > 1)
			flag_sort(b->x + (b->head[d] - b->count[d]), b->count[d], b->shift);
}

static gpointer
sort_buckets_thread(gpointer p)
{
	sort_buckets(p);
	return NULL;
}

/*
 * flag_sort_par: flag_sort; with par and a million keys or more, the
 * buckets of the first partition are sorted on two threads, split where
 * half of the keys lie (each bucket is independent of the others).
 */
static void
flag_sort_par(double *x, size_t n, int hi, int par)
{
	while (n > 32 && hi > 0) {
		int w = n >= (1u << 16) ? 12 : 8;
		if (w > hi)
			w = hi;
		int shift = hi - w;
		size_t nb = (size_t)1 << w;
		uint64_t mask = nb - 1;
		size_t small[3 * 256];
		size_t *tab = nb <= 256 ? small : br_xmalloc(3 * nb * sizeof *tab);
		size_t *count = tab, *head = tab + nb, *tail = tab + 2 * nb;
		memset(count, 0, nb * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(ldk(x, i) >> shift) & mask]++;
		if (count[(ldk(x, 0) >> shift) & mask] == n) {
			if (tab != small)
				free(tab);
			hi = shift;     /* every key has this digit: sort on the bits below */
			continue;
		}
		size_t sum = 0;
		for (size_t d = 0; d < nb; d++) {
			head[d] = sum;
			sum += count[d];
			tail[d] = sum;
		}
		for (size_t d = 0; d < nb; d++) {
			while (head[d] < tail[d]) {
				uint64_t k = ldk(x, head[d]);
				size_t kd = (size_t)((k >> shift) & mask);
				while (kd != d) {      /* carry k to its bucket, take what was there */
					uint64_t t = ldk(x, head[kd]);
					stk(x, head[kd]++, k);
					k = t;
					kd = (size_t)((k >> shift) & mask);
				}
				stk(x, head[d]++, k);
			}
		}
		/* head[d] is now the end of bucket d, count[d] its size */
		size_t split = 0;
		GThread *th = NULL;
		bucket_run low = { x, head, count, 0, 0, shift }, high = { x, head, count, 0, nb, shift };
		if (par && n >= (1u << 20)) {
			for (size_t acc = 0; split < nb && acc + count[split] <= n / 2; split++)
				acc += count[split];
			low.d1 = high.d0 = split;
			th = g_thread_try_new("br-sort", sort_buckets_thread, &low, NULL);
			if (th == NULL)
				high.d0 = 0;     /* no thread: all of it here */
		}
		sort_buckets(&high);
		if (th != NULL)
			g_thread_join(th);
		if (tab != small)
			free(tab);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint64_t k = ldk(x, i);
		size_t j = i;
		while (j > 0 && ldk(x, j - 1) > k) {
			stk(x, j, ldk(x, j - 1));
			j--;
		}
		stk(x, j, k);
	}
}

/*
 * radix_sort: sort n doubles by their 64-bit keys (key_of), held in x's own
 * memory during the sort (flag_sort): no scratch array. The bits every key
 * shares (a sample of ITLs shares its sign and most of its exponent) are
 * found while converting and skipped. Used for large samples (millions of
 * ITLs), where qsort's comparisons dominate a report's run time.
 */
static void
radix_sort(double *x, size_t n)
{
	uint64_t all_and = ~0ull, all_or = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_of(x[i]);
		all_and &= k;
		all_or |= k;
		stk(x, i, k);
	}
	uint64_t differ = all_and ^ all_or;
	if (differ != 0)
		flag_sort_par(x, n, 64 - __builtin_clzll(differ), 1);
	for (size_t i = 0; i < n; i++)
		x[i] = double_of(ldk(x, i));
}

/*
 * br_sort_doubles: sort x[0..n) ascending in place. The caller must have
 * removed NaN (their order would be unspecified). Large arrays use a radix
 * sort on the IEEE-754 bit pattern (same order as the comparison sort).
 */
void
br_sort_doubles(double *x, size_t n)
{
	if (x == NULL || n < 2)
		return;
	if (n >= 65536)
		radix_sort(x, n);
	else
		qsort(x, n, sizeof *x, cmp_double);
}

/*
 * pairwise: numpy's pairwise summation of the terms t(a[i]) over a[0..n):
 * plain loop below 8 elements, eight accumulators up to 128, else split in
 * two halves at a multiple of 8 and recurse. The term is a[i] itself
 * (sq 0), or (a[i] − m)² (sq 1), formed as numpy forms it (x − mean, then x·x,
 * rounded to double) but never stored: the same bits as summing a squared
 * copy, without the copy (5 M ITLs: 40 MB). Reproducing numpy's order makes
 * sums, means and standard deviations bit-identical to numpy's.
 */
static inline double
term(double v, double m, int sq)
{
	if (!sq)
		return v;
	double e = v - m;
	return e * e;
}

static double
pairwise(const double *a, size_t n, double m, int sq)
{
	if (n < 8) {
		double res = 0.0;
		for (size_t i = 0; i < n; i++)
			res += term(a[i], m, sq);
		return res;
	}
	if (n <= 128) {
		double r[8];
		size_t i;
		for (int j = 0; j < 8; j++)
			r[j] = term(a[j], m, sq);
		for (i = 8; i < n - (n % 8); i += 8)
			for (int j = 0; j < 8; j++)
				r[j] += term(a[i + j], m, sq);
		double res = ((r[0] + r[1]) + (r[2] + r[3])) +
		    ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += term(a[i], m, sq);
		return res;
	}
	size_t n2 = n / 2;
	n2 -= n2 % 8;
	return pairwise(a, n2, m, sq) + pairwise(a + n2, n - n2, m, sq);
}

/* br_pairwise_sum: see stats.h. */
double
br_pairwise_sum(const double *a, size_t n)
{
	return pairwise(a, n, 0, 0);
}

/*
 * br_mean: arithmetic mean of x[0..n) by pairwise summation (as numpy.mean).
 * NaN entries are NOT skipped (a NaN makes the mean NaN). n == 0 → NAN.
 */
double
br_mean(const double *x, size_t n)
{
	if (n == 0 || x == NULL)
		return NAN;
	return br_pairwise_sum(x, n) / (double)n;
}

/*
 * br_std_pop: population standard deviation (ddof = 0) of x[0..n), computed
 * as numpy.std: mean, squared deviations, pairwise sum / n, square root.
 * n == 0 → NAN; n == 1 → 0.
 */
double
br_std_pop(const double *x, size_t n)
{
	if (n == 0 || x == NULL)
		return NAN;
	double m = br_mean(x, n);
	return sqrt(pairwise(x, n, m, 1) / (double)n);
}

/*
 * br_percentile_sorted: numpy percentile(method="linear") of an ascending
 * array. Position h = (n-1)·p/100; between neighbours a (below) and b
 * (above) with fraction t, numpy computes a + (b-a)·t for t < 0.5 and
 * b - (b-a)·(1-t) otherwise; reproduced here so results match bit for bit.
 * p outside [0, 100] is clamped. n == 0 (or p NaN) → NAN.
 */
double
br_percentile_sorted(const double *sorted, size_t n, double p)
{
	if (n == 0 || sorted == NULL || isnan(p))
		return NAN;
	size_t lo;
	double t;
	rank7(n, p, &lo, &t);
	if (lo >= n - 1)
		return sorted[n - 1];
	return lerp7(sorted[lo], sorted[lo + 1], t);
}

/*
 * select_kth: reorder x[a..b) so that x[k] holds the value a sort would put
 * there, everything before it <= x[k] and everything after it >= x[k]
 * (Hoare quickselect, median-of-three pivot; a range that keeps failing to
 * shrink is sorted instead, so the worst case stays O(n log n)).
 */
static void
select_kth(double *x, size_t a, size_t b, size_t k)
{
	int budget = 64;
	while (b - a > 16) {
		if (budget-- == 0) {
			br_sort_doubles(x + a, b - a);
			return;
		}
		/* median of three, ordered in place: x[a] <= x[m] <= x[b-1] */
		size_t m = a + (b - a) / 2, last = b - 1;
		double tmp;
		if (x[m] < x[a])
			tmp = x[m], x[m] = x[a], x[a] = tmp;
		if (x[last] < x[m]) {
			tmp = x[last], x[last] = x[m], x[m] = tmp;
			if (x[m] < x[a])
				tmp = x[m], x[m] = x[a], x[a] = tmp;
		}
		double pivot = x[m];
		/* Hoare partition around a middle pivot: a <= j < b - 1 */
		size_t i = a - 1, j = b;
		for (;;) {
			do
				i++;
			while (x[i] < pivot);
			do
				j--;
			while (x[j] > pivot);
			if (i >= j)
				break;
			tmp = x[i];
			x[i] = x[j];
			x[j] = tmp;
		}
		/* x[a..j] <= pivot <= x[j+1..b) */
		if (k <= j)
			b = j + 1;
		else
			a = j + 1;
	}
	/* insertion sort of the short rest */
	for (size_t i = a + 1; i < b; i++) {
		double v = x[i];
		size_t j = i;
		while (j > a && x[j - 1] > v) {
			x[j] = x[j - 1];
			j--;
		}
		x[j] = v;
	}
}

/* br_percentiles_select: see stats.h. */
void
br_percentiles_select(double *x, size_t n, const double *p, size_t k, double *out)
{
	size_t from = 0;   /* x[from..n) holds the values not yet below a chosen rank */
	double prev_p = -INFINITY;
	for (size_t i = 0; i < k; i++) {
		if (n == 0 || x == NULL || isnan(p[i])) {
			out[i] = NAN;
			continue;
		}
		if (p[i] < prev_p)
			from = 0;   /* not ascending: search the whole array again */
		prev_p = p[i];
		size_t lo;
		double t;
		rank7(n, p[i], &lo, &t);
		if (lo >= n - 1)
			lo = n - 1;
		if (lo < from)
			from = 0;
		select_kth(x, from, n, lo);
		double a = x[lo];
		if (lo == n - 1) {
			out[i] = a;
		} else {
			double b = x[lo + 1];
			for (size_t j = lo + 2; j < n; j++)
				if (x[j] < b)
					b = x[j];
			out[i] = lerp7(a, b, t);
		}
		from = lo;
	}
}

/*
 * br_describe: count, mean, population std, min, max and the median, p90,
 * p99, p99.9, p99.99 of x[0..n), skipping NaN. The input is left untouched
 * (a sorted copy is made). No finite-or-NaN sample → count 0, all NAN.
 */
void
br_describe(const double *x, size_t n, br_describe_t *out)
{
	out->count = 0;
	out->mean = out->std = out->min = out->max = NAN;
	out->median = out->p90 = out->p99 = out->p999 = out->p9999 = NAN;
	if (x == NULL || n == 0)
		return;
	double *s = br_xmalloc(n * sizeof *s);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			s[k++] = x[i];
	if (k > 0) {
		/* mean/std in the input order, as numpy would see the array */
		out->count = k;
		out->mean = br_mean(s, k);
		out->std = br_std_pop(s, k);
		br_sort_doubles(s, k);
		out->min = s[0];
		out->max = s[k - 1];
		out->median = br_median_sorted(s, k);
		out->p90 = br_percentile_sorted(s, k, 90);
		out->p99 = br_percentile_sorted(s, k, 99);
		out->p999 = br_percentile_sorted(s, k, 99.9);
		out->p9999 = br_percentile_sorted(s, k, 99.99);
	}
	free(s);
}

/*
 * br_describe_sort: as br_describe on x[0..n) without NaN, but sorts x in
 * place instead of copying (mean and std are taken before the sort, in the
 * input order numpy would sum in). Saves a copy and a second sort when the
 * caller wants the sorted samples anyway.
 */
void
br_describe_sort(double *x, size_t n, br_describe_t *out)
{
	out->count = 0;
	out->mean = out->std = out->min = out->max = NAN;
	out->median = out->p90 = out->p99 = out->p999 = out->p9999 = NAN;
	if (x == NULL || n == 0)
		return;
	out->count = n;
	out->mean = br_mean(x, n);
	out->std = br_std_pop(x, n);
	br_sort_doubles(x, n);
	out->min = x[0];
	out->max = x[n - 1];
	out->median = br_median_sorted(x, n);
	out->p90 = br_percentile_sorted(x, n, 90);
	out->p99 = br_percentile_sorted(x, n, 99);
	out->p999 = br_percentile_sorted(x, n, 99.9);
	out->p9999 = br_percentile_sorted(x, n, 99.99);
}

/*
 * br_median_sorted: numpy.median of an ascending array: middle element for
 * odd n, else the mean of the two middle ones computed as (a + b) / 2 like
 * numpy's mean of a two-element slice. n == 0 → NAN.
 */
double
br_median_sorted(const double *sorted, size_t n)
{
	if (n == 0 || sorted == NULL)
		return NAN;
	if (n % 2 == 1)
		return sorted[n / 2];
	return (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}
