#ifndef CORE_TIMER_H
#define CORE_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

/*
 * An event loop timer that fires only at the due time it was last armed
 * for. libwayland runs every timer it found due in one dispatch, also one
 * that an earlier callback of the same dispatch re-armed or disarmed (a
 * commit that re-armed the settle time of a link it retrains): such a
 * timer's callback is skipped here, and the timer fires at its new time.
 */
struct lg_timer {
	struct wl_event_loop *loop;
	struct wl_event_source *source; // created when first armed
	uint64_t due_ms; // CLOCK_MONOTONIC (core/clock.h); 0: disarmed
	void (*fire)(void *data);
	void *data;
};

void lg_timer_init(struct lg_timer *timer, struct wl_event_loop *loop,
	void (*fire)(void *data), void *data);
/*
 * Arms the timer ms from now; 0 disarms it. Returns false when its event
 * source could not be created (the timer stays disarmed).
 */
bool lg_timer_arm(struct lg_timer *timer, uint32_t ms);
void lg_timer_finish(struct lg_timer *timer);

#endif
