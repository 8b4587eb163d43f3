/*
 * Tests of the figure layer (src/render): nice ticks, tick labels, text via
 * pango (CJK), and br_render_figures on a hand-built analysis: a synthetic
 * 600-row overload series and synthetic latency samples.
 */
#include "br_test.h"

#include <cairo.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dirent.h>

#include "benchreport/render.h"
#include "benchreport/common.h"
#include "render/chart.h"
#include "render/canvas.h"

/* ---------------------------------------------------------------- helpers */

/* Deterministic pseudo-random numbers in [0, 1) (LCG, Numerical Recipes constants). */
/* the English report template: the figures take their text from it */
static br_template *g_tmpl;

static unsigned long lcg_state = 12345;
static double
lcg(void)
{
	lcg_state = (lcg_state * 1664525UL + 1013904223UL) & 0xffffffffUL;
	return (double)lcg_state / 4294967296.0;
}

/* numpy-linear percentile of sorted x (written here independently of src/stats). */
static double
pct(const double *x, size_t n, double p)
{
	double h = (double)(n - 1) * p / 100.0;
	size_t lo = (size_t)floor(h);
	if (lo + 1 >= n)
		return x[n - 1];
	return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Whole file into a malloc'd string. */
/* noinline: inlined, gcc 12 takes the returned buffer for a pointer to the
 * local `d` whose address br_read_file receives (-Wdangling-pointer) */
static __attribute__((noinline)) char *
slurp(const char *path, size_t *len)
{
	char *d = NULL, *cause = NULL;
	size_t l = 0;
	if (br_read_file(path, &d, &l, &cause) != 0) {
		fail_msg("%s", cause);
	}
	if (len)
		*len = l;
	return d;
}

static size_t
count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Remove a flat directory tree made by a test. */
static void
rm_tree(const char *dir)
{
	if (getenv("BR_TEST_KEEP"))
		return;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *p = br_path_join(dir, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* Number of entries in a directory (without . and ..). */
static int
dir_entries(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* ---------------------------------------------------------------- fixtures */

#define NROWS 600
#define T0 1700000000.0

typedef struct fixture {
	br_run run;
	br_series ser;
	br_analysis a;
	double *lat[BR_N_LATENCY];
} fixture;

/*
 * The overload series: t = T0 + i (1 Hz), running = 11 + noise in {-1,0,1},
 * waiting ramps 60 → 0, KV usage a sawtooth 0.900 → 0.996 with period 20 s,
 * preemption counter starting at 100 and rising by 1 + (k mod 3) at the k-th
 * sawtooth drop (i = 20k, k = 1..29): total 9·(2+3+1) + 2 + 3 = 59.
 */
static void
fill_series(br_series *s)
{
	static char *names[4] = { "vllm:num_requests_running", "vllm:num_requests_waiting",
		"vllm:kv_cache_usage_perc", "vllm:num_preemptions_total" };
	memset(s, 0, sizeof *s);
	s->n_rows = NROWS;
	s->n_cols = 4;
	s->t_s = malloc(NROWS * sizeof(double));
	s->names = malloc(4 * sizeof(char *));
	s->cols = malloc(4 * sizeof(double *));
	for (int c = 0; c < 4; c++) {
		s->names[c] = strdup(names[c]);
		s->cols[c] = malloc(NROWS * sizeof(double));
	}
	double pre = 100;
	for (int i = 0; i < NROWS; i++) {
		s->t_s[i] = T0 + i;
		s->cols[0][i] = 11 + floor(lcg() * 3) - 1;
		s->cols[1][i] = round(60.0 * (1.0 - i / 599.0));
		s->cols[2][i] = 0.9 + (0.996 - 0.9) * (i % 20) / 19.0;
		if (i > 0 && i % 20 == 0)
			pre += 1 + (i / 20) % 3;
		s->cols[3][i] = pre;
	}
}

static void
free_series(br_series *s)
{
	for (size_t c = 0; c < s->n_cols; c++) {
		free(s->names[c]);
		free(s->cols[c]);
	}
	free(s->names);
	free(s->cols);
	free(s->t_s);
}

/*
 * Latency samples: TTFT 1000 samples 40..4000 ms (log-uniform), ITL 5000
 * samples ~ 20 ms with a tail to 900 ms, E2EL 1000 samples 2..60 s. Their
 * median/p99/p99.9 come from pct() above (type 7, as numpy).
 */
static void
fill_latency(fixture *f)
{
	br_latency *L = &f->a.latency;
	static const size_t n[BR_N_LATENCY] = { 1000, 0, 5000, 1000 };
	L->from_arrays = 1;
	for (int m = 0; m < BR_N_LATENCY; m++) {
		if (n[m] == 0)
			continue;
		double *v = malloc(n[m] * sizeof *v);
		for (size_t i = 0; i < n[m]; i++) {
			double u = lcg();
			if (m == BR_TTFT)
				v[i] = 40 * pow(100, u);
			else if (m == BR_ITL)
				v[i] = u < 0.995 ? 15 + 10 * lcg() : 100 + 800 * lcg();
			else
				v[i] = 2000 + 58000 * u * u;
		}
		qsort(v, n[m], sizeof *v, cmpd);
		f->lat[m] = v;
		L->samples_ms[m] = v;
		L->n_samples[m] = n[m];
		L->m[m].count = n[m];
		L->m[m].median = pct(v, n[m], 50);
		L->m[m].p99 = pct(v, n[m], 99);
		L->m[m].p999 = pct(v, n[m], 99.9);
	}
	br_latency_fill_cdf(L);   /* figure L draws from the CDF the analysis keeps */
}

static void
fixture_init(fixture *f)
{
	memset(f, 0, sizeof *f);
	lcg_state = 12345;
	fill_series(&f->ser);
	f->run.metrics = &f->ser;
	f->run.metrics_kind = BR_METRICS_CSV;
	f->a.run = &f->run;
	f->a.residency.available = 1;
	f->a.residency.window_start_t_s = T0 + 20;
	f->a.residency.window_end_t_s = T0 + 580;
	fill_latency(f);
}

static void
fixture_free(fixture *f)
{
	free_series(&f->ser);
	for (int m = 0; m < BR_N_LATENCY; m++) {
		free(f->lat[m]);
		free(f->a.latency.cdf_x_ms[m]);
		free(f->a.latency.cdf_share[m]);
	}
}

static char *
make_tmpdir(void)
{
	char tmpl[] = "/tmp/br_render_test_XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	/* render into a sub-folder that does not exist yet: br_render_figures creates it */
	return br_path_join(d, "figures");
}

/* drop_tmpdir: remove a make_tmpdir folder (its files, it, its parent) and
 * free the path. */
static void
drop_tmpdir(char *dir)
{
	rm_tree(dir);
	char *parent = strdup(dir);
	*strrchr(parent, '/') = '\0';
	rmdir(parent);
	free(parent);
	free(dir);
}

/* ---------------------------------------------------------------- checks */

/* PNG size = drawn size at 300 dpi; opaque. */
static void
check_png(const br_figure *fig)
{
	cairo_surface_t *img = cairo_image_surface_create_from_png(fig->png_path);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	/* 170 mm × 95 mm at 72 pt/in: 481.89 × 269.29 pt → 2008 × 1122 px at 300 dpi */
	assert_double_abs(fig->width_pt, 170.0 / 25.4 * 72.0, 1e-9);
	assert_double_abs(fig->height_pt, 95.0 / 25.4 * 72.0, 1e-9);
	assert_int_equal(cairo_image_surface_get_width(img), 2008);
	assert_int_equal(cairo_image_surface_get_height(img), 1122);
	cairo_format_t fmt = cairo_image_surface_get_format(img);
	assert_true(fmt == CAIRO_FORMAT_RGB24 || fmt == CAIRO_FORMAT_ARGB32);
	cairo_surface_flush(img);
	unsigned char *d = cairo_image_surface_get_data(img);
	int st = cairo_image_surface_get_stride(img);
	size_t dark = 0;
	for (int y = 0; y < 1122; y++) {
		const uint32_t *row = (const uint32_t *)(d + (size_t)y * (size_t)st);
		for (int x = 0; x < 2008; x++) {
			if (fmt == CAIRO_FORMAT_ARGB32 && (row[x] >> 24) != 0xff)
				fail_msg("%s: pixel %d,%d has alpha %u", fig->png_path, x, y, row[x] >> 24);
			dark += (row[x] & 0xffffff) != 0xffffff;
		}
	}
	/* something was drawn, on a white background (the four corners are margin) */
	assert_true(dark > 10000);
	uint32_t c00 = ((const uint32_t *)d)[0] & 0xffffff;
	uint32_t c10 = ((const uint32_t *)d)[2007] & 0xffffff;
	uint32_t c01 = ((const uint32_t *)(d + (size_t)1121 * (size_t)st))[0] & 0xffffff;
	uint32_t c11 = ((const uint32_t *)(d + (size_t)1121 * (size_t)st))[2007] & 0xffffff;
	assert_int_equal(c00, 0xffffff);
	assert_int_equal(c10, 0xffffff);
	assert_int_equal(c01, 0xffffff);
	assert_int_equal(c11, 0xffffff);
	/* every pixel as cairo draws the figure's display list itself at 300 dpi
	 * (the PNG writer's own RGB packing: a swapped channel or a shifted
	 * pixel shows here) */
	cairo_surface_t *ref = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 2008, 1122);
	cairo_t *cr = cairo_create(ref);
	cairo_scale(cr, 300.0 / 72.0, 300.0 / 72.0);
	br_drawing_cairo(fig->drawing, cr);
	cairo_destroy(cr);
	cairo_surface_flush(ref);
	const unsigned char *rd = cairo_image_surface_get_data(ref);
	int rst = cairo_image_surface_get_stride(ref);
	for (int y = 0; y < 1122; y++)
		for (int x = 0; x < 2008; x++) {
			uint32_t a = ((const uint32_t *)(d + (size_t)y * (size_t)st))[x] & 0xffffff;
			uint32_t b = ((const uint32_t *)(rd + (size_t)y * (size_t)rst))[x] & 0xffffff;
			if (a != b)
				fail_msg("%s: pixel %d,%d is %06x, cairo draws %06x", fig->png_path, x, y, a, b);
		}
	cairo_surface_destroy(ref);
	cairo_surface_destroy(img);
}

/* SVG: XML declaration, an <svg element, and no non-finite coordinate. */
static void
check_svg(const br_figure *fig)
{
	size_t len;
	char *s = slurp(fig->svg_path, &len);
	assert_true(len > 1000);
	assert_memory_equal(s, "<?xml", 5);
	assert_non_null(strstr(s, "<svg"));
	assert_non_null(strstr(s, "</svg>"));
	assert_null(strstr(s, "nan"));
	assert_null(strstr(s, "inf"));
	free(s);
}

static const br_figure *
find_fig(const br_figure *figs, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(figs[i].id, id) == 0)
			return &figs[i];
	return NULL;
}

/* ---------------------------------------------------------------- tests */

static void
test_nice_ticks_linear(void **state)
{
	(void)state;
	double t[64], lo, hi;
	/* 0..11.3, at most 6 intervals: step 1 would need 12, step 2 needs 6 → 0,2,…,12 */
	size_t n = br_nice_ticks(0, 11.3, BR_SCALE_LINEAR, 6, 0, t, 64, &lo, &hi);
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++)
		assert_double_abs(t[i], 2.0 * (double)i, 1e-12);
	assert_double_abs(lo, 0, 1e-12);
	assert_double_abs(hi, 12, 1e-12);
	/* fixed 0..100 (KV %): 100/6 → mag 10; step 10 gives 10 intervals, 20 gives 5 */
	n = br_nice_ticks(0, 100, BR_SCALE_LINEAR, 6, 1, t, 64, &lo, &hi);
	assert_int_equal(n, 6);
	assert_double_abs(t[5], 100, 1e-12);
	assert_double_abs(hi, 100, 1e-12);
	/* -0.37..0.52, 5 intervals: 0.89/5 → mag 0.1; step 0.2 → -0.4..0.6 (5 intervals) */
	n = br_nice_ticks(-0.37, 0.52, BR_SCALE_LINEAR, 5, 0, t, 64, &lo, &hi);
	assert_int_equal(n, 6);
	assert_double_abs(t[0], -0.4, 1e-12);
	assert_double_abs(t[2], 0.0, 0);           /* snapped to exactly 0 */
	assert_double_abs(t[5], 0.6, 1e-12);
	/* all zero (a preemption panel without any): 0..1, no negative ticks */
	n = br_nice_ticks(0, 0, BR_SCALE_LINEAR, 5, 0, t, 64, &lo, &hi);
	assert_true(n >= 2);
	assert_double_abs(lo, 0.0, 0);
	assert_double_abs(t[0], 0.0, 0);
	assert_double_abs(hi, 1.0, 1e-12);
	/* bad input */
	assert_int_equal(br_nice_ticks(NAN, 1, BR_SCALE_LINEAR, 5, 0, t, 64, NULL, NULL), 0);
	assert_int_equal(br_nice_ticks(2, 1, BR_SCALE_LINEAR, 5, 0, t, 64, NULL, NULL), 0);
	/* a single value: widened ±10 % → 4.5..5.5 → ticks 4.6? no: step 0.2 over 4.4..5.6 */
	n = br_nice_ticks(5, 5, BR_SCALE_LINEAR, 5, 0, t, 64, &lo, &hi);
	assert_true(n >= 2);
	assert_true(lo < 5 && hi > 5);
}

static void
test_nice_ticks_log(void **state)
{
	(void)state;
	double t[64], lo, hi;
	/* 0.8..2500: decades inside are 10^0..10^3 */
	size_t n = br_nice_ticks(0.8, 2500, BR_SCALE_LOG10, 6, 1, t, 64, &lo, &hi);
	assert_int_equal(n, 4);
	assert_double_rel(t[0], 1, 1e-12);
	assert_double_rel(t[1], 10, 1e-12);
	assert_double_rel(t[2], 100, 1e-12);
	assert_double_rel(t[3], 1000, 1e-12);
	assert_double_abs(lo, 0.8, 0);            /* log range is not widened */
	assert_double_abs(hi, 2500, 0);
	/* 1e-3..1e9: 13 decades, target 5 → every ceil(13/6) = 3rd: 1e-3, 1, 1e3, 1e6, 1e9 */
	n = br_nice_ticks(1e-3, 1e9, BR_SCALE_LOG10, 5, 1, t, 64, NULL, NULL);
	assert_int_equal(n, 5);
	assert_double_rel(t[1], 1, 1e-12);
	assert_double_rel(t[4], 1e9, 1e-12);
	/* 5.8..14.3 (compare C2's E2EL panel): 1-2-5 leaves 10 alone, and the
	 * linear fallback's step 5 too (target 3: ceil(5.8/5) = 2 = floor(14.3/5));
	 * its finer step 2 gives 6, 8, 10, 12, 14: two labels at least */
	n = br_nice_ticks(5.8, 14.3, BR_SCALE_LOG10, 3, 1, t, 64, NULL, NULL);
	assert_int_equal(n, 5);
	assert_double_rel(t[0], 6, 1e-12);
	assert_double_rel(t[4], 14, 1e-12);
	/* 3..40: one decade inside → 1-2-5 ticks 5, 10, 20 */
	n = br_nice_ticks(3, 40, BR_SCALE_LOG10, 6, 1, t, 64, NULL, NULL);
	assert_int_equal(n, 3);
	assert_double_rel(t[0], 5, 1e-12);
	assert_double_rel(t[1], 10, 1e-12);
	assert_double_rel(t[2], 20, 1e-12);
	/* 15..900: only the decade 100 fits (10 < 15, 1000 > 900), so 1-2-5: 20 50 100 200 500 */
	n = br_nice_ticks(15, 900, BR_SCALE_LOG10, 6, 1, t, 64, NULL, NULL);
	assert_int_equal(n, 5);
	assert_double_rel(t[0], 20, 1e-12);
	assert_double_rel(t[4], 500, 1e-12);
	/* non-positive lower bound is refused */
	assert_int_equal(br_nice_ticks(0, 10, BR_SCALE_LOG10, 6, 1, t, 64, NULL, NULL), 0);
}

static void
test_tick_labels(void **state)
{
	(void)state;
	char b[64];
	assert_int_equal(br_tick_label(4, 2, b, sizeof b), 0);
	assert_string_equal(b, "4");
	assert_int_equal(br_tick_label(0.6000000000000001, 0.2, b, sizeof b), 0);
	assert_string_equal(b, "0.6");
	assert_int_equal(br_tick_label(-0.4, 0.2, b, sizeof b), 0);
	assert_string_equal(b, "\xe2\x88\x92" "0.4");   /* U+2212 minus sign */
	assert_int_equal(br_tick_label(1e-17, 0.2, b, sizeof b), 0);
	assert_string_equal(b, "0.0");
	assert_int_equal(br_tick_label(1000, NAN, b, sizeof b), 0);
	assert_string_equal(b, "1000");
	assert_int_equal(br_tick_label(0.01, NAN, b, sizeof b), 0);
	assert_string_equal(b, "0.01");
	assert_int_equal(br_tick_label(1e6, NAN, b, sizeof b), 1);
	assert_string_equal(b, "10<sup>6</sup>");
	/* linear axes into the millions: the same notation, 0 stays 0 */
	assert_int_equal(br_tick_label(1.5e6, 5e5, b, sizeof b), 1);
	assert_string_equal(b, "1.5×10<sup>6</sup>");
	assert_int_equal(br_tick_label(5e5, 5e5, b, sizeof b), 1);
	assert_string_equal(b, "5×10<sup>5</sup>");
	assert_int_equal(br_tick_label(0, 5e5, b, sizeof b), 0);
	assert_string_equal(b, "0");
	assert_int_equal(br_tick_label(-2e299, 1e299, b, sizeof b), 1);
	assert_string_equal(b, "\xe2\x88\x92" "2×10<sup>299</sup>");
	assert_int_equal(br_tick_label(90000, 10000, b, sizeof b), 0);
	assert_string_equal(b, "90000");
	/* a negative exponent takes the minus sign too */
	assert_int_equal(br_tick_label(1e-6, NAN, b, sizeof b), 1);
	assert_string_equal(b, "10<sup>\xe2\x88\x92" "6</sup>");
}

/* ink_height_px: rows holding a dark pixel when `text` (9 pt, markup as
 * given) is replayed at 300 dpi, as figure PNGs are. */
static int
ink_height_px(const char *text, int markup)
{
	br_canvas *cv = br_canvas_new(60, 40);
	br_cv_rgb(cv, 1, 1, 1);
	br_cv_paint(cv);
	br_cv_rgb(cv, 0, 0, 0);
	br_text_draw(cv, text, 9, 0, markup, 10, 30, 0, 1, 0);
	br_drawing *d = br_canvas_finish(cv);
	int w = 60 * 300 / 72, h = 40 * 300 / 72;
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(img);
	cairo_scale(cr, 300.0 / 72, 300.0 / 72);
	br_drawing_cairo(d, cr);
	cairo_destroy(cr);
	cairo_surface_flush(img);
	const unsigned char *px = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img), top = -1, bottom = -1;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint32_t v;
			memcpy(&v, px + (size_t)y * (size_t)stride + 4 * (size_t)x, 4);
			if ((v & 0xff) < 128) {
				if (top < 0)
					top = y;
				bottom = y;
				break;
			}
		}
	cairo_surface_destroy(img);
	br_drawing_free(d);
	return top < 0 ? 0 : bottom - top + 1;
}

