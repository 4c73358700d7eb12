#include <core/history.h>

void lg_history_init(struct lg_history *history) {
	*history = (struct lg_history){0};
}

void lg_history_push(struct lg_history *history, const struct lg_incident *incident) {
	history->ring[history->head] = *incident;
	history->head = (history->head + 1) % LG_HISTORY_LEN;
	if (history->len < LG_HISTORY_LEN) {
		history->len++;
	}
}

size_t lg_history_len(const struct lg_history *history) {
	return history->len;
}

const struct lg_incident *lg_history_at(const struct lg_history *history, size_t i) {
	if (i >= history->len) {
		return NULL;
	}
	// The oldest sits at head once the ring is full, at 0 before.
	size_t oldest = (history->head + LG_HISTORY_LEN - history->len) % LG_HISTORY_LEN;
	return &history->ring[(oldest + i) % LG_HISTORY_LEN];
}
