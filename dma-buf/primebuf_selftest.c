// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf_selftest - what the test suite needs of primebuf and no user
 * does, in a module of its own that is built with the others but never
 * installed: a test importer, a test exporter and the fault injection
 * knobs.
 *
 * /sys/kernel/debug/primebuf_selftest/test_importer is a DMA device of its
 * own that root can point at any dma-buf fd, for what userspace cannot do
 * through a driver: hold a mapping for as long as a test needs, and time
 * map/unmap cycles without a job around them.
 *
 *   echo "hold FD" > test_importer     attach, map, keep the mapping
 *   echo release > test_importer       unmap, detach, drop the buffer
 *   echo "bench FD N" > test_importer  attach, time the first map and N
 *                                      map/unmap cycles, detach
 *   cat test_importer                  state and the last bench figures
 *
 * .../test_exporter exports dma-bufs of any size, page-aligned or not, as
 * a foreign exporter may: ioctl(fd, PRIMEBUF_SELFTEST_EXPORT, size)
 * returns a new dma-buf fd of @size bytes (1 to 1 MiB), backed by zeroed,
 * physically contiguous pages.
 *
 * Fault injection: writing N to fail_alloc, fail_attach, fail_map or
 * fail_vmap (same folder) makes the next N backing allocations,
 * attaches, device maps of primebuf buffers, or vmaps of primebuf GEM
 * objects (own buffers and imports, through their driver) fail with
 * -ENOMEM, as if memory ran out.  primebuf itself only keeps the
 * counters its injection points consume.
 */

#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "primebuf_internal.h"

/* Protects every field of primebuf_test. */
static DEFINE_MUTEX(primebuf_test_lock);

static struct {
	struct platform_device *pdev;
	struct dma_buf *held;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	u64 bench_size;
	u64 bench_first_ns;
	u64 bench_cached_ns;
	unsigned long bench_iterations;
} primebuf_test;

static const char * const primebuf_fail_names[PRIMEBUF_FAIL_COUNT] = {
	[PRIMEBUF_FAIL_ALLOC] = "fail_alloc",
	[PRIMEBUF_FAIL_ATTACH] = "fail_attach",
	[PRIMEBUF_FAIL_MAP] = "fail_map",
	[PRIMEBUF_FAIL_VMAP] = "fail_vmap",
	[PRIMEBUF_FAIL_JOB_HANG] = "hang_jobs",
};

static struct dentry *primebuf_selftest_dir;

/* ioctl of test_exporter: the size in bytes as argument, a dma-buf fd back */
#define PRIMEBUF_SELFTEST_EXPORT	_IO('P', 0x01)
#define PRIMEBUF_SELFTEST_EXPORT_MAX	SZ_1M

static void primebuf_test_release_locked(void)
{
	lockdep_assert_held(&primebuf_test_lock);

	if (!primebuf_test.held)
		return;
	dma_buf_unmap_attachment_unlocked(primebuf_test.attach,
					  primebuf_test.sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(primebuf_test.held, primebuf_test.attach);
	dma_buf_put(primebuf_test.held);
	primebuf_test.held = NULL;
	primebuf_test.attach = NULL;
	primebuf_test.sgt = NULL;
}

static int primebuf_test_hold(int fd)
{
	struct dma_buf_attachment *attach;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	int ret;

	if (primebuf_test.held)
		return -EBUSY;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	attach = dma_buf_attach(dmabuf, &primebuf_test.pdev->dev);
	if (IS_ERR(attach)) {
		ret = PTR_ERR(attach);
		goto out_put;
	}
	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto out_detach;
	}

	primebuf_test.held = dmabuf;
	primebuf_test.attach = attach;
	primebuf_test.sgt = sgt;
	return 0;

out_detach:
	dma_buf_detach(dmabuf, attach);
out_put:
	dma_buf_put(dmabuf);
	return ret;
}

static int primebuf_test_bench(int fd, unsigned long iterations)
{
	struct dma_buf_attachment *attach;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	unsigned long i;
	ktime_t t0, t1;
	int ret = 0;

	if (!iterations || iterations > 10000000)
		return -EINVAL;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	attach = dma_buf_attach(dmabuf, &primebuf_test.pdev->dev);
	if (IS_ERR(attach)) {
		ret = PTR_ERR(attach);
		goto out_put;
	}

	t0 = ktime_get();
	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	t1 = ktime_get();
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto out_detach;
	}
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	primebuf_test.bench_first_ns = ktime_to_ns(ktime_sub(t1, t0));

	t0 = ktime_get();
	for (i = 0; i < iterations; i++) {
		sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
		if (IS_ERR(sgt)) {
			ret = PTR_ERR(sgt);
			goto out_detach;
		}
		dma_buf_unmap_attachment_unlocked(attach, sgt,
						  DMA_BIDIRECTIONAL);
		cond_resched();
	}
	t1 = ktime_get();
	primebuf_test.bench_cached_ns = ktime_to_ns(ktime_sub(t1, t0));
	primebuf_test.bench_iterations = iterations;
	primebuf_test.bench_size = dmabuf->size;

out_detach:
	dma_buf_detach(dmabuf, attach);
out_put:
	dma_buf_put(dmabuf);
	return ret;
}

