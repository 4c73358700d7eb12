#ifndef CORE_TEST_BUFFER_H
#define CORE_TEST_BUFFER_H

struct wlr_output;
struct wlr_output_state;

/*
 * Attaches to state a buffer for an atomic test of it on output, never
 * drawn: the kernel's check reads a buffer's size and format, not its
 * pixels (wlroots' swapchain manager tests its swapchains so). Without one,
 * wlroots draws a whole cleared frame for a test that lights the output or
 * changes its mode (output_ensure_buffer()), and drops a mode the output
 * already runs from the test, leaving nothing to ask the kernel. None when
 * the compositor attaches its own buffers (no wlr_output_init_render()) or
 * the output's swapchain cannot take the state: the test goes as wlroots
 * makes it then.
 */
void output_attach_test_buffer(struct wlr_output *output,
	struct wlr_output_state *state);

#endif
