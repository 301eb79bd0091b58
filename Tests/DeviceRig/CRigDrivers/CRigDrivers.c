// The rig programs link libv4l2 and libasound directly; the driver calls are in the header,
// vicodec's decoder in FWHTDecoder.c.
