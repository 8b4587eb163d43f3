/*
 * br_ranked: order statistics of a large sample without sorting it (see
 * stats.h). Sorting 5 M ITLs to read a dozen percentiles and a CDF of
 * 2,000 points cost a report 0.4 s of CPU; an index of 65,536 buckets over
 * the keys' highest differing bits costs two read passes, and each query
 * gathers and sorts only the buckets that hold the ranks asked for.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/stats.h"
#include "stats_priv.h"

#define RANKED_SMALL 65536        /* below: a sorted copy answers everything */
#define RANKED_BITS 16            /* 65,536 buckets */

struct br_ranked {
	const double *x;          /* borrowed sample (index path) */
	size_t n;
	double scale;             /* the sample is scale·x[i] */
	double *sorted;           /* small path: scale·x ascending, owned; NULL on the index path */
	uint64_t kmin, kmax;      /* index: key range of x */
	int shift;                /* bucket of key k = (k − kmin) >> shift */
	size_t nb;                /* buckets */
	size_t *start;            /* nb + 1: ranks before bucket b (start[nb] = n) */
};

/* br_ranked_new: see stats.h. */
br_ranked *
br_ranked_new(const double *x, size_t n, double scale)
{
	if (x == NULL || n == 0)
		return NULL;
	br_ranked *r = br_xcalloc(1, sizeof *r);
	r->x = x;
	r->n = n;
	r->scale = scale;
	if (n < RANKED_SMALL) {
		r->sorted = br_xmalloc(n * sizeof *r->sorted);
		for (size_t i = 0; i < n; i++)
			r->sorted[i] = scale * x[i];
		br_sort_doubles(r->sorted, n);
		return r;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_of(x[i]);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	uint64_t span = hi - lo;
	int bits = span ? 64 - __builtin_clzll(span) : 0;
	r->kmin = lo;
	r->kmax = hi;
	r->shift = bits > RANKED_BITS ? bits - RANKED_BITS : 0;
	r->nb = (size_t)(span >> r->shift) + 1;
	r->start = br_xcalloc(r->nb + 1, sizeof *r->start);
	size_t *count = r->start + 1;
	for (size_t i = 0; i < n; i++)
		count[(key_of(x[i]) - lo) >> r->shift]++;
	for (size_t b = 1; b <= r->nb; b++)
		r->start[b] += r->start[b - 1];
	return r;
}

/* br_ranked_free: see stats.h. */
void
br_ranked_free(br_ranked *r)
{
	if (r == NULL)
		return;
	free(r->sorted);
	free(r->start);
	free(r);
}

/* br_ranked_count: see stats.h. */
size_t
br_ranked_count(const br_ranked *r)
{
	return r ? r->n : 0;
}

/* bucket_of_rank: the bucket b with start[b] <= rank < start[b + 1]. */
static size_t
bucket_of_rank(const br_ranked *r, size_t rank)
{
	size_t lo = 0, hi = r->nb;   /* answer in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->start[mid] <= rank)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* br_ranked_at: see stats.h. The buckets holding the ranks are gathered in
 * one pass over x (only keys inside the span of those buckets are looked
 * up), each sorted, and read at the rank's offset. */
void
br_ranked_at(const br_ranked *r, const size_t *rank, size_t k, double *out)
{
	if (r == NULL) {
		for (size_t j = 0; j < k; j++)
			out[j] = NAN;
		return;
	}
	if (r->sorted != NULL) {
		for (size_t j = 0; j < k; j++)
			out[j] = rank[j] < r->n ? r->sorted[rank[j]] : NAN;
		return;
	}
	size_t *bk = br_xmalloc((k ? k : 1) * sizeof *bk);
	int32_t *slot = br_xmalloc(r->nb * sizeof *slot);
	memset(slot, 0xff, r->nb * sizeof *slot);     /* -1: bucket not asked for */
	size_t *off = br_xmalloc((k + 1) * sizeof *off), *fill = br_xmalloc((k ? k : 1) * sizeof *fill);
	size_t ns = 0, bmin = SIZE_MAX, bmax = 0, total = 0;
	for (size_t j = 0; j < k; j++) {
		if (rank[j] >= r->n)
			continue;
		size_t b = bk[j] = bucket_of_rank(r, rank[j]);
		if (slot[b] >= 0)
			continue;
		slot[b] = (int32_t)ns;
		off[ns] = total;
		fill[ns] = total;
		total += r->start[b + 1] - r->start[b];
		ns++;
		bmin = b < bmin ? b : bmin;
		bmax = b > bmax ? b : bmax;
	}
	off[ns] = total;
	double *arena = br_xmalloc((total ? total : 1) * sizeof *arena);
	if (ns > 0) {
		size_t width = bmax - bmin;
		for (size_t i = 0; i < r->n; i++) {
			size_t d = (size_t)((key_of(r->x[i]) - r->kmin) >> r->shift);
			if (d - bmin <= width) {      /* unsigned: d < bmin wraps above width */
				int32_t s = slot[d];
				if (s >= 0)
					arena[fill[s]++] = r->x[i];
			}
		}
		for (size_t s = 0; s < ns; s++)
			br_sort_doubles(arena + off[s], off[s + 1] - off[s]);
	}
	for (size_t j = 0; j < k; j++) {
		if (rank[j] >= r->n) {
			out[j] = NAN;
			continue;
		}
		size_t b = bk[j];
		out[j] = r->scale * arena[off[slot[b]] + (rank[j] - r->start[b])];
	}
	free(arena);
	free(fill);
	free(off);
	free(slot);
	free(bk);
}

/* pct_ranks: the two ranks numpy's linear percentile p reads in a sample
 * of n (floor of the position, and the next one, clamped), the floor in
 * *lo and the fraction in *t. */
static void
pct_ranks(size_t n, double p, size_t *lo, double *t, size_t rank[2])
{
	*lo = 0;
	*t = 0;
	if (n > 0 && !isnan(p))
		rank7(n, p, lo, t);
	if (n > 0 && *lo >= n - 1)
		*lo = n - 1;
	rank[0] = *lo;
	rank[1] = *lo + 1 < n ? *lo + 1 : *lo;
}

/* pct_value: the percentile from the values v[0..1] at pct_ranks' ranks
 * (as br_percentile_sorted: the last value alone at the top). */
static double
pct_value(size_t n, size_t lo, double t, const double v[2])
{
	return lo == n - 1 ? v[0] : lerp7(v[0], v[1], t);
}

/* br_ranked_percentiles: see stats.h. */
void
br_ranked_percentiles(const br_ranked *r, const double *p, size_t k, double *out)
{
	size_t n = br_ranked_count(r);
	size_t *rank = br_xmalloc((2 * k + 1) * sizeof *rank), *lo = br_xmalloc((k + 1) * sizeof *lo);
	double *t = br_xmalloc((k + 1) * sizeof *t), *v = br_xmalloc((2 * k + 1) * sizeof *v);
	for (size_t i = 0; i < k; i++)
		pct_ranks(n, p[i], &lo[i], &t[i], &rank[2 * i]);
	br_ranked_at(r, rank, 2 * k, v);
	for (size_t i = 0; i < k; i++)
		out[i] = n == 0 || isnan(p[i]) ? NAN : pct_value(n, lo[i], t[i], &v[2 * i]);
	free(v);
	free(t);
	free(lo);
	free(rank);
}

/* br_ranked_median: see stats.h. */
double
br_ranked_median(const br_ranked *r)
{
	size_t n = br_ranked_count(r);
	if (n == 0)
		return NAN;
	size_t rank[2] = { n % 2 ? n / 2 : n / 2 - 1, n / 2 };
	double v[2];
	br_ranked_at(r, rank, 2, v);
	return n % 2 ? v[1] : (v[0] + v[1]) / 2.0;
}

/* br_describe_ranked: see stats.h. */
void
br_describe_ranked(const double *x, size_t n, const br_ranked *r, br_describe_t *out)
{
	out->count = 0;
	out->mean = out->std = out->min = out->max = NAN;
	out->median = out->p90 = out->p99 = out->p999 = out->p9999 = NAN;
	if (x == NULL || n == 0 || br_ranked_count(r) != n)
		return;
	out->count = n;
	out->mean = br_mean(x, n);
	out->std = br_std_pop(x, n);
	/* one gather for all of them: min, max, the median's two middle
	 * ranks and each percentile's floor and next rank */
	static const double p[4] = { 90, 99, 99.9, 99.99 };
	size_t rank[12], lo[4];
	double t[4], v[12];
	rank[0] = 0;
	rank[1] = n - 1;
	rank[2] = n % 2 ? n / 2 : n / 2 - 1;
	rank[3] = n / 2;
	for (int i = 0; i < 4; i++)
		pct_ranks(n, p[i], &lo[i], &t[i], &rank[4 + 2 * i]);
	br_ranked_at(r, rank, 12, v);
	out->min = v[0];
	out->max = v[1];
	out->median = n % 2 ? v[3] : (v[2] + v[3]) / 2.0;
	double *pv[4] = { &out->p90, &out->p99, &out->p999, &out->p9999 };
	for (int i = 0; i < 4; i++)
		*pv[i] = pct_value(n, lo[i], t[i], &v[4 + 2 * i]);
}

/* br_ranked_count_above: see stats.h. */
size_t
br_ranked_count_above(const br_ranked *r, double lim)
{
	if (r == NULL || isnan(lim))
		return 0;
	size_t c = 0;
	if (r->sorted != NULL) {
		size_t lo = 0, hi = r->n;   /* first index with sorted > lim */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (r->sorted[mid] > lim)
				hi = mid;
			else
				lo = mid + 1;
		}
		return r->n - lo;
	}
	for (size_t i = 0; i < r->n; i++)
		c += r->scale * r->x[i] > lim;
	return c;
}

/* br_ranked_cdf: see stats.h. */
size_t
br_ranked_cdf(const br_ranked *r, size_t max_points, size_t tail_points, double **x, double **cdf)
{
	*x = *cdf = NULL;
	size_t n = br_ranked_count(r);
	if (n == 0 || max_points == 0)
		return 0;
	if (tail_points >= max_points)
		tail_points = max_points - 1;
	size_t m = n <= max_points ? n : max_points;
	double *px = br_xmalloc(m * sizeof *px), *py = br_xmalloc(m * sizeof *py);
	size_t np = 0;
	if (n <= max_points || r->sorted != NULL) {
		/* ranks: all of them, or the tail exactly plus evenly spaced ranks
		 * over the rest (strictly increasing because nb >= bulk) */
		size_t *rank = br_xmalloc(m * sizeof *rank);
		if (n <= max_points) {
			for (size_t i = 0; i < n; i++)
				rank[i] = i;
		} else {
			size_t bulk = max_points - tail_points, nb = n - tail_points;
			for (size_t i = 0; i < bulk; i++)
				rank[i] = bulk > 1 ? (size_t)((double)i * (double)(nb - 1) / (double)(bulk - 1) + 0.5) : 0;
			for (size_t i = 0; i < tail_points; i++)
				rank[bulk + i] = nb + i;
		}
		br_ranked_at(r, rank, m, px);
		for (size_t i = 0; i < m; i++)
			py[i] = (double)(rank[i] + 1) / (double)n;
		if (r->sorted != NULL)
			for (size_t i = 0; i < m; i++) {
				/* the share at or below px[i]: past the last equal value */
				size_t lo = rank[i] + 1, hi = n;
				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;
					if (r->sorted[mid] <= px[i])
						lo = mid + 1;
					else
						hi = mid;
				}
				py[i] = (double)lo / (double)n;
			}
		free(rank);
		np = m;
	} else {
		/* the minimum at the share of values equal to it; then, for each
		 * evenly spaced rank below the tail, the largest value of the
		 * bucket holding it, at the exact share of the sample at or below
		 * it (later buckets hold only larger values; buckets reaching into
		 * the tail are skipped); then the tail's values at their ranks.
		 * The buckets' largest keys come from one pass over the sample,
		 * with the count of the minimum: gathering and sorting those
		 * buckets instead cost 0.5 s and 35 MB on 5 M ITLs */
		size_t bulk = max_points - tail_points, nbulk = n - tail_points;
		unsigned char *want = br_xcalloc(r->nb, 1);
		size_t *sel = br_xmalloc(bulk * sizeof *sel), n_sel = 0, last_b = SIZE_MAX;
		for (size_t i = 1; i < bulk; i++) {
			size_t t = (size_t)((double)i * (double)(nbulk - 1) / (double)(bulk - 1) + 0.5);
			size_t b = bucket_of_rank(r, t);
			if (b == last_b || r->start[b + 1] > nbulk)
				continue;
			last_b = b;
			want[b] = 1;
			sel[n_sel++] = b;
		}
		uint64_t *kmax = br_xcalloc(r->nb, sizeof *kmax);
		size_t n_min = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t k = key_of(r->x[i]);
			n_min += k == r->kmin;
			size_t b = (size_t)((k - r->kmin) >> r->shift);
			if (want[b] && k > kmax[b])
				kmax[b] = k;
		}
		px[0] = r->scale * double_of(r->kmin);
		py[0] = (double)n_min / (double)n;
		np = 1;
		for (size_t s = 0; s < n_sel && np < bulk; s++) {
			size_t b = sel[s];
			if (r->start[b + 1] <= n_min)
				continue;   /* the bucket holds the minimum alone */
			px[np] = r->scale * double_of(kmax[b]);
			py[np] = (double)r->start[b + 1] / (double)n;
			np++;
		}
		free(want);
		free(sel);
		free(kmax);
		size_t *rank = br_xmalloc(tail_points * sizeof *rank + 1);
		for (size_t i = 0; i < tail_points; i++) {
			rank[i] = nbulk + i;
			py[np + i] = (double)(nbulk + i + 1) / (double)n;
		}
		br_ranked_at(r, rank, tail_points, px + np);
		np += tail_points;
		free(rank);
	}
	/* ties: every point of a run of equal values takes the share of the
	 * last (the ranks above it are all in the points: the whole sample, or
	 * the contiguous tail), then each value is kept once */
	for (size_t i = np - 1; i-- > 0;)
		if (px[i] == px[i + 1])
			py[i] = py[i + 1];
	size_t w = 0;
	for (size_t i = 0; i < np; i++) {
		if (w > 0 && px[w - 1] == px[i])
			w--;
		px[w] = px[i];
		py[w] = py[i];
		w++;
	}
	*x = px;
	*cdf = py;
	return w;
}
