/*
 * Figure output: display list → PNG (300 dpi, CAIRO_FORMAT_RGB24 on white,
 * so the PNG has no alpha channel) and SVG, both replayed with cairo; CSV
 * through br_write_atomic. See figure_io.h.
 */
#include "render/figure_io.h"

#include <errno.h>
#include <time.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <cairo-svg.h>
#include <png.h>
#include <pango/pangocairo.h>

#include "benchreport/common.h"

/* br_ftx_new: see figure_io.h. */
br_ftx *
br_ftx_new(const br_template *t)
{
	br_ftx *ft = br_xcalloc(1, sizeof *ft);
	ft->t = t;
	ft->keep = g_ptr_array_new_with_free_func(free);
	return ft;
}

/* br_ftx_free: NULL is fine. */
void
br_ftx_free(br_ftx *ft)
{
	if (ft == NULL)
		return;
	g_ptr_array_free(ft->keep, TRUE);
	free(ft);
}

/* br_ftj: see figure_io.h. */
const char *
br_ftj(br_ftx *ft, const char *key, const json_t *vars)
{
	char *full = NULL;
	if (ft->engine != NULL && ft->t != NULL) {
		full = br_xasprintf("figtext.%s_%s", key, ft->engine);
		if (br_template_get(ft->t, full) == NULL) {
			free(full);
			full = NULL;
		}
	}
	if (full == NULL)
		full = br_xasprintf("figtext.%s", key);
	char *s = br_template_fill(ft->t, full, vars);
	free(full);
	g_ptr_array_add(ft->keep, s);
	return s;
}

/* br_ft: see figure_io.h. */
const char *
br_ft(br_ftx *ft, const char *key)
{
	return br_ftj(ft, key, NULL);
}

/*
 * pack_vars: the object of a br_ftp format ("{s:s,s:i,s:I}": key, then a
 * string, int or json_int_t). Unlike json_pack, a string that is not valid
 * UTF-8 (a folder name, say) is kept with U+FFFD for its bad bytes instead
 * of failing the whole object; a NULL string is JSON null ("n/a").
 */
static json_t *
pack_vars(const char *fmt, va_list ap)
{
	json_t *o = json_object();
	for (const char *p = fmt; *p; p++) {
		if (!(p[0] == 's' && p[1] == ':' && p[2] != '\0'))
			continue;   /* '{', '}', ',' */
		const char *k = va_arg(ap, const char *);
		p += 2;
		json_t *v;
		if (*p == 's') {
			const char *s = va_arg(ap, const char *);
			if (s == NULL) {
				v = json_null();
			} else {
				gchar *ok = g_utf8_make_valid(s, -1);
				v = json_string(ok);
				g_free(ok);
			}
		} else if (*p == 'i') {
			v = json_integer(va_arg(ap, int));
		} else if (*p == 'I') {
			v = json_integer(va_arg(ap, json_int_t));
		} else {
			break;   /* not a br_ftp format (a bug): the rest stays unfilled */
		}
		json_object_set_new(o, k, v ? v : json_null());
	}
	return o;
}

/* br_ftp: see figure_io.h. */
const char *
br_ftp(br_ftx *ft, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	json_t *v = pack_vars(fmt, ap);
	va_end(ap);
	const char *s = br_ftj(ft, key, v);
	json_decref(v);
	return s;
}

/* br_fig_png_px: see figure_io.h. */
int
br_fig_png_px(double pt)
{
	return (int)lround(pt * BR_FIG_DPI / 72.0);
}

/* br_csv_num: see figure_io.h. */
void
br_csv_num(GString *s, double v)
{
	char buf[40];
	int n = br_format_g(v, 15, buf);   /* "%.15g"; nothing for NaN, ±inf */
	if (n > 0)
		g_string_append_len(s, buf, n);
}

/* br_fig_num: see figure_io.h. */
void
br_fig_num(char *buf, size_t len, const char *fmt, double v)
{
	char tmp[G_ASCII_DTOSTR_BUF_SIZE + 16];
	g_ascii_formatd(tmp, sizeof tmp, fmt, v);
	if (tmp[0] == '-')
		snprintf(buf, len, "\xe2\x88\x92%s", tmp + 1);
	else
		snprintf(buf, len, "%s", tmp);
}

