// The rig programs link libv4l2 and libasound directly; everything is in the header.
