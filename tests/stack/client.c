#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wayland-client-protocol.h>
#include <wayland-server-core.h>
#include "client.h"

static void handle_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct harness_client *client = data;
	if (strcmp(interface, "zlg_link_manager_v1") == 0) {
		client->link_manager = name;
		return;
	}
	if (strcmp(interface, wl_output_interface.name) != 0 ||
			client->n_outputs == HARNESS_CLIENT_MAX_OUTPUTS) {
		return;
	}
	client->outputs[client->n_outputs++] = name;
	client->outputs_added++;
}

static void handle_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
	struct harness_client *client = data;
	for (int i = 0; i < client->n_outputs; i++) {
		if (client->outputs[i] == name) {
			client->outputs[i] = client->outputs[--client->n_outputs];
			client->outputs_removed++;
			return;
		}
	}
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

bool harness_client_connect(struct harness_client *client, struct wl_display *server) {
	*client = (struct harness_client){ .server = server };
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
		return false;
	}
	if (wl_client_create(server, fds[0]) == NULL) {
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	client->display = wl_display_connect_to_fd(fds[1]);
	if (client->display == NULL) {
		return false;
	}
	client->registry = wl_display_get_registry(client->display);
	wl_registry_add_listener(client->registry, &registry_listener, client);
	harness_client_sync(client);
	return true;
}

void harness_client_sync(struct harness_client *client) {
	struct wl_event_loop *loop = wl_display_get_event_loop(client->server);
	// Two rounds: our requests reach the server, its events reach us.
	for (int round = 0; round < 2; round++) {
		wl_display_flush(client->display);
		wl_event_loop_dispatch(loop, 0);
		wl_display_flush_clients(client->server);
		while (wl_display_prepare_read(client->display) != 0) {
			wl_display_dispatch_pending(client->display);
		}
		struct pollfd pfd = { wl_display_get_fd(client->display), POLLIN, 0 };
		if (poll(&pfd, 1, 0) > 0) {
			wl_display_read_events(client->display);
		} else {
			wl_display_cancel_read(client->display);
		}
		wl_display_dispatch_pending(client->display);
	}
}

void harness_client_finish(struct harness_client *client) {
	if (client->registry != NULL) {
		wl_registry_destroy(client->registry);
	}
	if (client->display != NULL) {
		wl_display_disconnect(client->display);
	}
}
