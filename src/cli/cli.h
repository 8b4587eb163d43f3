/* Command-line entry (src/cli/): parses argv, dispatches commands, returns
 * a process exit code (enum br_exit). */
#ifndef BR_CLI_H
#define BR_CLI_H
int br_cli_main(int argc, char **argv);
#endif
