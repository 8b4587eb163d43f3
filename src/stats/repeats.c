/*
 * Repeat statistics: Student's t distribution (cdf and quantile), the mean
 * of repeated runs with a 95% t interval, and Welch's unequal-variance t
 * test. Own code, checked against scipy 1.10 / numpy 1.24
 * (tests/unit/test_stats_repeats.c).
 *
 * Sources: regularised incomplete beta by continued fraction with modified
 * Lentz (Numerical Recipes 3rd ed. §6.4, betai/betacf); log Beta for a large
 * argument from Stirling's series (Abramowitz & Stegun 6.1.40) written
 * without cancellation; for large df the expansion of I_x(a, b) for large a
 * and small b in incomplete gamma functions (DiDonato & Morris 1992, BGRAT;
 * Temme 1996 §11.3.3); Welch (1947) test with the Welch–Satterthwaite
 * (Satterthwaite 1946) degrees of freedom.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "benchreport/common.h"
#include "benchreport/stats.h"

#define CF_EPS    1e-16         /* relative change ending the continued fraction */
#define CF_TINY   1e-300        /* Lentz's guard against a zero denominator */
#define CF_MAXIT  10000         /* needs O(sqrt(max(a, b))) steps; here a < 20 or x <= e^-2 */

/*
 * stirlerr: lgamma(x) - [(x - 1/2)·ln x - x + ln(2π)/2] for x >= 10, by the
 * Stirling series 1/(12x) - 1/(360x³) + ... (A&S 6.1.40); the first omitted
 * term is below 3e-17 at x = 10.
 */
static double
stirlerr(double x)
{
	double r = 1.0 / x, r2 = r * r;
	return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 -
	    r2 * (1.0 / 1188 - r2 * (691.0 / 360360 - r2 * (1.0 / 156)))))));
}

/*
 * lbeta: ln B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b), a, b > 0.
 * With the larger argument >= 10 and the smaller below it, the difference
 * lgamma(L) - lgamma(L + s) is taken from Stirling's formula as
 * -(L - 1/2)·log1p(s/L) - s·ln(L + s) + s + stirlerr(L) - stirlerr(L + s),
 * which keeps full relative accuracy where lgamma(L) ~ 1e7 (df ~ 1e6) would
 * lose nine digits to cancellation.
 */
static double
lbeta(double a, double b)
{
	double L = a > b ? a : b, s = a > b ? b : a;
	if (L < 10 || s >= 10)
		return lgamma(a) + lgamma(b) - lgamma(a + b);
	return lgamma(s) - (L - 0.5) * log1p(s / L) - s * log(L + s) + s +
	    stirlerr(L) - stirlerr(L + s);
}

/*
 * betacf: continued fraction for I_x(a, b) (NR §6.4, eq. 6.4.5), evaluated
 * by the modified Lentz method; converges fast for x < (a+1)/(a+b+2).
 */
static double
betacf(double a, double b, double x)
{
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= CF_MAXIT; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < CF_TINY)
			d = CF_TINY;
		c = 1 + aa / c;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < CF_TINY)
			d = CF_TINY;
		c = 1 + aa / c;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < CF_EPS)
			break;
	}
	return h;
}

/*
 * incbeta: regularised incomplete beta I_x(a, b) in *ix and its complement
 * I_y(b, a) = 1 - I_x(a, b) in *iy. The caller passes x, y = 1 - x and
 * their logarithms lx, ly, each computed without cancellation (x may have
 * underflowed to 0 while lx is still finite). The smaller side is evaluated
 * directly (NR betai's switch at x = (a+1)/(a+b+2)), so tails keep their
 * relative accuracy: I_x = x^a y^b / (a·B(a,b)) · betacf(a, b, x).
 */
static void
incbeta(double a, double b, double x, double y, double lx, double ly, double *ix, double *iy)
{
	if (y <= 0) {
		*ix = 1;
		*iy = 0;
		return;
	}
	double bt = exp(a * lx + b * ly - lbeta(a, b));
	if (x < (a + 1) / (a + b + 2)) {
		*ix = bt * betacf(a, b, x) / a;
		*iy = 1 - *ix;
	} else {
		*iy = bt * betacf(b, a, y) / b;
		*ix = 1 - *iy;
	}
}