/* br_csv_str: see figure_io.h. */
void
br_csv_str(GString *s, const char *text)
{
	if (text == NULL)
		return;
	if (strpbrk(text, ",\"\r\n") == NULL) {
		g_string_append(s, text);
		return;
	}
	g_string_append_c(s, '"');
	for (const char *p = text; *p; p++) {
		if (*p == '"')
			g_string_append_c(s, '"');
		g_string_append_c(s, *p);
	}
	g_string_append_c(s, '"');
}

/*
 * record_all: white background, then the panels in a grid of spec->cols
 * columns filling the figure, recorded as one drawing (freed by the caller).
 */
static br_drawing *
record_all(const br_fig_spec *spec)
{
	double w = spec->width_pt, h = spec->height_pt;
	br_canvas *cv = br_canvas_new(w, h);
	br_cv_rgb(cv, 1, 1, 1);
	br_cv_paint(cv);
	int cols = spec->cols > 0 ? spec->cols : 1;
	size_t rows = (spec->n_charts + (size_t)cols - 1) / (size_t)cols;
	double cw = w / cols, ch = rows ? h / (double)rows : h;
	for (size_t i = 0; i < spec->n_charts; i++) {
		size_t r = i / (size_t)cols, c = i % (size_t)cols;
		br_chart_draw(spec->charts[i], cv, (double)c * cw, (double)r * ch, cw, ch);
	}
	return br_canvas_finish(cv);
}

/* finish_tmp: rename tmp to path, or remove tmp and set *cause. */
static int
finish_tmp(const char *tmp, const char *path, const char *what, char **cause)
{
	if (what == NULL && rename(tmp, path) == 0)
		return 0;
	if (cause)
		*cause = br_xasprintf("%s: cannot write: %s", path, what ? what : g_strerror(errno));
	unlink(tmp);
	return -1;
}

/*
 * png_rows: write the RGB24 pixels of img (cairo's 0x00RRGGBB words) to fp
 * as an 8-bit RGB PNG with libpng: no row filter and zlib level 3. Measured
 * on the round-1 waveform (2008 x 1122 px): 0.022 s and 251 KB, against
 * 0.116 s and 204 KB for cairo's writer (every filter, level 6); the other
 * settings tried (sub/up/all filters, levels 1-6, Z_RLE) were slower or
 * larger. Returns NULL, or a static message on a libpng error.
 */
/* png_quiet_error / png_quiet_warning: libpng's handlers without its own
 * "libpng error: ..." lines on stderr (a full disk printed five before the
 * real message); the error still ends in png_rows's setjmp. */
static void
png_quiet_error(png_structp png, png_const_charp msg)
{
	(void)msg;
	png_longjmp(png, 1);
}

static void
png_quiet_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static const char *
png_rows(cairo_surface_t *img, FILE *fp)
{
	/* libpng's error handler longjmps; `row` is freed on both paths */
	int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
	int stride = cairo_image_surface_get_stride(img);
	cairo_surface_flush(img);
	const unsigned char *data = cairo_image_surface_get_data(img);
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_quiet_error,
	    png_quiet_warning);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	unsigned char *row = br_xmalloc((size_t)w * 3 + 1);
	if (png == NULL || info == NULL) {
		png_destroy_write_struct(&png, &info);
		free(row);
		return "libpng: cannot create a writer";
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		free(row);
		return "libpng: write error";   /* the caller names the file; errno says why */
	}
	png_init_io(png, fp);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
	    PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_compression_level(png, 3);
	png_write_info(png, info);
	for (int y = 0; y < h; y++) {
		const uint32_t *px = (const uint32_t *)(data + (size_t)y * (size_t)stride);
		/* 0x00RRGGBB << 8, byte-swapped, is R, G, B, 0 in memory: one
		 * 4-byte store a pixel, its 0 overwritten by the next pixel's R
		 * (row has a spare byte at the end); 148 M -> ~45 M instructions
		 * for round 1's six figures */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		for (int x = 0; x < w; x++) {
			uint32_t rgb0 = __builtin_bswap32(px[x] << 8);
			memcpy(row + 3 * (size_t)x, &rgb0, 4);
		}
#else
		for (int x = 0; x < w; x++) {
			uint32_t rgb0 = px[x] << 8;   /* big-endian: R, G, B, 0 as it stands */
			memcpy(row + 3 * (size_t)x, &rgb0, 4);
		}
#endif
		png_write_row(png, row);
	}
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	free(row);
	return NULL;
}

