/*
 * Tests of the per-run figures 3, 4, 5, 9 (br_render_figures) and the
 * campaign figures 1, 6, 7, 8 (br_render_campaign_figures) on analyses
 * built by hand, plus an end-to-end run on a simulated round 1 (skipped
 * when BR_BINARY is not set). Expected values are derived by hand in the
 * comments (the calibration numbers with numpy, see test_campaign_figs).
 */
#include "br_test.h"

#include <cairo.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dirent.h>

#include "benchreport/render.h"
#include "benchreport/common.h"
#include "benchreport/campaign.h"

/* ---------------------------------------------------------------- helpers */

/* the English report template: the figures take their text from it */
static br_template *g_tmpl;

/* noinline: inlined, gcc 12 takes the returned buffer for a pointer to the
 * local `d` whose address br_read_file receives (-Wdangling-pointer) */
static __attribute__((noinline)) char *
slurp(const char *path)
{
	char *d = NULL, *cause = NULL;
	size_t l = 0;
	if (br_read_file(path, &d, &l, &cause) != 0)
		fail_msg("%s", cause);
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

/* Line k (0 = header) of a text, as a malloc'd string without the newline. */
static char *
line_at(const char *s, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		s = strchr(s, '\n');
		assert_non_null(s);
		s++;
	}
	const char *e = strchr(s, '\n');
	size_t n = e ? (size_t)(e - s) : strlen(s);
	char *r = malloc(n + 1);
	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

/* Cell j (0-based) of a CSV line without quoted commas, as a double (NAN when empty). */
static double
cell(const char *line, int j)
{
	const char *p = line;
	for (int i = 0; i < j; i++) {
		p = strchr(p, ',');
		assert_non_null(p);
		p++;
	}
	if (*p == ',' || *p == '\0')
		return NAN;
	return strtod(p, NULL);
}

static char *
make_tmpdir(void)
{
	char tmpl[] = "/tmp/br_render_more_XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return br_path_join(d, "figures");
}

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

/* Remove dir (flat) and its parent made by make_tmpdir. */
static void
rm_tmp(char *dir)
{
	if (!getenv("BR_TEST_KEEP")) {
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
		char *parent = strdup(dir);
		*strrchr(parent, '/') = '\0';
		rmdir(parent);
		free(parent);
	}
	free(dir);
}

static const br_figure *
find_fig(const br_figure *figs, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(figs[i].id, id) == 0)
			return &figs[i];
	return NULL;
}

/* Files exist, title and caption non-empty, PNG of w × h pixels, opaque, something drawn. */
static void
check_files(const br_figure *f, int w, int h)
{
	assert_non_null(f);
	assert_true(f->title && f->title[0] && f->caption && f->caption[0]);
	assert_true(br_is_file(f->png_path) && br_is_file(f->svg_path) && br_is_file(f->csv_path));
	cairo_surface_t *img = cairo_image_surface_create_from_png(f->png_path);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(img), w);
	assert_int_equal(cairo_image_surface_get_height(img), h);
	assert_int_equal(cairo_image_surface_get_format(img), CAIRO_FORMAT_RGB24);
	cairo_surface_flush(img);
	unsigned char *d = cairo_image_surface_get_data(img);
	int st = cairo_image_surface_get_stride(img);
	size_t dark = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			dark += (((const uint32_t *)(d + (size_t)y * (size_t)st))[x] & 0xffffff) != 0xffffff;
	assert_true(dark > 10000);
	cairo_surface_destroy(img);
	char *svg = slurp(f->svg_path);
	assert_non_null(strstr(svg, "</svg>"));
	assert_null(strstr(svg, "nan"));
	free(svg);
}

/* PNG sizes at 300 dpi: 170 mm → 2008 px; 95 mm → 1122; 80.75 mm (fig5) → 954; 60 mm (fig9) → 709. */
#define W_PX 2008
#define H_PX 1122
#define H5_PX 954
#define H9_PX 709