/*
 * A superscript stays a superscript at 300 dpi: pango 1.50's own <sup>
 * scaled the exponent from the device-space font, so "10<sup>6</sup>" had
 * an exponent four times the size of the "10" (log axes of Figure L in the
 * PNG files). The label's ink is now at most 1.5 times the height of a
 * plain "10" (its digits raised by a third of the size: about 1.3).
 */
static void
test_superscript_png(void **state)
{
	(void)state;
	int plain = ink_height_px("10", 0), sup = ink_height_px("10<sup>6</sup>", 1);
	assert_true(plain > 20);   /* 9 pt digits at 300 dpi: about 27 px */
	if (!(sup > plain && sup <= plain * 3 / 2))
		fail_msg("10<sup>6</sup> is %d px tall against %d px for \"10\"", sup, plain);
}

/* note_box: the extent (x, y, w, h, figure pt) of the recorded text t. */
static void
note_box(const br_draw_text *t, double b[4])
{
	b[0] = t->x - t->ax * t->w_pt;
	b[1] = t->y - t->ay * t->h_pt;
	b[2] = t->w_pt;
	b[3] = t->h_pt;
}

/*
 * A log axis over near-constant data: values 434.7170..434.7172 ms (a span
 * of 5e-7 of the value) got ticks 1e-4 apart whose six-digit labels all read
 * "434.717"; the axis now spans a factor 1.5 and its tick labels differ
 * (400, 450, 500 here). A span of 1e-3 (20.92..20.94 ms) keeps its range.
 */
