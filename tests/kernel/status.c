/*
 * lg-kernel-status: what the kernel reports about the guest's connector,
 * for the compositor tests (tests/kernel/compositor.sh). Reads only: it
 * runs beside the compositor, which is DRM master.
 *
 *   lg-kernel-status            "ID good|bad connected|disconnected WxH@mHz|off"
 *   lg-kernel-status predict W H MHZ [MBPS]
 *                               the mode the default policy, as
 *                               linkguard-recovery(7) words it, picks for
 *                               a requested WxH@MHZ from the connector's
 *                               current (pruned) list: "WxH@mHz"; with
 *                               MBPS, of the modes lg_link_fault's sink
 *                               (HBR3 x4, 8 bpc, module/dpcd.c) trains
 *                               at that rate or below, as i915 would
 *
 * The pick is the oracle's (tests/machine/oracle.c), never src/policy.c's
 * ranking: a bug there must not hide in the test that judges it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linkguard/policy.h>
#include <kms/kms.h>
#include "guest.h"
#include "machine/oracle.h"

static void print_mode(const struct lg_mode *mode) {
	printf("%" PRId32 "x%" PRId32 "@%" PRId32 "\n", mode->width, mode->height,
		mode->refresh_mhz);
}

static int status(struct guest_card *card, struct kms_libdrm *kms) {
	struct kms_connector_state state = {0};
	if (!kms_libdrm_impl.read(kms, card->conn_id, &state)) {
		return 1;
	}
	printf("%" PRIu32 " %s %s ", card->conn_id,
		state.link_status == LG_LINK_STATUS_BAD ? "bad" : "good",
		state.connected ? "connected" : "disconnected");
	drmModeConnector *conn = drmModeGetConnectorCurrent(card->fd, card->conn_id);
	drmModeEncoder *enc = conn != NULL && conn->encoder_id != 0 ?
		drmModeGetEncoder(card->fd, conn->encoder_id) : NULL;
	drmModeCrtc *crtc = enc != NULL && enc->crtc_id != 0 ?
		drmModeGetCrtc(card->fd, enc->crtc_id) : NULL;
	if (crtc != NULL && crtc->mode_valid) {
		struct lg_mode mode = kms_mode_to_lg(&crtc->mode);
		print_mode(&mode);
	} else {
		printf("off\n");
	}
	drmModeFreeCrtc(crtc);
	drmModeFreeEncoder(enc);
	drmModeFreeConnector(conn);
	return 0;
}

/* Whether the module's sink trains mode at max_mbps a lane or below. */
static bool trains_at_most(const struct lg_mode *mode, uint32_t max_mbps) {
	static const struct lg_link_params sink = { .lanes = 4, .rate_mbps = 8100 };
	struct lg_link_params link;
	return max_mbps == 0 || (oracle_train_link(mode, 8, &sink, &link) &&
		link.rate_mbps <= max_mbps);
}

static int predict(struct guest_card *card, struct kms_libdrm *kms,
		const struct lg_mode *requested, uint32_t max_mbps) {
	struct kms_modes modes = {0};
	bool connected;
	if (!kms_libdrm_impl.get_modes(kms, card->conn_id, false, &connected, &modes)) {
		return 1;
	}
	struct lg_mode_list list;
	lg_mode_list_init(&list);
	for (size_t i = 0; i < modes.len; i++) {
		struct lg_mode mode = kms_mode_to_lg(&modes.modes[i]);
		if (trains_at_most(&mode, max_mbps)) {
			lg_mode_list_append(&list, &mode);
		}
	}
	kms_modes_finish(&modes);
	struct lg_mode pick;
	bool picked = oracle_pick(LG_POLICY_RESOLUTION_FIRST, requested, &list,
		NULL, &pick);
	if (picked) {
		print_mode(&pick);
	}
	lg_mode_list_finish(&list);
	return picked ? 0 : 1;
}

int main(int argc, char *argv[]) {
	struct guest_card card;
	if (!guest_card_open(&card)) {
		return 1;
	}
	struct kms_libdrm kms = { .fd = card.fd };
	int ret;
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "predict") == 0) {
		struct lg_mode requested = {
			.width = atoi(argv[2]),
			.height = atoi(argv[3]),
			.refresh_mhz = atoi(argv[4]),
		};
		ret = predict(&card, &kms, &requested, argc == 6 ? (uint32_t)atoi(argv[5]) : 0);
	} else if (argc == 1) {
		ret = status(&card, &kms);
	} else {
		fprintf(stderr, "usage: %s [predict W H MHZ [MBPS]]\n", argv[0]);
		ret = 1;
	}
	guest_card_close(&card);
	return ret;
}
