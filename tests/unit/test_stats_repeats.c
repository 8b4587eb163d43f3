/*
 * Repeat statistics (src/stats/repeats.c) against scipy 1.10.1 / numpy 1.24.2
 * (Debian 12 python3-scipy, python3-numpy), run with /usr/bin/python3 and
 * printed with "%.17g". Preamble of every Python line quoted below:
 *
 *   import numpy as np; from scipy import stats, optimize
 *   g = lambda v: "%.17g" % v
 *   tq = lambda p, df: optimize.brentq(lambda x: stats.t.cdf(x, df) - p,
 *            -1e12, 1e12, xtol=1e-300, rtol=8.9e-16, maxiter=500)
 *   Q = lambda p, df: tq(p, df) if p <= 0.5 else -tq(1 - p, df)
 *
 * Q is the quantile by inverting scipy's cdf (stats.t.cdf, cephes stdtr,
 * good to ~1e-13), not stats.t.ppf: scipy 1.10's stdtrit is only good to
 * ~2e-9 (e.g. t.ppf(0.025, 1) = -12.706204736432102, exact
 * -cot(0.025π) = -12.706204736174707) and to ~1e-7 at p = 1 - 1e-10.
 * For p > 1/2 it inverts the lower tail at 1 - p (exact in floating point
 * there); inverting the cdf near 1 would lose digits.
 */
#include "br_test.h"
#include "benchreport/stats.h"

/* got vs want with row context: NaN must be NaN, ±Inf exact, else relative. */
static void
check(const char *what, int row, double got, double want, double rel)
{
	if (isnan(want)) {
		if (!isnan(got))
			fail_msg("row %d %s = %.17g, expected NaN", row, what, got);
		return;
	}
	double m = fabs(got) > fabs(want) ? fabs(got) : fabs(want);
	if (!(got == want || fabs(got - want) <= rel * m))
		fail_msg("row %d %s = %.17g, expected %.17g (rel tol %g, rel err %.3g)", row, what,
		    got, want, rel, fabs(got - want) / m);
}

/* ---- t distribution cdf ---- */

struct cdf_row {
	double t, df, p;
};

/*
 * for df in [1, 2, 2.5, 4, 10, 30.7, 1000, 1e5, 1e6]:
 *     for t in [-40, -3, -0.5, 0, 1.96, 12]: print(g(t), g(df), g(stats.t.cdf(t, df)))
 * then the same line for the extra (df, t) pairs at the end.
 */
static const struct cdf_row CDF[] = {
	{ -40, 1, 0.007956089912025812 },
	{ -3, 1, 0.10241638234956672 },
	{ -0.5, 1, 0.35241638234956679 },
	{ 0, 1, 0.5 },
	{ 1.96, 1, 0.84982855411198344 },
	{ 12, 1, 0.97353532394041009 },
	{ -40, 2, 0.0003122073360923703 },
	{ -3, 2, 0.047732983133354556 },
	{ -0.5, 2, 0.33333333333333337 },
	{ 0, 2, 0.5 },
	{ 1.96, 2, 0.90547134519913386 },
	{ 12, 2, 0.99656353316142077 },
	{ -40, 2.5, 7.0978171452466926e-05 },
	{ -3, 2.5, 0.036288047774515914 },
	{ -0.5, 2.5, 0.32884895993485741 },
	{ 0, 2.5, 0.5 },
	{ 1.96, 2.5, 0.918526217763593 },
	{ 12, 2.5, 0.99858189248496088 },
	{ -40, 4, 1.1670081613006347e-06 },
	{ -3, 4, 0.019970984035859413 },
	{ -0.5, 4, 0.32166498159093165 },
	{ 0, 4, 0.5 },
	{ 1.96, 4, 0.93922268007490828 },
	{ 12, 4, 0.99986178572574858 },
	{ -40, 10, 1.1404288715428737e-12 },
	{ -3, 10, 0.0066718275112847827 },
	{ -0.5, 10, 0.31394680287148646 },
	{ 0, 10, 0.5 },
	{ 1.96, 10, 0.96078187987615016 },
	{ 12, 10, 0.9999998539295587 },
	{ -40, 30.7, 2.373064443025384e-28 },
	{ -3, 30.7, 0.0026591614081371631 },
	{ -0.5, 30.7, 0.31032013552162713 },
	{ 0, 30.7, 0.5 },
	{ 1.96, 30.7, 0.97043640410698295 },
	{ 12, 30.7, 0.99999999999979983 },
	{ -40, 1000, 5.239426077586736e-210 },
	{ -3, 1000, 0.0013833545221190939 },
	{ -0.5, 1000, 0.30859254041693751 },
	{ 0, 1000, 0.5 },
	{ 1.96, 1000, 0.97486340752212564 },
	{ 12, 1000, 1 },
	{ -40, 1e5, 0 },                        /* true value ~2e-347 underflows */
	{ -3, 1e5, 0.0013502304420323597 },
	{ -0.5, 1e5, 0.30853808882720901 },
	{ 0, 1e5, 0.5 },
	{ 1.96, 1e5, 0.97500071840284919 },
	{ 12, 1e5, 1 },
	{ -40, 1e6, 0 },
	{ -3, 1e6, 0.0013499312707108977 },
	{ -0.5, 1e6, 0.30853759373618583 },
	{ 0, 1e6, 0.5 },
	{ 1.96, 1e6, 0.97500196620736512 },
	{ 12, 1e6, 1 },
	/* lower tails at large df, both sides of the df = 40 method switch, df < 1 */
	{ -12, 1000, 2.1620286933872899e-31 },
	{ -12, 1e5, 1.8722529059782117e-33 },
	{ -12, 1e6, 1.7858425623825391e-33 },
	{ -3, 39.9, 0.0023178201763170221 },
	{ -25, 39.9, 2.7283620944883458e-26 },
	{ -3, 40, 0.0023150698920780676 },
	{ -25, 40, 2.4816717222391583e-26 },
	{ -3, 0.5, 0.18365407799297176 },
	{ 1.96, 0.5, 0.77513851113081045 },
};

