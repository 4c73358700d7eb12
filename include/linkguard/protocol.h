#ifndef LINKGUARD_PROTOCOL_H
#define LINKGUARD_PROTOCOL_H

/*
 * The server side of linkguard-link-v1 (protocol/linkguard-link-v1.xml):
 * tells clients each connector's link state, fallbacks and lets privileged
 * clients ask for a retry of the requested mode.
 *
 * Security. Two per-client decisions belong to the compositor:
 *
 * - can_see: whether the client may see and bind the global. libwayland
 *   lets a display have exactly one global filter, and compositors usually
 *   install their own (sway, for security-context). So linkguard does not
 *   install one: it offers lg_link_protocol_global_filter(), which has the
 *   signature of wl_display_global_filter_func_t. A compositor without a
 *   filter passes it to wl_display_set_global_filter() directly; one with
 *   its own filter calls it from there. The decision is enforced at bind as
 *   well: a client that binds despite can_see (the filter was not
 *   installed) gets a manager that is finished at once and sees no
 *   connector.
 * - may_retry: whether a retry request from the client is carried out
 *   (when the connector's allow-retry setting, linkguard(5), is on). A
 *   refusal is the retry object's denied event, never a protocol error.
 *
 * - may_reload: whether a reload request from the client (version 3) is
 *   carried out: the configuration file read again (linkguard(5)). A
 *   refusal is the reload object's denied event.
 *
 * Defaults (a NULL filter, or a NULL callback in it): every client sees the
 * global, and no client may retry or reload. A compositor marks clients
 * privileged by answering true from may_retry and may_reload.
 */

#include <stdbool.h>
#include <wayland-server-core.h>

struct lg_manager;
struct lg_link_protocol;

struct lg_link_protocol_filter {
	bool (*can_see)(const struct wl_client *client, void *data);
	bool (*may_retry)(const struct wl_client *client, void *data);
	bool (*may_reload)(const struct wl_client *client, void *data);
	void *data;
};

/* At most this many retries may be pending per client; more are denied. */
#define LG_LINK_PROTOCOL_MAX_PENDING_RETRIES 8

/**
 * Creates the zlg_link_manager_v1 global on the manager's display. filter
 * may be NULL for the defaults; it is copied. Destroyed with the manager.
 * Returns NULL with a logged reason.
 */
struct lg_link_protocol *lg_link_protocol_create(struct lg_manager *manager,
	const struct lg_link_protocol_filter *filter);
/**
 * Withdraws the global: clients' objects receive finished and go inert,
 * pending retries are cancelled. Accepts NULL.
 */
void lg_link_protocol_destroy(struct lg_link_protocol *protocol);

/**
 * A wl_display_global_filter_func_t (data is the lg_link_protocol): true for
 * every global but linkguard's own, for which it asks can_see.
 */
bool lg_link_protocol_global_filter(const struct wl_client *client,
	const struct wl_global *global, void *data);

#endif
