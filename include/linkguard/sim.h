#ifndef LINKGUARD_SIM_H
#define LINKGUARD_SIM_H

/*
 * A simulated DisplayPort link for wlroots' headless backend: per connector a
 * sink, a source limit and a cable that trains up to some rate, following the
 * kernel's link-training and fallback contract (see backend/sim/). Driven by a
 * scenario file.
 */

#include <stdbool.h>
#include <wayland-server-core.h>

struct lg_manager;
struct wlr_backend;

struct lg_sim {
	struct {
		/* The last step of the loaded scenario has run. */
		struct wl_signal scenario_done;
		struct wl_signal destroy;
	} events;
};

/**
 * Creates the simulated link on a headless backend (wlr_backend_is_headless();
 * a multi backend is searched for one). Returns NULL with a logged reason.
 */
struct lg_sim *lg_sim_create(struct lg_manager *manager,
	struct wlr_backend *backend);
void lg_sim_destroy(struct lg_sim *sim);

/**
 * Parses a scenario file and schedules its steps relative to now. A malformed
 * file is rejected whole, with file, line and reason logged; nothing of it is
 * applied. Call after the backend has started.
 */
bool lg_sim_load_scenario(struct lg_sim *sim, const char *path);

#endif
