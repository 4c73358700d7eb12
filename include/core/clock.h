#ifndef CORE_CLOCK_H
#define CORE_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: what the machine's timers count. */
uint64_t lg_now_ms(void);

#endif
