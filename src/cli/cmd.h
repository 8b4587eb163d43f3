/* Commands of the CLI; each returns a process exit code (enum br_exit). */
#ifndef BR_CLI_CMD_H
#define BR_CLI_CMD_H

#define BR_VERSION "0.1.0"

/* `benchreport RUN_DIR [options]`; argv[0] is RUN_DIR or the first option. */
int br_cmd_report(int argc, char **argv);
/* br_cmd_report_check: the options of `benchreport RUN_DIR [OPTIONS]` checked
 * as br_cmd_report would (--fail-on grammar, --junit's folder, --lang,
 * unknown options) without reading RUN_DIR: 0, or BR_EXIT_USAGE after the
 * message on stderr. record calls it before the load runs, so a typo does
 * not cost the run. */
int br_cmd_report_check(int argc, char **argv);

/* `benchreport knee DIR|FILE... --slo SLO [-o OUT_DIR]`; argv[0] is "knee"
 * (added by the knee helper; src/cli/cmd_knee.c). */
int br_cmd_knee(int argc, char **argv);

/* `benchreport compare A B [-o OUT_DIR]`; argv[0] is "compare"
 * (added by the compare helper; src/cli/cmd_compare.c). */
int br_cmd_compare(int argc, char **argv);

/* `benchreport index DIR... [-o FILE] [--jsonl] [--skip-bad]`; argv[0] is "index"
 * (src/cli/cmd_index.c). */
int br_cmd_index(int argc, char **argv);

/* `benchreport sample URL ...`; argv[0] is "sample" (src/cli/cmd_sample.c). */
int br_cmd_sample(int argc, char **argv);

/* `benchreport record -o RUN_DIR ... -- CMD...`; argv[0] is "record" (src/cli/cmd_record.c). */
int br_cmd_record(int argc, char **argv);

/* SIGINT/SIGTERM/SIGHUP set a flag (br_cli_stop_flag) instead of killing the
 * process, without SA_RESTART so sleeps wake up (src/cli/stop.c). */
void br_cli_install_stop_handlers(void);
#include <signal.h>
volatile sig_atomic_t *br_cli_stop_flag(void);
int br_cli_stop_signal(void);   /* the signal that set the flag, 0 when none */

/*
 * br_cli_template_path: templates/report.LANG.json, from $BENCHREPORT_TEMPLATES,
 * else the folder next to the executable's ../share/benchreport/templates,
 * else the source tree's templates/ (compile-time BR_TEMPLATE_DIR).
 * Returns a malloc'd path (which may not exist).
 */
char *br_cli_template_path(const char *lang);

/*
 * br_cli_lang: the language of --lang ARG (NULL = not given: "en"): "en",
 * "zh", or for "auto" "zh" when LC_ALL/LC_MESSAGES/LANG starts with "zh"
 * (src/cli/lang.c). Anything else: a message on stderr naming cmd (NULL for
 * the report command) and NULL (exit 2).
 */
const char *br_cli_lang(const char *arg, const char *cmd);

#endif