static void
test_log_axis_near_constant(void **state)
{
	(void)state;
	static const struct { double lo, hi; } rows[] = { { 434.7170, 434.7172 }, { 20.92, 20.94 } };
	for (size_t r = 0; r < 2; r++) {
		br_chart *c = br_chart_new(NULL);
		br_axis_set(&c->x, BR_SCALE_LOG10, "x (ms)");
		c->legend = 0;
		double x[3] = { rows[r].lo, (rows[r].lo + rows[r].hi) / 2, rows[r].hi }, y[3] = { 0.2, 0.5, 1 };
		br_chart_add(c, BR_SERIES_STEP, BR_SIDE_LEFT, 0, NULL, x, y, 3);
		br_canvas *cv = br_canvas_new(300, 200);
		br_chart_draw(c, cv, 0, 0, 300, 200);
		br_drawing *dr = br_canvas_finish(cv);
		/* the x tick labels: unrotated texts below the plot that parse as numbers */
		const char *labels[16];
		size_t n = 0;
		for (size_t i = 0; i < dr->n_texts && n < 16; i++) {
			char *end;
			strtod(dr->texts[i].text, &end);
			if (dr->texts[i].angle_deg == 0 && *end == '\0' && end != dr->texts[i].text && dr->texts[i].y > 150)
				labels[n++] = dr->texts[i].text;
		}
		assert_true(n >= 2);
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (strcmp(labels[i], labels[j]) == 0)
					fail_msg("row %zu: tick label %s twice", r, labels[i]);
		if (r == 1) {   /* kept: a label inside the data's own hundredths */
			int inside = 0;
			for (size_t i = 0; i < n; i++)
				inside |= strcmp(labels[i], "20.93") == 0;
			assert_true(inside);
		}
		br_drawing_free(dr);
		br_chart_free(c);
	}
}