/* ---------------------------------------------------------------- per-run fixture */

#define NROWS 300
#define T0 1700000000.0
#define NEV 18

typedef struct fixture {
	br_run run;
	br_series ser;
	br_analysis a;
	br_preemption_event ev[NEV];
} fixture;

/*
 * The series, 1 Hz from T0: running = 10 + (i % 3 == 0), waiting = 50 −
 * floor(i / 6), KV = 0.9 + 0.09·(i mod 15)/14, preemption counter rising at
 * the event rows. Events at rows 25, 40, …, 280 (18 of them), one preemption
 * each except rows 100 and 205 with two: 20 in all. Window rows 10 … 290
 * (280 s), so the rate is 20 / 280 s = 4.2857 per minute.
 */
static void
fixture_init(fixture *f)
{
	static const char *names[4] = { "vllm:num_requests_running", "vllm:num_requests_waiting",
		"vllm:kv_cache_usage_perc", "vllm:num_preemptions_total" };
	memset(f, 0, sizeof *f);
	br_series *s = &f->ser;
	s->n_rows = NROWS;
	s->n_cols = 4;
	s->t_s = malloc(NROWS * sizeof(double));
	s->names = malloc(4 * sizeof(char *));
	s->cols = malloc(4 * sizeof(double *));
	for (int c = 0; c < 4; c++) {
		s->names[c] = strdup(names[c]);
		s->cols[c] = malloc(NROWS * sizeof(double));
	}
	double pre = 0;
	size_t k = 0;
	for (int i = 0; i < NROWS; i++) {
		s->t_s[i] = T0 + i;
		s->cols[0][i] = 10 + (i % 3 == 0);
		s->cols[1][i] = 50 - i / 6;
		s->cols[2][i] = 0.9 + 0.09 * (i % 15) / 14.0;
		if (i >= 25 && i <= 280 && (i - 25) % 15 == 0) {
			double cnt = (i == 100 || i == 205) ? 2 : 1;
			pre += cnt;
			br_preemption_event *e = &f->ev[k++];
			e->row = (size_t)i;
			e->t_epoch_s = T0 + i;
			e->t_since_start_s = i - 10;
			e->count = cnt;
			e->kv_before_frac = 0.9 + 0.09 * ((i - 1) % 15) / 14.0;
			e->kv_after_frac = s->cols[2][i];
			e->released_tokens = NAN;
			e->running_before = s->cols[0][i - 1];
			e->running_after = s->cols[0][i];
		}
		s->cols[3][i] = pre;
	}
	assert_int_equal(k, NEV);
	f->run.metrics = s;
	f->run.metrics_kind = BR_METRICS_CSV;
	f->a.run = &f->run;
	br_residency *r = &f->a.residency;
	r->available = 1;
	r->window_start_t_s = T0 + 10;
	r->window_end_t_s = T0 + 290;
	r->running_mean = r->waiting_mean = r->running_peak = r->waiting_peak = NAN;
	br_preemptions *p = &f->a.preemptions;
	p->available = 1;
	p->count_available = 1;
	p->n_preemptions = 20;
	p->window_start_t_s = T0 + 10;
	p->window_end_t_s = T0 + 290;
	p->window_s = 280;
	p->events = f->ev;
	p->n_events = NEV;
	p->n_multi_events = 2;
	p->max_per_event = 2;
	p->trigger_kv_frac = 0.995;
	p->rate_per_min = 20.0 / 280.0 * 60.0;
	/* budget: 600 s = decode 450 + prefill 100 + recompute 80 − 30 (negative rest) */
	br_budget *b = &f->a.budget;
	b->available = 1;
	b->duration_s = 600;
	b->decode_s = 450;
	b->prefill_s = 100;
	b->recompute_s = 80;
	b->rest_s = -30;
	b->rest_negative = 1;
}