static void
test_t_cdf_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof CDF / sizeof CDF[0]; i++)
		check("br_t_cdf", (int)i, br_t_cdf(CDF[i].t, CDF[i].df), CDF[i].p, 1e-12);
}

/* ---- t distribution quantile ---- */

struct q_row {
	double p, df, t;
};

/*
 * for df in [1, 2, 2.5, 4, 10, 30.7, 1000, 1e6]:
 *     for p in [1e-10, 0.001, 0.025, 0.3, 0.975, 1 - 1e-10]: print(g(p), g(df), g(Q(p, df)))
 */
static const struct q_row QUANT[] = {
	{ 1e-10, 1, -3183098861.8379064 },
	{ 0.001, 1, -318.30883898555038 },
	{ 0.025, 1, -12.706204736174705 },
	{ 0.3, 1, -0.72654252800536157 },
	{ 0.975, 1, 12.706204736174691 },
	{ 1 - 1e-10, 1, 3183098598.4671469 },
	{ 1e-10, 2, -70710.678108048145 },
	{ 0.001, 2, -22.327124770119873 },
	{ 0.025, 2, -4.3026527297494628 },
	{ 0.3, 2, -0.61721339984836765 },
	{ 0.975, 2, 4.3026527297494619 },
	{ 1 - 1e-10, 2, 70710.675182734471 },
	{ 1e-10, 2.5, -8765.4377713645736 },
	{ 0.001, 2.5, -13.822193110865964 },
	{ 0.025, 2.5, -3.574654842003683 },
	{ 0.3, 2.5, -0.5973077382523172 },
	{ 0.975, 2.5, 3.5746548420036812 },
	{ 1 - 1e-10, 2.5, 8765.4374812623628 },
	{ 1e-10, 4, -416.17514032960412 },
	{ 0.001, 4, -7.1731822197823085 },
	{ 0.025, 4, -2.7764451051977943 },
	{ 0.3, 4, -0.56864906304970531 },
	{ 0.975, 4, 2.7764451051977934 },
	{ 1 - 1e-10, 4, 416.17513172081772 },
	{ 1e-10, 10, -25.466008021697725 },
	{ 0.001, 10, -4.1437004940465894 },
	{ 0.025, 10, -2.2281388519862744 },
	{ 0.3, 10, -0.54152803875501576 },
	{ 0.975, 10, 2.228138851986273 },
	{ 1 - 1e-10, 10, 25.466007808016009 },
	{ 1e-10, 30.7, -9.2862310287038525 },
	{ 0.001, 30.7, -3.377908951676087 },
	{ 0.025, 30.7, -2.040321537812142 },
	{ 0.3, 30.7, -0.5298898633083825 },
	{ 0.975, 30.7, 2.040321537812142 },
	{ 1 - 1e-10, 30.7, 9.2862309951249102 },
	{ 1e-10, 1000, -6.4278762831342133 },
	{ 0.001, 1000, -3.0984021639129224 },
	{ 0.025, 1000, -1.9623390808264085 },
	{ 0.3, 1000, -0.52456770730922719 },
	{ 0.975, 1000, 1.9623390808264078 },
	{ 1 - 1e-10, 1000, 6.4278762700330292 },
	{ 1e-10, 1e6, -6.3614068488767419 },
	{ 0.001, 1e6, -3.0902404563165193 },
	{ 0.025, 1e6, -1.9599663568141066 },
	{ 0.3, 1e6, -0.52440067986020955 },
	{ 0.975, 1e6, 1.9599663568141066 },
	{ 1 - 1e-10, 1e6, 6.361406836169718 },
};

