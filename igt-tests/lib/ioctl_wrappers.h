/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ioctl_wrappers.h - where IGT GPU Tools declares igt_ioctl.
 */
#ifndef IOCTL_WRAPPERS_H
#define IOCTL_WRAPPERS_H

/*
 * igt_ioctl: the ioctl entry point every wrapper goes through; drmIoctl()
 * (which restarts on EINTR and EAGAIN) unless a test swaps it, per thread.
 */
extern __thread int (*igt_ioctl)(int fd, unsigned long request, void *arg);

#endif /* IOCTL_WRAPPERS_H */