/*
 * A time series' line breaks across missing samples (br_chart.max_gap_x):
 * x = 0, 1, 2, 6, 7 s (4 s without a sample between 2 and 6). With
 * max_gap_x 0 the line is one path (1 move, 4 line segments); with 2.5 s,
 * as br_fig_series_max_gap_s gives for a 1 s step, it is two (2 moves,
 * 3 segments): the gap is not drawn as a measured straight line. The same
 * chart otherwise, so the difference is the series' own path.
 */
static void
test_line_breaks_at_gap(void **state)
{
	(void)state;
	size_t moves[2], lines[2];
	for (int k = 0; k < 2; k++) {
		br_chart *c = br_chart_new(NULL);
		c->legend = 0;
		c->max_gap_x = k ? 2.5 : 0;
		double x[5] = { 0, 1, 2, 6, 7 }, y[5] = { 1, 2, 3, 2, 1 };
		br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 0, NULL, x, y, 5);
		br_canvas *cv = br_canvas_new(300, 200);
		br_chart_draw(c, cv, 0, 0, 300, 200);
		br_drawing *dr = br_canvas_finish(cv);
		moves[k] = lines[k] = 0;
		for (size_t i = 0; i < dr->n_ops; i++) {
			moves[k] += dr->ops[i].kind == BR_OP_MOVE_TO;
			lines[k] += dr->ops[i].kind == BR_OP_LINE_TO;
		}
		br_drawing_free(dr);
		br_chart_free(c);
	}
	assert_int_equal(moves[1], moves[0] + 1);
	assert_int_equal(lines[1] + 1, lines[0]);
	/* a reference line given as its two end points (Figure 4's trigger level,
	 * twelfth breaker: announced in the legend, never drawn) is exempt */
	size_t ref_lines[2];
	for (int exempt = 0; exempt < 2; exempt++) {
		br_chart *c = br_chart_new(NULL);
		c->legend = 0;
		c->max_gap_x = 2.5;
		double rx[2] = { 0, 7 }, ry[2] = { 2, 2 };
		br_chart_series *ref = br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 0, NULL, rx, ry, 2);
		ref->no_gap_break = exempt;
		br_canvas *cv = br_canvas_new(300, 200);
		br_chart_draw(c, cv, 0, 0, 300, 200);
		br_drawing *dr = br_canvas_finish(cv);
		ref_lines[exempt] = 0;
		for (size_t i = 0; i < dr->n_ops; i++)
			ref_lines[exempt] += dr->ops[i].kind == BR_OP_LINE_TO;
		br_drawing_free(dr);
		br_chart_free(c);
	}
	assert_int_equal(ref_lines[1], ref_lines[0] + 1);   /* the one segment 0 → 7 */
}

