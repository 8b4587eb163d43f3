/*
 * Private helpers of the ingest module's log readers (not a public header).
 */
#ifndef BR_INGEST_PYREPR_H
#define BR_INGEST_PYREPR_H

#include <stddef.h>

/*
 * br_py_skip_value: from the start of one value of a Python repr in
 * [p, end), the ',' or closing bracket that ends it at depth 0 (*closed = 1),
 * or `end` when the text stops first (*closed = 0). Quoted strings (with
 * backslash escapes), (), [], {} and <Enum: 3> reprs are skipped whole.
 */
const char *br_py_skip_value(const char *p, const char *end, int *closed);

/* br_clip_utf8: malloc'd copy of [p, p+n) cut to at most `max` bytes at a
 * UTF-8 boundary, with "..." appended when cut. Aborts on allocation failure. */
char *br_clip_utf8(const char *p, size_t n, size_t max);

struct br_server_log;

/* br_log_args_clear: free the log's argument list (an earlier start-up's)
 * and zero n_args, args_line, args_complete and args_all. */
void br_log_args_clear(struct br_server_log *o);

#endif
