#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wlr/backend/headless.h>
#include <wlr/render/allocator.h>
#include <wlr/render/pixman.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <linkguard/sim.h>
#include "harness.h"

struct harness_output {
	struct harness *h;
	struct wlr_output *output;
	struct wl_listener commit;
	struct wl_listener request_state;
	struct wl_listener destroy;
	struct wl_list link;
};

static uint64_t now_usec(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void handle_output_commit(struct wl_listener *listener, void *data) {
	struct harness_output *ho = wl_container_of(listener, ho, commit);
	const struct wlr_output_event_commit *event = data;
	// A same-mode retrain commits no changed field, but is a modeset.
	if (!event->state->allow_reconfiguration) {
		return;
	}
	struct harness *h = ho->h;
	if (h->modesets < HARNESS_MAX_EVENTS) {
		struct harness_commit *commit = &h->commits[h->modesets];
		commit->output = ho->output;
		commit->enabled = ho->output->enabled;
		commit->width = ho->output->width;
		commit->height = ho->output->height;
		commit->refresh_mhz = ho->output->refresh;
		commit->usec = now_usec();
	}
	h->modesets++;
}

struct harness_config *harness_config(struct harness *h, const char *name) {
	for (int i = 0; i < h->n_configs; i++) {
		if (strcmp(h->configs[i].name, name) == 0) {
			return &h->configs[i];
		}
	}
	return NULL;
}

static void store_config(struct harness *h, struct wlr_output *output,
		const struct wlr_output_state *state) {
	struct harness_config *config = harness_config(h, output->name);
	if (config == NULL) {
		if (h->n_configs == HARNESS_MAX_CONFIGS) {
			return;
		}
		config = &h->configs[h->n_configs++];
		snprintf(config->name, sizeof(config->name), "%s", output->name);
	}
	if (state->mode_type == WLR_OUTPUT_STATE_MODE_FIXED) {
		config->width = state->mode->width;
		config->height = state->mode->height;
		config->refresh_mhz = state->mode->refresh;
	} else {
		config->width = state->custom_mode.width;
		config->height = state->custom_mode.height;
		config->refresh_mhz = state->custom_mode.refresh;
	}
}

/* Like sway: a backend's or linkguard's request is applied at once. */
static void handle_output_request_state(struct wl_listener *listener, void *data) {
	struct harness_output *ho = wl_container_of(listener, ho, request_state);
	const struct wlr_output_event_request_state *event = data;
	ho->h->requests++;
	if (ho->h->stores_requests && (event->state->committed & WLR_OUTPUT_STATE_MODE)) {
		store_config(ho->h, ho->output, event->state);
	}
	wlr_output_commit_state(ho->output, event->state);
}

static void handle_output_destroy(struct wl_listener *listener, void *data) {
	struct harness_output *ho = wl_container_of(listener, ho, destroy);
	ho->h->outputs_destroyed++;
	wl_list_remove(&ho->request_state.link);
	wl_list_remove(&ho->commit.link);
	wl_list_remove(&ho->destroy.link);
	wl_list_remove(&ho->link);
	free(ho);
}

static void handle_new_output(struct wl_listener *listener, void *data) {
	struct harness *h = wl_container_of(listener, h, new_output);
	struct wlr_output *output = data;
	h->outputs_created++;
	wlr_output_init_render(output, h->allocator, h->renderer);

	struct harness_output *ho = calloc(1, sizeof(*ho));
	ho->h = h;
	ho->output = output;
	ho->commit.notify = handle_output_commit;
	wl_signal_add(&output->events.commit, &ho->commit);
	ho->request_state.notify = handle_output_request_state;
	wl_signal_add(&output->events.request_state, &ho->request_state);
	ho->destroy.notify = handle_output_destroy;
	wl_signal_add(&output->events.destroy, &ho->destroy);
	wl_list_insert(&h->outputs, &ho->link);

	wlr_output_create_global(output, h->display);
	// Headless outputs list no modes: without a recommendation (the kernel
	// refuses every mode) there is nothing to enable, as on DRM. A stock
	// compositor enables the output as it comes (its preferred size).
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	const struct harness_config *config = h->stores_requests ?
		harness_config(h, output->name) : NULL;
	if (config != NULL) {
		wlr_output_state_set_custom_mode(&state, config->width,
			config->height, config->refresh_mhz);
	}
	if (h->stock_compositor || config != NULL ||
			lg_manager_recommend_state(h->manager, output, &state)) {
		wlr_output_commit_state(output, &state);
	}
	wlr_output_state_finish(&state);
}

static void handle_state_change(struct wl_listener *listener, void *data) {
	struct harness_connector *hc = wl_container_of(listener, hc, state_change);
	enum lg_link_state state = hc->conn->state;
	if (hc->n_states > 0 && hc->states[hc->n_states - 1] == state) {
		return;
	}
	if (hc->n_states < HARNESS_MAX_EVENTS) {
		hc->state_usec[hc->n_states] = now_usec();
		hc->states[hc->n_states++] = state;
	}
}

static void handle_connector_destroy(struct wl_listener *listener, void *data) {
	struct harness_connector *hc = wl_container_of(listener, hc, destroy);
	wl_list_remove(&hc->state_change.link);
	wl_list_remove(&hc->destroy.link);
	wl_list_init(&hc->state_change.link);
	wl_list_init(&hc->destroy.link);
	hc->conn = NULL;
}

static void handle_new_connector(struct wl_listener *listener, void *data) {
	struct harness *h = wl_container_of(listener, h, new_connector);
	struct harness_connector *hc = calloc(1, sizeof(*hc));
	hc->conn = data;
	hc->states[hc->n_states++] = hc->conn->state;
	hc->state_change.notify = handle_state_change;
	wl_signal_add(&hc->conn->events.state_change, &hc->state_change);
	hc->destroy.notify = handle_connector_destroy;
	wl_signal_add(&hc->conn->events.destroy, &hc->destroy);
	wl_list_insert(h->connectors.prev, &hc->link);
}

static void handle_fallback(struct wl_listener *listener, void *data) {
	struct harness *h = wl_container_of(listener, h, fallback);
	if (h->n_fallbacks < HARNESS_MAX_EVENTS) {
		h->fallbacks[h->n_fallbacks] = *(struct lg_fallback *)data;
	}
	h->n_fallbacks++;
}

static void handle_restored(struct wl_listener *listener, void *data) {
	struct harness *h = wl_container_of(listener, h, restored);
	h->n_restored++;
}

/*
 * The cue "failed", which a scenario's "wait failed" holds its later steps
 * for (backend/sim): what a scenario does after a failure waits for it,
 * however long a loaded machine makes the way there. In a runtime
 * directory of the process's own, so that tests side by side do not give
 * each other cues.
 */
static char cue_dir[] = "/tmp/linkguard-cues-XXXXXX";

static void remove_cue_dir(void) {
	rmdir(cue_dir);
}

static bool cue_dir_init(void) {
	static bool made;
	if (!made) {
		if (mkdtemp(cue_dir) == NULL) {
			fprintf(stderr, "harness: no runtime directory for the cues: %m\n");
			return false;
		}
		atexit(remove_cue_dir);
		made = true;
	}
	// Every harness's sim looks there, whoever moved it since (the
	// soak's clients run in a directory of their own).
	return setenv("XDG_RUNTIME_DIR", cue_dir, 1) == 0;
}

static void cue_failed(bool given) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/failed", cue_dir);
	if (!given) {
		unlink(path);
		return;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "harness: cannot give the cue %s: %m\n", path);
		return;
	}
	close(fd);
}

