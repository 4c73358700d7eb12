#ifndef TESTS_SCENARIO_CLIENT_H
#define TESTS_SCENARIO_CLIENT_H

/*
 * A Wayland client inside the compositor's process (benchmark, fuzzing), on
 * a socketpair: it sees wl_output globals come and go as any client would,
 * and where linkguard's global is.
 */

#include <stdbool.h>
#include <wayland-client-core.h>

struct wl_display;

#define HARNESS_CLIENT_MAX_OUTPUTS 64

struct harness_client {
	struct wl_display *server;
	struct wl_display *display;
	struct wl_registry *registry;
	uint32_t outputs[HARNESS_CLIENT_MAX_OUTPUTS]; // global names
	int n_outputs;
	int outputs_added, outputs_removed;
	uint32_t link_manager; // zlg_link_manager_v1's global name, 0 if none
};

bool harness_client_connect(struct harness_client *client, struct wl_display *server);
/* Lets the server send what it has and reads it, without blocking. */
void harness_client_sync(struct harness_client *client);
void harness_client_finish(struct harness_client *client);

#endif
