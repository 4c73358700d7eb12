/* The one clock of recovery's timing: CLOCK_MONOTONIC in milliseconds. */
#include <time.h>
#include <core/clock.h>

uint64_t lg_now_ms(void) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}
