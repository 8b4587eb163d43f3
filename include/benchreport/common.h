/*
 * benchreport: shared helpers used by every pipeline stage.
 *
 * Error convention (after tmux): a function that can fail returns -1 (or NULL)
 * and, when `cause` is non-NULL, stores a malloc'd message in *cause of the
 * form "FILE:LINE:COLUMN: what was expected" (LINE/COLUMN omitted when they
 * do not apply). The caller frees *cause with free().
 *
 * Ownership: every pointer returned by a br_x* allocator is owned by the
 * caller and released with free(). Allocation failure never returns NULL: it
 * prints a message and aborts the process.
 */
#ifndef BENCHREPORT_COMMON_H
#define BENCHREPORT_COMMON_H

#include <stddef.h>
#include <stdarg.h>

/* Process exit codes (DESIGN.md §2). */
enum br_exit {
	BR_EXIT_OK = 0,        /* report written */
	BR_EXIT_ANALYSIS = 1,  /* an analysis failed or an SLO failed */
	BR_EXIT_USAGE = 2,     /* bad command line */
	BR_EXIT_INPUT = 3      /* bad input file */
};

void *br_xmalloc(size_t n);
void *br_xcalloc(size_t nmemb, size_t size);
void *br_xrealloc(void *p, size_t n);
char *br_xstrdup(const char *s);                 /* NULL in, NULL out */
/*
 * br_xmalloc_huge: n bytes (uninitialised) for a large buffer written from
 * end to end soon after (a figure's 300 dpi pixels, ~9 MB; a bench file
 * read whole). From 2 MiB up the block is aligned to 2 MiB, its length
 * rounded up to whole 2 MiB pages and marked MADV_HUGEPAGE, so the kernel
 * fills it with transparent huge pages: 5 page faults instead of 2,300 for
 * 9 MB (each fault costs ~10 us of system time in a VM). Smaller sizes, or
 * a kernel without THP, get plain pages. Free with free(); aborts on
 * exhaustion like br_xmalloc.
 */
void *br_xmalloc_huge(size_t n);
/*
 * br_advise_huge: the same advice for the whole 2 MiB pages inside
 * [p, p + n) of a block already allocated (the unwritten tail of an array
 * that br_xrealloc just grew). Under 4 MiB, or without THP, nothing is
 * done; never fails.
 */
void br_advise_huge(void *p, size_t n);
char *br_xstrndup(const char *s, size_t n);
/* br_clip_utf8: malloc'd copy of [p, p+n) cut to at most `max` bytes at a
 * UTF-8 boundary, with "..." appended when cut. */
char *br_clip_utf8(const char *p, size_t n, size_t max);
char *br_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *br_xvasprintf(const char *fmt, va_list ap);

#include <stdio.h>

/*
 * br_open_input: the one way every input file is opened. Checks first,
 * without blocking and before any byte is read: the path must be a regular
 * file (a FIFO, device, socket or folder gets "PATH: not a regular file (a
 * FIFO (named pipe)); expected a file with the data") of at most max_bytes,
 * and a file over 64 MiB may not be mostly holes (a sparse file reads as
 * gigabytes of zeros that no tool wrote).
 * Out: *fp open for reading (caller fcloses), *size_bytes (may be NULL).
 * Returns 0, or -1 with *cause.
 */
int br_open_input(const char *path, unsigned long long max_bytes, FILE **fp, long long *size_bytes,
    char **cause);

/*
 * br_check_head: look at the first 64 KiB of an input before reading it
 * whole: a NUL byte means binary data ("PATH:LINE:COL: expected EXPECTED,
 * found a NUL byte (binary file)"); with want_json, the first character
 * after an optional BOM and white space must be '{' or '['. An empty file
 * passes (the parser says "empty"). Returns 0, or -1 with *cause.
 */
int br_check_head(const char *path, int want_json, const char *expected, char **cause);

/*
 * br_read_file: read a whole file into a NUL-terminated buffer.
 * In: path. Out: *data (malloc'd, caller frees), *len in bytes (without the
 * terminating NUL). Returns 0, or -1 with *cause "PATH: strerror" when the
 * file cannot be opened or read, or is not a regular file of at most
 * 8 GiB (br_open_input).
 */
int br_read_file(const char *path, char **data, size_t *len, char **cause);

/*
 * br_json_load_file: a JSON file (config, template, marker) through
 * br_check_head and br_read_file, parsed by jansson with `flags`. Returns a
 * new reference, or NULL with *cause "PATH:LINE:COL: what jansson expected".
 */