/* Table values, and the round trip br_t_cdf(br_t_quantile(p)) = p on the lower tail. */
static void
test_t_quantile_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof QUANT / sizeof QUANT[0]; i++) {
		double q = br_t_quantile(QUANT[i].p, QUANT[i].df);
		check("br_t_quantile", (int)i, q, QUANT[i].t, 1e-12);
		if (QUANT[i].p < 0.5)
			check("cdf(quantile)", (int)i, br_t_cdf(q, QUANT[i].df), QUANT[i].p, 1e-12);
	}
}

/* Bad arguments, infinities, symmetry, closed forms and the normal limit. */
static void
test_t_edges(void **state)
{
	(void)state;
	assert_nan(br_t_cdf(1, 0));
	assert_nan(br_t_cdf(1, -2));
	assert_nan(br_t_cdf(1, NAN));
	assert_nan(br_t_cdf(NAN, 3));
	assert_double_abs(br_t_cdf(-INFINITY, 3), 0, 0);
	assert_double_abs(br_t_cdf(INFINITY, 3), 1, 0);
	assert_double_abs(br_t_cdf(0, 7.5), 0.5, 0);
	assert_nan(br_t_quantile(0, 3));
	assert_nan(br_t_quantile(1, 3));
	assert_nan(br_t_quantile(-0.1, 3));
	assert_nan(br_t_quantile(NAN, 3));
	assert_nan(br_t_quantile(0.3, 0));
	assert_nan(br_t_quantile(0.3, NAN));
	assert_double_abs(br_t_quantile(0.5, 3), 0, 0);
	/* 1 - 0.25 is exact, so the symmetry is exact */
	assert_double_abs(br_t_quantile(0.75, 2.5), -br_t_quantile(0.25, 2.5), 0);
	/* closed forms: df = 1 Cauchy, cdf = 1/2 + atan(t)/π; df = 2, t = (2p-1)/sqrt(2p(1-p)) */
	assert_double_rel(br_t_cdf(-1e200, 1), 1 / (M_PI * 1e200), 1e-12);   /* t² overflows */
	assert_double_rel(br_t_quantile(1e-200, 2), (2e-200 - 1) / sqrt(2e-200), 1e-12);
	/* stats.norm.cdf(1.96), stats.norm.cdf(-3), stats.norm.ppf(0.975), stats.norm.ppf(1e-10) */
	assert_double_rel(br_t_cdf(1.96, INFINITY), 0.97500210485177952, 1e-14);
	assert_double_rel(br_t_cdf(-3, INFINITY), 0.0013498980316300933, 1e-14);
	assert_double_rel(br_t_quantile(0.975, INFINITY), 1.959963984540054, 1e-12);
	assert_double_rel(br_t_quantile(1e-10, INFINITY), -6.3613409024040557, 1e-12);
}

/* ---- mean with 95% interval ---- */

struct mci_row {
	double x[8];
	size_t n;
	size_t n_ok;
	double mean, sd, sem, lo, hi, min, max;
};

