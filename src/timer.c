#include <core/clock.h>
#include <core/timer.h>

static int handle_source(void *data) {
	struct lg_timer *timer = data;
	if (timer->due_ms == 0 || lg_now_ms() < timer->due_ms) {
		return 0; // re-armed or disarmed since libwayland found it due
	}
	timer->due_ms = 0;
	timer->fire(timer->data);
	return 0;
}

void lg_timer_init(struct lg_timer *timer, struct wl_event_loop *loop,
		void (*fire)(void *data), void *data) {
	*timer = (struct lg_timer){ .loop = loop, .fire = fire, .data = data };
}

bool lg_timer_arm(struct lg_timer *timer, uint32_t ms) {
	if (timer->source == NULL) {
		if (ms == 0) {
			return true;
		}
		timer->source = wl_event_loop_add_timer(timer->loop, handle_source, timer);
		if (timer->source == NULL) {
			return false;
		}
	}
	// The source fires at the earliest at now + ms: never before due_ms.
	timer->due_ms = ms == 0 ? 0 : lg_now_ms() + ms;
	wl_event_source_timer_update(timer->source, ms > INT32_MAX ? INT32_MAX : (int)ms);
	return true;
}

void lg_timer_finish(struct lg_timer *timer) {
	if (timer->source != NULL) {
		wl_event_source_remove(timer->source);
		timer->source = NULL;
	}
	timer->due_ms = 0;
}
