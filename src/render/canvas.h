/*
 * The canvas the chart layer draws on, private to src/render/: it records
 * cairo-like operations into a br_drawing (benchreport/drawing.h) that is
 * then replayed onto cairo (PNG, SVG; br_drawing_cairo) or onto a libharu
 * page (src/report). Units: figure points, origin top-left, y down.
 *
 * Operations with a non-finite operand are dropped (the path they belong
 * to is then drawn without them), so no backend ever sees a NaN. Text is
 * measured with pango ("DejaVu Sans", fontconfig falls back to a CJK face
 * for glyphs DejaVu lacks; metrics unhinted, so the layout is the same at
 * every output resolution).
 *
 * Ownership: br_canvas_new's canvas is consumed by br_canvas_finish, which
 * hands back the drawing (the caller frees it with br_drawing_free).
 */
#ifndef BR_RENDER_CANVAS_H
#define BR_RENDER_CANVAS_H

#include <cairo.h>
#include "benchreport/drawing.h"

typedef struct br_canvas br_canvas;

/* br_canvas_new: an empty canvas of w × h points. */
br_canvas *br_canvas_new(double w_pt, double h_pt);
/* br_canvas_finish: the recorded drawing; cv is freed. */
br_drawing *br_canvas_finish(br_canvas *cv);

void br_cv_save(br_canvas *cv);
void br_cv_restore(br_canvas *cv);
void br_cv_rgb(br_canvas *cv, double r, double g, double b);
void br_cv_rgba(br_canvas *cv, double r, double g, double b, double alpha);
void br_cv_line_width(br_canvas *cv, double w_pt);
/* br_cv_dash: n (0..4) on/off lengths in points; n = 0 = solid. */
void br_cv_dash(br_canvas *cv, const double *lengths_pt, int n);
/* br_cv_line_join: 0 = miter, 1 = round. */
void br_cv_line_join(br_canvas *cv, int round);
void br_cv_new_path(br_canvas *cv);
void br_cv_move_to(br_canvas *cv, double x, double y);
void br_cv_line_to(br_canvas *cv, double x, double y);
void br_cv_rectangle(br_canvas *cv, double x, double y, double w, double h);
void br_cv_circle(br_canvas *cv, double x, double y, double r);
void br_cv_close_path(br_canvas *cv);
void br_cv_stroke(br_canvas *cv);
void br_cv_fill(br_canvas *cv);
void br_cv_fill_preserve(br_canvas *cv);
void br_cv_clip(br_canvas *cv);
void br_cv_paint(br_canvas *cv);

/*
 * br_text_size: logical width and height (points) of text at size_pt,
 * bold or regular, plain or pango markup (superscripts only). w or h may
 * be NULL.
 */
void br_text_size(br_canvas *cv, const char *text, double size_pt, int bold, int markup,
    double *w, double *h);
/*
 * br_text_draw: text with its anchor at (x, y): ax, ay are fractions of
 * the extent (0 = left/top, 0.5 = centre, 1 = right/bottom); angle_deg
 * rotates counter-clockwise about the anchor (90 = bottom-to-top). Drawn
 * in the current colour. Nothing when x or y is not finite.
 */
void br_text_draw(br_canvas *cv, const char *text, double size_pt, int bold, int markup,
    double x, double y, double ax, double ay, double angle_deg);

/*
 * br_drawing_cairo: replay d onto cr (figure points in cr's user space;
 * the caller scales for resolution). The cairo state is saved and restored.
 */
void br_drawing_cairo(const br_drawing *d, cairo_t *cr);

#endif
