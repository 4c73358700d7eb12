/*
 * Which link the kernel would train a mode at, on a real DRM connector:
 * the inputs read when they may have changed, never per question (the
 * core asks for every mode it plans with), and i915's rule on them.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <wlr/backend/session.h>
#include <linkguard/connector.h>
#include <linkguard/log.h>
#include <dp/i915.h>
#include <kms/device.h>

#define link_log(dc, importance, fmt, ...) \
	lg_log(importance, "drm: %s: " fmt, (dc)->conn->name, ##__VA_ARGS__)

/*
 * Without a "max bpc" property: what wlroots asks of every connector that
 * has one for its 8 bit formats.
 */
#define DEFAULT_MAX_BPC 8

static bool same_link(const struct lg_link_params *a, const struct lg_link_params *b) {
	return a->rate_mbps == b->rate_mbps && a->lanes == b->lanes;
}

/*
 * A sink that did not say: any 8b/10b rate, four lanes. Nothing shows it
 * has 128b/132b, which 6.12's i915 does not train on SST anyway.
 */
static void any_sink(struct dp_sink_caps *caps) {
	dp_rates_up_to(&caps->rates, DP_RATE_HBR3);
	caps->max_lanes = 4;
}

/* Whether every mode the kernel lists fits link at 18 bpp. */
static bool keeps_listed(const struct drm_connector *dc,
		const struct lg_link_params *link) {
	for (size_t i = 0; i < dc->kms_modes.len; i++) {
		struct lg_mode mode = kms_mode_to_lg(&dc->kms_modes.modes[i]);
		if (!dp_mode_valid(&mode, link)) {
			return false;
		}
	}
	return true;
}

/* Orders candidate maxima: by payload, then more lanes first. */
static bool below(const struct lg_link_params *a, const struct lg_link_params *b) {
	uint64_t payload_a = dp_link_payload_kbps(a), payload_b = dp_link_payload_kbps(b);
	if (payload_a != payload_b) {
		return payload_a < payload_b;
	}
	return a->lanes > b->lanes;
}

/*
 * A driver that does not say its maximum (amdgpu, nouveau, msm) lists the
 * modes that fit it at 18 bpp: the smallest of the sink's links that keeps
 * them all. Equal payloads go to more lanes, as i915's fallback lowers the
 * rate before the lanes. Nothing listed: nothing to infer from.
 */
static bool infer_max(const struct drm_connector *dc, struct lg_link_params *max) {
	const struct dp_rates *rates = &dc->dp.caps.rates;
	bool found = false, any = false;
	struct lg_link_params largest = {0};
	for (size_t i = 0; i < rates->len; i++) {
		for (uint32_t lanes = 1; lanes <= dc->dp.caps.max_lanes; lanes *= 2) {
			const struct lg_link_params link = {
				.lanes = lanes,
				.rate_mbps = rates->mbps[i],
			};
			if (!any || below(&largest, &link)) {
				largest = link;
				any = true;
			}
			if (keeps_listed(dc, &link) && (!found || below(&link, max))) {
				*max = link;
				found = true;
			}
		}
	}
	if (dc->kms_modes.len == 0 || !any) {
		return false;
	}
	if (!found) {
		// A listed mode fits none at 18 bpp: the kernel compresses it (DSC).
		*max = largest;
	}
	return true;
}

static bool read_kernel_max(struct drm_connector *dc, struct lg_link_params *max) {
	const struct drm_device *device = dc->device;
	struct drm_link *link = &dc->dp;
	int ret = kms_link_max_read(device->kms, device->kms_data, dc->conn->name, max);
	if (ret != 0 && ret != link->max_error) {
		// Contents no kernel writes are news; a driver without the files
		// (or a user without debugfs) is the common case.
		link_log(dc, ret == -EINVAL ? LG_INFO : LG_DEBUG, "the driver's link "
			"maximum is not readable (i915_dp_max_link_rate: %s): inferred "
			"from the listed modes", strerror(-ret));
	}
	link->max_error = ret;
	return ret == 0;
}

static void refresh(struct drm_connector *dc) {
	struct drm_link *link = &dc->dp;
	link->stale = false;
	const struct drm_device *device = dc->device;
	struct kms_connector_state state;
	if (!link->has_bpc && device->kms->read(device->kms_data, dc->id, &state)) {
		drm_link_state_read(dc, &state);
	}
	struct lg_link_params max;
	bool inferred = !read_kernel_max(dc, &max);
	if (inferred && !infer_max(dc, &max)) {
		link->has_max = false;
		link->n_trained = 0;
		return;
	}
	if (link->has_max && same_link(&max, &link->max) &&
			inferred == link->max_inferred) {
		return;
	}
	// Before a sink that can be asked said its capabilities, a guess of
	// a moment.
	bool settled = link->caps_read || dc->aux_fd < 0;
	char buf[32];
	link_log(dc, settled ? LG_INFO : LG_DEBUG,
		"link maximum %s, %s; %" PRIu32 " bpc at most",
		dp_link_format(&max, buf, sizeof(buf)), inferred ?
		"inferred: the smallest link that keeps every listed mode" :
		"as the driver says", link->max_bpc);
	link->has_max = true;
	link->max = max;
	link->max_inferred = inferred;
	link->n_trained = 0;
}

/*
 * The maximum to choose within. One inferred is at least every link the
 * kernel was seen to train under it.
 */
