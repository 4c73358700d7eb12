#include "fake.h"

static struct lg_link_params trained(const struct fake *fake, const struct lg_mode *mode) {
	for (size_t i = 0; i < fake->n_trains; i++) {
		if (lg_mode_equal(fake->trains[i].mode, mode)) {
			return fake->trains[i].link;
		}
	}
	return (struct lg_link_params){0};
}

static bool fake_link_for(void *data, const struct lg_mode *mode,
		struct lg_link_params *link) {
	const struct fake *fake = data;
	*link = trained(fake, mode);
	return link->rate_mbps != 0;
}

static void fake_facts(void *data, struct lg_machine_facts *facts) {
	struct fake *fake = data;
	*facts = (struct lg_machine_facts){
		.now_ms = fake->now_ms,
		.connected = true,
		.has_output = true,
		.enabled = true,
		.requested = fake->trains[0].mode,
		.current = &fake->current,
		.modes = &fake->modes,
		.known_bad = &fake->known_bad,
		.link_for = fake->links ? fake_link_for : NULL,
		.link_data = fake,
	};
}

static enum lg_probe_result fake_probe(void *data, bool *changed) {
	*changed = false;
	return LG_PROBE_OK;
}

static bool fake_test(void *data, const struct lg_mode *mode) {
	const struct fake *fake = data;
	return !fake->refuse;
}

static bool fake_commit(void *data, const struct lg_action *action) {
	struct fake *fake = data;
	if (fake->refuse) {
		return false;
	}
	fake->current = action->mode;
	return true;
}

/* What the sink reports of the link the running mode trained at. */
static bool fake_read_sink(void *data, bool *unlocked, struct lg_sink_errors *errors) {
	struct fake *fake = data;
	if (fake->reads < FAKE_MAX_READS) {
		fake->read_ms[fake->reads] = fake->now_ms;
	}
	fake->reads++;
	struct lg_link_params link = trained(fake, &fake->current);
	*unlocked = fake->sink_max_mbps != 0 && link.rate_mbps > fake->sink_max_mbps;
	bool erring = fake->cable_max_mbps != 0 && link.rate_mbps > fake->cable_max_mbps;
	*errors = (struct lg_sink_errors){ .valid = 0xf, .rate_mbps = link.rate_mbps };
	for (int lane = 0; lane < 4; lane++) {
		errors->count[lane] = erring ? 10000 : 0;
	}
	return true;
}

static void fake_act(void *data, const struct lg_action *action) {
	struct fake *fake = data;
	if (action->type == LG_ACTION_ARM_TIMER) {
		fake->timer_ms = action->ms != 0 ? fake->now_ms + action->ms : 0;
	}
	if ((size_t)action->type >= sizeof(fake->acts) / sizeof(fake->acts[0])) {
		return;
	}
	struct fake_acts *acts = &fake->acts[action->type];
	if (acts->n < FAKE_MAX_ACTS) {
		acts->list[acts->n] = *action;
	}
	acts->n++;
}

static const struct lg_driver_impl fake_impl = {
	.facts = fake_facts,
	.probe = fake_probe,
	.test = fake_test,
	.commit = fake_commit,
	.read_sink = fake_read_sink,
	.act = fake_act,
};

void fake_init(struct fake *fake, const struct fake_mode *trains, size_t n_trains) {
	*fake = (struct fake){ .trains = trains, .n_trains = n_trains,
		.current = *trains[0].mode, .now_ms = 1000 };
	lg_machine_config_defaults(&fake->config);
	lg_mode_list_init(&fake->modes);
	lg_mode_list_init(&fake->known_bad);
	for (size_t i = 0; i < n_trains; i++) {
		lg_mode_list_append(&fake->modes, trains[i].mode);
	}
}

void fake_start(struct fake *fake) {
	lg_driver_init(&fake->driver, &fake->config, &fake_impl, fake);
}

void fake_finish(struct fake *fake) {
	lg_driver_finish(&fake->driver);
	lg_mode_list_finish(&fake->modes);
	lg_mode_list_finish(&fake->known_bad);
}

void fake_advance(struct fake *fake, uint64_t ms) {
	uint64_t until = fake->now_ms + ms;
	while (fake->timer_ms != 0 && fake->timer_ms <= until) {
		fake->now_ms = fake->timer_ms;
		fake->timer_ms = 0;
		lg_driver_feed(&fake->driver, LG_MACHINE_TIMER);
	}
	fake->now_ms = until;
}