struct json_t;
struct json_t *br_json_load_file(const char *path, size_t flags, char **cause);

/*
 * br_line_col: 1-based line and column (in bytes) of byte offset `off` in
 * `data` (length `len`; off is clamped to len).
 */
void br_line_col(const char *data, size_t len, size_t off, int *line, int *col);

/*
 * br_json_key_where: "PATH:LINE:COL" of the first `"key"` written as a key
 * (followed by optional blanks and ':') in the JSON text (len bytes), else
 * of its first occurrence; "PATH" alone when absent or text is NULL. malloc'd.
 */
char *br_json_key_where(const char *path, const char *text, size_t len, const char *key);

/*
 * br_sha256_file: SHA-256 of a file as 64 lowercase hex digits plus NUL in
 * hex[65] (OpenSSL's EVP SHA-256), and its size in bytes in *size_bytes (may be
 * NULL). Returns 0, or -1 with *cause.
 */
int br_sha256_file(const char *path, char hex[65], long long *size_bytes, char **cause);

/* br_file_kind: words for a file type (st_mode) in messages: "a FIFO (named
 * pipe)", "a symbolic link", "a directory", "a file", ... (static string). */
const char *br_file_kind(unsigned int mode);

/* br_path_join: "dir/name" (malloc'd). */
char *br_path_join(const char *dir, const char *name);
/* br_natural_cmp: strcmp, but a run of digits compares by its number
 * ("rate-2" before "rate-16", "cal-512" before "cal-1024"; leading zeros
 * aside, a tie falls back to strcmp so the order is total). <0, 0, >0. */
int br_natural_cmp(const char *a, const char *b);
/* br_basename: pointer into `path` after its last '/'. */
const char *br_basename(const char *path);
/* br_is_dir / br_is_file: 1 when path exists and is a directory / regular file. */
int br_is_dir(const char *path);
int br_is_file(const char *path);
/* br_path_exists: 1 when path names anything (symlinks followed): a file of
 * an expected name that is a FIFO or device is then refused by the loader
 * with its own message instead of being reported missing. */
int br_path_exists(const char *path);

/*
 * br_mkdir_p: create a directory and its parents (mode 0755). Returns 0 or -1
 * with *cause.
 */
int br_mkdir_p(const char *path, char **cause);

/*
 * br_write_atomic: write `len` bytes to `path` through "path.tmp.PID" and
 * rename(2), so a killed run never leaves a half-written file. Returns 0 or
 * -1 with *cause (the temporary file is removed on failure).
 */
int br_write_atomic(const char *path, const void *data, size_t len, char **cause);

/* br_rm_rf: remove a folder tree that this process created (nftw: no
 * symlink followed, no mount point crossed). NULL is ignored. Anything
 * that may hold a user's file goes through outdir.h instead. */
void br_rm_rf(const char *path);

/* A growable array of doubles (values in whatever unit the owner states). */
typedef struct br_dvec {
	double *v;
	size_t n, cap;
} br_dvec;
void br_dvec_push(br_dvec *d, double x);
/* br_dvec_reserve: room for at least n values in all (one allocation
 * instead of doubling: no copy of a 40 MB array at 5 M ITLs). */
void br_dvec_reserve(br_dvec *d, size_t n);
void br_dvec_free(br_dvec *d);

/*
 * br_output_replaceable: may benchreport write the output file `path`? Yes
 * (0) when it does not exist, is empty, or is a regular file whose first
 * 4 KiB hold `signature` (a mark of that output, e.g. the JUnit root
 * element benchreport writes); no (-1 with *cause) otherwise, so a user's
 * file (a bench result, a summary.json) named by mistake is never replaced.
 * A file sealed by br_output_seal whose bytes before the seal changed is
 * refused too (edited after benchreport wrote it).
 */
int br_output_replaceable(const char *path, const char *signature, char **cause);

/*
 * br_output_seal: the line that seals an output text (its first len bytes)
 * against later edits, "benchreport-seal sha256:<64 hex>" inside the
 * comment markers open / close (e.g. "<!-- ", " -->"), newline-ended;
 * malloc'd, caller frees. br_output_replaceable refuses a file that holds
 * a seal which no longer matches the bytes before it (a file the user
 * edited after benchreport wrote it).
 */
char *br_output_seal(const char *text, size_t len, const char *open, const char *close);

