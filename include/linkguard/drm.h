#ifndef LINKGUARD_DRM_H
#define LINKGUARD_DRM_H

/*
 * linkguard on real KMS: every DRM backend of a compositor (secondary GPUs
 * included), watched through the session's hotplug events and libdrm on
 * wlroots' own fd. See backend/drm/.
 */

#include <wayland-server-core.h>

struct lg_manager;
struct wlr_backend;
struct wlr_session;

struct lg_drm {
	struct {
		struct wl_signal destroy;
	} events;
};

/**
 * Watches every DRM backend in backend (a DRM backend, or a multi backend
 * holding some). Call before wlr_backend_start(), so that linkguard sees the
 * first outputs before the compositor's new_output handler does. Returns
 * NULL, with the reason logged, without a session or a DRM backend.
 * Destroyed with the manager.
 */
struct lg_drm *lg_drm_create(struct lg_manager *manager,
	struct wlr_backend *backend, struct wlr_session *session);
void lg_drm_destroy(struct lg_drm *drm);

#endif
