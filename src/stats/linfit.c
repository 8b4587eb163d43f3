/*
 * Ordinary least squares y = a + b·x with standard errors and R²
 * (textbook formulas; tested against numpy.polyfit and hand computation).
 */
#include <math.h>
#include "benchreport/stats.h"

/*
 * br_linfit: least-squares line through (x[i], y[i]), i < n.
 * Centred sums: Sxx = Σ(x-x̄)², Sxy = Σ(x-x̄)(y-ȳ); b = Sxy/Sxx, a = ȳ - b·x̄.
 * Residual variance s² = SSR/(n-2); se_b = sqrt(s²/Sxx),
 * se_a = sqrt(s²·(1/n + x̄²/Sxx)) (NAN when n < 3). R² = 1 - SSR/SST
 * (NAN when all y are equal, SST = 0). Non-finite points are not skipped:
 * the caller passes clean data.
 * Returns 0, or -1 (out->n set, numbers NAN) when n < 2 or all x are equal.
 */
int
br_linfit(const double *x, const double *y, size_t n, br_linfit_t *out)
{
	out->n = n;
	out->a = out->b = out->se_a = out->se_b = out->r2 = NAN;
	if (n < 2 || x == NULL || y == NULL)
		return -1;
	double sx = 0, sy = 0;
	for (size_t i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
	}
	double xm = sx / (double)n, ym = sy / (double)n;
	double sxx = 0, sxy = 0, sst = 0;
	for (size_t i = 0; i < n; i++) {
		double dx = x[i] - xm, dy = y[i] - ym;
		sxx += dx * dx;
		sxy += dx * dy;
		sst += dy * dy;
	}
	if (!(sxx > 0))
		return -1;
	double b = sxy / sxx;
	double a = ym - b * xm;
	double ssr = 0;
	for (size_t i = 0; i < n; i++) {
		double r = y[i] - (a + b * x[i]);
		ssr += r * r;
	}
	out->a = a;
	out->b = b;
	out->r2 = sst > 0 ? 1.0 - ssr / sst : NAN;
	if (n >= 3) {
		double s2 = ssr / (double)(n - 2);
		out->se_b = sqrt(s2 / sxx);
		out->se_a = sqrt(s2 * (1.0 / (double)n + xm * xm / sxx));
	}
	return 0;
}