static void handle_failed(struct wl_listener *listener, void *data) {
	struct harness *h = wl_container_of(listener, h, failed);
	if (h->n_failed < HARNESS_MAX_EVENTS) {
		h->failed_usec[h->n_failed] = now_usec();
	}
	h->n_failed++;
	cue_failed(true);
}

static void handle_scenario_done(struct wl_listener *listener, void *data) {
	struct harness *h = wl_container_of(listener, h, scenario_done_listener);
	h->scenario_done = true;
	h->done_usec = now_usec();
}

static bool quiet;

void harness_quiet(void) {
	quiet = true;
}

bool harness_init_headless(struct harness *h, const struct lg_options *options) {
	*h = (struct harness){0};
	if (!cue_dir_init()) {
		return false;
	}
	wlr_log_init(quiet ? WLR_SILENT : WLR_ERROR, NULL);
	lg_log_init(quiet ? LG_SILENT : LG_DEBUG, NULL);
	wl_list_init(&h->connectors);
	wl_list_init(&h->outputs);

	h->display = wl_display_create();
	h->loop = wl_display_get_event_loop(h->display);
	h->backend = wlr_headless_backend_create(h->loop);
	h->renderer = wlr_pixman_renderer_create();
	if (h->backend == NULL || h->renderer == NULL) {
		return false;
	}
	h->allocator = wlr_allocator_autocreate(h->backend, h->renderer);

	struct lg_options fast;
	lg_options_init(&fast);
	fast.settle_ms = 100;
	fast.flap_window_ms = 3000;
	struct lg_options chosen = options != NULL ? *options : fast;
	// The user's configuration is not the test's: only a file it names.
	chosen.read_config = chosen.config_path != NULL;
	h->manager = lg_manager_create(h->display, h->backend, NULL, &chosen);
	h->new_connector.notify = handle_new_connector;
	wl_signal_add(&h->manager->events.new_connector, &h->new_connector);
	h->fallback.notify = handle_fallback;
	wl_signal_add(&h->manager->events.fallback, &h->fallback);
	h->restored.notify = handle_restored;
	wl_signal_add(&h->manager->events.restored, &h->restored);
	h->failed.notify = handle_failed;
	wl_signal_add(&h->manager->events.failed, &h->failed);

	h->new_output.notify = handle_new_output;
	wl_signal_add(&h->backend->events.new_output, &h->new_output);
	wl_list_init(&h->scenario_done_listener.link);
	return true;
}

