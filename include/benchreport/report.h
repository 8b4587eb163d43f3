/*
 * Report output: summary.json, the text summary, report wording templates
 * and the PDF (libharu 2.3, A4, embedded TrueType fonts, UTF-8).
 *
 * Ownership: br_pdf and br_template are opaque and freed with their _free;
 * json_t values follow jansson's reference counting (caller owns the
 * reference returned by br_summary_build).
 */
#ifndef BENCHREPORT_REPORT_H
#define BENCHREPORT_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "benchreport/analysis.h"
#include "benchreport/render.h"
#include "benchreport/campaign.h"
#include "benchreport/gate.h"
#include "benchreport/template.h"

/* ------------------------------------------------------------------ */
/* PDF document layer (src/report/pdf_doc.c): flowing A4 layout.       */
/* ------------------------------------------------------------------ */
typedef struct br_pdf br_pdf;

typedef struct br_pdf_info {
	const char *title;
	const char *subject;
	const char *author;    /* "benchreport 0.1.0" */
	const char *keywords;
	const char *page_footer; /* "page {n} of {total}" with those two tokens (NULL = that English) */
	/* the report's template: every text the document prints is passed
	 * through br_template_phrase first (messages of the analyses in the
	 * report's language); NULL = print as given. Borrowed: it must outlive
	 * the br_pdf. */
	const br_template *phrases;
	/* creation date: SOURCE_DATE_EPOCH when set (reproducible bytes), else now */
} br_pdf_info;

/* Cell alignment for tables. */
enum br_align { BR_ALIGN_LEFT = 0, BR_ALIGN_RIGHT, BR_ALIGN_CENTER };

typedef struct br_pdf_table {
	size_t n_cols, n_rows;
	const char *const *header;     /* n_cols UTF-8 strings */
	const char *const *cells;      /* n_rows × n_cols, row-major; NULL cell = empty */
	const enum br_align *align;    /* n_cols, NULL = first left, rest right */
	const double *col_weight;      /* n_cols relative widths, NULL = by content */
	const int *row_highlight;      /* n_rows: 0 normal, 1 good (green), 2 bad (red); NULL = none */
	int font_size_small;           /* 1: 8 pt instead of 9 pt */
} br_pdf_table;
typedef br_pdf_table br_pdf_table_t;   /* alias (an earlier pdfdoc header had it) */

/* br_pdf_new: an empty document; fonts are DejaVu Sans (+ Bold, Mono)
 * embedded as TrueType. Returns NULL with *cause when the fonts cannot be
 * loaded. */
br_pdf *br_pdf_new(const br_pdf_info *info, char **cause);
/* br_pdf_prepare: start building the next document's fonts on a thread of
 * its own (~35 ms of CPU: a core that is idle while the inputs are read);
 * the next br_pdf_new joins it and takes that document. Idempotent. A
 * prepared document that no br_pdf_new takes is freed by
 * br_pdf_prepare_discard (harmless when none is pending). Call both from
 * one thread. */
void br_pdf_prepare(void);
void br_pdf_prepare_discard(void);

/* Start a titled section: level 1 starts a new page (unless the current
 * one holds only a few lines: two thirds still free), level 2 continues.
 * The heading is drawn with the next block, kept on a page with its first
 * three lines, or with the whole of a figure (never alone at a page foot).
 * Adds a bookmark (outline entry) at that place. */
void br_pdf_heading(br_pdf *d, int level, const char *utf8);
/* level for br_pdf_heading: a chapter of a few lines (a level-1 heading
 * that continues the current page while a third of it is free) */
#define BR_PDF_SHORT_CHAPTER 0
/* A paragraph of body text, wrapped to the text width (own UTF-8 line
 * breaker measuring with HPDF_Page_TextWidth; words longer than a line are
 * broken by character). `**bold**` spans are not interpreted. */
void br_pdf_paragraph(br_pdf *d, const char *utf8);
/* A smaller grey note (caveats, "section removed: needs X"). */
void br_pdf_note(br_pdf *d, const char *utf8);
/* Bulleted list. */
void br_pdf_bullets(br_pdf *d, const char *const *items, size_t n);
/* A table: cells wrap inside their column; the table splits across pages
 * repeating its header; it never runs off the page. */
/* (pdfdoc) A typedef and a function cannot share a name in C ("redeclared
 * as different kind of symbol"), so the function is br_pdf_table_draw and
 * br_pdf_table(d, t) is a function-like macro for it: `br_pdf_table t = {..}`
 * names the type, `br_pdf_table(d, &t)` draws. */
