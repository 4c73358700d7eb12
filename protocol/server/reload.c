#include <stdlib.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include "linkguard-link-v1-protocol.h"
#include <protocol/server.h>

/*
 * zlg_link_reload_v1 (version 3): one reload of the configuration file and
 * its one answer, sent at once: the reload is synchronous, and the setting
 * events it causes go out (with their done) before the answer.
 */

static void handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct zlg_link_reload_v1_interface reload_impl = {
	.destroy = handle_destroy,
};

static bool client_may_reload(const struct lg_link_protocol *protocol,
		const struct wl_client *client) {
	return protocol->filter.may_reload != NULL &&
		protocol->filter.may_reload(client, protocol->filter.data);
}

void link_reload_create(struct link_manager_client *client, uint32_t id) {
	struct wl_client *wl_client = wl_resource_get_client(client->resource);
	struct wl_resource *resource = wl_resource_create(wl_client,
		&zlg_link_reload_v1_interface, wl_resource_get_version(client->resource), id);
	if (resource == NULL) {
		wl_client_post_no_memory(wl_client);
		return;
	}
	wl_resource_set_implementation(resource, &reload_impl, NULL, NULL);
	struct lg_link_protocol *protocol = client->protocol;
	if (protocol == NULL) {
		zlg_link_reload_v1_send_failed(resource,
			"the manager was stopped or the protocol withdrawn");
		return;
	}
	if (!client_may_reload(protocol, wl_client)) {
		lg_log(LG_INFO, "config: reload denied: client not privileged");
		zlg_link_reload_v1_send_denied(resource);
		return;
	}
	lg_log(LG_INFO, "config: reload requested by a client");
	if (!lg_manager_reload_config(protocol->manager)) {
		zlg_link_reload_v1_send_failed(resource,
			"the configuration file cannot be read; the compositor's log says why");
		return;
	}
	zlg_link_reload_v1_send_succeeded(resource);
}