bool harness_init(struct harness *h, const struct lg_options *options) {
	if (!harness_init_headless(h, options)) {
		return false;
	}
	h->sim = lg_sim_create(h->manager, h->backend);
	if (h->sim == NULL) {
		return false;
	}
	h->scenario_done_listener.notify = handle_scenario_done;
	wl_signal_add(&h->sim->events.scenario_done, &h->scenario_done_listener);
	return wlr_backend_start(h->backend);
}

void harness_finish(struct harness *h) {
	cue_failed(false);
	// As compositors do: clients go first, while everything they use exists.
	wl_display_destroy_clients(h->display);
	wl_list_remove(&h->scenario_done_listener.link);
	lg_sim_destroy(h->sim);
	wl_list_remove(&h->new_connector.link);
	wl_list_remove(&h->fallback.link);
	wl_list_remove(&h->restored.link);
	wl_list_remove(&h->failed.link);
	lg_manager_destroy(h->manager);
	wl_list_remove(&h->new_output.link);
	wlr_backend_destroy(h->backend);
	wlr_allocator_destroy(h->allocator);
	wlr_renderer_destroy(h->renderer);
	wl_display_destroy(h->display);

	struct harness_connector *hc, *tmp;
	wl_list_for_each_safe(hc, tmp, &h->connectors, link) {
		wl_list_remove(&hc->link);
		free(hc);
	}
}

static uint64_t now_ms(void) {
	return now_usec() / 1000;
}

/*
 * A BAD lasts from the kernel's worker (the sim's training or glitch) to
 * the commit that answers it, at least until the hotplug's own dispatch:
 * a look between dispatches sees it.
 */