static void
fixture_free(fixture *f)
{
	for (size_t c = 0; c < f->ser.n_cols; c++) {
		free(f->ser.names[c]);
		free(f->ser.cols[c]);
	}
	free(f->ser.names);
	free(f->ser.cols);
	free(f->ser.t_s);
}

/* ---------------------------------------------------------------- per-run tests */

static void
test_run_figs(void **state)
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
	/* fig2, fig3, fig4, fig5, fig9 (no latency arrays → no figL), in that order */
	assert_int_equal(n, 5);
	static const char *ids[5] = { "fig2-waveform", "fig3-residency", "fig4-preemption-loop",
		"fig5-preemption-staircase", "fig9-budget" };
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(figs[i].id, ids[i]);
	assert_int_equal(dir_entries(dir), 15);

	/* fig3: one row per sample; row i = 12: running 11, waiting 50 − 2 = 48, sum 59 */
	const br_figure *g = find_fig(figs, n, "fig3-residency");
	check_files(g, W_PX, H_PX);
	char *csv = slurp(g->csv_path);
	assert_int_equal(count_lines(csv), NROWS + 1);
	char *l = line_at(csv, 0);
	assert_string_equal(l, "t_s,t_unix_s,running_requests,waiting_requests,running_plus_waiting_requests");
	free(l);
	l = line_at(csv, 13);
	assert_double_abs(cell(l, 0), 12, 0);
	assert_double_abs(cell(l, 2), 11, 0);
	assert_double_abs(cell(l, 3), 48, 0);
	assert_double_abs(cell(l, 4), 59, 0);
	free(l);
	free(csv);

	/*
	 * fig4: the first event is 15 s into the window, so the zoom is 0 … 140 s:
	 * rows 10 … 150 (141 samples). Events inside: rows 25, 40, …, 145 (9 samples,
	 * 10 preemptions: row 100 holds 2). Row 100 is t = 90 s, KV before = row 99:
	 * 0.9 + 0.09·9/14 = 0.957857… → 95.7857 %.
	 */
	g = find_fig(figs, n, "fig4-preemption-loop");
	check_files(g, W_PX, H_PX);
	assert_non_null(strstr(g->caption, "0 to 140 s"));
	assert_non_null(strstr(g->caption, "99.50%"));
	csv = slurp(g->csv_path);
	assert_int_equal(count_lines(csv), 1 + 141);
	double sum = 0;
	size_t nev = 0;
	for (size_t k = 1; k <= 141; k++) {
		l = line_at(csv, k);
		double c = cell(l, 4);
		sum += c;
		nev += c > 0;
		assert_double_rel(cell(l, 6), 99.5, 1e-12);
		if (k == 1)
			assert_double_abs(cell(l, 0), 0, 0);
		if (k == 91) {
			assert_double_abs(cell(l, 0), 90, 0);
			assert_double_abs(c, 2, 0);
			assert_double_rel(cell(l, 5), (0.9 + 0.09 * 9 / 14.0) * 100, 1e-12);
		}
		free(l);
	}
	assert_double_abs(sum, 10, 0);
	assert_int_equal(nev, 9);
	free(csv);

	/*
	 * fig5: start row + 18 events + end row. At row 100 (t 90 s) the count is
	 * 5 (rows 25…85) + 2 = 7 and the rate line 20/280·90 = 6.428571…; the last
	 * row is t = 280 s, 20 preemptions, rate line 20.
	 */
	g = find_fig(figs, n, "fig5-preemption-staircase");
	check_files(g, W_PX, H5_PX);
	assert_non_null(strstr(g->caption, "4.3 per minute"));
	csv = slurp(g->csv_path);
	assert_int_equal(count_lines(csv), 1 + NEV + 2);
	l = line_at(csv, 1);
	assert_double_abs(cell(l, 0), 0, 0);
	assert_double_abs(cell(l, 3), 0, 0);
	free(l);
	l = line_at(csv, 7);  /* 6th event = row 100 */
	assert_double_abs(cell(l, 0), 90, 0);
	assert_double_abs(cell(l, 2), 2, 0);
	assert_double_abs(cell(l, 3), 7, 0);
	assert_double_rel(cell(l, 4), 20.0 / 280.0 * 90.0, 1e-12);
	free(l);
	l = line_at(csv, NEV + 2);
	assert_double_abs(cell(l, 0), 280, 0);
	assert_double_abs(cell(l, 3), 20, 0);
	assert_double_rel(cell(l, 4), 20, 1e-12);
	free(l);
	free(csv);

	/* fig9: decode 450 s = 75 %, rest −30 s = −5 %, not drawn, and said so */
	g = find_fig(figs, n, "fig9-budget");
	check_files(g, W_PX, H9_PX);
	assert_non_null(strstr(g->caption, "negative"));
	csv = slurp(g->csv_path);
	assert_int_equal(count_lines(csv), 6);
	l = line_at(csv, 1);
	assert_memory_equal(l, "decode,450,75,1,", 16);
	free(l);
	l = line_at(csv, 4);
	assert_memory_equal(l, "rest,-30,-5,0,negative", 22);
	free(l);
	l = line_at(csv, 5);
	assert_memory_equal(l, "duration,600,100,", 17);
	free(l);
	free(csv);
	br_figures_free(figs, n);

	/*
	 * Budget without the calibration: prefill / recompute / rest NaN → only the
	 * decode bar, the CSV says why. No events → no fig4 / fig5.
	 */
	f.a.budget.prefill_s = NAN;
	f.a.budget.prefill_missing = "needs the FLOPs calibration";
	f.a.budget.recompute_s = NAN;
	f.a.budget.rest_s = NAN;
	f.a.budget.rest_negative = 0;
	f.a.preemptions.n_events = 0;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_int_equal(n, 3);
	assert_null(find_fig(figs, n, "fig4-preemption-loop"));
	assert_null(find_fig(figs, n, "fig5-preemption-staircase"));
	g = find_fig(figs, n, "fig9-budget");
	check_files(g, W_PX, H9_PX);
	assert_non_null(strstr(g->caption, "No prefill part: needs the FLOPs calibration"));
	csv = slurp(g->csv_path);
	l = line_at(csv, 2);
	assert_string_equal(l, "prefill,,,0,needs the FLOPs calibration");
	free(l);
	free(csv);
	br_figures_free(figs, n);
	rm_tmp(dir);
	fixture_free(&f);
}