static struct lg_link_params effective_max(const struct drm_link *link) {
	struct lg_link_params max = link->max;
	for (size_t i = 0; link->max_inferred && i < link->n_trained; i++) {
		const struct lg_link_params *trained = &link->trained[i].link;
		if (trained->rate_mbps > max.rate_mbps) {
			max.rate_mbps = trained->rate_mbps;
		}
		if (trained->lanes > max.lanes) {
			max.lanes = trained->lanes;
		}
	}
	return max;
}

/* i915's choice within what was read: the prediction, uncorrected. */
static bool predict(const struct drm_link *link, const struct lg_mode *mode,
		struct lg_link_params *params) {
	if (!link->has_max) {
		return false;
	}
	const struct lg_link_params max = effective_max(link);
	const struct dp_rates *sink = &link->caps.rates;
	struct dp_rates rates = { .len = 0 };
	for (size_t i = 0; i < sink->len && sink->mbps[i] <= max.rate_mbps; i++) {
		rates.mbps[rates.len++] = sink->mbps[i];
	}
	uint32_t bpp;
	return i915_choose_sst(mode, link->max_bpc, &rates, &max, params, &bpp);
}

static const struct drm_link_trained *find_trained(const struct drm_link *link,
		const struct lg_mode *mode) {
	for (size_t i = 0; i < link->n_trained; i++) {
		if (lg_mode_equal(&link->trained[i].mode, mode)) {
			return &link->trained[i];
		}
	}
	return NULL;
}

void drm_link_reset(struct drm_connector *dc) {
	dc->dp = (struct drm_link){ .stale = true, .max_bpc = DEFAULT_MAX_BPC };
	any_sink(&dc->dp.caps);
}

void drm_link_changed(struct drm_connector *dc) {
	dc->dp.stale = true;
}

void drm_link_state_read(struct drm_connector *dc,
		const struct kms_connector_state *state) {
	struct drm_link *link = &dc->dp;
	link->has_bpc = true;
	link->max_bpc = state->max_bpc != 0 ? state->max_bpc : DEFAULT_MAX_BPC;
	if (state->has_link_status && state->link_status == LG_LINK_STATUS_BAD) {
		// i915 lowered its maximum before it said BAD.
		link->stale = true;
	}
}

void drm_link_committed(struct drm_connector *dc, const struct lg_mode *mode) {
	struct drm_link *link = &dc->dp;
	link->has_lit = mode != NULL;
	if (mode != NULL) {
		link->lit = *mode;
	}
}

void drm_link_read_caps(struct drm_connector *dc) {
	struct drm_link *link = &dc->dp;
	if (link->caps_read || dc->aux_fd < 0) {
		return;
	}
	link->caps_read = true;
	const struct drm_device *device = dc->device;
	struct dpcd_caps_regs regs;
	int ret = aux_reader_read_caps(&dc->reader, device->aux, device->aux_data,
		dc->aux_fd, &regs);
	if (ret != 0) {
		link_log(dc, LG_INFO, "the sink's DPCD capabilities are not readable "
			"(%s): any 8b/10b rate and four lanes assumed", strerror(-ret));
		return;
	}
	struct dp_sink_caps caps;
	if (!dp_caps_decode(&regs, &caps)) {
		link_log(dc, LG_INFO, "the sink's DPCD capabilities hold no DisplayPort "
			"rate and lane count (MAX_LINK_RATE 0x%02x, MAX_LANE_COUNT 0x%02x): "
			"any 8b/10b rate and four lanes assumed",
			regs.base[DPCD_MAX_LINK_RATE], regs.base[DPCD_MAX_LANE_COUNT]);
		return;
	}
	link->caps = caps;
	link->stale = true;
	char buf[32];
	const struct lg_link_params top = {
		.lanes = link->caps.max_lanes,
		.rate_mbps = dp_rates_max(&link->caps.rates),
	};
	link_log(dc, LG_DEBUG, "the sink supports %zu link rates, up to %s",
		link->caps.rates.len, dp_link_format(&top, buf, sizeof(buf)));
}

void drm_link_read_back(struct drm_connector *dc,
		const struct lg_link_params *trained) {
	struct drm_link *link = &dc->dp;
	if (!link->has_lit || trained->lanes == 0 || trained->rate_mbps == 0) {
		return;
	}
	if (link->stale) {
		refresh(dc);
	}
	struct lg_link_params predicted = {0};
	if (predict(link, &link->lit, &predicted) && same_link(&predicted, trained)) {
		return;
	}
	const struct drm_link_trained *known = find_trained(link, &link->lit);
	if (known != NULL && same_link(&known->link, trained)) {
		return;
	}
	char mode[64], read[32], guess[32];
	link_log(dc, LG_DEBUG, "%s trained at %s, predicted %s: the sink's word "
		"kept for that mode", lg_mode_format(&link->lit, mode, sizeof(mode)),
		dp_link_format(trained, read, sizeof(read)),
		predicted.lanes != 0 ? dp_link_format(&predicted, guess, sizeof(guess)) :
		"none");
	size_t slot = known != NULL ? (size_t)(known - link->trained) :
		link->n_trained < DRM_LINK_TRAINED_MAX ? link->n_trained++ :
		DRM_LINK_TRAINED_MAX - 1;
	link->trained[slot] = (struct drm_link_trained){
		.mode = link->lit,
		.link = *trained,
	};
}

bool drm_link_choose(struct drm_connector *dc, const struct lg_mode *mode,
		struct lg_link_params *params) {
	struct drm_link *link = &dc->dp;
	if (link->stale) {
		refresh(dc);
	}
	const struct drm_link_trained *trained = find_trained(link, mode);
	if (trained != NULL) {
		*params = trained->link;
		return true;
	}
	return predict(link, mode, params);
}
