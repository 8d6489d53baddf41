/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primebuf - tracepoints: the whole life of a buffer, for perf and
 * trace-cmd (system "primebuf")
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM primebuf

#if !defined(_PRIMEBUF_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _PRIMEBUF_TRACE_H_

#include <linux/device.h>
#include <linux/tracepoint.h>

#include "primebuf_internal.h"

DECLARE_EVENT_CLASS(primebuf_buffer,
		    TP_PROTO(struct primebuf_bo *bo),
		    TP_ARGS(bo),
		    TP_STRUCT__entry(__field(u64, id)
				     __field(size_t, size)
				     __field(unsigned int, placement)),
		    TP_fast_assign(__entry->id = bo->id;
				   __entry->size = bo->base.size;
				   __entry->placement = bo->backing.placement;),
		    TP_printk("buffer=%llu size=%zu placement=%s",
			      __entry->id, __entry->size,
			      primebuf_placement_name(__entry->placement)));

DEFINE_EVENT(primebuf_buffer, primebuf_export,
	     TP_PROTO(struct primebuf_bo *bo), TP_ARGS(bo));
DEFINE_EVENT(primebuf_buffer, primebuf_import,
	     TP_PROTO(struct primebuf_bo *bo), TP_ARGS(bo));
DEFINE_EVENT(primebuf_buffer, primebuf_alloc,
	     TP_PROTO(struct primebuf_bo *bo), TP_ARGS(bo));
DEFINE_EVENT(primebuf_buffer, primebuf_migrate,
	     TP_PROTO(struct primebuf_bo *bo), TP_ARGS(bo));
DEFINE_EVENT(primebuf_buffer, primebuf_release,
	     TP_PROTO(struct primebuf_bo *bo), TP_ARGS(bo));

DECLARE_EVENT_CLASS(primebuf_attachment,
		    TP_PROTO(struct primebuf_bo *bo,
			     struct primebuf_attachment *pa),
		    TP_ARGS(bo, pa),
		    TP_STRUCT__entry(__field(u64, id)
				     __field(size_t, size)
				     __array(char, dev, 32)
				     __field(unsigned int, nsegs)
				     __field(unsigned int, map_count)),
		    TP_fast_assign(__entry->id = bo->id;
				   __entry->size = bo->base.size;
				   strscpy(__entry->dev, dev_name(pa->dev),
					   sizeof(__entry->dev));
				   __entry->nsegs = pa->nsegs;
				   __entry->map_count = pa->map_count;),
		    TP_printk("buffer=%llu size=%zu dev=%s segments=%u maps=%u",
			      __entry->id, __entry->size, __entry->dev,
			      __entry->nsegs, __entry->map_count));

DEFINE_EVENT(primebuf_attachment, primebuf_attach,
	     TP_PROTO(struct primebuf_bo *bo, struct primebuf_attachment *pa),
	     TP_ARGS(bo, pa));
DEFINE_EVENT(primebuf_attachment, primebuf_detach,
	     TP_PROTO(struct primebuf_bo *bo, struct primebuf_attachment *pa),
	     TP_ARGS(bo, pa));
DEFINE_EVENT(primebuf_attachment, primebuf_map,
	     TP_PROTO(struct primebuf_bo *bo, struct primebuf_attachment *pa),
	     TP_ARGS(bo, pa));
DEFINE_EVENT(primebuf_attachment, primebuf_unmap,
	     TP_PROTO(struct primebuf_bo *bo, struct primebuf_attachment *pa),
	     TP_ARGS(bo, pa));

#endif /* _PRIMEBUF_TRACE_H_ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE primebuf_trace
#include <trace/define_trace.h>
