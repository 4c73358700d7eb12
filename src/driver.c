#include <core/driver.h>

bool lg_driver_commit_retrains(const struct lg_mode *current,
		const struct lg_mode *mode, enum lg_link_status status) {
	return current == NULL || !lg_mode_same_timing(current, mode) ||
		status == LG_LINK_STATUS_BAD;
}

void lg_driver_init(struct lg_driver *driver, const struct lg_machine_config *config,
		const struct lg_driver_impl *impl, void *data) {
	*driver = (struct lg_driver){ .impl = impl, .data = data };
	lg_machine_init(&driver->machine, config);
}

void lg_driver_finish(struct lg_driver *driver) {
	lg_machine_finish(&driver->machine);
}

/*
 * The machine puts the one action that awaits an answer last, so the
 * others (a state report, a timer) are carried out before it.
 */
static void run(struct lg_driver *driver, struct lg_machine_event event) {
	for (;;) {
		struct lg_machine_facts facts;
		struct lg_actions actions;
		driver->impl->facts(driver->data, &facts);
		lg_machine_step(&driver->machine, &event, &facts, &actions);
		bool answered = false;
		for (size_t i = 0; i < actions.len; i++) {
			const struct lg_action *action = &actions.list[i];
			switch (action->type) {
			case LG_ACTION_PROBE:
				event = (struct lg_machine_event){ .type = LG_MACHINE_PROBED };
				event.ok = driver->impl->probe(driver->data, &event.modes_changed);
				answered = true;
				break;
			case LG_ACTION_TEST:
				event = (struct lg_machine_event){
					.type = LG_MACHINE_TESTED,
					.ok = driver->impl->test(driver->data, &action->mode),
				};
				answered = true;
				break;
			case LG_ACTION_COMMIT:
				if (driver->defer_commit) {
					driver->has_deferred = true;
					driver->deferred = action->mode;
					return;
				}
				event = (struct lg_machine_event){
					.type = LG_MACHINE_COMMITTED,
					.ok = driver->impl->commit(driver->data, action),
				};
				answered = true;
				break;
			default:
				driver->impl->act(driver->data, action);
				break;
			}
		}
		if (!answered) {
			return;
		}
	}
}

void lg_driver_feed(struct lg_driver *driver, enum lg_machine_event_type type) {
	run(driver, (struct lg_machine_event){ .type = type });
}

void lg_driver_committed(struct lg_driver *driver, bool ok) {
	driver->has_deferred = false;
	run(driver, (struct lg_machine_event){ .type = LG_MACHINE_COMMITTED, .ok = ok });
}
