/*
 * benchreport: output folders that never lose a user's file
 * (src/common/outdir.c; DESIGN.md §2 "outputs are written to a temporary
 * name and renamed, so a killed run leaves no half-written report").
 *
 * Every folder benchreport writes (a report, a knee or compare report, a
 * simulated run) carries a marker file, OUT/.benchreport-output: JSON with
 * the format name "benchreport-output/1", a random 128-bit id, the command
 * that wrote it, a state ("staging" while being written, "complete" after)
 * and, once complete, the list of every file and folder it wrote with each
 * file's size in bytes and SHA-256. Ownership is proven from that marker,
 * never guessed: an existing OUT is replaced only when it holds nothing but
 * what the marker lists, unchanged (a sub-folder that carries its own valid
 * marker, such as the report/ inside a simulated run, counts as ours when it
 * passes the same check and is a report). An empty folder is replaced too.
 * A simulated run is input data: a report (report, knee, compare) never
 * replaces one, nor holds one inside, and simulate replaces only an earlier
 * run. Anything else, a symlink, a mount point (bind mounts included: statx
 * STATX_ATTR_MOUNT_ROOT), or a file added or edited by the user, makes
 * benchreport refuse and name what it found; nothing is deleted.
 *
 * The life of an output:
 *   o = br_outdir_prepare(out, "report", replace, &cause);   // before any analysis
 *   ... read and analyse the inputs ...
 *   br_outdir_stage(o, &cause);       // OUT.tmp.PID with a staging marker
 *   ... write files under br_outdir_staging(o) ...
 *   br_outdir_commit(o, &cause);      // check OUT again, final marker, swap
 *   br_outdir_free(o);                // removes the staging folder if not committed
 * While a staging folder exists, SIGINT, SIGTERM and SIGHUP remove it
 * before the process dies of the signal. A staging folder left by kill -9
 * (OUT.tmp.PID, PID no longer running) or an OUT.old.PID left between the
 * two renames of a swap is removed by the next run only when it carries a
 * valid marker (and, for OUT.old.PID, passes the full ownership check).
 *
 * Ownership: br_outdir_prepare returns an object the caller releases with
 * br_outdir_free; strings returned by the accessors belong to the object.
 * Messages in *cause are malloc'd and freed by the caller.
 */
#ifndef BENCHREPORT_OUTDIR_H
#define BENCHREPORT_OUTDIR_H

/* The marker's file name inside every output folder. */
#define BR_OUTDIR_MARKER ".benchreport-output"
/* The marker's format name; a marker with any other is not ours. */
#define BR_OUTDIR_FORMAT "benchreport-output/1"

/* Return codes of br_outdir_prepare / br_outdir_commit besides 0. */
enum {
	BR_OUTDIR_ERR_IO = -1,      /* cannot create, read or rename (exit 1 or 2 by context) */
	BR_OUTDIR_ERR_REFUSED = -2  /* OUT is not ours to replace: bad usage, exit 2 */
};

typedef struct br_outdir br_outdir;

/*
 * br_outdir_prepare: check that OUT (out_dir; trailing slashes ignored) may
 * be written, before any input is analysed, and remove stale staging
 * siblings that carry our marker. OUT may be absent, an empty folder, or
 * (when `replace` is 1) an earlier output of benchreport that passes the
 * ownership check. `command` ("report", "knee", "compare", "simulate") is
 * recorded in the marker.
 * Returns the object, or NULL with *cause and *rc set to BR_OUTDIR_ERR_REFUSED
 * (OUT exists and is not ours: the message names up to ten unexpected
 * entries) or BR_OUTDIR_ERR_IO. Nothing on disk is changed on failure.
 */
br_outdir *br_outdir_prepare(const char *out_dir, const char *command, int replace,
    int *rc, char **cause);

/*
 * br_outdir_stage: create the staging folder OUT.tmp.PID (and OUT's parent
 * folders) holding a staging marker, and arm the signal handlers that remove
 * it. Returns 0, or BR_OUTDIR_ERR_IO with *cause.
 */
int br_outdir_stage(br_outdir *o, char **cause);

/* br_outdir_staging: the staging folder's path (valid after br_outdir_stage). */
const char *br_outdir_staging(const br_outdir *o);
/* br_outdir_path: OUT without trailing slashes. */
const char *br_outdir_path(const br_outdir *o);

/*
 * br_outdir_commit: check OUT again (it may have changed while we worked),
 * write the final marker listing every file of the staging folder with its
 * size and SHA-256, then swap the staging folder into place: OUT is moved to
 * OUT.old.PID, staging renamed to OUT, and the old folder's listed files
 * removed (folders with rmdir, so anything unexpected stays). Signals are
 * held during the swap. Returns 0, BR_OUTDIR_ERR_REFUSED or BR_OUTDIR_ERR_IO
 * with *cause (the staging folder is removed by br_outdir_free then).
 */
int br_outdir_commit(br_outdir *o, char **cause);

/* br_outdir_free: remove the staging folder unless committed, disarm the
 * signal handlers, free o. NULL is ignored. */
void br_outdir_free(br_outdir *o);

/* br_outdir_is_report: 1 when dir carries a benchreport marker written by a
 * report (report, knee, compare), not by simulate (whose folder is a run). */
int br_outdir_is_report(const char *dir);

/*
 * br_outdir_check_owned: 1 when `dir` is a real folder (not a symlink, on
 * the same filesystem as its parent) whose marker is valid and complete and
 * that holds nothing but what the marker lists, unchanged; else 0 with
 * *why (malloc'd; may be NULL) saying what was found. Used by
 * br_outdir_prepare and by tests.
 */
int br_outdir_check_owned(const char *dir, char **why);

/*
 * br_outdir_prehash: start hashing the complete staged file `rel` (a path
 * inside the staging folder) on a worker thread, so that
 * br_outdir_commit's list of files does not hash it afterwards (a 108 MB
 * bench result takes ~0.1 s). The file must not change after the call.
 * At most 8 per output; more are hashed at commit as usual.
 */
void br_outdir_prehash(br_outdir *o, const char *rel);

#endif