/* Never an empty axis: no budget decode, no KV column → those figures are not made. */
/*
 * Figure 4 zooms where the preemptions cluster (brk23: 2 of 17 in the first
 * 140 s, the rest at 157-218 s): the fixture's events moved to t = 15, 30
 * and 16 at 160, 165, ..., 235 s. The first 140 s hold 2; the 140 s from
 * 20 s before the event at 160 s (floored to 10: 140 ... 280 s) hold 16,
 * 1.5 times as many or more: the zoom is 140 to 280 s (the window ends at
 * 280 s), said as the busiest 140 s. The fixture's own even events (9 in
 * the first 140 s, at most 10 in any later 140 s) keep the zoom at 0 (see
 * test_run_figs).
 */
static void
test_fig4_zoom_cluster(void **state)
{
	(void)state;
	fixture f;
	fixture_init(&f);
	for (size_t k = 0; k < NEV; k++)
		f.ev[k].t_since_start_s = k < 2 ? 15.0 * (double)(k + 1) : 160 + 5.0 * (double)(k - 2);
	char *dir = make_tmpdir();
	br_figure *figs = NULL;
	size_t n = 0;
	char *cause = NULL;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);
	const br_figure *g = find_fig(figs, n, "fig4-preemption-loop");
	assert_non_null(g);
	assert_non_null(strstr(g->caption, "140 to 280 s"));
	assert_non_null(strstr(g->caption, "the 140 s holding the most preemptions"));
	br_figures_free(figs, n);
	rm_tmp(dir);
	fixture_free(&f);
}