/*
 * Figure files are written on worker threads: a figure's PNG (300 dpi,
 * rasterised by cairo, encoded by libpng: zlib is most of a figure's cost)
 * and its SVG are two jobs, so the two cores share the work evenly to its
 * end (one job per figure left a core idle for the last PNG). The workers
 * are our own GThreads, because pango keeps one font map per thread: at
 * shutdown each worker releases its own before it exits, so nothing is left
 * for LeakSanitizer. A job borrows its drawing (owned by the br_figure,
 * which callers free only after br_fig_wait).
 */
#define FIG_WORKERS 2

/* The two files of one figure; the job that finishes last frees it and,
 * when either file failed, removes the other (no figure is left half
 * written). */
typedef struct fig_files {
	char *png, *svg;
	gint left;     /* jobs still running (atomic) */
	gint failed;   /* a job failed (atomic) */
} fig_files;

typedef struct fig_job {
	const br_drawing *dr;   /* borrowed; NULL = stop the worker */
	fig_files *files;
	int svg;                /* 1: write files->svg, 0: files->png */
} fig_job;

static GMutex fig_mu;
static GCond fig_cv;
static GAsyncQueue *fig_queue;
static GThread *fig_threads[FIG_WORKERS];
static int fig_n_threads;
static unsigned fig_pending;
static char *fig_failure;   /* the first failure since the last br_fig_wait */
static int fig_timing;      /* BR_TIMING set: each file's CPU time on stderr (bench/) */

/* The calling worker's pixel buffer and its size (bytes); NULL on a thread
 * that is not a figure worker (its buffer is allocated per figure). */
static __thread unsigned char **worker_px;
static __thread size_t *worker_px_cap;

/* write_png: replay the drawing at 300 dpi onto an RGB24 image (the
 * drawing paints its own white background first, see record_all) and
 * write it with png_rows through PATH.tmp.PID. 0 or -1 + *cause. */
static int
write_png(const br_drawing *dr, const char *path, char **cause)
{
	int pw = br_fig_png_px(dr->width_pt), ph = br_fig_png_px(dr->height_pt);
	/* pixels not zeroed first (cairo_image_surface_create would): the
	 * drawing's background paint covers every one */
	int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, pw);
	size_t need = (size_t)stride * (size_t)(ph > 0 ? ph : 1);
	/* a worker keeps its pixel buffer from figure to figure: a fresh 9 MB
	 * each time cost 2,300 page faults per figure; huge pages cut the
	 * first figure's faults too (round-1 run report: 10,300 -> see
	 * bench/targets_bench.sh) */
	unsigned char *px;
	if (worker_px_cap != NULL) {
		if (*worker_px_cap < need) {
			free(*worker_px);
			*worker_px = br_xmalloc_huge(need);
			*worker_px_cap = need;
		}
		px = *worker_px;
	} else {
		px = br_xmalloc_huge(need);
	}
	cairo_surface_t *img = cairo_image_surface_create_for_data(px, CAIRO_FORMAT_RGB24, pw, ph, stride);
	cairo_t *cr = cairo_create(img);
	cairo_scale(cr, BR_FIG_DPI / 72.0, BR_FIG_DPI / 72.0);
	br_drawing_cairo(dr, cr);
	cairo_status_t st = cairo_status(cr);
	cairo_destroy(cr);
	char *tmp = br_xasprintf("%s.tmp.%ld", path, (long)getpid());
	const char *err = st == CAIRO_STATUS_SUCCESS ? NULL : cairo_status_to_string(st);
	if (err == NULL) {
		FILE *fp = fopen(tmp, "wb");
		if (fp == NULL)
			err = g_strerror(errno);
		else {
			err = png_rows(img, fp);
			if (fclose(fp) != 0 && err == NULL)
				err = g_strerror(errno);
		}
	}
	cairo_surface_destroy(img);
	if (worker_px_cap == NULL)
		free(px);
	int rc = finish_tmp(tmp, path, err, cause);
	free(tmp);
	return rc;
}

/* svg_append: cairo's write callback, collecting the SVG in a GString. */
static cairo_status_t
svg_append(void *closure, const unsigned char *data, unsigned int length)
{
	g_string_append_len(closure, (const char *)data, (gssize)length);
	return CAIRO_STATUS_SUCCESS;
}

