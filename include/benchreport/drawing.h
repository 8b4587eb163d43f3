/*
 * A figure as a display list: the drawing operations the chart layer
 * issued (src/render/canvas.h), in figure points (1/72 in), origin at the
 * top-left corner, y growing downwards (cairo's convention). src/render
 * replays it onto cairo (the PNG and SVG files); src/report replays it onto
 * a libharu page (the PDF's vector figures, with real PDF text).
 *
 * The model is cairo's: one current colour (used by both strokes and
 * fills), a current path built by MOVE_TO / LINE_TO / RECT / CIRCLE /
 * CLOSE_PATH and consumed by STROKE, FILL or CLIP (FILL_PRESERVE keeps it),
 * SAVE / RESTORE of the whole graphics state including the clip. Every
 * coordinate is finite (the recorder drops operations with a non-finite
 * operand, so a NaN never reaches a backend).
 *
 * Texts are drawn by anchor: the extent of the text (w_pt × h_pt as pango
 * measured it with DejaVu Sans, unhinted) is placed so that the point
 * (x, y) sits at fractions (ax, ay) of it, then rotated by angle_deg
 * counter-clockwise about (x, y); baseline_pt is the distance from the
 * top of the extent to the first baseline. A backend with other font
 * metrics keeps the anchor and the baseline and uses its own width.
 * `markup` texts hold only "10<sup>k</sup>"-style superscripts and the
 * entities &amp; &lt; &gt;.
 *
 * Ownership: a br_drawing owns its arrays and strings; br_drawing_free.
 */
#ifndef BENCHREPORT_DRAWING_H
#define BENCHREPORT_DRAWING_H

#include <stddef.h>

enum br_draw_kind {
	BR_OP_SAVE = 0,
	BR_OP_RESTORE,
	BR_OP_COLOR,         /* v[0..2] red, green, blue in 0..1, v[3] alpha in 0..1 */
	BR_OP_LINE_WIDTH,    /* v[0] width, pt */
	BR_OP_DASH,          /* n lengths (0..4) in v[0..n), pt, on/off alternating; n = 0: solid */
	BR_OP_LINE_JOIN,     /* n: 0 = miter, 1 = round */
	BR_OP_NEW_PATH,
	BR_OP_MOVE_TO,       /* v[0], v[1] */
	BR_OP_LINE_TO,       /* v[0], v[1] */
	BR_OP_RECT,          /* v[0], v[1] top-left, v[2] width, v[3] height */
	BR_OP_CIRCLE,        /* v[0], v[1] centre, v[2] radius: a closed sub-path */
	BR_OP_CLOSE_PATH,
	BR_OP_STROKE,
	BR_OP_FILL,
	BR_OP_FILL_PRESERVE,
	BR_OP_CLIP,          /* intersect the clip with the path, then clear the path */
	BR_OP_PAINT,         /* fill the whole clip with the current colour */
	BR_OP_TEXT           /* n: index into texts; drawn in the current colour */
};

typedef struct br_draw_op {
	int kind;            /* enum br_draw_kind */
	int n;
	double v[4];
} br_draw_op;

typedef struct br_draw_text {
	char *text;          /* UTF-8 */
	double size_pt;
	int bold, markup;
	double x, y;         /* anchor point, figure pt */
	double ax, ay;       /* anchor fractions of the extent (0 = left/top) */
	double angle_deg;    /* counter-clockwise */
	double w_pt, h_pt, baseline_pt;   /* extent and first baseline as measured by pango */
} br_draw_text;

typedef struct br_drawing {
	double width_pt, height_pt;
	br_draw_op *ops;
	size_t n_ops;
	br_draw_text *texts;
	size_t n_texts;
} br_drawing;

/* br_drawing_free: release d and everything it holds (NULL is ignored). */
void br_drawing_free(br_drawing *d);

#endif
