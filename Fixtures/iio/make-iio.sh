#!/bin/sh
# Writes the sysfs-shaped accelerometer trees under Fixtures/iio/. Each attribute is one value
# and a newline, as the kernel's sysfs show functions print it. Re-running reproduces the files
# byte for byte. See Fixtures/README.md ("IIO accelerometers") for what each case is.
set -eu
cd "$(dirname "$0")"

# device CASE NAME: starts the tree Fixtures/iio/CASE/iio:device0 with its name file.
device() {
    dir="$1/iio:device0"
    rm -rf "$1"
    mkdir -p "$dir"
    printf '%s\n' "$2" >"$dir/name"
}

# attr CASE FILE VALUE: writes one attribute.
attr() {
    printf '%s\n' "$3" >"$1/iio:device0/$2"
}

# raw CASE X Y Z: the three raw readings.
raw() {
    attr "$1" in_accel_x_raw "$2"
    attr "$1" in_accel_y_raw "$3"
    attr "$1" in_accel_z_raw "$4"
}

# A 12-bit accelerometer at +/-2 g: 1024 counts per g, shared scale 9.80665 / 1024 m/s^2.
scale=0.009576806

device portrait kxcjk1013
raw portrait 12 1019 -31
attr portrait in_accel_scale $scale

device landscape-left kxcjk1013
raw landscape-left -1021 8 40
attr landscape-left in_accel_scale $scale

device landscape-right kxcjk1013
raw landscape-right 1018 -15 22
attr landscape-right in_accel_scale $scale

device upside-down kxcjk1013
raw upside-down -9 -1022 18
attr upside-down in_accel_scale $scale

device face-up kxcjk1013
raw face-up 5 -11 1026
attr face-up in_accel_scale $scale

# The chip sits on the board turned a quarter turn: its x axis points along the device's y
# (up) and its y axis along the device's -x (left). The device stands upright; the raw axes
# alone read as if it were turned 270 degrees. Rows are the device's x, y and z.
device with-mount-matrix bmc150_accel
raw with-mount-matrix 1020 6 -25
attr with-mount-matrix in_accel_scale $scale
attr with-mount-matrix in_accel_mount_matrix '0, -1, 0; 1, 0, 0; 0, 0, 1'

# An unsigned 12-bit converter centred on 2048 counts, 512 counts per g, trimmed per axis: each
# axis has its own scale, the offset is shared except for z. The shared in_accel_scale (the
# +/-4 g range's) must lose to the per-axis ones. The device is turned 90 degrees clockwise.
device per-axis-scale-with-offset adc_accel
raw per-axis-scale-with-offset 1536 2053 2075
attr per-axis-scale-with-offset in_accel_scale 0.038307
attr per-axis-scale-with-offset in_accel_x_scale 0.019146
attr per-axis-scale-with-offset in_accel_y_scale 0.019160
attr per-axis-scale-with-offset in_accel_z_scale 0.019153
attr per-axis-scale-with-offset in_accel_offset -2048
attr per-axis-scale-with-offset in_accel_z_offset -2061

# A dash-cam's accelerometer: 12 bits at +/-16 g, 128 counts per g, upright at rest. Its
# replay-* files list successive raw readings (x y z a line) that a test writes into the tree one
# after another: a bump (a jolt of 3.3 g from rest, then back) and a nudge (1.2 g, then back).
device bump mma8451
raw bump 2 128 -4
attr bump in_accel_scale 0.076614453
printf '%s\n' '2 128 -4' '1 127 -3' '2 128 -4' '180 420 240' '-60 20 90' '3 129 -5' '2 128 -4' '2 127 -4' >bump/replay-bump
printf '%s\n' '2 128 -4' '1 127 -3' '2 128 -4' '80 250 60' '2 128 -4' '1 128 -3' '2 128 -4' >bump/replay-nudge

# The same chip with its buffer, as the mma8452 driver offers it: each axis 14 bits, big-endian,
# left-justified in 16 (be:s14/16>>2; a raw value of 128 reads 512 before the shift), indexes 0-2,
# and a 64-bit timestamp at index 3; nothing enabled, no trigger set, and the device's own
# data-ready trigger (mma8451-dev0) beside it as trigger0. A test puts a FIFO where the
# character device would be and writes whole scans into it.
device bump-buffered mma8451
raw bump-buffered 2 128 -4
attr bump-buffered in_accel_scale 0.076614453
mkdir -p "bump-buffered/iio:device0/scan_elements" "bump-buffered/iio:device0/buffer" \
    "bump-buffered/iio:device0/trigger" bump-buffered/trigger0
for axis in x y z; do
    index=$(case $axis in x) echo 0;; y) echo 1;; z) echo 2;; esac)
    attr bump-buffered "scan_elements/in_accel_${axis}_en" 0
    attr bump-buffered "scan_elements/in_accel_${axis}_index" "$index"
    attr bump-buffered "scan_elements/in_accel_${axis}_type" 'be:s14/16>>2'
done
attr bump-buffered scan_elements/in_timestamp_en 0
attr bump-buffered scan_elements/in_timestamp_index 3
attr bump-buffered scan_elements/in_timestamp_type 'le:s64/64>>0'
attr bump-buffered buffer/enable 0
attr bump-buffered buffer/length 32
printf '\n' >"bump-buffered/iio:device0/trigger/current_trigger"
printf '%s\n' mma8451-dev0 >bump-buffered/trigger0/name