static ssize_t primebuf_test_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	unsigned long iterations;
	char buf[64];
	int fd, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	mutex_lock(&primebuf_test_lock);
	if (sscanf(buf, "hold %d", &fd) == 1)
		ret = primebuf_test_hold(fd);
	else if (sscanf(buf, "bench %d %lu", &fd, &iterations) == 2)
		ret = primebuf_test_bench(fd, iterations);
	else if (sysfs_streq(buf, "release"))
		ret = primebuf_test.held ? 0 : -ENOENT;
	else
		ret = -EINVAL;
	if (!ret && sysfs_streq(buf, "release"))
		primebuf_test_release_locked();
	mutex_unlock(&primebuf_test_lock);

	return ret ? ret : len;
}

static int primebuf_test_show(struct seq_file *m, void *unused)
{
	mutex_lock(&primebuf_test_lock);
	seq_printf(m, "held: %d\n", primebuf_test.held ? 1 : 0);
	seq_printf(m, "held_segments: %u\n",
		   primebuf_test.sgt ? primebuf_test.sgt->nents : 0);
	seq_printf(m, "bench_size: %llu\n", primebuf_test.bench_size);
	seq_printf(m, "bench_iterations: %lu\n",
		   primebuf_test.bench_iterations);
	seq_printf(m, "bench_first_map_ns: %llu\n",
		   primebuf_test.bench_first_ns);
	seq_printf(m, "bench_cached_cycles_ns: %llu\n",
		   primebuf_test.bench_cached_ns);
	mutex_unlock(&primebuf_test_lock);
	return 0;
}

static int primebuf_test_open(struct inode *inode, struct file *file)
{
	return single_open(file, primebuf_test_show, NULL);
}

static const struct file_operations primebuf_test_fops = {
	.owner = THIS_MODULE,
	.open = primebuf_test_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = primebuf_test_write,
	.release = single_release,
};

/* ----------------------------------------------------------------------
 * The test exporter
 */

static struct sg_table *primebuf_export_map(struct dma_buf_attachment *attach,
					    enum dma_data_direction dir)
{
	struct page *pages = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret)
		goto err_free;
	sg_set_page(sgt->sgl, pages, PAGE_ALIGN(attach->dmabuf->size), 0);
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret)
		goto err_table;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void primebuf_export_unmap(struct dma_buf_attachment *attach,
				  struct sg_table *sgt,
				  enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void primebuf_export_release(struct dma_buf *dmabuf)
{
	__free_pages(dmabuf->priv, get_order(dmabuf->size));
}

static const struct dma_buf_ops primebuf_export_ops = {
	.map_dma_buf = primebuf_export_map,
	.unmap_dma_buf = primebuf_export_unmap,
	.release = primebuf_export_release,
};

static long primebuf_export_ioctl(struct file *file, unsigned int cmd,
				  unsigned long size)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dmabuf;
	struct page *pages;
	int fd;

	if (cmd != PRIMEBUF_SELFTEST_EXPORT)
		return -ENOTTY;
	if (!size || size > PRIMEBUF_SELFTEST_EXPORT_MAX)
		return -EINVAL;

	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, get_order(size));
	if (!pages)
		return -ENOMEM;
	exp_info.ops = &primebuf_export_ops;
	exp_info.size = size;
	exp_info.flags = O_RDWR;
	exp_info.priv = pages;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		__free_pages(pages, get_order(size));
		return PTR_ERR(dmabuf);
	}
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dmabuf);
	return fd;
}

static const struct file_operations primebuf_export_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = primebuf_export_ioctl,
	.llseek = noop_llseek,
};

static int __init primebuf_selftest_init(void)
{
	struct platform_device *pdev;
	int ret, i;

	pdev = platform_device_register_simple("primebuf-selftest", -1, NULL,
					       0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret) {
		platform_device_unregister(pdev);
		return ret;
	}
	primebuf_test.pdev = pdev;

	primebuf_selftest_dir = debugfs_create_dir("primebuf_selftest", NULL);
	debugfs_create_file("test_importer", 0600, primebuf_selftest_dir, NULL,
			    &primebuf_test_fops);
	debugfs_create_file("test_exporter", 0600, primebuf_selftest_dir, NULL,
			    &primebuf_export_fops);
	for (i = 0; i < PRIMEBUF_FAIL_COUNT; i++)
		debugfs_create_atomic_t(primebuf_fail_names[i], 0600,
					primebuf_selftest_dir,
					primebuf_fail_counter(i));
	return 0;
}

static void __exit primebuf_selftest_exit(void)
{
	int i;

	debugfs_remove_recursive(primebuf_selftest_dir);
	/* Disarm what a test left, so the next load starts clean. */
	for (i = 0; i < PRIMEBUF_FAIL_COUNT; i++)
		atomic_set(primebuf_fail_counter(i), 0);
	mutex_lock(&primebuf_test_lock);
	primebuf_test_release_locked();
	mutex_unlock(&primebuf_test_lock);
	platform_device_unregister(primebuf_test.pdev);
}

module_init(primebuf_selftest_init);
module_exit(primebuf_selftest_exit);

MODULE_DESCRIPTION("primebuf test importer, exporter and fault injection, for the test suite only");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("DMA_BUF");
MODULE_IMPORT_NS("PRIMEBUF");