/*
 * svg_renumber_surfaces: cairo names each surface in an SVG "surfaceN" with
 * N from a process-wide counter, so the same figure got another N from run
 * to run, depending on which worker drew which figure first (outputs must
 * be byte-identical under SOURCE_DATE_EPOCH). Every id="surfaceN" and
 * #surfaceN becomes surface1, surface2, ... in order of first appearance.
 * Returns a new GString; svg is left as it is.
 */
static GString *
svg_renumber_surfaces(const GString *svg)
{
	static const char word[] = "surface";
	const size_t wl = sizeof word - 1;
	GString *out = g_string_sized_new(svg->len + 16);
	GHashTable *ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	const char *s = svg->str, *end = svg->str + svg->len, *from = s;
	for (const char *p = s; (p = g_strstr_len(p, end - p, word)) != NULL;) {
		const char *d = p + wl, *e = d;
		while (e < end && g_ascii_isdigit(*e))
			e++;
		if (e == d || p == s || (p[-1] != '"' && p[-1] != '#')) {
			p = d;
			continue;
		}
		char *num = g_strndup(d, (gsize)(e - d));
		gpointer v = g_hash_table_lookup(ids, num);
		if (v == NULL) {
			v = GUINT_TO_POINTER(g_hash_table_size(ids) + 1);
			g_hash_table_insert(ids, num, v);
		} else
			g_free(num);
		g_string_append_len(out, from, d - from);
		g_string_append_printf(out, "%u", GPOINTER_TO_UINT(v));
		from = p = e;
	}
	g_string_append_len(out, from, end - from);
	g_hash_table_destroy(ids);
	return out;
}

/* write_svg: the same drawing replayed onto a cairo SVG surface of
 * w × h points, collected in memory, its surface ids renumbered
 * (svg_renumber_surfaces), written through PATH.tmp.PID. */
static int
write_svg(const br_drawing *dr, const char *path, char **cause)
{
	GString *g = g_string_sized_new(1 << 16);
	cairo_surface_t *svg = cairo_svg_surface_create_for_stream(svg_append, g, dr->width_pt, dr->height_pt);
	cairo_status_t st = cairo_surface_status(svg);
	if (st == CAIRO_STATUS_SUCCESS) {
		cairo_t *cr = cairo_create(svg);
		br_drawing_cairo(dr, cr);
		st = cairo_status(cr);
		cairo_destroy(cr);
		cairo_surface_finish(svg);
		if (st == CAIRO_STATUS_SUCCESS)
			st = cairo_surface_status(svg);
	}
	cairo_surface_destroy(svg);
	char *tmp = br_xasprintf("%s.tmp.%ld", path, (long)getpid());
	const char *err = st == CAIRO_STATUS_SUCCESS ? NULL : cairo_status_to_string(st);
	if (err == NULL) {
		GString *fixed = svg_renumber_surfaces(g);
		FILE *fp = fopen(tmp, "wb");
		if (fp == NULL)
			err = g_strerror(errno);
		else {
			if (fwrite(fixed->str, 1, fixed->len, fp) != fixed->len)
				err = g_strerror(errno);
			if (fclose(fp) != 0 && err == NULL)
				err = g_strerror(errno);
		}
		g_string_free(fixed, TRUE);
	}
	g_string_free(g, TRUE);
	int rc = finish_tmp(tmp, path, err, cause);
	free(tmp);
	return rc;
}

/* run_job: one file of a figure; the last of its two jobs removes both
 * files when either failed. */
static void
run_job(fig_job *j)
{
	char *cause = NULL;
	fig_files *f = j->files;
	struct timespec c0, c1;   /* this thread's CPU time, for BR_TIMING */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	int rc = j->svg ? write_svg(j->dr, f->svg, &cause) : write_png(j->dr, f->png, &cause);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	if (fig_timing)
		fprintf(stderr, "benchreport: timing figure file %s: CPU %.1f ms\n", j->svg ? f->svg : f->png,
		    (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6);
	if (rc != 0)
		g_atomic_int_set(&f->failed, 1);
	free(j);
	if (g_atomic_int_dec_and_test(&f->left)) {
		if (g_atomic_int_get(&f->failed)) {
			unlink(f->png);
			unlink(f->svg);
		}
		free(f->png);
		free(f->svg);
		free(f);
	}
	g_mutex_lock(&fig_mu);
	if (cause != NULL && fig_failure == NULL)
		fig_failure = cause;
	else
		free(cause);
	fig_pending--;
	g_cond_broadcast(&fig_cv);
	g_mutex_unlock(&fig_mu);
}

/* warm_fonts: lay out one line with this thread's pango font map, so its
 * fonts are loaded before the first figure arrives. */
static void
warm_fonts(void)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cairo_t *cr = cairo_create(s);
	PangoLayout *l = pango_cairo_create_layout(cr);
	PangoFontDescription *fd = pango_font_description_from_string("DejaVu Sans 8");
	pango_layout_set_font_description(l, fd);
	pango_layout_set_text(l, "0.5 requests (s)", -1);
	pango_cairo_show_layout(cr, l);
	pango_font_description_free(fd);
	g_object_unref(l);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
}

