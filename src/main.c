/* benchreport: thin main; the commands live in src/cli/. */
#include "cli/cli.h"

int
main(int argc, char **argv)
{
	return br_cli_main(argc, argv);
}
