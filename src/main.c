/* benchreport: thin main; the commands live in src/cli/. */
#include <malloc.h>
#include "cli/cli.h"

int
main(int argc, char **argv)
{
	/* Blocks of 4 MiB and more (a figure's 9 MB of 300 dpi pixels, the
	 * ITL block) always come from mmap and go back to the system when
	 * freed; a fixed threshold also stops glibc from raising it after the
	 * first such free, which had the two figure workers' arenas holding
	 * 24 MB of freed pixels to the end of a report. Below it, cairo's
	 * stroking buffers and the parsers' arrays reuse arena memory: at the
	 * earlier 256 KiB each one was a fresh mmap and its page faults (costly
	 * on a paravirtualised machine) took 8% of a 108 MB report's CPU
	 * (bench/targets_bench.sh; peak RSS unchanged, 51.9 MB). */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	return br_cli_main(argc, argv);
}