static gpointer
fig_worker(gpointer data)
{
	(void)data;
	warm_fonts();
	unsigned char *px = NULL;
	size_t px_cap = 0;
	worker_px = &px;
	worker_px_cap = &px_cap;
	for (;;) {
		fig_job *j = g_async_queue_pop(fig_queue);
		if (j->dr == NULL) {
			free(j);
			break;
		}
		run_job(j);
	}
	worker_px = NULL;
	worker_px_cap = NULL;
	free(px);
	pango_cairo_font_map_set_default(NULL);   /* this thread's font map */
	return NULL;
}

/* fig_start: start the worker threads on the first job (idempotent). */
static void
fig_start(void)
{
	g_mutex_lock(&fig_mu);
	if (fig_queue == NULL) {
		const char *t = getenv("BR_TIMING");
		fig_timing = t != NULL && *t != '\0';
	}
	if (fig_queue == NULL && g_get_num_processors() > 1) {
		fig_queue = g_async_queue_new();
		for (int i = 0; i < FIG_WORKERS; i++) {
			fig_threads[fig_n_threads] = g_thread_try_new("br-figures", fig_worker, NULL, NULL);
			if (fig_threads[fig_n_threads] != NULL)
				fig_n_threads++;
		}
	}
	g_mutex_unlock(&fig_mu);
}

static void hand_over(fig_job *j);

/* queue_job: hand the files of dr to a worker (with one processor, or
 * when no thread starts, the job runs here). */
static void
queue_job(const br_drawing *dr, const char *png, const char *svg)
{
	fig_files *f = br_xcalloc(1, sizeof *f);
	f->png = br_xstrdup(png);
	f->svg = br_xstrdup(svg);
	f->left = 2;
	for (int k = 0; k < 2; k++) {
		fig_job *j = br_xmalloc(sizeof *j);
		j->dr = dr;
		j->files = f;
		j->svg = k;
		hand_over(j);
	}
}

/* hand_over: start job j on a worker, or run it here. */
static void
hand_over(fig_job *j)
{
	fig_start();
	g_mutex_lock(&fig_mu);
	fig_pending++;
	int threaded = fig_n_threads > 0;
	g_mutex_unlock(&fig_mu);
	if (threaded)
		g_async_queue_push(fig_queue, j);
	else
		run_job(j);
}

/* br_fig_wait: see figure_io.h. */
int
br_fig_wait(char **cause)
{
	g_mutex_lock(&fig_mu);
	while (fig_pending > 0)
		g_cond_wait(&fig_cv, &fig_mu);
	char *err = fig_failure;
	fig_failure = NULL;
	g_mutex_unlock(&fig_mu);
	if (err == NULL)
		return 0;
	if (cause && *cause == NULL)
		*cause = err;
	else
		free(err);
	return -1;
}

/* br_fig_shutdown: see figure_io.h. */
void
br_fig_shutdown(void)
{
	br_fig_wait(NULL);
	for (int i = 0; i < fig_n_threads; i++)
		g_async_queue_push(fig_queue, br_xcalloc(1, sizeof(fig_job)));
	for (int i = 0; i < fig_n_threads; i++)
		g_thread_join(fig_threads[i]);
	fig_n_threads = 0;
	if (fig_queue != NULL)
		g_async_queue_unref(fig_queue);
	fig_queue = NULL;
}

/*
 * same_points_as_earlier: whether series k of ch draws the same points as
 * an earlier line/step/scatter/area series of ch (a curve drawn as a line
 * and again as markers): its missing points are counted once, not twice.
 */
