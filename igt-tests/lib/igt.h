/* SPDX-License-Identifier: GPL-2.0 */
/*
 * igt.h - umbrella header, as in IGT GPU Tools: a test includes "igt.h" and
 * gets the core framework, the DRM helpers and the ioctl wrappers. Upstream
 * pulls in many more headers (KMS, framebuffers, Intel specifics); a test
 * that builds here uses none of those.
 */
#ifndef IGT_H
#define IGT_H

#include "drmtest.h"
#include "igt_aux.h"
#include "igt_core.h"
#include "ioctl_wrappers.h"

#endif /* IGT_H */
