/*
 * Figure output, private to src/render/: the panels recorded once as a
 * display list (canvas.h), replayed with cairo to a 300 dpi opaque RGB PNG
 * and to an SVG, kept in the br_figure for the PDF's vector copy, plus the
 * CSV of the data behind it. Each file is written to "PATH.tmp.PID" and
 * renamed.
 */
#ifndef BR_RENDER_FIGURE_IO_H
#define BR_RENDER_FIGURE_IO_H

#include <stddef.h>
#include "benchreport/render.h"
#include <glib.h>
#include "render/chart.h"
#include "benchreport/template.h"

/*
 * Figure text. Every human-readable string a figure draws (title, axis
 * titles, legend entries, notes, reference-line labels) or hands to the
 * report (br_figure title and caption) is the template key
 * "figtext.<key>" of the report being written (templates/report.LANG.json
 * for the run and campaign figures, knee.LANG.json for the knee figures,
 * compare.LANG.json for the A/B figures), filled by br_template_fill from a
 * small JSON object the figure builds (numbers already formatted as text by
 * br_fig_num, so every language prints them alike). A missing key draws as
 * "[figtext.<key>]" (never a crash). tests/e2e/figtext_keys.sh checks that every key
 * named in src/render/ exists in the English templates: write keys as string
 * literals in br_ft / br_ftp calls, or with BR_FT_KEY("...") when picked
 * from a table.
 *
 * br_ftx: a template and the strings handed out for one figure, all freed
 * together by br_ftx_free (the chart layer copies what it is given).
 */
typedef struct br_ftx {
	const br_template *t;   /* may be NULL: every string is then "[figtext.KEY]" */
	GPtrArray *keep;
	const char *engine;     /* NULL, or an engine key ("sglang", "llamacpp"):
	                         * "figtext.KEY_<engine>" is taken for KEY when the
	                         * template has it (SGLang's "retractions"); static */
} br_ftx;

#define BR_FT_KEY(k) k

br_ftx *br_ftx_new(const br_template *t);
void br_ftx_free(br_ftx *ft);
/* br_ft: "figtext.KEY" without placeholders; owned by ft. */
const char *br_ft(br_ftx *ft, const char *key);
/* br_ftp: "figtext.KEY" filled from the object of fmt and its arguments,
 * "{s:s,s:i,s:I}" as json_pack (key, then a UTF-8 string, an int or a
 * json_int_t; only these; invalid UTF-8 bytes become U+FFFD); owned by ft. */
const char *br_ftp(br_ftx *ft, const char *key, const char *fmt, ...);
/* br_ftj: "figtext.KEY" filled from vars (borrowed; NULL = none); owned by ft. */
const char *br_ftj(br_ftx *ft, const char *key, const json_t *vars);

/* Default drawn size: 170 mm × 95 mm in points (72 pt per inch). */
#define BR_FIG_W_PT (170.0 / 25.4 * 72.0)
#define BR_FIG_H_PT (95.0 / 25.4 * 72.0)
#define BR_FIG_DPI 300.0

/* What one figure is made of. */
typedef struct br_fig_spec {
	const char *id;           /* file stem, e.g. "fig2-waveform" */
	const char *title, *caption;
	double width_pt, height_pt;
	br_chart *const *charts;  /* panels, row-major in a grid of `cols` columns */
	size_t n_charts;
	int cols;
	const char *csv;          /* the data behind the figure, header first */
	size_t csv_len;
} br_fig_spec;

/* br_fig_png_px: PNG pixel size for a drawn size in points (300 dpi, rounded). */
int br_fig_png_px(double pt);

/*
 * br_figure_write: record spec's charts and write OUT_DIR/ID.csv; the PNG
 * and SVG are written by a worker thread from the drawing (see
 * br_fig_wait). Fills *out (strings and drawing owned; br_figure_free, only
 * after br_fig_wait). Returns 0, or -1 with *cause naming the CSV that
 * could not be written (*out is then left empty).
 */
int br_figure_write(const char *out_dir, const br_fig_spec *spec, br_figure *out, char **cause);

/*
 * br_fig_wait: wait until every PNG and SVG queued by br_figure_write is on
 * disk.
 * Returns 0, or -1 with *cause (when *cause is still NULL) naming the first
 * file that could not be written since the last call; the files of that
 * figure may then remain, so callers write into a staging folder that is
 * discarded on error. The public entry points leave the files in flight;
 * callers wait with br_render_wait (render.h) before using them.
 */
int br_fig_wait(char **cause);
/* br_fig_shutdown: br_fig_wait, then stop the worker threads (each frees
 * its pango font map). */
void br_fig_shutdown(void);

/*
 * br_figure_write_single: br_figure_write for the common case of one chart
 * at the standard size (BR_FIG_W_PT × BR_FIG_H_PT) with the CSV in a GString.
 * Returns 1 (figure written, as the fig_* builders return) or -1 with *cause.
 */
int br_figure_write_single(const char *out_dir, const char *id, const char *title,
    const char *caption, br_chart *chart, const GString *csv, br_figure *out, char **cause);

/*
 * br_csv_num: append number v to s (locale independent, up to 15
 * significant digits); nothing (an empty cell) when v is not finite.
 */
void br_csv_num(GString *s, double v);

/*
 * br_fig_num: v formatted with printf format fmt (one double conversion)
 * into buf, locale independent ('.' decimal point), a leading minus as the
 * Unicode minus sign (for labels; CSV cells use br_csv_num).
 */
void br_fig_num(char *buf, size_t len, const char *fmt, double v);

/* br_csv_str: append text to s as a CSV cell (quoted when it holds , " or a line break). */
void br_csv_str(GString *s, const char *text);

/* Figure builders (fig_*.c): 1 = figure made, 0 = no data for it, -1 = I/O error (*cause). */
int br_fig_latency(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause);
int br_fig_waveform(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause);
int br_fig_residency(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause);
/*
 * br_fig_series_time: seconds since the series' first finite sample time
 * (*t0, epoch s) for each row, NAN where the row has no time. Returns a
 * malloc'd array of s->n_rows.
 */
double *br_fig_series_time(const br_series *s, double *t0);

/*
 * br_fig_series_max_gap_s: the widest spacing (s) a time series' lines are
 * drawn across: 2.5 × the series' median sample step (br_chart.max_gap_x),
 * so dropped rows or missed scrapes show as a break, not as a straight line
 * that looks measured; 0 (never break) when the step is unknown.
 */
double br_fig_series_max_gap_s(const br_series *s);

/*
 * br_fig_add_run_window: the run window of the residency block (epoch s)
 * shaded on c, shifted by t0, labelled figtext.common.benchmark_window. Returns 1 when
 * drawn, 0 when the window is unknown.
 */
struct br_chart;
int br_fig_add_run_window(struct br_chart *c, br_ftx *ft, const br_analysis *a, double t0);

/* figG-gpu: GPU power and SM clock from the gpu:* columns of `benchreport sample`; 0 without them. */
int br_fig_gpu(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause);
int br_fig_preemption_loop(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause);
int br_fig_preemption_staircase(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause);
int br_fig_budget(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause);

#endif
