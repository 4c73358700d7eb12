#ifndef CORE_HISTORY_H
#define CORE_HISTORY_H

/*
 * A connector's last incidents, oldest first, in a ring of
 * LG_HISTORY_LEN: the newest replaces the oldest once it is full. Pure
 * data; src/incident.c decides what an incident is and records it.
 */

#include <stddef.h>
#include <linkguard/incident.h>

#define LG_HISTORY_LEN 32

struct lg_history {
	struct lg_incident ring[LG_HISTORY_LEN];
	size_t head; // where the next incident goes
	size_t len;
};

void lg_history_init(struct lg_history *history);
void lg_history_push(struct lg_history *history, const struct lg_incident *incident);
size_t lg_history_len(const struct lg_history *history);
/* The i-th incident, 0 the oldest kept; NULL past the end. */
const struct lg_incident *lg_history_at(const struct lg_history *history, size_t i);

#endif
