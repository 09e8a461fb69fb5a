/* parse_bench.c - text parser throughput: read a trace_pipe text file,
 * parse every line and look up two fields the way tcpretrans does.
 * Prints "lines=N seconds=S lines_per_sec=R" (CPU time of the process). */
#include "ftnet_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK (1 << 20)

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	FILE *f;
	char *buf, *p, *end;
	size_t have, n;
	double t0, t1;
	unsigned long lines = 0, events = 0, sum = 0;
	struct ftn_event ev;

	if (argc != 2) {
		fprintf(stderr, "usage: parse_bench FILE\n");
		return 2;
	}
	t0 = cpu_now();
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	/* Fixed-size chunks with the partial line carried over, as the
	 * trace_pipe consumer reads. */
	buf = malloc(CHUNK + 1);
	if (!buf)
		return 1;
	have = 0;
	while ((n = fread(buf + have, 1, CHUNK - have, f)) > 0 || have) {
		end = buf + have + n;
		if (n == 0)
			*end++ = '\n';     /* last line without newline */
		for (p = buf; p < end; ) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			uint64_t lost, v;

			if (!nl)
				break;
			if (ftn_parse_line(p, (size_t)(nl - p), &ev, &lost) == FTN_LINE_EVENT) {
				events++;
				if (ftn_event_u64(&ev, "sport", &v) == 0)
					sum += v;
				if (ftn_event_str(&ev, "state"))
					sum++;
			}
			lines++;
			p = nl + 1;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
		if (n == 0)
			break;
	}
	fclose(f);
	t1 = cpu_now();
	printf("lines=%lu events=%lu seconds=%.3f lines_per_sec=%.0f check=%lu\n",
	       lines, events, t1 - t0, (double)lines / (t1 - t0), sum);
	free(buf);
	return 0;
}
