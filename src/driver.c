#include <assert.h>
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

/* The answer to a probe; false: the sink is gone, and nothing answers it. */
static bool probe(struct lg_driver *driver, struct lg_machine_event *event) {
	bool changed = false;
	enum lg_probe_result result = driver->impl->probe(driver->data, &changed);
	*event = (struct lg_machine_event){
		.type = LG_MACHINE_PROBED,
		.ok = result == LG_PROBE_OK,
		.modes_changed = changed,
	};
	return result != LG_PROBE_GONE;
}

/*
 * The machine puts the one action that awaits an answer last, so the
 * others (a state report, a timer) are carried out before it. A read of
 * the sink is answered as any: its facts go with the SINK_READ. Returns
 * false when a probe found the sink gone.
 */
static bool run(struct lg_driver *driver, struct lg_machine_event event) {
	// What the last READ_SINK found, for the SINK_READ that answers it.
	bool read = false, unlocked = false;
	struct lg_sink_errors errors = {0};
	for (;;) {
		struct lg_machine_facts facts;
		struct lg_actions actions;
		driver->impl->facts(driver->data, &facts);
		if (event.type == LG_MACHINE_SINK_READ) {
			facts.sink_unlocked = read && unlocked;
			facts.sink_errors = read ? &errors : NULL;
		}
		lg_machine_step(&driver->machine, &event, &facts, &actions);
		bool answered = false;
		for (size_t i = 0; i < actions.len; i++) {
			const struct lg_action *action = &actions.list[i];
			switch (action->type) {
			case LG_ACTION_PROBE:
				if (!probe(driver, &event)) {
					return false;
				}
				answered = true;
				break;
			case LG_ACTION_TEST:
				event = (struct lg_machine_event){
					.type = LG_MACHINE_TESTED,
					.ok = driver->impl->test(driver->data, &action->mode),
				};
				answered = true;
				break;
			case LG_ACTION_READ_SINK:
				unlocked = false;
				read = driver->impl->read_sink(driver->data, &unlocked, &errors);
				event = (struct lg_machine_event){ .type = LG_MACHINE_SINK_READ };
				answered = true;
				break;
			case LG_ACTION_COMMIT:
				if (driver->defer_commit) {
					driver->has_deferred = true;
					driver->deferred = action->mode;
					return true;
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
			return true;
		}
	}
}

/* One step at a time: an event fed while one runs would re-enter it. */
static bool step(struct lg_driver *driver, struct lg_machine_event event) {
	assert(!driver->stepping);
	driver->stepping = true;
	bool present = run(driver, event);
	driver->stepping = false;
	return present;
}

bool lg_driver_feed(struct lg_driver *driver, enum lg_machine_event_type type) {
	return step(driver, (struct lg_machine_event){ .type = type });
}

bool lg_driver_committed(struct lg_driver *driver, bool ok) {
	driver->has_deferred = false;
	return step(driver, (struct lg_machine_event){
		.type = LG_MACHINE_COMMITTED,
		.ok = ok,
	});
}