/*
 * A long polyline replayed onto an image surface is stroked in pieces
 * (canvas.c, STROKE_PIECE); the pixels must be those of cairo stroking the
 * whole path. Reference: cairo itself on the same 400-point zig-zag (LCG y,
 * 0.7 pt apart, 1.2 pt wide, round joins, at 300 dpi), solid and dashed
 * 3.6/2.4 pt, one subpath and two. Allowed: edge pixels of the segment each
 * piece redraws, painted twice (measured: at most 52 of 255 per channel);
 * a dash phase off by a fraction of a dash leaves or drops slivers of 200+
 * (the first version summed unrounded lengths: 24 such pixels here).
 */
static void
test_stroke_pieces_match_whole(void **state)
{
	(void)state;
	enum { N = 400, W = 1250, H = 420 };
	double px[N], py[N];
	for (int i = 0; i < N; i++) {
		px[i] = 5 + i * 0.7;
		py[i] = 10 + lcg() * 80;
	}
	const double dash[2] = { 3.6, 2.4 };
	for (int dashed = 0; dashed < 2; dashed++)
		for (int split = 0; split < 2; split++) {
			/* the drawing, as the chart layer records a line series */
			br_canvas *cv = br_canvas_new(300, 100);
			br_cv_new_path(cv);
			for (int i = 0; i < N; i++) {
				if (i == 0 || (split && i == N / 3))
					br_cv_move_to(cv, px[i], py[i]);
				else
					br_cv_line_to(cv, px[i], py[i]);
			}
			br_cv_rgb(cv, 0.9, 0.6, 0.2);
			br_cv_line_width(cv, 1.2);
			br_cv_dash(cv, dashed ? dash : NULL, dashed ? 2 : 0);
			br_cv_line_join(cv, 1);
			br_cv_stroke(cv);
			br_drawing *dr = br_canvas_finish(cv);
			unsigned char *img[2];
			for (int k = 0; k < 2; k++) {
				cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
				cairo_t *cr = cairo_create(s);
				cairo_scale(cr, 300 / 72.0, 300 / 72.0);
				cairo_set_source_rgb(cr, 1, 1, 1);
				cairo_paint(cr);
				if (k == 0) {   /* reference: cairo strokes the whole path */
					cairo_set_source_rgb(cr, 0.9, 0.6, 0.2);
					cairo_set_line_width(cr, 1.2);
					cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
					cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
					for (int i = 0; i < N; i++) {
						if (i == 0 || (split && i == N / 3))
							cairo_move_to(cr, px[i], py[i]);
						else
							cairo_line_to(cr, px[i], py[i]);
					}
					cairo_stroke(cr);
				} else {
					br_drawing_cairo(dr, cr);
				}
				cairo_surface_flush(s);
				img[k] = br_xmalloc((size_t)W * H * 4);
				memcpy(img[k], cairo_image_surface_get_data(s), (size_t)W * H * 4);
				cairo_destroy(cr);
				cairo_surface_destroy(s);
			}
			int worst = 0;
			size_t inked = 0;
			for (size_t i = 0; i < (size_t)W * H * 4; i++) {
				int d = abs((int)img[0][i] - (int)img[1][i]);
				worst = d > worst ? d : worst;
				inked += img[0][i] != 255 && i % 4 != 3;
			}
			assert_true(inked > 10000);   /* the reference drew the line */
			if (worst > 64)
				fail_msg("dashed %d, split %d: a pixel differs by %d of 255", dashed, split, worst);
			free(img[0]);
			free(img[1]);
			br_drawing_free(dr);
		}
}

/*
 * A horizontal line's label avoids vertical reference lines as it avoids
 * data (issue 10 audit: "μ ≈ 3.67 req/s (plateau)" sat left, across the
 * knee's and λ = μ's vertical lines, because only markers and series were
 * scored). Markers just under the line's right end score 3 × 6 pt; the
 * left end is crossed by three vertical lines (one label height each): the
 * label goes right, over the markers' side of the line but not on them.
 */
static void
test_hline_label_avoids_vlines(void **state)
{
	(void)state;
	br_chart *c = br_chart_new(NULL);
	c->legend = 0;
	br_axis_set(&c->x, BR_SCALE_LINEAR, "x");
	br_axis_set(&c->y, BR_SCALE_LINEAR, "y");
	c->x.min = 0;
	c->x.max = 10;
	c->y.min = 0;
	c->y.max = 5;
	double x[3] = { 7, 8.5, 10 }, y[3] = { 3.66, 3.66, 3.66 };
	br_chart_add(c, BR_SERIES_SCATTER, BR_SIDE_LEFT, 0, NULL, x, y, 3);
	br_chart_add_hline(c, BR_SIDE_LEFT, 3.67, "mu = 3.67 (plateau)", 2);
	for (int k = 0; k < 3; k++)
		br_chart_add_vline(c, 0.5 + k, NULL, 4, BR_LABEL_TOP);
	br_canvas *cv = br_canvas_new(400, 300);
	br_chart_draw(c, cv, 0, 0, 400, 300);
	br_drawing *dr = br_canvas_finish(cv);
	int found = 0;
	for (size_t i = 0; i < dr->n_texts; i++)
		if (strcmp(dr->texts[i].text, "mu = 3.67 (plateau)") == 0) {
			found = 1;
			if (!(dr->texts[i].x > 200))
				fail_msg("label at x = %.1f pt: on the left, across the vertical lines", dr->texts[i].x);
		}
	assert_true(found);
	br_drawing_free(dr);
	br_chart_free(c);
}

/*
 * Rotated category labels are thinned left to right by position, not in
 * the order the categories were given (brk23: a campaign lists its runs by
 * name and draws the calibration runs last, so "lowkv" at position 2 came
 * after "cal16" at position 4 and every calibration label was dropped as
 * crowded). Six well-spaced categories given out of order: all six
 * labels are drawn.
 */