/*
 * x = np.array(X, float); x = x[np.isfinite(x)]; n = len(x)
 * m = x.mean(); sd = x.std(ddof=1); sem = sd/np.sqrt(n); h = Q(0.975, n-1)*sem
 * print(n, g(m), g(sd), g(sem), g(m-h), g(m+h), g(x.min()), g(x.max()))
 * (n = 0 and n = 1 rows are by definition: NAN except mean/min/max = x[0].)
 */
static const struct mci_row MCI[] = {
	{ { 0 }, 0, 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
	{ { NAN, NAN }, 2, 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
	{ { 1405.2 }, 1, 1, 1405.2, NAN, NAN, NAN, NAN, 1405.2, 1405.2 },
	{ { 439.1, 441.8 }, 2, 2, 440.45000000000005, 1.9091883092036703, 1.3499999999999943,
	    423.2966236061643, 457.60337639383579, 439.1, 441.8 },
	{ { 1405.2, 1398.7, 1411.0 }, 3, 3, 1404.9666666666665, 6.1533188876681066, 3.55262031620479,
	    1389.6809751653846, 1420.2523581679484, 1398.7, 1411 },
	/* n = 5 after skipping the NaN */
	{ { 12.5, NAN, 11.75, 13.0, 12.25, 12.9 }, 6, 5, 12.48, 0.50818303789087649,
	    0.22726636354727023, 11.84900741735308, 13.11099258264692, 11.75, 13 },
	/* ±Inf are skipped too */
	{ { 3.25, INFINITY, 2.5, -INFINITY, 4.0 }, 5, 3, 3.25, 0.75, 0.43301270189221935,
	    1.3868967161872525, 5.1131032838127473, 2.5, 4 },
	/* no spread: sd = sem = 0, interval [mean, mean] */
	{ { 7.5, 7.5, 7.5 }, 3, 3, 7.5, 0, 0, 7.5, 7.5, 7.5, 7.5 },
};

static void
test_mean_ci95_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof MCI / sizeof MCI[0]; i++) {
		const struct mci_row *r = &MCI[i];
		br_mean_ci o;
		br_mean_ci95(r->n ? r->x : NULL, r->n, &o);
		assert_int_equal(o.n, r->n_ok);
		check("mean", (int)i, o.mean, r->mean, 1e-15);
		check("sd", (int)i, o.sd, r->sd, 1e-14);
		check("sem", (int)i, o.sem, r->sem, 1e-14);
		check("ci95_lo", (int)i, o.ci95_lo, r->lo, 1e-13);
		check("ci95_hi", (int)i, o.ci95_hi, r->hi, 1e-13);
		check("min", (int)i, o.min, r->min, 0);
		check("max", (int)i, o.max, r->max, 0);
	}
}

/* ---- Welch's t test ---- */

struct welch_row {
	double a[6];
	size_t na;
	double b[6];
	size_t nb;
	int ret, ok;
	size_t n_a, n_b;
	double mean_a, mean_b, diff, se, t, df, p, lo, hi;
};

/*
 * a = np.array(A, float); b = np.array(B, float); a = a[np.isfinite(a)]; b = b[np.isfinite(b)]
 * r = stats.ttest_ind(b, a, equal_var=False)
 * va = a.var(ddof=1)/len(a); vb = b.var(ddof=1)/len(b)
 * df = (va+vb)**2/(va**2/(len(a)-1)+vb**2/(len(b)-1))
 * se = np.sqrt(va+vb); d = b.mean()-a.mean(); h = Q(0.975, df)*se
 * print(g(a.mean()), g(b.mean()), g(d), g(se), g(r.statistic), g(df), g(r.pvalue), g(d-h), g(d+h))
 * Rows marked "def." follow the documented conventions instead (scipy gives NaN there).
 */
