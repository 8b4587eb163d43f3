/*
 * CI gate (`benchreport RUN_DIR --fail-on SPEC [--junit FILE]`): a list of
 * pass/fail terms evaluated on one analysed run. The grammar extends the
 * knee's SLO terms (knee.h) with other operators, more statistics and
 * counts:
 *
 *   SPEC  := TERM ("," TERM)*
 *   TERM  := LATENCY OP NUMBER UNIT | COUNT OP NUMBER | RATE OP NUMBER
 *   LATENCY := (ttft|tpot|itl|e2el) "_" (p50|p90|p95|p99|p99.9|p99.99|mean|median|max)
 *   UNIT  := us | ms | s
 *   COUNT := failed | completed | preemptions | failed_pct  (failed_pct in % of prompts)
 *   RATE  := output_tps | total_tps (tokens/s) | rps (completed requests/s)
 *   OP    := "<=" | "<" | ">=" | ">" | "=="
 *
 * A term whose value the inputs cannot give (no successful request, a
 * percentile neither recomputable nor stated in the file, preemptions
 * without a metrics series) is "unknown" and fails the gate: a CI gate
 * that passes on missing data would let a broken run through.
 *
 * Layers: parse + evaluation here (src/analysis/gate.c, pure); summary.json
 * and JUnit XML in src/report/gate_report.c.
 *
 * Ownership: br_gate_spec and br_gate_result are plain values (fixed
 * arrays), nothing to free.
 */
#ifndef BENCHREPORT_GATE_H
#define BENCHREPORT_GATE_H

#include <stddef.h>
#include "benchreport/analysis.h"

#define BR_GATE_MAX_TERMS 16

enum br_gate_op { BR_GATE_LE = 0, BR_GATE_LT, BR_GATE_GE, BR_GATE_GT, BR_GATE_EQ };

enum br_gate_quantity {
	BR_GATE_LATENCY = 0,   /* metric + stat, value in ms */
	BR_GATE_FAILED,        /* failed requests (count) */
	BR_GATE_COMPLETED,     /* completed requests (count) */
	BR_GATE_PREEMPTIONS,   /* Δ vllm:num_preemptions_total over the run (count) */
	BR_GATE_FAILED_PCT,    /* failed / num_prompts, % */
	BR_GATE_OUTPUT_TPS,    /* output tokens/s */
	BR_GATE_TOTAL_TPS,     /* input + output tokens/s */
	BR_GATE_RPS            /* completed requests/s */
};

typedef struct br_gate_term {
	int quantity;          /* enum br_gate_quantity */
	int metric;            /* enum br_latency_metric (latency terms) */
	char stat[8];          /* "p", "mean", "median", "max" (latency terms) */
	double percentile;     /* for stat "p": 50 … 99.99; NAN otherwise */
	int op;                /* enum br_gate_op */
	double limit;          /* in the quantity's unit: ms for latency */
	char unit[8];          /* the unit as written ("ms", "s", "us", "" for counts) */
	char text[64];         /* canonical text, e.g. "ttft_p99<=2s" */
} br_gate_term;

typedef struct br_gate_spec {
	br_gate_term terms[BR_GATE_MAX_TERMS];
	size_t n;
	char text[BR_GATE_MAX_TERMS * 64];   /* canonical terms joined by "," */
} br_gate_spec;

enum br_gate_status { BR_GATE_PASS = 0, BR_GATE_FAIL, BR_GATE_UNKNOWN };

typedef struct br_gate_outcome {
	int status;            /* enum br_gate_status */
	double value;          /* measured, in the term's quantity unit (ms for latency); NAN unknown */
	int bound;             /* 0: value is the quantity; -1: an upper bound of it ("at most": a
	                          higher percentile the file states); +1: a lower bound ("at least":
	                          a lower stated percentile, a capture cut at an edge) */
	char source[64];       /* "per-request arrays", "the file's statistics", "bench result",
	                          the preemption count's source; "" when unknown */
	char why_unknown[160]; /* when status is UNKNOWN: what input is missing */
} br_gate_outcome;

typedef struct br_gate_result {
	br_gate_outcome terms[BR_GATE_MAX_TERMS];   /* indexed like spec->terms */
	size_t n, n_pass, n_fail, n_unknown;
	int passed;            /* 1 when every term passes */
} br_gate_result;

/*
 * br_gate_parse: parse SPEC (grammar above; spaces around terms and
 * operators allowed, names case-insensitive, numbers plain decimals >= 0).
 * Returns 0, or -1 with *cause "--fail-on: term N 'TEXT': expected ..."
 * naming the bad term and what was expected. Caller frees *cause.
 */
int br_gate_parse(const char *text, br_gate_spec *out, char **cause);

/*
 * br_gate_evaluate: each term of `spec` on the analysed run `a` (its
 * bench result runs[0], latency, preemption blocks). Latency percentiles
 * come from the per-request samples (numpy-linear, as the report) when the
 * file has them, else from the file's own statistic of that name. Never
 * fails; unknown values are UNKNOWN outcomes (see above).
 */
void br_gate_evaluate(const br_gate_spec *spec, const br_analysis *a, br_gate_result *out);

/* br_gate_op_text: "<=", "<", ">=", ">", "==". */
const char *br_gate_op_text(int op);

/*
 * br_gate_format_value: `value` (the term's quantity unit, ms for latency)
 * for a message, in the unit the term was written in, 6 significant digits:
 * "3120.5 ms", "3.1205 s", "17", "1204.5 tok/s", "0.5 %"; "unknown" for NAN.
 * Writes at most `size` bytes into buf and returns buf.
 */
char *br_gate_format_value(const br_gate_term *t, double value, char *buf, size_t size);

/*
 * br_gate_format_limit: the term's limit as br_gate_format_value prints it,
 * at the digits chosen for `value` (the measured value beside it), so a
 * value just past the limit never sits beside a rounded limit that reads
 * as a pass ("measured 210.3530184 ms, limit >= 210.353 ms"). buf returned.
 */
char *br_gate_format_limit(const br_gate_term *t, double value, char *buf, size_t size);

#endif