static void
test_category_labels_out_of_order(void **state)
{
	(void)state;
	static const double v[6] = { 0, 1, 4, 5, 2, 3 };
	static const char *const lab[6] = { "configuration-base", "configuration-burst", "calibration-16",
		"calibration-32", "configuration-lowkv", "configuration-wm" };
	br_chart *c = br_chart_new(NULL);
	c->legend = 0;
	br_axis_set(&c->x, BR_SCALE_LINEAR, NULL);
	br_axis_set_categories(&c->x, v, lab, 6);
	br_axis_set(&c->y, BR_SCALE_LINEAR, "y");
	double y[6] = { 1, 2, 3, 4, 5, 6 };
	br_chart_add(c, BR_SERIES_BARS, BR_SIDE_LEFT, 0, NULL, v, y, 6);
	br_canvas *cv = br_canvas_new(400, 300);
	br_chart_draw(c, cv, 0, 0, 400, 300);
	br_drawing *dr = br_canvas_finish(cv);
	for (size_t k = 0; k < 6; k++) {
		int found = 0;
		for (size_t i = 0; i < dr->n_texts; i++)
			found |= strcmp(dr->texts[i].text, lab[k]) == 0;
		if (!found)
			fail_msg("category label \"%s\" not drawn", lab[k]);
	}
	br_drawing_free(dr);
	br_chart_free(c);
}

/*
 * A count axis (whole_ticks) labels whole numbers only, however tall the
 * panel: the Chinese waveform's preemption axis (no preemption: 0 to 4)
 * read 0.0, 0.5, 1.0 ... 4.0 (twelfth breaker). Heights 200 to 1200 pt.
 */
static void
test_count_axis_whole_ticks(void **state)
{
	(void)state;
	for (double h = 200; h <= 1200; h += 250) {
		br_chart *c = br_chart_new(NULL);
		c->legend = 0;
		br_axis_set(&c->y, BR_SCALE_LINEAR, "preemptions (count)");
		c->y.include_zero = 1;
		c->y.whole_ticks = 1;
		double x[3] = { 0, 10, 20 }, y[3] = { 0, 0, 0 };
		br_chart_add(c, BR_SERIES_STEP, BR_SIDE_LEFT, 4, NULL, x, y, 3);
		br_canvas *cv = br_canvas_new(300, h);
		br_chart_draw(c, cv, 0, 0, 300, h);
		br_drawing *dr = br_canvas_finish(cv);
		size_t n_y = 0;
		for (size_t i = 0; i < dr->n_texts; i++) {
			char *end;
			double v = strtod(dr->texts[i].text, &end);
			if (*end != '\0' || end == dr->texts[i].text || dr->texts[i].x > 40)
				continue;   /* the y tick labels: numbers at the left */
			n_y++;
			if (v != floor(v) || strchr(dr->texts[i].text, '.') != NULL)
				fail_msg("panel %g pt tall: count tick \"%s\"", h, dr->texts[i].text);
		}
		assert_true(n_y >= 2);
		br_drawing_free(dr);
		br_chart_free(c);
	}
}

/*
 * A value label above a bar moves inside the bar's top when a right-axis
 * marker sits where it would be drawn (campaign figure 1: the KV-demand
 * circle over "32"), and stays above the bar otherwise. Bars of 32 on a
 * 0..64 axis; the marker at x = 0 on a right axis 0..1 at 0.55, just over
 * the label's place (the bar top is at y = 0.5 of the plot).
 */
static void
test_note_clear_of_marker(void **state)
{
	(void)state;
	for (int with_marker = 0; with_marker < 2; with_marker++) {
		br_chart *c = br_chart_new(NULL);
		static const double cx[1] = { 0 };
		static const char *const cl[1] = { "run" };
		br_axis_set_categories(&c->x, cx, cl, 1);
		c->y.min = 0;
		c->y.max = 64;
		c->legend = 0;
		double bx[1] = { 0 }, by[1] = { 32 }, my[1] = { 0.55 };
		br_chart_add(c, BR_SERIES_BARS, BR_SIDE_LEFT, 3, NULL, bx, by, 1);
		if (with_marker) {
			c->has_y2 = 1;
			c->y2.min = 0;
			c->y2.max = 1;
			br_chart_series *m = br_chart_add(c, BR_SERIES_SCATTER, BR_SIDE_RIGHT, 4, NULL, bx, my, 1);
			m->line_width_pt = 2.0;
		}
		br_chart_add_note(c, BR_SIDE_LEFT, 0, 32, "32", -1, 0, -1.5, 0.5, 1);
		br_canvas *cv = br_canvas_new(300, 200);
		br_chart_draw(c, cv, 0, 0, 300, 200);
		br_drawing *dr = br_canvas_finish(cv);
		const br_draw_text *t = NULL;
		for (size_t i = 0; i < dr->n_texts; i++)
			if (strcmp(dr->texts[i].text, "32") == 0 && dr->texts[i].angle_deg == 0 && dr->texts[i].ax == 0)
				t = &dr->texts[i];
		assert_non_null(t);
		/* the bar's top: the filled rectangle of the bar (its top y, pt;
		 * the plot's own rectangles span 273 pt) */
		double top = NAN, circ[3] = { NAN, NAN, NAN };
		for (size_t i = 0; i + 1 < dr->n_ops; i++) {
			if (dr->ops[i].kind == BR_OP_RECT && dr->ops[i + 1].kind == BR_OP_COLOR && isnan(top) &&
			    dr->ops[i].v[3] > 20 && dr->ops[i].v[2] < 250)
				top = dr->ops[i].v[1];
			if (dr->ops[i].kind == BR_OP_CIRCLE && isnan(circ[0]))
				memcpy(circ, dr->ops[i].v, sizeof circ);
		}
		assert_true(isfinite(top));
		double b[4];
		note_box(t, b);
		if (!with_marker) {
			assert_true(b[1] + b[3] <= top + 1e-9);     /* above the bar */
		} else {
			assert_true(isfinite(circ[0]));
			assert_true(b[1] >= top - 1e-9);             /* inside the bar's top */
			/* and clear of the circle's square */
			int overlap = b[0] < circ[0] + circ[2] && circ[0] - circ[2] < b[0] + b[2] &&
			    b[1] < circ[1] + circ[2] && circ[1] - circ[2] < b[1] + b[3];
			assert_false(overlap);
		}
		br_drawing_free(dr);
		br_chart_free(c);
	}
}

/* CJK text is measured and drawn (font fallback through fontconfig): recorded
 * on a canvas, then replayed onto a cairo image. */