static void
test_run_figs_missing(void **state)
{
	(void)state;
	fixture f;
	fixture_init(&f);
	f.a.budget.decode_s = NAN;
	free(f.ser.names[2]);
	f.ser.names[2] = strdup("vllm:something_else");   /* no KV column: no fig4 */
	f.ser.names[1][5] = 'X';                          /* no waiting column: no fig3 */
	char *dir = make_tmpdir();
	br_figure *figs = NULL;
	size_t n = 0;
	char *cause = NULL;
	assert_int_equal(br_render_figures(&f.a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	/* fig2 (running + preemptions) and fig5 (events only) remain */
	assert_int_equal(n, 2);
	assert_string_equal(figs[0].id, "fig2-waveform");
	assert_string_equal(figs[1].id, "fig5-preemption-staircase");
	assert_int_equal(dir_entries(dir), 6);
	br_figures_free(figs, n);
	rm_tmp(dir);
	fixture_free(&f);
}

/* ---------------------------------------------------------------- campaign fixture */

#define NRUNS 4
#define NCAL 5

typedef struct cfixture {
	br_campaign c;
	br_run runs[NRUNS];
	br_bench bench[NRUNS];
	br_analysis an[NRUNS];
	br_flops_cal_point pts[NCAL];
} cfixture;

/*
 * Four configurations (names, C, output tok/s, p99 ITL, preemptions, TTFT
 * split), modelled on the reference rounds (DESIGN.md §6):
 *   r1-6144-2048-c64: demand 64·8192 = 524,288 tokens / pool 86,864 = 6.0357×
 *   r2-6144-2048-c64: 524,288 / 120,064 = 4.3668×
 *   r1-1024-256-c64:  64·1280 = 81,920 / 86,864 = 0.94308×, frontend residual −0.05 s
 *   r1-mns10:         no capacity, no ITL, no TTFT split; 12 preemptions from residency
 * Calibration points x = 320, 640, 1280, 2560, 4096, y = 13.52 + 0.00034·x +
 * (0.01, −0.02, 0.015, −0.005, 0); numpy.polyfit(x, y, 1) gives
 * a = 13.52058978275628, b = 0.0003396685123896801, R² = 0.9993280121962725.
 * Focus = run 0 measured at x 4096, 18.0 GFLOP/token; the ledger is not
 * computed (flops.available 0), so the figure computes the excess:
 * 18 / (a + b·4096) − 1 = 18 / 14.91187200950441 − 1 = +20.709190559892843 %.
 */
static void
cfixture_init(cfixture *f)
{
	static const char *names[NRUNS] = { "r1-6144-2048-c64", "r2-6144-2048-c64", "r1-1024-256-c64", "r1-mns10" };
	static const double tps[NRUNS] = { 438.8, 532.4, 1405, 420 };
	static const double peak[NRUNS] = { 14, 19, 64, 10 };
	static const double p99[NRUNS] = { 215.6, 227.7, 22.5, NAN };
	static const double pool[NRUNS] = { 86864, 120064, 86864, NAN };
	static const double demand[NRUNS] = { 524288, 524288, 81920, NAN };
	static const double ttft[NRUNS][4] = {
		{ 177.6, 1.06, 0.73, 179.39 }, { 135.0, 1.10, 0.42, 136.52 },
		{ 0.5, 0.3, -0.05, 0.75 }, { NAN, NAN, NAN, NAN } };
	static const double cx[NCAL] = { 320, 640, 1280, 2560, 4096 };
	static const double noise[NCAL] = { 0.01, -0.02, 0.015, -0.005, 0 };
	memset(f, 0, sizeof *f);
	for (int i = 0; i < NRUNS; i++) {
		br_run *r = &f->runs[i];
		r->name = (char *)names[i];
		r->bench.runs = &f->bench[i];
		r->bench.n = 1;
		f->bench[i].output_throughput_tps = tps[i];
		f->bench[i].max_concurrency = 64;
		br_analysis *a = &f->an[i];
		a->run = r;
		a->capacity.available = isfinite(pool[i]);
		a->capacity.concurrency = 64;
		a->capacity.kv_pool_tokens = pool[i];
		a->capacity.demand_tokens = demand[i];
		a->capacity.oversubscription = demand[i] / pool[i];
		a->residency.available = 1;
		a->residency.running_peak = peak[i];
		a->residency.preemptions = 12;
		a->latency.m[BR_ITL].count = isfinite(p99[i]) ? 1000 : 0;
		a->latency.m[BR_ITL].p99 = p99[i];
		a->preemptions.count_available = i < 3;
		a->preemptions.n_preemptions = i == 0 ? 37 : i == 1 ? 38 : 0;
		a->ttft_split.available = i < 3;
		a->ttft_split.queue_s = ttft[i][0];
		a->ttft_split.prefill_s = ttft[i][1];
		a->ttft_split.frontend_s = ttft[i][2];
		a->ttft_split.client_ttft_mean_s = ttft[i][3];
		a->ttft_split.frontend_negative = ttft[i][2] < 0;
		a->flops.m.available = 0;
	}
	f->an[0].flops.m.available = 1;
	f->an[0].flops.m.mean_context_tokens = 4096;
	f->an[0].flops.m.gflop_per_token = 18.0;
	f->an[0].flops.m.preemptions = 37;
	f->an[0].flops.available = 0;
	f->an[0].flops.excess_frac = NAN;
	static char pn[NCAL][8];
	for (int i = 0; i < NCAL; i++) {
		snprintf(pn[i], sizeof pn[i], "cal-%d", i + 1);
		f->pts[i].name = pn[i];
		f->pts[i].used = 1;
		f->pts[i].x_tokens = cx[i];
		f->pts[i].y_gflop_per_token = 13.52 + 0.00034 * cx[i] + noise[i];
		f->pts[i].preemptions = 0;
	}
	br_campaign *c = &f->c;
	c->runs = f->runs;
	c->analyses = f->an;
	c->n_runs = NRUNS;
	c->focus = 0;
	c->has_calibration = 1;
	c->calibration.available = 1;
	c->calibration.fit.a = 13.52058978275628;
	c->calibration.fit.b = 0.0003396685123896801;
	c->calibration.fit.r2 = 0.9993280121962725;
	c->calibration.fit.n = NCAL;
	c->calibration.has_se = 1;
	c->calibration.points = f->pts;
	c->calibration.n_points = NCAL;
	c->calibration.n_used = NCAL;
}

/* ---------------------------------------------------------------- campaign tests */

static void
test_campaign_figs(void **state)
{
	(void)state;
	cfixture f;
	cfixture_init(&f);
	char *dir = make_tmpdir();
	br_figure *figs = NULL;
	size_t n = 0;
	char *cause = NULL;
	assert_int_equal(br_render_campaign_figures(&f.c, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_null(cause);
	assert_int_equal(n, 4);
	static const char *ids[4] = { "fig1-kv-demand", "fig6-configs", "fig7-ttft-split", "fig8-flops-calibration" };
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(figs[i].id, ids[i]);
		check_files(&figs[i], W_PX, H_PX);
	}
	assert_int_equal(dir_entries(dir), 12);

	/* fig1: demand / pool as computed in cfixture_init */
	char *csv = slurp(figs[0].csv_path), *l;
	assert_int_equal(count_lines(csv), 1 + NRUNS);
	l = line_at(csv, 0);
	assert_string_equal(l, "run,requested_concurrency_requests,peak_running_requests,kv_demand_tokens,"
	    "kv_pool_tokens,kv_demand_over_pool_x");
	free(l);
	l = line_at(csv, 1);
	assert_memory_equal(l, "r1-6144-2048-c64,64,14,524288,86864,", 36);
	assert_double_rel(cell(l, 5), 524288.0 / 86864.0, 1e-12);
	free(l);
	l = line_at(csv, 3);
	assert_double_rel(cell(l, 5), 0.9430834407809909, 1e-12);   /* 81920 / 86864 (python) */
	free(l);
	l = line_at(csv, 4);
	assert_string_equal(l, "r1-mns10,64,10,,,");
	free(l);
	free(csv);

	/* fig6: run 4 has no p99 ITL (empty cell) and its preemptions come from residency */
	csv = slurp(figs[1].csv_path);
	assert_int_equal(count_lines(csv), 1 + NRUNS);
	l = line_at(csv, 1);
	assert_string_equal(l, "r1-6144-2048-c64,438.8,215.6,37");
	free(l);
	l = line_at(csv, 4);
	assert_string_equal(l, "r1-mns10,420,,12");
	free(l);
	free(csv);

	/* fig7: the negative residual is flagged (and explained in the caption) */
	assert_non_null(strstr(figs[2].caption, "zero or negative"));
	csv = slurp(figs[2].csv_path);
	assert_int_equal(count_lines(csv), 1 + NRUNS);
	l = line_at(csv, 3);
	assert_string_equal(l, "r1-1024-256-c64,0.5,0.3,-0.05,0.75,1");
	free(l);
	l = line_at(csv, 4);
	assert_string_equal(l, "r1-mns10,,,,,0");
	free(l);
	free(csv);

	/* fig8: 5 calibration rows + the focus row; values from numpy (cfixture_init) */
	assert_non_null(strstr(figs[3].caption, "+20.7%"));
	assert_non_null(strstr(figs[3].caption, "R² = 0.999"));
	csv = slurp(figs[3].csv_path);
	assert_int_equal(count_lines(csv), 1 + NCAL + 1);
	l = line_at(csv, 1);
	assert_memory_equal(l, "cal-1,calibration,320,", 22);
	assert_double_rel(cell(l, 4), 13.629283706720978, 1e-12);
	assert_double_rel(cell(l, 5), 0.069822402143771, 1e-9);
	free(l);
	l = line_at(csv, NCAL + 1);
	assert_memory_equal(l, "r1-6144-2048-c64,focus,4096,18,", 31);
	assert_double_rel(cell(l, 4), 14.91187200950441, 1e-12);
	assert_double_rel(cell(l, 5), 20.709190559892843, 1e-9);
	assert_double_abs(cell(l, 6), 37, 0);
	free(l);
	free(csv);
	br_figures_free(figs, n);

	/* the ledger's own excess wins when it has one */
	f.an[0].flops.available = 1;
	f.an[0].flops.excess_frac = 0.266;
	assert_int_equal(br_render_campaign_figures(&f.c, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_non_null(strstr(find_fig(figs, n, "fig8-flops-calibration")->caption, "+26.6%"));
	br_figures_free(figs, n);
	rm_tmp(dir);
}

/* A campaign without data gives no figure and no file; no calibration → no fig8. */
static void
test_campaign_empty(void **state)
{
	(void)state;
	cfixture f;
	cfixture_init(&f);
	char *dir = make_tmpdir();
	br_figure *figs = (br_figure *)1;
	size_t n = 9;
	char *cause = NULL;
	f.c.has_calibration = 0;
	assert_int_equal(br_render_campaign_figures(&f.c, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_int_equal(n, 3);
	assert_null(find_fig(figs, n, "fig8-flops-calibration"));
	br_figures_free(figs, n);
	rm_tmp(dir);

	dir = make_tmpdir();
	for (int i = 0; i < NRUNS; i++) {
		memset(&f.an[i], 0, sizeof f.an[i]);
		f.an[i].run = &f.runs[i];
		f.an[i].residency.preemptions = NAN;
		f.runs[i].bench.n = 0;
	}
	assert_int_equal(br_render_campaign_figures(&f.c, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	assert_int_equal(n, 0);
	assert_null(figs);
	assert_int_equal(dir_entries(dir), 0);
	rm_tmp(dir);
}

/* ---------------------------------------------------------------- end to end */

/*
 * Simulate round 1 (fixtures/configs/round1.json) with the built binary,
 * load and analyse it, and render: every per-run figure but fig9's prefill
 * and recompute parts (no calibration) is made. The staircase ends at the
 * analysis' preemption count and the loop's trigger column is its trigger.
 */
static void
test_simulated_round1(void **state)
{
	(void)state;
	const char *bin = getenv("BR_BINARY");
	if (bin == NULL || access(bin, X_OK) != 0)
		skip();
	char tmpl[] = "/tmp/br_render_sim_XXXXXX";
	char *root = mkdtemp(tmpl);
	assert_non_null(root);
	char *run_dir = br_path_join(root, "round1");
	char *cfg = br_test_src("fixtures/configs/round1.json");
	char *cmd = br_xasprintf("'%s' simulate '%s' -o '%s' >/dev/null 2>&1", bin, cfg, run_dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(cfg);
	br_run run;
	char *cause = NULL;
	if (br_run_load(run_dir, NULL, &run, &cause) != 0)
		fail_msg("%s", cause);
	br_analysis a;
	br_analyze(&run, &a);
	assert_true(a.preemptions.available && a.preemptions.n_events > 0);
	char *dir = br_path_join(root, "figures");
	br_figure *figs = NULL;
	size_t n = 0;
	assert_int_equal(br_render_figures(&a, g_tmpl, dir, &figs, &n, &cause), 0);
	assert_int_equal(br_render_wait(&cause), 0);   /* PNG and SVG finished by the writer threads */
	static const char *ids[6] = { "fig2-waveform", "fig3-residency", "fig4-preemption-loop",
		"fig5-preemption-staircase", "fig9-budget", "figL-latency-cdf" };
	assert_int_equal(n, 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(figs[i].id, ids[i]);
	check_files(&figs[1], W_PX, H_PX);
	check_files(&figs[2], W_PX, H_PX);
	check_files(&figs[3], W_PX, H5_PX);
	check_files(&figs[4], W_PX, H9_PX);
	/* staircase: Σ event counts = the last cumulative value */
	char *csv = slurp(figs[3].csv_path);
	assert_int_equal(count_lines(csv), 1 + a.preemptions.n_events + 2);
	double sum = 0;
	for (size_t k = 0; k < a.preemptions.n_events; k++)
		sum += a.preemptions.events[k].count;
	char *l = line_at(csv, a.preemptions.n_events + 2);
	assert_double_abs(cell(l, 3), sum, 0);
	assert_double_rel(cell(l, 0), a.preemptions.window_s, 1e-12);
	free(l);
	free(csv);
	csv = slurp(figs[2].csv_path);
	l = line_at(csv, 1);
	assert_double_rel(cell(l, 6), a.preemptions.trigger_kv_frac * 100, 1e-12);
	free(l);
	free(csv);
	/* budget: decode only, 'decode' row drawn with the analysis' seconds */
	csv = slurp(figs[4].csv_path);
	l = line_at(csv, 1);
	assert_double_rel(cell(l, 1), a.budget.decode_s, 1e-12);
	free(l);
	free(csv);
	br_figures_free(figs, n);
	br_analysis_free(&a);
	br_run_free(&run);
	if (!getenv("BR_TEST_KEEP")) {
		char *rm = br_xasprintf("rm -rf '%s'", root);
		assert_int_equal(system(rm), 0);
		free(rm);
	}
	free(dir);
	free(run_dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_figs),
		cmocka_unit_test(test_run_figs_missing),
		cmocka_unit_test(test_fig4_zoom_cluster),
		cmocka_unit_test(test_campaign_figs),
		cmocka_unit_test(test_campaign_empty),
		cmocka_unit_test(test_simulated_round1),
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
