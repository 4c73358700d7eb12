/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef LG_LINK_FAULT_H
#define LG_LINK_FAULT_H

/*
 * What fault.c (the triggers) asks of measure.c (the figures the
 * compositor comparisons read).
 */

struct drm_connector;

/*
 * Starts a measurement on connector: its CRTCs' modesets are counted and
 * the clock waits for the next injected failure.
 */
int lg_measure_mark(struct drm_connector *connector);

/* A failure was injected on connector: the first one after a mark starts the clock. */
void lg_measure_failure(struct drm_connector *connector);

/* Puts the CRTCs' helper vtables back. */
void lg_measure_exit(void);

#endif