/*
 * Coefficients c_n of (sinh(s/2)/(s/2))^(-1/2) = sum c_n s^(2n), n >= 1
 * (c_0 = 1), from ln(sinh(x)/x) = sum 2^(2k) B_2k x^(2k) / (2k (2k)!)
 * (A&S 4.5.67) exponentiated; computed with mpmath at 40 digits. They fall
 * by about (2π)^-2 per step.
 */
static const double sinh_coef[] = {
	-2.0833333333333333e-2,
	3.90625e-4,
	-7.8796709656084656e-6,
	1.6967665791721781e-7,
	-3.8050641917219066e-9,
	8.7483775963154073e-11,
	-2.0445233594119738e-12,
	4.8333517979677044e-14,
	-1.1524341017673859e-15,
	2.76605204359937e-17,
	-6.67428195089166e-19,
	1.6174550771815799e-20,
	-3.93397792009138e-22,
	9.5976340625860467e-24,
	-2.3476902911626321e-25,
	5.7558703875442666e-27,
	-1.414008810826549e-28,
	3.4798693650590278e-30,
	-8.5774661653403763e-32,
	2.1172351041679866e-33,
	-5.2327802857375982e-35,
	1.2947835769777706e-36,
	-3.2071412978037776e-38,
	7.9516273142055149e-40,
};

#define EXP_MIN_DF  40.0         /* expansion below used from this df ... */
#define EXP_MAX_S0  2.0          /* ... while s0 = ln(1 + t²/df) <= this */

/*
 * tail_large_df: P(|T| > |t|) = I_x(a, 1/2), a = df/2, x = 1/(1 + r),
 * r = t²/df, for large df, where the continued fraction loses about
 * a·1e-16 relative (its terms cancel as x → 1). Asymptotic expansion for
 * large a and small b (the expansion behind DiDonato & Morris 1992, BGRAT;
 * Temme 1996 §11.3.3): with u = e^{-s} the integral becomes
 *   I = 1/B(a,b) ∫_{s0}^∞ e^{-ν s} s^{b-1} (sinh(s/2)/(s/2))^{b-1} ds,
 * ν = a + (b-1)/2, s0 = -ln x = log1p(r), and term by term
 *   I = ν^{-b}/B(a,b) · Σ_n c_n ν^{-2n} Γ(b + 2n, ν s0),
 * here with b = 1/2: Γ(1/2, z) = √π erfc(√z) and the upward recurrence
 * Γ(s+1, z) = s Γ(s, z) + z^s e^{-z} (positive terms, stable). Terms fall
 * like (s0/2π)^{2n} and (2n)!/(2πν)^{2n}, so s0 <= 2 and df >= 40 give
 * double precision within the table above.
 */
static double
tail_large_df(double a, double r)
{
	double nu = a - 0.25;
	double z = nu * log1p(r);
	double sz = sqrt(z);
	double g = sqrt(M_PI) * erfc(sz);       /* Γ(1/2, z) */
	double e = sz * exp(-z);                /* z^{1/2} e^{-z} */
	double s = 0.5, w = 1, inv_nu2 = 1 / (nu * nu);
	double sum = g;
	for (size_t n = 0; n < sizeof sinh_coef / sizeof sinh_coef[0]; n++) {
		for (int k = 0; k < 2; k++) {   /* Γ(s, z) → Γ(s + 2, z) */
			g = s * g + e;
			e *= z;
			s += 1;
		}
		w *= inv_nu2;
		double term = sinh_coef[n] * w * g;
		sum += term;
		if (fabs(term) <= 1e-17 * fabs(sum))
			break;
	}
	return exp(-lbeta(a, 0.5) - 0.5 * log(nu)) * sum;
}

/* Standard normal cdf, the df = +INFINITY limit. */
static double
norm_cdf(double t)
{
	return 0.5 * erfc(-t / M_SQRT2);
}

