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


struct br_server_log;

/* br_log_args_clear: free the log's argument list (an earlier start-up's)
 * and zero n_args, args_line, args_complete and args_all. */
void br_log_args_clear(struct br_server_log *o);

/*
 * br_log_kwargs_args: the `name=value, ...)` list that follows "Xxx(" in
 * [p, end) (SGLang's ServerArgs(, vLLM V0's args: Namespace(): every entry
 * into o->args (values as printed), args_all = 1 (such a repr lists every
 * argument, defaults included), args_complete = 1 when the closing ')' was
 * reached (a line cut short leaves the rest unknown). `each` (may be NULL)
 * is called with every name and value span, for the fields its reader
 * wants. Clears earlier args and sets args_line = line first.
 */
void br_log_kwargs_args(struct br_server_log *o, const char *p, const char *end, int line,
    void (*each)(void *ctx, const char *key, size_t kl, const char *v, const char *ve), void *ctx);

/* br_log_args_dedupe: one entry per argument name, as a Python dict keeps
 * a key written twice: the first one's place, the last one's value (a
 * crafted or corrupt line; every consumer then reads the same value).
 * O(n log n). */
void br_log_args_dedupe(struct br_server_log *o);

#endif
