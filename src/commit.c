#include <wlr/interfaces/wlr_output.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/commit.h>
#include <linkguard/log.h>

static bool runs_mode_of(const struct wlr_output *output,
		const struct wlr_output_state *state) {
	if (state->mode_type == WLR_OUTPUT_STATE_MODE_FIXED) {
		return output->current_mode == state->mode;
	}
	return output->width == state->custom_mode.width &&
		output->height == state->custom_mode.height &&
		output->refresh == state->custom_mode.refresh;
}

bool lg_commit_request_state(struct wlr_output *output,
		const struct wlr_output_state *state, void *data) {
	bool enabling = !(state->committed & WLR_OUTPUT_STATE_ENABLED) ||
		state->enabled;
	if (!enabling || !(state->committed & WLR_OUTPUT_STATE_MODE) ||
			runs_mode_of(output, state)) {
		return wlr_output_commit_state(output, state);
	}

	struct wlr_output_state request;
	wlr_output_state_init(&request);
	if (state->mode_type == WLR_OUTPUT_STATE_MODE_FIXED) {
		wlr_output_state_set_mode(&request, state->mode);
	} else {
		wlr_output_state_set_custom_mode(&request, state->custom_mode.width,
			state->custom_mode.height, state->custom_mode.refresh);
	}
	wlr_output_send_request_state(output, &request);
	wlr_output_state_finish(&request);
	if (output->enabled && runs_mode_of(output, state)) {
		return true;
	}
	lg_log(LG_INFO, "%s: the compositor did not apply the requested mode: "
		"committing it directly", output->name);
	return wlr_output_commit_state(output, state);
}
