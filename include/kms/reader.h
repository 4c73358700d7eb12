#ifndef KMS_READER_H
#define KMS_READER_H

/*
 * A sink's DPCD read off the event loop, with a deadline. The kernel's AUX
 * character device (drm_dp_aux_dev.c) offers no poll and ignores
 * O_NONBLOCK: a read blocks through each of its AUX transactions, each
 * bounded only by the driver's timeouts and retries, which a dock that
 * stopped answering stretches to minutes. A worker thread makes the read;
 * the event loop hears of its end through an eventfd, or gives up on it
 * at the deadline.
 */

#include <stdint.h>
#include <wayland-server-core.h>
#include <kms/aux.h>

/*
 * The one answer to a started read: 0 and the registers, the read's
 * negative errno, or -ETIMEDOUT when the deadline passed first.
 */
typedef void (*aux_reader_done_func)(void *data, int ret,
	const struct dpcd_regs *regs);

struct aux_reader;

struct aux_reader *aux_reader_create(struct wl_event_loop *loop,
	const struct aux_impl *impl, void *impl_data, uint32_t timeout_ms,
	aux_reader_done_func done, void *data);
/* Cancels a read under way and waits for its thread (aux_reader_cancel). */
void aux_reader_destroy(struct aux_reader *reader);
/*
 * Starts reading fd. Returns 0 (done is called later, once), -EBUSY while
 * a read whose deadline passed has not returned yet (a hung device costs
 * one thread and one timeout, not one per poll), or another negative errno.
 */
int aux_reader_start(struct aux_reader *reader, int fd);
/*
 * Stops a read under way without an answer, before its fd is closed: the
 * thread is cancelled and joined. The kernel acts on the cancellation
 * between two AUX transactions, so this waits for one at most.
 */
void aux_reader_cancel(struct aux_reader *reader);

#endif
