/* benchreport: thin main; the commands live in src/cli/. */
#include <malloc.h>
#include "cli/cli.h"

int
main(int argc, char **argv)
{
	/* Blocks of 256 KiB and more (a figure's 9 MB of 300 dpi pixels, a
	 * parse buffer) always come from mmap and go back to the system when
	 * freed. glibc would otherwise raise its threshold after the first such
	 * free and keep later ones in the arenas: the two figure workers' arenas
	 * held 24 MB of freed pixels to the end of a report. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	return br_cli_main(argc, argv);
}