/*
 * br_t_cdf: P(T <= t) for Student's t with df degrees of freedom.
 * With x = df/(df+t²) and y = t²/(df+t²) (both free of cancellation),
 * P(|T| > |t|) = I_x(df/2, 1/2), so P(T <= t) = I/2 for t < 0 and 1 - I/2
 * for t > 0 (NR §6.14, eq. 6.14.11). t = ±INFINITY → 0 or 1; t = 0 → 1/2;
 * df = +INFINITY → standard normal. NAN when t is NaN or df is NaN or <= 0.
 */
double
br_t_cdf(double t, double df)
{
	if (isnan(t) || isnan(df) || !(df > 0))
		return NAN;
	if (t == 0)
		return 0.5;
	if (isinf(t))
		return t < 0 ? 0.0 : 1.0;
	if (isinf(df))
		return norm_cdf(t);
	double at = fabs(t), t2 = at * at, ix, iy;
	if (df >= EXP_MIN_DF && t2 <= df * expm1(EXP_MAX_S0)) {
		ix = tail_large_df(0.5 * df, t2 / df);
	} else if (t2 > df) {
		/* x = df/(df+t²) = r/(1+r), r = df/t² (t² may overflow, r underflow) */
		double r = df / at / at;
		double x = r / (1 + r), y = 1 / (1 + r);
		double lx = x >= DBL_MIN ? log(x) : log(df) - 2 * log(at);
		incbeta(0.5 * df, 0.5, x, y, lx, -log1p(r), &ix, &iy);
	} else {
		/* y = t²/(df+t²) = r/(1+r), r = t²/df; y == 0 (t² underflowed) → 1/2 */
		double r = t2 / df;
		double x = 1 / (1 + r), y = r / (1 + r);
		incbeta(0.5 * df, 0.5, x, y, -log1p(r), y > 0 ? log(y) : 0, &ix, &iy);
	}
	return t < 0 ? 0.5 * ix : 1 - 0.5 * ix;
}

/* Density of Student's t: (1 + t²/df)^(-(df+1)/2) / (sqrt(df)·B(df/2, 1/2)). */
static double
t_pdf(double t, double df)
{
	if (isinf(df))
		return exp(-0.5 * t * t) / sqrt(2 * M_PI);
	double at = fabs(t);
	double l = at * at <= df ? log1p(at * at / df)     /* ln(1 + t²/df) without overflow */
	    : 2 * log(at) - log(df) + log1p(df / at / at);
	return exp(-0.5 * (df + 1) * l - lbeta(0.5 * df, 0.5)) / sqrt(df);
}

/*
 * br_t_quantile: inverse of br_t_cdf. For p < 1/2 a bracket [lo, hi] with
 * cdf(lo) < p < cdf(hi) is found by doubling from -1, then Newton steps on
 * cdf(t) - p are taken, falling back to bisection whenever a step would
 * leave the bracket; stops when a step is below 1e-15 relative. p > 1/2 by
 * symmetry (1 - p is exact there). NAN for p outside (0, 1) or bad df; a
 * quantile beyond the double range comes back as ±INFINITY.
 */
double
br_t_quantile(double p, double df)
{
	if (isnan(p) || !(p > 0 && p < 1) || isnan(df) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p > 0.5)
		return -br_t_quantile(1 - p, df);
	double lo = -1, hi = 0;
	while (br_t_cdf(lo, df) >= p) {
		hi = lo;
		lo *= 2;
		if (isinf(lo))
			return -INFINITY;
	}
	double t = 0.5 * (lo + hi);
	for (int it = 0; it < 200; it++) {
		double f = br_t_cdf(t, df) - p;
		if (f == 0)
			return t;
		if (f < 0)
			lo = t;
		else
			hi = t;
		double d = t_pdf(t, df);
		double tn = d > 0 ? t - f / d : NAN;
		if (!(tn > lo && tn < hi))
			tn = 0.5 * (lo + hi);
		if (fabs(tn - t) <= 1e-15 * fabs(tn) || lo == hi)
			return tn;
		t = tn;
	}
	return t;
}

