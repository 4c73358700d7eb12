/*
 * The simulated link on wlroots' headless backend: one lg_connector per
 * connector a scenario names, a sim_link (the kernel's link model) behind
 * each, and the scenario's steps run from event loop timers. Plugging adds
 * a headless output of the sink's preferred size, named after the connector;
 * the kernel's asynchronous work (the hotplug uevent, i915's retry of a
 * failed training) comes from short timers, never from inside a commit.
 */
#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/multi.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <linkguard/sim.h>
#include <dp/dp.h>
#include <sim/link.h>
#include <sim/observe.h>
#include <sim/scenario.h>

/*
 * The kernel's workers run after the commit that triggered them has
 * returned: the hotplug uevent and i915's link-check retry both come from
 * the event loop a moment later, never from inside a commit.
 */
#define HOTPLUG_DELAY_MS 1
#define RETRY_DELAY_MS 1
/* A scenario step later than this ran after a stall (handle_step_timer). */
#define STEP_STALL_MS 20
/* How often a waiting scenario looks for its cue. */
#define WAIT_POLL_MS 10

/* Like the link model's lines: "sim: DP-1: ...", the kernel's side. */
#define sim_log(sc, importance, fmt, ...) \
	lg_log(importance, "sim: %s: " fmt, (sc)->conn->name, ##__VA_ARGS__)

struct sim {
	struct lg_sim base;
	struct lg_manager *manager;
	struct wlr_backend *headless; // NULL once the backend is gone
	struct wl_list connectors; // sim_connector.link

	struct sim_scenario scenario;
	size_t next_step;
	size_t next_wait;
	uint64_t start_ms;
	struct wl_event_source *step_timer;
	bool waiting; // for a cue (cue_given), said once
	struct sim_connector *plugging; // bound by the next new_output
	sim_train_observer observer;
	void *observer_data;

	struct wl_listener new_output;
	struct wl_listener backend_destroy;
	struct wl_listener manager_destroy;
};

struct sim_connector {
	struct sim *sim;
	struct lg_connector *conn;
	struct sim_link link;
	struct wl_event_source *hotplug_timer;
	struct wl_event_source *retry_timer;
	/* The sink's symbol error counters: cleared by each read. */
	uint64_t errors_since_ms;
	uint64_t errors_counted; // x 60000: errors per minute times ms
	struct wl_list link_entry; // sim.connectors
};

static struct sim_connector *sim_connector_from_conn(struct lg_connector *conn) {
	return conn->data;
}

static uint64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Arms *timer (created on first use) to fire in delay_ms. */
static void arm_timer(struct sim_connector *sc, struct wl_event_source **timer,
		wl_event_loop_timer_func_t func, int delay_ms) {
	if (*timer == NULL) {
		*timer = wl_event_loop_add_timer(sc->sim->manager->event_loop, func, sc);
		if (*timer == NULL) {
			sim_log(sc, LG_ERROR, "failed to create a timer");
			return;
		}
	}
	wl_event_source_timer_update(*timer, delay_ms);
}

static void remove_timer(struct wl_event_source **timer) {
	if (*timer != NULL) {
		wl_event_source_remove(*timer);
		*timer = NULL;
	}
}

static void disarm_timer(struct wl_event_source *timer) {
	if (timer != NULL) {
		wl_event_source_timer_update(timer, 0);
	}
}

static int handle_hotplug_timer(void *data) {
	struct sim_connector *sc = data;
	sim_log(sc, LG_INFO, "link-status %s, uevent HOTPLUG=1 "
		"CONNECTOR=%" PRIu32, lg_link_status_name(sc->link.status), sc->conn->id);
	lg_connector_hotplug(sc->conn, sc->link.status);
	return 0;
}

static void handle_train_result(struct sim_connector *sc,
		const struct sim_link *before, enum sim_train_result result, bool modeset);

static int handle_retry_timer(void *data) {
	struct sim_connector *sc = data;
	const struct sim_link before = sc->link;
	handle_train_result(sc, &before, sim_link_retry(&sc->link), false);
	return 0;
}

/* before: the link as the training found it; modeset: a commit's. */
static void handle_train_result(struct sim_connector *sc,
		const struct sim_link *before, enum sim_train_result result, bool modeset) {
	if (sc->sim->observer != NULL) {
		const struct sim_training training = {
			.conn = sc->conn,
			.link = &sc->link,
			.before = *before,
			.result = result,
			.modeset = modeset,
		};
		sc->sim->observer(sc->sim->observer_data, &training);
	}
	switch (result) {
	case SIM_RETRY:
		arm_timer(sc, &sc->retry_timer, handle_retry_timer, RETRY_DELAY_MS);
		break;
	case SIM_LOWERED:
	case SIM_REJECTED:
		arm_timer(sc, &sc->hotplug_timer, handle_hotplug_timer,
			HOTPLUG_DELAY_MS);
		break;
	case SIM_UNCHANGED:
	case SIM_TRAINED:
	case SIM_SILENT:
		break;
	}
}

static enum lg_link_status sim_get_link_status(struct lg_connector *conn) {
	return sim_connector_from_conn(conn)->link.status;
}

static enum lg_probe_result sim_probe(struct lg_connector *conn,
		struct lg_mode_list *modes) {
	return sim_link_probe(&sim_connector_from_conn(conn)->link, modes) ?
		LG_PROBE_OK : LG_PROBE_FAILED;
}

static bool sim_set_mode(struct lg_connector *conn, struct wlr_output_state *state,
		const struct lg_mode *mode) {
	wlr_output_state_set_custom_mode(state, mode->width, mode->height,
		mode->refresh_mhz);
	return true;
}

static bool sim_check_mode(struct lg_connector *conn, const struct lg_mode *mode) {
	return sim_link_mode_valid(&sim_connector_from_conn(conn)->link, mode);
}

/* What the cable's errors added to the counters since they were counted. */
static void count_errors(struct sim_connector *sc) {
	uint64_t now = now_ms();
	sc->errors_counted += (uint64_t)sim_link_error_rate(&sc->link) *
		(now - sc->errors_since_ms);
	sc->errors_since_ms = now;
}

/* The CRTC goes off: the errors until now are counted, then the link stops. */
static void link_off(struct sim_connector *sc) {
	count_errors(sc);
	sim_link_off(&sc->link);
}

static void sim_mode_committed(struct lg_connector *conn, const struct lg_mode *mode) {
	struct sim_connector *sc = sim_connector_from_conn(conn);
	if (mode == NULL) {
		link_off(sc);
		return;
	}
	count_errors(sc);
	// A training starts the sink's counters afresh; a commit that trains
	// nothing leaves them counting.
	const struct sim_link before = sc->link;
	// Logged first: the training's lines follow it, as in the kernel.
	bool modeset = sc->link.sink != NULL && sim_link_needs_modeset(&sc->link, mode);
	if (modeset) {
		char buf[64];
		sim_log(sc, LG_INFO, "modeset to %s", lg_mode_format(mode, buf, sizeof(buf)));
	}
	enum sim_train_result result = sim_link_train(&sc->link, mode);
	if (result != SIM_UNCHANGED || !before.trained) {
		sc->errors_counted = 0;
	}
	handle_train_result(sc, &before, result, modeset);
}

/* As the kernel's DPMS off: the CRTC stops, the compositor hears nothing. */
static bool sim_blank(struct lg_connector *conn) {
	link_off(sim_connector_from_conn(conn));
	return true;
}

/* The registers the sink shows, decoded as backend/drm decodes them. */
static bool sim_get_sink_status(struct lg_connector *conn,
		struct lg_sink_status *status) {
	struct sim_connector *sc = sim_connector_from_conn(conn);
	if (sc->link.sink == NULL) {
		return false;
	}
	count_errors(sc);
	uint64_t errors = sc->errors_counted / 60000;
	sc->errors_counted %= 60000;
	struct dpcd_regs regs;
	sim_link_dpcd(&sc->link, errors > DPCD_ERROR_COUNT_MASK ?
		DPCD_ERROR_COUNT_MASK : (uint16_t)errors, &regs);
	return dpcd_decode(&regs, status);
}

static bool sim_get_link_params(struct lg_connector *conn,
		struct lg_link_params *params) {
	struct sim_connector *sc = sim_connector_from_conn(conn);
	// What the last modeset trained (or failed to), not the kernel's maximum.
	if (sc->link.sink == NULL || sc->link.params.lanes == 0) {
		return false;
	}
	*params = sc->link.params;
	return true;
}

static bool sim_choose_link(struct lg_connector *conn, const struct lg_mode *mode,
		struct lg_link_params *params) {
	struct sim_connector *sc = sim_connector_from_conn(conn);
	return sc->link.sink != NULL && sim_link_choose(&sc->link, mode, params);
}

static void sim_connector_destroy(struct lg_connector *conn) {
	struct sim_connector *sc = sim_connector_from_conn(conn);
	remove_timer(&sc->hotplug_timer);
	remove_timer(&sc->retry_timer);
	wl_list_remove(&sc->link_entry);
	free(sc);
}

/* A simulated monitor is known by its profile, as a real one by its EDID. */
static const char *sim_get_identity(struct lg_connector *conn) {
	struct sim_connector *sc = conn->data;
	return sc->link.sink != NULL ? sc->link.sink->name : NULL;
}

static const struct lg_connector_impl sim_connector_impl = {
	.get_link_status = sim_get_link_status,
	.probe = sim_probe,
	.set_mode = sim_set_mode,
	.check_mode = sim_check_mode,
	.blank = sim_blank,
	.mode_committed = sim_mode_committed,
	.get_link_params = sim_get_link_params,
	.get_sink_status = sim_get_sink_status,
	.get_identity = sim_get_identity,
	.destroy = sim_connector_destroy,
	.choose_link = sim_choose_link,
};

static struct sim_connector *find_connector(struct sim *sim, const char *name) {
	struct sim_connector *sc;
	wl_list_for_each(sc, &sim->connectors, link_entry) {
		if (strcmp(sc->conn->name, name) == 0) {
			return sc;
		}
	}
	return NULL;
}

static struct sim_connector *create_connector(struct sim *sim, const char *name) {
	struct sim_connector *sc = calloc(1, sizeof(*sc));
	if (sc == NULL) {
		return NULL;
	}
	uint32_t id = (uint32_t)wl_list_length(&sim->connectors) + 1;
	sc->sim = sim;
	sc->conn = lg_connector_create(sim->manager, &sim_connector_impl, 0, id, name);
	if (sc->conn == NULL) {
		free(sc);
		return NULL;
	}
	sc->conn->data = sc;
	sc->link.name = sc->conn->name;
	wl_list_insert(sim->connectors.prev, &sc->link_entry);
	return sc;
}

static void plug(struct sim *sim, const struct sim_step *step) {
	struct sim_connector *sc = find_connector(sim, step->connector);
	if (sc == NULL) {
		sc = create_connector(sim, step->connector);
	}
	if (sc == NULL || sim->headless == NULL) {
		lg_log(LG_ERROR, "sim: %s: cannot plug: %s", step->connector,
			sc == NULL ? "out of memory" : "the headless backend is gone");
		return;
	}
	if (sc->link.sink != NULL) {
		sim_log(sc, LG_ERROR, "already plugged, step skipped");
		return;
	}
	// A swap keeps the port's source limit and MST branch; a plug sets them.
	if (step->verb == SIM_PLUG) {
		sc->link.source = step->params;
		sc->link.mst = step->mst;
	}
	sim_link_plug(&sc->link, step->sink);
	char params[32];
	sim_log(sc, LG_INFO, "plug %s%s; link up to %s",
		step->sink->description, sc->link.mst ? " behind an MST branch" : "",
		dp_link_format(&sc->link.max, params, sizeof(params)));
	lg_connector_set_connected(sc->conn, true);

	// Bound to the connector in handle_new_output, from inside this call.
	const struct lg_mode *preferred = sim_sink_preferred(step->sink);
	sim->plugging = sc;
	wlr_headless_add_output(sim->headless, preferred->width, preferred->height);
	sim->plugging = NULL;
}

static void unplug(struct sim_connector *sc) {
	sim_log(sc, LG_INFO, "unplug");
	sim_link_unplug(&sc->link);
	disarm_timer(sc->hotplug_timer);
	disarm_timer(sc->retry_timer);
	lg_connector_set_connected(sc->conn, false);
	// As wlroots' DRM backend does on unplug; the core clears conn->output.
	if (sc->conn->output != NULL) {
		wlr_output_destroy(sc->conn->output);
	}
}

static void set_cable(struct sim_connector *sc, const struct lg_link_params *cable) {
	char buf[32];
	sim_log(sc, LG_INFO, "cable now holds %s",
		dp_link_format(cable, buf, sizeof(buf)));
	const struct sim_link before = sc->link;
	handle_train_result(sc, &before, sim_link_set_cable(&sc->link, cable), false);
}

static void run_step(struct sim *sim, const struct sim_step *step) {
	if (step->verb == SIM_END) {
		return;
	}
	if (step->verb == SIM_PLUG) {
		plug(sim, step);
		return;
	}
	struct sim_connector *sc = find_connector(sim, step->connector);
	// The cable is there with or without a sink; the rest needs one.
	bool needs_sink = step->verb == SIM_UNPLUG || step->verb == SIM_SWAP ||
		step->verb == SIM_REPLUG ||
		step->verb == SIM_GLITCH || step->verb == SIM_DARK ||
		step->verb == SIM_ERRORS;
	if (sc == NULL || (needs_sink && sc->link.sink == NULL)) {
		lg_log(LG_INFO, "sim: %s: not plugged, step skipped", step->connector);
		return;
	}
	switch (step->verb) {
	case SIM_UNPLUG:
		unplug(sc);
		break;
	case SIM_SWAP:
		unplug(sc);
		plug(sim, step);
		break;
	case SIM_CABLE:
		set_cable(sc, &step->params);
		break;
	case SIM_HEAL:
		sim_link_heal_sink(&sc->link);
		set_cable(sc, &step->params);
		break;
	case SIM_GLITCH:
		if (sim_link_glitch(&sc->link)) {
			arm_timer(sc, &sc->hotplug_timer, handle_hotplug_timer,
				HOTPLUG_DELAY_MS);
		}
		break;
	case SIM_REJECT:
		sim_log(sc, LG_INFO, "the kernel %s every mode",
			step->on ? "now refuses" : "accepts again");
		sc->link.reject_all = step->on;
		break;
	case SIM_DARK:
		sim_link_lose_lock(&sc->link, step->params.rate_mbps);
		break;
	case SIM_ERRORS:
		count_errors(sc);
		sim_link_set_errors(&sc->link, step->count);
		break;
	case SIM_REPLUG:;
		struct sim_step again = *step;
		again.sink = sc->link.sink;
		unplug(sc);
		plug(sim, &again);
		break;
	case SIM_CLIENT_RETRY:
	case SIM_COMMIT_FAILS:
	case SIM_VT_SWITCH:
	case SIM_MODE:
		// A client's, the compositor's and the session's: the replay
		// on the virtual clock (tests/unit/test_convergence.c) runs them.
		sim_log(sc, LG_INFO, "no client, compositor or session here: step skipped");
		break;
	case SIM_PLUG:
	case SIM_END:
		break;
	}
}

static void schedule_next_step(struct sim *sim);

/* The next wait, once every step before it has run; else NULL. */
static const struct sim_wait *wait_due(const struct sim *sim) {
	if (sim->next_wait >= sim->scenario.n_waits) {
		return NULL;
	}
	const struct sim_wait *wait = &sim->scenario.waits[sim->next_wait];
	if (sim->next_step < sim->scenario.len) {
		const struct sim_step *step = &sim->scenario.steps[sim->next_step];
		if (step->at_ms < wait->at_ms ||
				(step->at_ms == wait->at_ms && step->seq < wait->seq)) {
			return NULL;
		}
	}
	return wait;
}

/* When what comes next is due on the scenario's clock. */
static uint64_t next_due_ms(const struct sim *sim) {
	const struct sim_wait *wait = wait_due(sim);
	return wait != NULL ? wait->at_ms : sim->scenario.steps[sim->next_step].at_ms;
}

/*
 * Whether the test gave the cue: until then the scenario's clock stands
 * still at the wait, so that the steps after it keep their distance.
 */
static bool cue_given(struct sim *sim, const struct sim_wait *wait,
		uint64_t elapsed) {
	const char *dir = getenv("XDG_RUNTIME_DIR");
	char path[PATH_MAX];
	int n = dir != NULL ? snprintf(path, sizeof(path), "%s/%s", dir, wait->name) : -1;
	if (n >= 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0) {
		lg_log(LG_INFO, "sim: cue %s given: the scenario goes on", wait->name);
		sim->next_wait++;
		sim->waiting = false;
		return true;
	}
	if (!sim->waiting) {
		lg_log(LG_INFO, "sim: waiting for the cue %s ($XDG_RUNTIME_DIR/%s)",
			wait->name, wait->name);
		sim->waiting = true;
	}
	sim->start_ms += elapsed - wait->at_ms;
	wl_event_source_timer_update(sim->step_timer, WAIT_POLL_MS);
	return false;
}

static int handle_step_timer(void *data) {
	struct sim *sim = data;
	uint64_t elapsed = now_ms() - sim->start_ms;
	if (sim->next_step < sim->scenario.len) {
		uint64_t due = next_due_ms(sim);
		// Stalled (a loaded machine): the scenario's clock waits with the
		// process. Run at once, the overdue steps would be one burst no
		// link makes. A timer's usual lateness is no stall: waited for
		// at every step, it would slow a 50 Hz glitch burst down.
		if (elapsed > due + STEP_STALL_MS && !sim->waiting) {
			lg_log(LG_DEBUG, "sim: step at %" PRIu64 " ms ran %" PRIu64
				" ms late: the later steps wait as long", due, elapsed - due);
			sim->start_ms += elapsed - due;
			elapsed = due;
		}
	}
	while (sim->next_step < sim->scenario.len) {
		const struct sim_wait *wait = wait_due(sim);
		if (wait != NULL && wait->at_ms <= elapsed) {
			if (!cue_given(sim, wait, elapsed)) {
				return 0;
			}
			continue;
		}
		const struct sim_step *step = &sim->scenario.steps[sim->next_step];
		if (step->at_ms > elapsed) {
			break;
		}
		sim->next_step++;
		run_step(sim, step);
		if (step->verb == SIM_END) {
			sim->next_step = sim->scenario.len;
		}
	}
	schedule_next_step(sim);
	return 0;
}

static void schedule_next_step(struct sim *sim) {
	if (sim->next_step >= sim->scenario.len) {
		lg_log(LG_INFO, "sim: scenario done");
		wl_event_source_timer_update(sim->step_timer, 0);
		wl_signal_emit_mutable(&sim->base.events.scenario_done, &sim->base);
		return;
	}
	uint64_t at = sim->start_ms + next_due_ms(sim);
	uint64_t now = now_ms();
	// A zero delay disarms a timerfd: wait at least a millisecond.
	wl_event_source_timer_update(sim->step_timer, at > now ? (int)(at - now) : 1);
}

static bool scenario_running(const struct sim *sim) {
	return sim->step_timer != NULL && sim->next_step < sim->scenario.len;
}

bool lg_sim_load_scenario(struct lg_sim *base, const char *path) {
	struct sim *sim = wl_container_of(base, sim, base);
	if (scenario_running(sim)) {
		lg_log(LG_ERROR, "sim: %s: another scenario is still running", path);
		return false;
	}
	if (sim->headless == NULL) {
		lg_log(LG_ERROR, "sim: %s: the headless backend is gone", path);
		return false;
	}
	// Parsed whole before anything is scheduled: a bad file changes nothing.
	struct sim_scenario scenario;
	if (!sim_scenario_load(path, &scenario)) {
		return false;
	}
	if (sim->step_timer == NULL) {
		sim->step_timer = wl_event_loop_add_timer(sim->manager->event_loop,
			handle_step_timer, sim);
	}
	if (sim->step_timer == NULL) {
		lg_log(LG_ERROR, "sim: %s: failed to create a timer", path);
		sim_scenario_finish(&scenario);
		return false;
	}
	lg_log(LG_INFO, "sim: scenario %s: %zu steps", path, scenario.len);
	sim_scenario_finish(&sim->scenario);
	sim->scenario = scenario;
	sim->next_step = 0;
	sim->next_wait = 0;
	sim->waiting = false;
	sim->start_ms = now_ms();
	schedule_next_step(sim);
	return true;
}

static void handle_new_output(struct wl_listener *listener, void *data) {
	struct sim *sim = wl_container_of(listener, sim, new_output);
	struct wlr_output *output = data;
	struct sim_connector *sc = sim->plugging;
	if (sc == NULL) {
		return;
	}
	wlr_output_set_name(output, sc->conn->name);
	wlr_output_set_description(output, sc->link.sink->description);
	lg_connector_set_description(sc->conn, sc->link.sink->description);
	lg_connector_set_output(sc->conn, output);
}

/* Removes every timer: the scenario's and the kernel workers'. */
static void remove_timers(struct sim *sim) {
	remove_timer(&sim->step_timer);
	struct sim_connector *sc;
	wl_list_for_each(sc, &sim->connectors, link_entry) {
		remove_timer(&sc->hotplug_timer);
		remove_timer(&sc->retry_timer);
	}
}

static void detach_backend(struct sim *sim) {
	wl_list_remove(&sim->new_output.link);
	wl_list_remove(&sim->backend_destroy.link);
	wl_list_init(&sim->new_output.link);
	wl_list_init(&sim->backend_destroy.link);
	sim->headless = NULL;
}

/*
 * The outputs went with the backend (the core saw their destroy); the
 * connectors stay with the manager until the sim is destroyed. Nothing is
 * left to drive: stop the scenario and the kernel's workers.
 */
static void handle_backend_destroy(struct wl_listener *listener, void *data) {
	struct sim *sim = wl_container_of(listener, sim, backend_destroy);
	lg_log(LG_INFO, "sim: the headless backend is gone; scenario stopped");
	detach_backend(sim);
	remove_timers(sim);
}

static void handle_manager_destroy(struct wl_listener *listener, void *data) {
	struct sim *sim = wl_container_of(listener, sim, manager_destroy);
	lg_sim_destroy(&sim->base);
}

static void find_headless(struct wlr_backend *backend, void *data) {
	struct wlr_backend **headless = data;
	if (*headless == NULL && wlr_backend_is_headless(backend)) {
		*headless = backend;
	}
}

struct lg_sim *lg_sim_create(struct lg_manager *manager, struct wlr_backend *backend) {
	struct wlr_backend *headless = NULL;
	if (wlr_backend_is_multi(backend)) {
		wlr_multi_for_each_backend(backend, find_headless, &headless);
	} else {
		find_headless(backend, &headless);
	}
	if (headless == NULL) {
		lg_log(LG_ERROR, "sim: the simulated link needs wlroots' headless backend");
		return NULL;
	}
	struct sim *sim = calloc(1, sizeof(*sim));
	if (sim == NULL) {
		lg_log(LG_ERROR, "sim: out of memory");
		return NULL;
	}
	sim->manager = manager;
	sim->headless = headless;
	wl_list_init(&sim->connectors);
	wl_signal_init(&sim->base.events.scenario_done);
	wl_signal_init(&sim->base.events.destroy);

	/*
	 * At the head of the list: the output must be named and bound to its
	 * connector before the compositor's new_output handler asks linkguard
	 * for a mode (via the multi backend, which forwards later).
	 */
	sim->new_output.notify = handle_new_output;
	wl_list_insert(&headless->events.new_output.listener_list, &sim->new_output.link);
	sim->backend_destroy.notify = handle_backend_destroy;
	wl_signal_add(&headless->events.destroy, &sim->backend_destroy);
	sim->manager_destroy.notify = handle_manager_destroy;
	wl_signal_add(&manager->events.destroy, &sim->manager_destroy);
	return &sim->base;
}

void sim_observe_training(struct lg_sim *base, sim_train_observer observer,
		void *data) {
	struct sim *sim = wl_container_of(base, sim, base);
	sim->observer = observer;
	sim->observer_data = data;
}

const struct sim_link *sim_observe_link(struct lg_sim *base, const char *connector) {
	struct sim *sim = wl_container_of(base, sim, base);
	struct sim_connector *sc = find_connector(sim, connector);
	return sc != NULL ? &sc->link : NULL;
}

void lg_sim_destroy(struct lg_sim *base) {
	if (base == NULL) {
		return;
	}
	struct sim *sim = wl_container_of(base, sim, base);
	wl_signal_emit_mutable(&sim->base.events.destroy, &sim->base);
	detach_backend(sim);
	wl_list_remove(&sim->manager_destroy.link);
	remove_timers(sim);
	struct sim_connector *sc, *tmp;
	wl_list_for_each_safe(sc, tmp, &sim->connectors, link_entry) {
		lg_connector_destroy(sc->conn);
	}
	sim_scenario_finish(&sim->scenario);
	free(sim);
}