static void watch_links(struct harness *h) {
	struct harness_connector *hc;
	wl_list_for_each(hc, &h->connectors, link) {
		struct lg_connector *conn = hc->conn;
		if (conn != NULL && conn->connected &&
				conn->impl->get_link_status(conn) == LG_LINK_STATUS_BAD) {
			h->last_bad_usec = now_usec();
		}
	}
}

static void dispatch(struct harness *h) {
	wl_event_loop_dispatch(h->loop, 10);
	watch_links(h);
}

uint64_t harness_last_fault_usec(const struct harness *h) {
	return h->last_bad_usec > h->done_usec ? h->last_bad_usec : h->done_usec;
}

int harness_commits_after(const struct harness *h, const struct wlr_output *output,
		uint64_t usec) {
	int n = 0;
	for (int i = 0; i < h->modesets && i < HARNESS_MAX_EVENTS; i++) {
		const struct harness_commit *commit = &h->commits[i];
		n += commit->usec > usec && (output == NULL || commit->output == output);
	}
	return n;
}

bool harness_run(struct harness *h, const char *scenario, int linger_ms) {
	char path[] = "/tmp/linkguard-scenario-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		return false;
	}
	size_t len = strlen(scenario);
	bool written = write(fd, scenario, len) == (ssize_t)len;
	close(fd);
	bool ok = written && harness_run_file(h, path, linger_ms);
	unlink(path);
	return ok;
}

bool harness_run_file(struct harness *h, const char *path, int linger_ms) {
	h->scenario_done = false; // a second scenario on the same harness
	if (!lg_sim_load_scenario(h->sim, path)) {
		return false;
	}
	// A backstop only: meson's own time limit is the real one.
	const uint64_t deadline = now_ms() + 600000;
	uint64_t done_at = 0;
	while (now_ms() < deadline) {
		if (h->scenario_done && done_at == 0) {
			done_at = now_ms();
		}
		if (done_at != 0 && now_ms() >= done_at + (uint64_t)linger_ms) {
			return true;
		}
		dispatch(h);
		if (h->tick != NULL) {
			h->tick(h->tick_data);
		}
	}
	fprintf(stderr, "scenario timed out\n");
	return false;
}

void harness_dispatch_for(struct harness *h, int ms) {
	const uint64_t until = now_ms() + (uint64_t)ms;
	while (now_ms() < until) {
		dispatch(h);
	}
}

bool harness_dispatch_until(struct harness *h, bool (*until)(void *data),
		void *data, int max_ms) {
	const uint64_t deadline = now_ms() + (uint64_t)max_ms;
	while (!until(data)) {
		if (now_ms() >= deadline) {
			fprintf(stderr, "still waiting after %d ms: gave up\n", max_ms);
			return false;
		}
		dispatch(h);
	}
	return true;
}

struct harness_connector *harness_connector(struct harness *h, const char *name) {
	struct harness_connector *hc;
	wl_list_for_each(hc, &h->connectors, link) {
		if (hc->conn != NULL && strcmp(hc->conn->name, name) == 0) {
			return hc;
		}
	}
	return NULL;
}

bool harness_mode_is(const struct lg_mode *mode, int32_t width, int32_t height,
		int32_t refresh_hz) {
	return mode->width == width && mode->height == height &&
		(mode->refresh_mhz + 500) / 1000 == refresh_hz;
}

bool harness_state_seen(const struct harness_connector *hc, enum lg_link_state state) {
	for (int i = 0; i < hc->n_states; i++) {
		if (hc->states[i] == state) {
			return true;
		}
	}
	return false;
}

bool harness_states_were(struct harness_connector *hc,
		const enum lg_link_state *states, int n) {
	bool same = hc->n_states == n;
	for (int i = 0; same && i < n; i++) {
		same = hc->states[i] == states[i];
	}
	if (!same) {
		fprintf(stderr, "%s went through:", hc->conn->name);
		for (int i = 0; i < hc->n_states; i++) {
			fprintf(stderr, " %s", lg_link_state_name(hc->states[i]));
		}
		fprintf(stderr, "\n");
	}
	return same;
}