static void
test_text_cjk(void **state)
{
	(void)state;
	br_canvas *cv = br_canvas_new(200, 40);
	double w, h;
	br_text_size(cv, "延迟分布", 12, 0, 0, &w, &h);
	/* four full-width glyphs at 12 pt: about 48 pt wide */
	assert_true(w > 40 && w < 60);
	assert_true(h > 10);
	br_cv_rgb(cv, 0, 0, 0);
	br_text_draw(cv, "延迟分布", 12, 0, 0, 5, 5, 0, 0, 0);
	br_drawing *dr = br_canvas_finish(cv);
	/* the recorded text keeps pango's extent and a baseline inside it */
	assert_int_equal(dr->n_texts, 1);
	assert_double_rel(dr->texts[0].w_pt, w, 1e-12);
	assert_true(dr->texts[0].baseline_pt > 0.5 * 12 && dr->texts[0].baseline_pt < h);
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 200, 40);
	cairo_t *cr = cairo_create(img);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	br_drawing_cairo(dr, cr);
	cairo_surface_flush(img);
	unsigned char *d = cairo_image_surface_get_data(img);
	int st = cairo_image_surface_get_stride(img);
	size_t dark = 0;
	for (int y = 0; y < 40; y++)
		for (int x = 0; x < 200; x++)
			dark += (((const uint32_t *)(d + y * st))[x] & 0xff) < 128;
	assert_true(dark > 50);
	cairo_destroy(cr);
	cairo_surface_destroy(img);
	br_drawing_free(dr);
}

static void
test_render_all(void **state)
{
	(void)state;
	fixture f;
	fixture_init(&f);
	char *dir = make_tmpdir();
	br_figure *figs = NULL;
	size_t n = 0;
	char *cause = NULL;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_null(cause);
	/* fig2 waveform, fig3 residency (running + waiting columns), figL; no preemption
	 * events and no budget in this fixture, so no fig4/5/9 */
	assert_int_equal(n, 3);
	assert_non_null(find_fig(figs, n, "fig3-residency"));
	/* 3 figures × png, svg, csv; no temporary file left behind */
	assert_int_equal(dir_entries(dir), 9);

	const br_figure *w = find_fig(figs, n, "fig2-waveform");
	assert_non_null(w);
	assert_true(strlen(w->title) > 0 && strlen(w->caption) > 0);
	char *exp = br_path_join(dir, "fig2-waveform.png");
	assert_string_equal(w->png_path, exp);
	free(exp);
	assert_true(br_is_file(w->png_path) && br_is_file(w->svg_path) && br_is_file(w->csv_path));
	check_png(w);
	check_svg(w);
	char *csv = slurp(w->csv_path, NULL);
	assert_int_equal(count_lines(csv), NROWS + 1);
	const char *hdr = "t_s,t_unix_s,running_requests,waiting_requests,kv_cache_usage_pct,preemptions_cumulative_count\n";
	assert_memory_equal(csv, hdr, strlen(hdr));
	/* first data row: t 0, waiting 60, KV 90 %, 0 preemptions */
	const char *r1 = csv + strlen(hdr);
	double t, tu, run, wait, kv, pre;
	assert_int_equal(sscanf(r1, "%lf,%lf,%lf,%lf,%lf,%lf", &t, &tu, &run, &wait, &kv, &pre), 6);
	assert_double_abs(t, 0, 0);
	assert_double_abs(tu, T0, 0);
	assert_double_abs(wait, 60, 0);
	assert_double_rel(kv, 90, 1e-9);
	assert_double_abs(pre, 0, 0);
	/* last row: t 599 s, waiting 0, KV 0.9 + 0.096·19/19 → 99.6 %, preemptions 59 (see fill_series) */
	const char *last = csv + strlen(csv) - 2;
	while (last > csv && last[-1] != '\n')
		last--;
	assert_int_equal(sscanf(last, "%lf,%lf,%lf,%lf,%lf,%lf", &t, &tu, &run, &wait, &kv, &pre), 6);
	assert_double_abs(t, 599, 0);
	assert_double_abs(wait, 0, 0);
	assert_double_rel(kv, 99.6, 1e-9);
	assert_double_abs(pre, 59, 0);
	free(csv);

	const br_figure *l = find_fig(figs, n, "figL-latency-cdf");
	assert_non_null(l);
	check_png(l);
	check_svg(l);
	csv = slurp(l->csv_path, NULL);
	assert_memory_equal(csv, "metric,value_ms,cdf\n", 20);
	/* TTFT 1000 + ITL 5000 thinned to 2000 + E2EL 1000, plus the header */
	assert_int_equal(count_lines(csv), 1 + 1000 + 2000 + 1000);
	/* the ITL tail is exact: its last 500 rows are the 500 largest samples, cdf (i+1)/5000 */
	const char *p = strstr(csv, "\ne2el,");
	assert_non_null(p);
	const char *q = p;
	for (int k = 0; k < 500; k++) {
		while (q > csv && q[-1] != '\n')
			q--;
		q--;
	}
	q++;
	for (int k = 0; k < 500; k++) {
		char name[8];
		double v, c;
		assert_int_equal(sscanf(q, "%7[^,],%lf,%lf", name, &v, &c), 3);
		assert_string_equal(name, "itl");
		assert_double_rel(v, f.lat[BR_ITL][4500 + k], 1e-9);
		assert_double_rel(c, (4501.0 + k) / 5000.0, 1e-9);
		q = strchr(q, '\n') + 1;
	}
	free(csv);

	br_figures_free(figs, n);
	drop_tmpdir(dir);
	fixture_free(&f);
}

/* A figure file that cannot be written (a folder sits where its temporary
 * file goes) fails the wait with a cause naming it, and neither file of
 * that figure is left: an SVG failure removes the PNG written beside it and
 * a PNG failure the SVG (the two are separate jobs); the third figure is
 * whole (9 files when all succeed, see test_render_all). */
