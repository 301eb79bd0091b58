#!/usr/bin/env python3
"""Generate a deterministic NMEA 0183 log of a ~180 s drive at 1 Hz.

Each second yields one $GPRMC and one $GPGGA sentence (fix quality 1,
8 satellites), starting 2026-06-01 12:00:00 UTC at 52.5200 N, 13.4050 E.
Intended for replay through gpsd with gpsfake in tests.

Usage: make-drive-nmea.py [OUTPUT]   (writes to stdout when OUTPUT is omitted)
"""
import datetime
import math
import sys

START = datetime.datetime(2026, 6, 1, 12, 0, 0)
START_LAT, START_LON = 52.5200, 13.4050
DURATION_S = 180
EARTH_RADIUS_M = 6371000.0

# Keyframes (second, speed km/h, course degrees); values are interpolated
# linearly in between. Courses are unwrapped (-45 == 315) so turns are smooth.
KEYFRAMES = [
    (0, 0, 90), (10, 0, 90),        # parked, facing east
    (30, 50, 90), (60, 50, 90),     # accelerate and cruise east
    (70, 25, 0),                    # slow left turn to north
    (100, 60, 0), (125, 60, 0),     # accelerate and cruise north
    (135, 30, -45), (155, 40, -45), # turn north-west
    (170, 0, -45), (180, 0, -45),   # brake to a stop
]


def profile(t):
    """Return (speed km/h, course degrees 0..360) at second t by interpolating KEYFRAMES."""
    for (t0, v0, c0), (t1, v1, c1) in zip(KEYFRAMES, KEYFRAMES[1:]):
        if t0 <= t <= t1:
            f = (t - t0) / (t1 - t0)
            return v0 + f * (v1 - v0), (c0 + f * (c1 - c0)) % 360
    return KEYFRAMES[-1][1], KEYFRAMES[-1][2] % 360


def nmea_coord(value, width):
    """Format decimal degrees as NMEA (d)ddmm.mmmm with exactly 4 decimals of minutes."""
    units = round(abs(value) * 600000)  # 1/10000ths of an arc minute
    deg, rem = divmod(units, 600000)
    return f"{deg:0{width}d}{rem // 10000:02d}.{rem % 10000:04d}"


def sentence(body):
    """Wrap a sentence body in '$' and '*XX' with its XOR checksum."""
    checksum = 0
    for ch in body.encode("ascii"):
        checksum ^= ch
    return f"${body}*{checksum:02X}"


def drive():
    """Yield NMEA sentences for every second of the drive, advancing the position by dead reckoning."""
    lat, lon = START_LAT, START_LON
    for t in range(DURATION_S):
        speed_kmh, course = profile(t)
        when = START + datetime.timedelta(seconds=t)
        hms, dmy = when.strftime("%H%M%S.00"), when.strftime("%d%m%y")
        pos = f"{nmea_coord(lat, 2)},N,{nmea_coord(lon, 3)},E"
        altitude = 34.0 + 0.05 * t  # gentle climb, metres above MSL
        yield sentence(f"GPRMC,{hms},A,{pos},{speed_kmh / 1.852:.2f},{course:.1f},{dmy},,,A")
        yield sentence(f"GPGGA,{hms},{pos},1,08,0.9,{altitude:.1f},M,40.0,M,,")
        # Move forward one second along the current course (flat-earth approximation).
        dist = speed_kmh / 3.6
        rad = math.radians(course)
        lat += math.degrees(dist * math.cos(rad) / EARTH_RADIUS_M)
        lon += math.degrees(dist * math.sin(rad) / (EARTH_RADIUS_M * math.cos(math.radians(lat))))


def main():
    """Write the log to argv[1] if given, else to stdout, with CRLF line endings."""
    text = "".join(line + "\r\n" for line in drive())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", newline="") as out:
            out.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