/*
 * br_shortest_digits: the shortest decimal digits that read back as x
 * (|x| finite and non-zero; the sign is ignored), as Python's repr() and
 * JSON writers choose them: C++17 std::to_chars, the shortest form
 * closest to x (src/common/shortest.cc). digits gets n <= 17 ASCII digits and a NUL;
 * *point is the decimal point's position: |x| = 0.DIGITS × 10^point.
 * Returns n. For 0 or a non-finite x: "0", point 1.
 */
int br_shortest_digits(double x, char digits[18], int *point);

/*
 * br_shortest_fixed (numbers.cc): for 1e-4 <= |x| < 1e16, the shortest
 * decimal that reads back as x in fixed notation ("0.0213", "-5", "1234.5"),
 * NUL-terminated in buf, through std::to_chars(..., chars_format::fixed);
 * its length. -1 (buf untouched) outside that range and for 0, NaN, inf.
 * Python's repr writes exactly these digits there (plus ".0" for a whole
 * number): the simulator's fast path for it.
 */
int br_shortest_fixed(double x, char buf[32]);

/*
 * br_format_count (xalloc.c): v rounded to a whole number with
 * thousands separators ("1,600,255", "-4,096") into buf; returns buf.
 * For the notes, which are plain text (the report's templates group their
 * own numbers).
 */
const char *br_format_count(double v, char buf[32]);

/*
 * br_format_g (numbers.cc): finite x as printf("%.*g", precision, x) writes
 * it in the "C" locale (precision 1..17), NUL-terminated in buf; its
 * length, or -1 (buf untouched) for NaN, ±inf or a precision outside
 * 1..17. About 10x faster than snprintf (figure CSVs: 58,000 numbers).
 */
int br_format_g(double x, int precision, char buf[40]);

/*
 * br_decimal_to_double: the decimal number text [first, last) (digits, an
 * optional '-', '.', exponent; the caller has checked the grammar, e.g.
 * JSON's) as the correctly rounded double, bit-identical to strtod in the
 * "C" locale: ±inf beyond the largest double, ±0 or a subnormal below the
 * smallest (src/common/numbers.cc, fast_float). Returns 1 with *out, or 0
 * when the text is not one whole number.
 */
int br_decimal_to_double(const char *first, const char *last, double *out);
/*
 * br_decimal_prefix: the longest decimal number at first (fast_float's
 * grammar: digits, '-', '.', exponent; no '+', no blanks) read before last,
 * as br_decimal_to_double reads it. Returns the byte after it with *out, or
 * NULL when first holds no number. The caller checks what JSON forbids
 * (leading zeros, "1.", ".5") and what may follow.
 */
const char *br_decimal_prefix(const char *first, const char *last, double *out);

/* br_clock_mono_s: CLOCK_MONOTONIC in seconds. br_clock_wall_s: Unix epoch
 * seconds, read from CLOCK_REALTIME once (the first call) and carried on by
 * the monotonic clock, so a step of the system clock during a capture (NTP,
 * a VM resumed) neither sends stamps backwards nor opens a false gap (a 3 s
 * step back made record's own metrics.csv "time goes backwards": brk22).
 * Thread-safe. */
double br_clock_mono_s(void);
double br_clock_wall_s(void);

/* br_csv_append_cell: s as one RFC 4180 CSV cell appended to g: verbatim,
 * or in double quotes with inner quotes doubled when s holds , " CR or LF.
 * (GString is GLib's; declared here so common.h needs no glib.h.) */
struct _GString;
void br_csv_append_cell(struct _GString *g, const char *s);

/* br_isnum: 1 when x is finite (neither NaN nor ±Inf). Absent values are NaN
 * throughout the model headers. Inline: the latency analysis asks it 10 M
 * times for 5 M ITLs (60 M instructions as a call). */
static inline int
br_isnum(double x)
{
	return __builtin_isfinite(x);
}

/* br_cmp_limit: a measured value against a limit typed by the user (SLO
 * and gate terms): -1 below, 0 equal, +1 above, 2 when either is NaN.
 * Equal means within 1e-12 of the limit, relatively: the same number read
 * in another unit (394447.767 us is 394.447767 ms, but the two doubles
 * differ in their last bit), so "<=" holds there and "<" does not. */
static inline int
br_cmp_limit(double value, double limit)
{
	if (__builtin_isnan(value) || __builtin_isnan(limit))
		return 2;
	double tol = 1e-12 * __builtin_fabs(limit);
	return value < limit - tol ? -1 : value > limit + tol ? 1 : 0;
}

#endif