/* Summary of the finite values of one sample. */
struct sample {
	size_t n;
	double mean, var, min, max;     /* var: ddof = 1, NAN when n < 2 */
};

/*
 * summarize: mean and variance (ddof = 1) of the finite values of x[0..n),
 * computed as numpy does: pairwise sum / n, then the pairwise sum of the
 * squared deviations / (n - 1).
 */
static void
summarize(const double *x, size_t n, struct sample *s)
{
	s->n = 0;
	s->mean = s->var = s->min = s->max = NAN;
	if (x == NULL || n == 0)
		return;
	double *v = br_xmalloc(n * sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		if (k == 0 || x[i] < s->min)
			s->min = x[i];
		if (k == 0 || x[i] > s->max)
			s->max = x[i];
		v[k++] = x[i];
	}
	s->n = k;
	if (k > 0)
		s->mean = br_pairwise_sum(v, k) / (double)k;
	if (k > 1) {
		for (size_t i = 0; i < k; i++) {
			double e = v[i] - s->mean;
			v[i] = e * e;
		}
		s->var = br_pairwise_sum(v, k) / (double)(k - 1);
	}
	free(v);
}

/*
 * br_mean_ci95: mean, sd (ddof = 1), sem = sd/sqrt(n) and the Student t
 * interval mean ± t_{0.975, n-1}·sem of the finite values of x[0..n).
 * See stats.h for the edge cases.
 */
void
br_mean_ci95(const double *x, size_t n, br_mean_ci *out)
{
	struct sample s;
	summarize(x, n, &s);
	out->n = s.n;
	out->mean = s.mean;
	out->min = s.min;
	out->max = s.max;
	out->sd = out->sem = out->ci95_lo = out->ci95_hi = NAN;
	if (s.n < 2)
		return;
	out->sd = sqrt(s.var);
	out->sem = out->sd / sqrt((double)s.n);
	double tq = br_t_quantile(0.975, (double)(s.n - 1));
	out->ci95_lo = s.mean - tq * out->sem;
	out->ci95_hi = s.mean + tq * out->sem;
}

/*
 * br_welch_test: Welch's t test of mean(b) - mean(a), as
 * scipy.stats.ttest_ind(b, a, equal_var=False). See stats.h.
 */
int
br_welch_test(const double *a, size_t na, const double *b, size_t nb, br_welch *out)
{
	struct sample sa, sb;
	summarize(a, na, &sa);
	summarize(b, nb, &sb);
	out->ok = 0;
	out->n_a = sa.n;
	out->n_b = sb.n;
	out->mean_a = sa.mean;
	out->mean_b = sb.mean;
	out->diff = sb.mean - sa.mean;      /* NAN unless both sides have a value */
	out->se = out->t = out->df = out->p_two_sided = NAN;
	out->ci95_lo = out->ci95_hi = NAN;
	if (sa.n < 2 || sb.n < 2)
		return -1;
	double va = sa.var / (double)sa.n, vb = sb.var / (double)sb.n;
	double v = va + vb;
	out->ok = 1;
	out->se = sqrt(v);
	if (v == 0) {
		/* no spread on either side: the difference is exact */
		out->df = NAN;
		out->ci95_lo = out->ci95_hi = out->diff;
		if (out->diff == 0) {
			out->t = 0;
			out->p_two_sided = 1;
		} else {
			out->t = out->diff > 0 ? INFINITY : -INFINITY;
			out->p_two_sided = 0;
		}
		return 0;
	}
	/* (va + vb)² / (va²/(n_a-1) + vb²/(n_b-1)), scaled by 1/v² against over/underflow */
	double wa = va / v, wb = vb / v;
	out->df = 1 / (wa * wa / (double)(sa.n - 1) + wb * wb / (double)(sb.n - 1));
	out->t = out->diff / out->se;
	double p = 2 * br_t_cdf(-fabs(out->t), out->df);
	out->p_two_sided = p > 1 ? 1 : p;
	double tq = br_t_quantile(0.975, out->df);
	out->ci95_lo = out->diff - tq * out->se;
	out->ci95_hi = out->diff + tq * out->se;
	return 0;
}
