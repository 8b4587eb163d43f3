/*
 * SIGINT/SIGTERM/SIGHUP as a clean stop for the long-running commands
 * (sample, record): the handler only sets a flag (src/cli/cmd.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>
#include "cli/cmd.h"

static volatile sig_atomic_t stop_flag, stop_signal;

static void
on_stop(int sig)
{
	stop_flag = 1;
	stop_signal = sig;
}

int
br_cli_stop_signal(void)
{
	return (int)stop_signal;
}

/* br_cli_install_stop_handlers: see cmd.h. */
void
br_cli_install_stop_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

volatile sig_atomic_t *
br_cli_stop_flag(void)
{
	return &stop_flag;
}