static void
test_render_failed_file(void **state)
{
	(void)state;
	fixture f;
	fixture_init(&f);
	char *dir = make_tmpdir();
	char *blk_svg = br_xasprintf("%s/fig2-waveform.svg.tmp.%ld", dir, (long)getpid());
	char *blk_png = br_xasprintf("%s/fig3-residency.png.tmp.%ld", dir, (long)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);   /* (br_render_figures accepts an existing folder) */
	assert_int_equal(mkdir(blk_svg, 0700), 0);
	assert_int_equal(mkdir(blk_png, 0700), 0);
	br_figure *figs = NULL;
	size_t n = 0;
	char *cause = NULL;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), -1);
	assert_non_null(cause);
	if (strstr(cause, "fig2-waveform.svg") == NULL && strstr(cause, "fig3-residency.png") == NULL)
		fail_msg("cause \"%s\" names neither blocked file", cause);
	free(cause);
	assert_int_equal(n, 3);
	static const char *const gone[] = { "fig2-waveform.png", "fig2-waveform.svg", "fig3-residency.png",
		"fig3-residency.svg" };
	for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) {
		char *p = br_path_join(dir, gone[i]);
		if (br_is_file(p))
			fail_msg("%s left behind", gone[i]);
		free(p);
	}
	const br_figure *l = find_fig(figs, n, "figL-latency-cdf");
	assert_non_null(l);
	assert_true(br_is_file(l->png_path) && br_is_file(l->svg_path));
	/* 3 CSVs + figL's PNG and SVG + the two blocking folders */
	assert_int_equal(dir_entries(dir), 7);
	br_figures_free(figs, n);
	rmdir(blk_svg);
	rmdir(blk_png);
	free(blk_svg);
	free(blk_png);
	drop_tmpdir(dir);
	fixture_free(&f);
}

/* No metrics and no per-request arrays: no figure, no file, never an empty axis. */
static void
test_render_nothing(void **state)
{
	(void)state;
	fixture f;
	fixture_init(&f);
	f.run.metrics = NULL;
	f.a.latency.from_arrays = 0;
	char *dir = make_tmpdir();
	br_figure *figs = (br_figure *)1;
	size_t n = 99;
	char *cause = NULL;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_int_equal(n, 0);
	assert_null(figs);
	assert_int_equal(dir_entries(dir), 0);
	/* a 2-row series or columns that are all NaN/Inf give no waveform either */
	f.run.metrics = &f.ser;
	size_t keep = f.ser.n_rows;
	f.ser.n_rows = 2;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_int_equal(n, 0);
	f.ser.n_rows = keep;
	for (size_t c = 0; c < f.ser.n_cols; c++)
		for (size_t i = 0; i < f.ser.n_rows; i++)
			f.ser.cols[c][i] = i % 2 ? NAN : INFINITY;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_int_equal(n, 0);
	assert_int_equal(dir_entries(dir), 0);
	/* a bare snapshot pair is not a series */
	fixture_free(&f);
	fixture_init(&f);
	f.run.metrics_kind = BR_METRICS_PAIR;
	f.a.latency.from_arrays = 0;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_int_equal(n, 0);
	drop_tmpdir(dir);
	fixture_free(&f);
}

/*
 * Gaps: NaN and ±Inf cells in the series and latency samples are skipped
 * (the SVG holds no "nan"), the CSV has empty cells there, and a counter
 * reset is counted as a restart (reset-aware cumulative count).
 */
static void
test_render_gaps(void **state)
{
	(void)state;
	fixture f;
	fixture_init(&f);
	for (int i = 100; i < 110; i++) {
		f.ser.cols[0][i] = NAN;
		f.ser.cols[2][i] = INFINITY;
	}
	f.ser.t_s[300] = NAN;
	/* counter reset at row 400: the counter restarts from 0 and reads 3 + 2 = 5 there
	 * (the original step of +3 at i = 400 plus 2) */
	double before = f.ser.cols[3][399];
	for (int i = 400; i < NROWS; i++)
		f.ser.cols[3][i] -= f.ser.cols[3][399] - 2;
	f.a.latency.samples_ms[BR_TTFT][3] = NAN;   /* sorted arrays with a NaN in them */
	br_latency_fill_cdf(&f.a.latency);
	char *dir = make_tmpdir();
	br_figure *figs = NULL;
	size_t n = 0;
	char *cause = NULL;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_int_equal(n, 3);   /* fig2, fig3, figL */
	for (size_t i = 0; i < n; i++)
		check_svg(&figs[i]);
	const br_figure *w = find_fig(figs, n, "fig2-waveform");
	char *csv = slurp(w->csv_path, NULL);
	/* row 100 (line 102): running and KV empty */
	const char *p = csv;
	for (int k = 0; k < 101; k++)
		p = strchr(p, '\n') + 1;
	assert_memory_equal(p, "100,1700000100,,", 16);
	/* row 300: no time → empty t cells */
	p = csv;
	for (int k = 0; k < 301; k++)
		p = strchr(p, '\n') + 1;
	assert_memory_equal(p, ",,", 2);
	/* last row: increase up to row 399 is (before - 100); the reset adds 2, then the
	 * rises of the rows 400..599 are kept: total 59 + 2 */
	const char *last = csv + strlen(csv) - 2;
	while (last > csv && last[-1] != '\n')
		last--;
	const char *lastc = strrchr(last, ',');
	double pre = strtod(lastc + 1, NULL);
	assert_double_abs(pre, 59 + 2, 0);
	(void)before;
	free(csv);
	const br_figure *l = find_fig(figs, n, "figL-latency-cdf");
	csv = slurp(l->csv_path, NULL);
	/* TTFT lost its NaN sample: 999 + 2000 + 1000 rows */
	assert_int_equal(count_lines(csv), 1 + 999 + 2000 + 1000);
	free(csv);
	br_figures_free(figs, n);
	drop_tmpdir(dir);
	fixture_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice_ticks_linear),
		cmocka_unit_test(test_nice_ticks_log),
		cmocka_unit_test(test_tick_labels),
		cmocka_unit_test(test_superscript_png),
		cmocka_unit_test(test_text_cjk),
		cmocka_unit_test(test_note_clear_of_marker),
		cmocka_unit_test(test_line_breaks_at_gap),
		cmocka_unit_test(test_count_axis_whole_ticks),
		cmocka_unit_test(test_hline_label_avoids_vlines),
		cmocka_unit_test(test_category_labels_out_of_order),
		cmocka_unit_test(test_log_axis_near_constant),
		cmocka_unit_test(test_stroke_pieces_match_whole),
		cmocka_unit_test(test_render_all),
		cmocka_unit_test(test_render_failed_file),
		cmocka_unit_test(test_render_nothing),
		cmocka_unit_test(test_render_gaps),
	};
	char *tpath = br_test_src("templates/report.en.json");
	g_tmpl = br_template_load(tpath, NULL);
	free(tpath);
	if (g_tmpl == NULL)
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	br_template_free(g_tmpl);
	br_render_shutdown();
	return rc;
}