void br_pdf_table_draw(br_pdf *d, const br_pdf_table *t);
#define br_pdf_table(d, t) br_pdf_table_draw((d), (t))
/* Headline cards: a grid of (label, value) boxes, e.g. on the title page. */
void br_pdf_cards(br_pdf *d, const char *const *labels, const char *const *values, size_t n);
/* A figure (its display list f->drawing, borrowed) drawn as vector graphics
 * and PDF text, scaled to the text width keeping its aspect ratio (down to
 * one page when taller), with a caption below; moves to a new page when it
 * does not fit. Returns 0, or -1 with *cause when f has no drawing. */
int br_pdf_figure(br_pdf *d, const br_figure *f, const char *caption, char **cause);
/* br_pdf_figure_led: br_pdf_figure preceded by `lead` (NULL = none), a body
 * paragraph naming the figure, kept on the same page as the figure. */
int br_pdf_figure_led(br_pdf *d, const br_figure *f, const char *lead, const char *caption, char **cause);
/* The title block at the top of the first page (large title, subtitle). */
void br_pdf_title(br_pdf *d, const char *title, const char *subtitle);
void br_pdf_page_break(br_pdf *d);
/* br_pdf_page_count: pages so far (added by pdfdoc, for tests). */
size_t br_pdf_page_count(const br_pdf *d);
/* br_pdf_save: add "page i of n" footers, write to path atomically.
 * Returns 0 or -1 with *cause. */
int br_pdf_save(br_pdf *d, const char *path, char **cause);
void br_pdf_free(br_pdf *d);

/* ------------------------------------------------------------------ */
/* Report wording: include/benchreport/template.h (src/common/)       */
/* ------------------------------------------------------------------ */
/*
 * br_template_figure_caption: the template's "figures_common.label" ("Figure
 * {n}.", {n} = the token of f->id after "fig": "2" for fig2-waveform, the
 * same as in the file name; left out when the template has no label), then
 * caption (NULL = ""), then, when figure f
 * left points out (f->n_not_drawn > 0), by the template's
 * "figures_common.not_drawn" sentence with {n} = that count, so a dropped
 * point is always said in the caption. Returns a malloc'd string.
 */
struct br_figure;
char *br_template_figure_caption(const br_template *t, const char *caption, const struct br_figure *f);


/* ------------------------------------------------------------------ */
/* summary.json, text summary, whole report (src/report/)             */
/* ------------------------------------------------------------------ */
#define BR_SUMMARY_SCHEMA_VERSION 1

/* br_summary_build: every number of the report, with units in key names.
 * NAN values become JSON null. Returns a new reference. */
json_t *br_summary_build(const br_analysis *a, const br_figure *figs, size_t n_figs);

/* br_summary_figures: the "figures" array of a summary.json: for each
 * figure its id, title and the png, svg and csv files as paths relative to
 * the report folder ("figures/fig2-waveform.png"; the files live in its
 * figures/ folder), so an archived report can move. Missing paths are null.
 * Returns a new reference. */
json_t *br_summary_figures(const br_figure *figs, size_t n_figs);

/* br_summary_english_titles: set each entry's "title" of a summary's
 * "figures" array (objects with "id") to the English template's title of
 * that figure (figtext.ID.title; knee figures figtext.figK-WHAT.title_KIND),
 * so that summary.json does not depend on --lang. An entry whose English
 * title is unknown keeps its title. */
void br_summary_english_titles(json_t *figures, const br_template *t);

/* br_story_summary: the campaign story as summary.json's "story" object
 * (src/report/story_summary.c); the caller owns the result. */
struct br_story;
json_t *br_story_summary(const br_campaign *c, const struct br_story *s);
/* br_plan_checks_json: the checks table as JSON, [{check, plan (the plan's
 * words or null), verdict}]: the n_plan items of plan, or (n_plan 0) the
 * five standard checks, without the log-line one when no_log_lines (an
 * engine that never prints vLLM's line per preemption: SGLang, llama.cpp);
 * verdict[k] per check index (enum br_verdict). */
json_t *br_plan_checks_json(const br_plan_item *plan, size_t n_plan, const int *verdict, int no_log_lines);

/* br_summary_calibration: the FLOPs calibration as a JSON object (new
 * reference): line a + b·x with standard errors, R², and every point. */
json_t *br_summary_calibration(const br_flops_calibration *c);

/* br_summary_write: summary.json as written everywhere: sorted keys,
 * 2-space indent, 12 significant digits, a final newline, atomically.
 * Returns 0 or -1 with *cause. */
int br_summary_write(const json_t *summary, const char *path, char **cause);

/* br_summary_print_text: the short text summary (stdout). */
void br_summary_print_text(const json_t *summary, FILE *fp);

/* br_report_write_pdf: compose the PDF from the analysis, its summary, the
 * figures and the template; write to pdf_path atomically. */