static int
same_points_as_earlier(const br_chart *ch, size_t k)
{
	const br_chart_series *se = &ch->series[k];
	for (size_t e = 0; e < k; e++) {
		const br_chart_series *o = &ch->series[e];
		if (o->kind == BR_SERIES_BARS || o->kind == BR_SERIES_HBARS_STACKED || o->n != se->n)
			continue;
		if (se->n == 0 || (memcmp(o->x, se->x, se->n * sizeof *se->x) == 0 &&
		    memcmp(o->y, se->y, se->n * sizeof *se->y) == 0))
			return 1;
	}
	return 0;
}
/* br_figure_write: see figure_io.h. */
int
br_figure_write(const char *out_dir, const br_fig_spec *spec, br_figure *out, char **cause)
{
	double w = spec->width_pt, h = spec->height_pt;
	memset(out, 0, sizeof *out);
	br_drawing *dr = record_all(spec);
	char *stem = br_path_join(out_dir, spec->id);
	char *png = br_xasprintf("%s.png", stem), *svg = br_xasprintf("%s.svg", stem),
	     *csv = br_xasprintf("%s.csv", stem);
	free(stem);
	size_t not_drawn = 0;
	for (size_t i = 0; i < spec->n_charts; i++) {
		const br_chart *ch = spec->charts[i];
		for (size_t k = 0; k < ch->n_series; k++) {
			const br_chart_series *se = &ch->series[k];
			if (se->kind == BR_SERIES_BARS || se->kind == BR_SERIES_HBARS_STACKED)
				continue;
			if (se->uncounted || same_points_as_earlier(ch, k))
				continue;
			for (size_t j = 0; j < se->n; j++)
				not_drawn += !(isfinite(se->x[j]) && isfinite(se->y[j]));
		}
	}
	int rc = br_write_atomic(csv, spec->csv ? spec->csv : "", spec->csv ? spec->csv_len : 0, cause);
	if (rc == 0)
		queue_job(dr, png, svg);
	else {
		br_drawing_free(dr);
		free(png);
		free(svg);
		free(csv);
		return -1;
	}
	out->id = br_xstrdup(spec->id);
	out->n_not_drawn = not_drawn;
	out->title = br_xstrdup(spec->title);
	out->caption = br_xstrdup(spec->caption);
	out->png_path = png;
	out->svg_path = svg;
	out->csv_path = csv;
	out->width_pt = w;
	out->height_pt = h;
	out->drawing = dr;
	return 0;
}

int
br_figure_write_single(const char *out_dir, const char *id, const char *title,
    const char *caption, br_chart *chart, const GString *csv, br_figure *out, char **cause)
{
	br_chart *charts[1] = { chart };
	br_fig_spec spec = {
		.id = id, .title = title, .caption = caption,
		.width_pt = BR_FIG_W_PT, .height_pt = BR_FIG_H_PT,
		.charts = charts, .n_charts = 1, .cols = 1,
		.csv = csv->str, .csv_len = csv->len,
	};
	return br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
}

/* br_fig_series_max_gap_s: see figure_io.h. */
double
br_fig_series_max_gap_s(const br_series *s)
{
	if (s == NULL || s->n_rows < 2)
		return 0;
	double step = br_series_median_step_s(s, 0, s->n_rows - 1);
	return isfinite(step) && step > 0 ? 2.5 * step : 0;
}

/* br_fig_series_time: see figure_io.h. */
double *
br_fig_series_time(const br_series *s, double *t0)
{
	size_t n = s->n_rows;
	*t0 = NAN;
	for (size_t i = 0; i < n && isnan(*t0); i++)
		if (isfinite(s->t_s[i]))
			*t0 = s->t_s[i];
	double *t = br_xmalloc((n ? n : 1) * sizeof *t);
	for (size_t i = 0; i < n; i++)
		t[i] = isfinite(s->t_s[i]) ? s->t_s[i] - *t0 : NAN;
	return t;
}

/* br_fig_add_run_window: see figure_io.h. */
int
br_fig_add_run_window(br_chart *c, br_ftx *ft, const br_analysis *a, double t0)
{
	if (!(a->residency.available && isfinite(a->residency.window_start_t_s) &&
	    isfinite(a->residency.window_end_t_s)))
		return 0;
	br_chart_add_band(c, a->residency.window_start_t_s - t0, a->residency.window_end_t_s - t0,
	    br_ft(ft, "common.benchmark_window"));
	return 1;
}
