/*
 * Private helpers of src/stats/: the order-preserving 64-bit key of a
 * double and numpy's linear (type 7) percentile position and
 * interpolation, shared by stats.c (sorting, selection) and ranked.c
 * (order statistics without a sort).
 */
#ifndef BR_STATS_PRIV_H
#define BR_STATS_PRIV_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* key_of / double_of: map a double's bits to an unsigned key that sorts
 * like the double (flip all bits of negatives, the sign bit of the rest),
 * and back. -0.0 takes +0.0's key (d + 0.0 is +0.0 for either zero), so
 * equal values, which -0.0 and +0.0 are, always share a key. */
static inline uint64_t
key_of(double d)
{
	uint64_t u;
	d += 0.0;
	memcpy(&u, &d, sizeof u);
	return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

static inline double
double_of(uint64_t k)
{
	uint64_t u = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* lerp7: numpy's linear interpolation between neighbours a <= b at
 * fraction t, written as numpy writes it (bit-identical results). */
static inline double
lerp7(double a, double b, double t)
{
	double diff = b - a;
	if (t >= 0.5)
		return b - diff * (1.0 - t);
	return a + diff * t;
}

/* rank7: the position h = (n-1)·p/100 of percentile p (clamped to
 * [0, 100]) as its floor *lo and fraction *t. */
static inline void
rank7(size_t n, double p, size_t *lo, double *t)
{
	if (p < 0)
		p = 0;
	if (p > 100)
		p = 100;
	double h = (p / 100.0) * (double)(n - 1);
	double fl = floor(h);
	*lo = (size_t)fl;
	*t = h - fl;
}

#endif