int br_report_write_pdf(const br_analysis *a, const json_t *summary,
    const br_figure *figs, size_t n_figs, const br_template *t,
    const char *pdf_path, char **cause);

/*
 * br_campaign_summary_build: the campaign's summary.json: campaign facts,
 * the FLOPs calibration, and run_summaries[i] (one br_summary_build per
 * run, borrowed: a new reference is taken) under "runs". New reference.
 */
json_t *br_campaign_summary_build(const br_campaign *c, json_t *const *run_summaries,
    const br_figure *figs, size_t n_figs);

/*
 * br_report_write_campaign_pdf: the campaign PDF: title page, comparison
 * across configurations (table + campaign figures), FLOPs calibration, then
 * the focus run's detailed chapters (wording filled from its own summary),
 * definitions and the appendix with every run's input files.
 * figs holds the campaign figures and the focus run's figures together.
 */
int br_report_write_campaign_pdf(const br_campaign *c, const json_t *campaign_summary,
    json_t *const *run_summaries, const br_figure *figs, size_t n_figs,
    const br_template *t, const char *pdf_path, char **cause);

/* br_write_tables: OUT_DIR/tables/{latency,ledger,capacity,residency,
 * inputs}.csv (only the tables that are available). Returns 0 or -1. */
int br_write_tables(const br_analysis *a, const char *out_dir, char **cause);

/* ------------------------------------------------------------------ */
/* CI gate output (src/report/gate_report.c)                          */
/* ------------------------------------------------------------------ */

/*
 * br_gate_summary: the gate of one run as summary.json's "gate" object
 * (new reference): "spec", "passed", counts, and per term its text,
 * quantity, operator, limit and value in the quantity's unit (key names
 * carry it: limit_ms / value_ms for latency), status "pass" | "fail" |
 * "unknown", source and why_unknown.
 */
json_t *br_gate_summary(const br_gate_spec *spec, const br_gate_result *r);

/*
 * br_gate_print: one line per failing or unknown term on fp, prefixed
 * "benchreport: gate: " and the run name when `run_name` is not NULL
 * ("FAIL ttft_p99<=2s: measured 3.12 s"), then a verdict line
 * ("N of M terms pass").
 */
void br_gate_print(FILE *fp, const char *run_name, const br_gate_spec *spec, const br_gate_result *r);

/*
 * br_gate_write_junit: JUnit XML at path (atomically): one <testsuite> per
 * run (run_names[i], results[i]), one <testcase> per term, <failure> for a
 * failing or unknown term with the measured value and the limit. Returns 0
 * or -1 with *cause.
 */
int br_gate_write_junit(const char *path, const br_gate_spec *spec,
    const br_gate_result *results, const char *const *run_names, size_t n_runs, char **cause);

/* ------------------------------------------------------------------ */
/* Archive index (src/report/archive_index.c)                         */
/* ------------------------------------------------------------------ */

/*
 * br_archive_index_replaceable: 0 when path does not exist or holds an
 * index in the layout br_archive_index writes (CSV: a header of its column
 * names, older versions' fewer columns included, and rows of as many
 * cells; JSONL: objects with only its column names as keys); -1 with
 * *cause (malloc'd, "path:line: ...") when it was edited: a column or key
 * added, a note line appended (thirty-second breaker: a hand-added
 * column was overwritten without a word). Call it after
 * br_output_replaceable has found the index's signature.
 */
int br_archive_index_replaceable(const char *path, char **cause);

/*
 * br_archive_index: every summary.json under the folders (walked
 * recursively, symlinks not followed, staging folders skipped) or files in
 * inputs[0..n_inputs), read in path order; one row per run (a run report
 * gives one, a campaign report one per run) with a fixed list of columns
 * whose names carry their units (summary_path, report_kind,
 * campaign_name, run_name, ..., ttft_p99_ms, ..., preemptions,
 * gate_passed). Written to out_path atomically (NULL: stdout) as CSV
 * (RFC 4180, header row, empty cell = unknown) or, with jsonl, one JSON
 * object per line (null = unknown). summary.json files of knee/compare
 * reports or other tools are left out with a note on `notes`. A file that
 * is not JSON, or has another schema_version than
 * BR_SUMMARY_SCHEMA_VERSION, is an error (-1 with *cause naming
 * file:line:column or the version found; nothing written) unless
 * skip_bad, which notes it and goes on. Returns 0 with *n_rows set; -2
 * with *cause when the output cannot be written.
 */
int br_archive_index(const char *const *inputs, size_t n_inputs, const char *out_path, int jsonl,
    int skip_bad, FILE *notes, size_t *n_rows, char **cause);

#endif