static const struct welch_row WELCH[] = {
	/* unequal n and variances */
	{ { 1405.2, 1398.7, 1411.0 }, 3, { 439.1, 441.8, 436.5, 440.0 }, 4, 0, 1, 3, 4,
	    1404.9666666666665, 439.35000000000002, -965.61666666666645, 3.7200283750411129,
	    -259.57239281971732, 2.3896478791289493, 2.2452725959920718e-06,
	    -979.36429809364859, -951.86903523968431 },
	/* same, with a NaN in a and an Inf in b (skipped) */
	{ { 1405.2, NAN, 1398.7, 1411.0 }, 4, { 439.1, 441.8, INFINITY, 436.5, 440.0 }, 5, 0, 1, 3, 4,
	    1404.9666666666665, 439.35000000000002, -965.61666666666645, 3.7200283750411129,
	    -259.57239281971732, 2.3896478791289493, 2.2452725959920718e-06,
	    -979.36429809364859, -951.86903523968431 },
	/* moderate p */
	{ { 101.2, 98.7, 103.5, 99.9, 100.4 }, 5, { 102.8, 104.1, 101.9 }, 3, 0, 1, 5, 3,
	    100.73999999999998, 102.93333333333332, 2.1933333333333422, 1.023903207230924,
	    2.1421295663923758, 5.9175984542760389, 0.076563263713487165,
	    -0.3205486758324736, 4.7072153424991576 },
	/* equal groups: t = 0, p = 1 */
	{ { 5, 6, 7 }, 3, { 5, 6, 7 }, 3, 0, 1, 3, 3, 6, 6, 0, 0.81649658092772603, 0, 4, 1,
	    -2.2669579355275191, 2.2669579355275191 },
	/* one variance 0: df = n_b - 1 */
	{ { 10, 10, 10 }, 3, { 11, 12, 13 }, 3, 0, 1, 3, 3, 10, 12, 2, 0.57735026918962573,
	    3.4641016151377548, 2, 0.074179900227448525, -0.48413771175032982, 4.4841377117503303 },
	/* both variances 0, diff != 0: scipy t = inf, p = 0; def. se = 0, df NAN, ci [diff, diff] */
	{ { 2, 2, 2 }, 3, { 3, 3 }, 2, 0, 1, 3, 2, 2, 3, 1, 0, INFINITY, NAN, 0, 1, 1 },
	{ { 3, 3 }, 2, { 2, 2, 2 }, 3, 0, 1, 2, 3, 3, 2, -1, 0, -INFINITY, NAN, 0, -1, -1 },
	/* def.: both variances 0, diff == 0: t = 0, p = 1 */
	{ { 4, 4, 4 }, 3, { 4, 4 }, 2, 0, 1, 3, 2, 4, 4, 0, 0, 0, NAN, 1, 0, 0 },
	/* def.: fewer than 2 finite values on a side → -1, means/diff where computable */
	{ { 1 }, 1, { 2, 3 }, 2, -1, 0, 1, 2, 1, 2.5, 1.5, NAN, NAN, NAN, NAN, NAN, NAN },
	{ { NAN, 1, NAN }, 3, { 2, 3, 4 }, 3, -1, 0, 1, 3, 1, 3, 2, NAN, NAN, NAN, NAN, NAN, NAN },
	{ { 0 }, 0, { 2, 3 }, 2, -1, 0, 0, 2, NAN, 2.5, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
	{ { 1, 2 }, 2, { NAN }, 1, -1, 0, 2, 0, 1.5, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
};

static void
test_welch_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof WELCH / sizeof WELCH[0]; i++) {
		const struct welch_row *r = &WELCH[i];
		br_welch o;
		int ret = br_welch_test(r->na ? r->a : NULL, r->na, r->b, r->nb, &o);
		if (ret != r->ret || o.ok != r->ok)
			fail_msg("row %zu: ret %d ok %d, expected %d %d", i, ret, o.ok, r->ret, r->ok);
		assert_int_equal(o.n_a, r->n_a);
		assert_int_equal(o.n_b, r->n_b);
		check("mean_a", (int)i, o.mean_a, r->mean_a, 1e-15);
		check("mean_b", (int)i, o.mean_b, r->mean_b, 1e-15);
		check("diff", (int)i, o.diff, r->diff, 1e-14);
		check("se", (int)i, o.se, r->se, 1e-14);
		check("t", (int)i, o.t, r->t, 1e-13);
		check("df", (int)i, o.df, r->df, 1e-13);
		check("p_two_sided", (int)i, o.p_two_sided, r->p, 1e-11);
		check("ci95_lo", (int)i, o.ci95_lo, r->lo, 1e-13);
		check("ci95_hi", (int)i, o.ci95_hi, r->hi, 1e-13);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_cdf_table),
		cmocka_unit_test(test_t_quantile_table),
		cmocka_unit_test(test_t_edges),
		cmocka_unit_test(test_mean_ci95_table),
		cmocka_unit_test(test_welch_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
