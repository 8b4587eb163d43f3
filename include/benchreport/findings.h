/*
 * Findings, recommendations and caveats of one run (DESIGN.md §3.10).
 *
 * Rules turn the numbers of br_analysis into sentence ids. The C code only
 * decides WHICH sentence applies; the sentence itself lives in
 * templates/findings.en.json under "findings.<id>" and carries the numbers
 * that fired the rule as {summary.path:format} placeholders. Every rule
 * fires only when every number it needs is known (NAN never fires a rule).
 * The thresholds are documented at each rule in src/analysis/findings.c.
 *
 * Numbers the sentences need that summary.json has no other path for (ratios
 * the rules compare, the FLOPs ledger, the recommended --max-num-seqs, ...)
 * are returned in `num` (key → value, NAN when unknown); the report writes
 * them into summary.json as the object "derived" ({derived.<key>}).
 *
 * Ownership: br_findings owns its arrays (br_findings_free); the strings
 * (ids, keys) are static.
 */
#ifndef BENCHREPORT_FINDINGS_H
#define BENCHREPORT_FINDINGS_H

#include <stddef.h>
#include "benchreport/analysis.h"

enum br_finding_severity { BR_SEV_INFO = 0, BR_SEV_NOTICE = 1, BR_SEV_PROBLEM = 2 };
enum br_finding_kind { BR_FINDING = 0, BR_RECOMMENDATION = 1, BR_CAVEAT = 2 };

typedef struct br_finding {
	const char *id;        /* template key suffix, e.g. "capacity_not_compute" → template "findings.capacity_not_compute" */
	int severity;          /* 2 = problem, 1 = notice, 0 = info */
	int kind;              /* 0 finding, 1 recommendation, 2 caveat */
} br_finding;

/* One derived number a sentence cites: summary.json "derived.<key>". (Added by findings.) */
typedef struct br_finding_number {
	const char *key;       /* static, e.g. "itl_p90_over_p50" */
	double value;          /* NAN when unknown (→ JSON null) */
} br_finding_number;

typedef struct br_findings {
	br_finding *v;
	size_t n;
	br_finding_number *num;   /* (added by findings) always the same keys, same order */
	size_t n_num;
} br_findings;

/*
 * br_findings_evaluate: run every rule in a fixed order (findings, then
 * recommendations, then caveats) on `a` (a->run may be NULL: rules needing
 * the bench file, the log or the metrics kind then stay silent) and fill
 * *out (overwritten; free with br_findings_free). Never fails.
 */
void br_findings_evaluate(const br_analysis *a, br_findings *out);
void br_findings_free(br_findings *f);

/* br_findings_has: 1 when id is among the findings (for tests and the report). (Added by findings.) */
int br_findings_has(const br_findings *f, const char *id);

/* br_findings_number: the derived number for key, NAN when absent. (Added by findings.) */
double br_findings_number(const br_findings *f, const char *key);

/* br_preemption_count: Δ num_preemptions_total over the run window: the
 * preemption block's count when known, else the residency block's; NAN
 * when neither. (Shared by the findings, the campaign story and figures.) */
double br_preemption_count(const br_analysis *a);
/* br_log_states_preemptions: 1 when a periodic stats line of the log states a
 * preemption count (vLLM since 2025-11) or a V0 cumulative total. */
int br_log_states_preemptions(const br_server_log *l);
#endif
