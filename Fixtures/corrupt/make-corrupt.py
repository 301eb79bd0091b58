#!/usr/bin/env python3
"""Builds the hostile movie files in this folder from scratch with `struct`.

Run `python3 Fixtures/corrupt/make-corrupt.py` (from anywhere); it rewrites every file below
and prints its name and size. Nothing is derived from MovieContainer's own writer, so the
files are an independent check on its reader (Tests/MovieContainerTests/
ReaderHostileInputTests.swift). "A minimal movie" below means ftyp 'qt  ', then moov with a
v0 mvhd (timescale 600) and one trak: tkhd v0 (track 1), mdia with mdhd (timescale 600) and
minf/stbl holding an empty stsd, stts, stsc, stsz and stco (one sample of 16 bytes in one
chunk at offset 36), with one table replaced as listed.

Files:
  truncated-moov.mov           ftyp, then a moov whose size (4096) claims more than the file
                               holds: the moov really holds only its mvhd.
  truncated-header.mov         ftyp, then 5 bytes: the file ends inside an atom header.
  atom-size-3.mov              ftyp, then a 'free' atom whose 32-bit size is 3 (< 8-byte header).
  child-size-3.mov             a moov whose first child declares size 3.
  largesize-below-16.mov       ftyp, then 'mdat' with size field 1 and a 64-bit size of 15
                               (< its 16-byte header).
  largesize-no-room.mov        ftyp, then 'mdat' with size field 1 and only 4 of the 8 bytes of
                               its 64-bit size before the end of the file.
  largesize-overflow.mov       ftyp, then 'mdat' with 64-bit size 0xFFFFFFFFFFFFFFFF (the end
                               offset overflows 64 bits), then 8 bytes of media.
  child-larger-than-parent.mov ftyp, then a 116-byte moov whose mvhd claims 200 bytes.
  size0-top-level.mov          a minimal movie followed by an 'mdat' of size 0 ("to the end of
                               the file") holding 16 bytes.
  size0-in-container.mov       ftyp; moov = mvhd + a 'free' child of size 0 holding 12 bytes
                               (runs to the end of moov); then a top-level 8-byte 'free'.
  stsz-huge-count.mov          a minimal movie whose 20-byte stsz (sample size 0) claims
                               0xFFFFFFFF entries.
  stts-huge-count.mov          likewise: a 16-byte stts claiming 0xFFFFFFFF entries.
  stco-huge-count.mov          likewise: a 16-byte stco claiming 0xFFFFFFFF entries.
  stsd-entry-size-huge.mov     a minimal movie whose stsd has one entry of declared size
                               0xFFFFFF00 with only 16 bytes present.
  deep-nesting.mov             moov = mvhd + trak/mdia/trak/mdia/... nested 20 containers deep.
  moov-without-mvhd.mov        ftyp, then a moov holding only an empty trak.
  random-bytes.bin             256 bytes from Python's random.Random(20240229).randbytes.
  empty.mov                    zero bytes.
  co64-offset-overflow.mov     a minimal movie whose chunk offset is a co64 entry of
                               0xFFFFFFFFFFFFFFFF: the sample's end passes 2^64.
"""
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def atom(kind, body=b""):
    return struct.pack(">I4s", 8 + len(body), kind) + body


def full(version=0, flags=0):
    return struct.pack(">I", version << 24 | flags)


IDENTITY = struct.pack(">9i", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
FTYP = atom(b"ftyp", b"qt  " + struct.pack(">I", 0) + b"qt  ")


def mvhd():
    return atom(b"mvhd", full() + struct.pack(">IIII", 0, 0, 600, 600) + struct.pack(">iH", 0x10000, 0x100)
                + bytes(10) + IDENTITY + bytes(24) + struct.pack(">I", 2))


def tkhd():
    return atom(b"tkhd", full(0, 3) + struct.pack(">IIIII", 0, 0, 1, 0, 600) + bytes(8)
                + struct.pack(">hhhH", 0, 0, 0, 0) + IDENTITY + struct.pack(">II", 320 << 16, 240 << 16))


def mdhd():
    return atom(b"mdhd", full() + struct.pack(">IIIIHH", 0, 0, 600, 20, 0x55C4, 0))


def table(kind, count, entries=b"", prefix=b""):
    return atom(kind, full() + prefix + struct.pack(">I", count) + entries)


def minimal_movie(stts=None, stsc=None, stsz=None, stco=None, stsd=None):
    stsd = stsd if stsd is not None else table(b"stsd", 0)
    stts = stts if stts is not None else table(b"stts", 1, struct.pack(">II", 1, 20))
    stsc = stsc if stsc is not None else table(b"stsc", 1, struct.pack(">III", 1, 1, 1))
    stsz = stsz if stsz is not None else table(b"stsz", 1, struct.pack(">I", 16), prefix=struct.pack(">I", 0))
    stco = stco if stco is not None else table(b"stco", 1, struct.pack(">I", 36))
    stbl = atom(b"stbl", stsd + stts + stsc + stsz + stco)
    trak = atom(b"trak", tkhd() + atom(b"mdia", mdhd() + atom(b"minf", stbl)))
    return FTYP + atom(b"moov", mvhd() + trak)


def nested(depth):
    inner = atom(b"free")
    for level in range(depth):
        inner = atom(b"trak" if level % 2 else b"mdia", inner)
    return inner


FILES = {
    "truncated-moov.mov": FTYP + struct.pack(">I4s", 4096, b"moov") + mvhd(),
    "truncated-header.mov": FTYP + b"\x00\x00\x00\x10m",
    "atom-size-3.mov": FTYP + struct.pack(">I4s", 3, b"free") + bytes(8),
    "child-size-3.mov": FTYP + atom(b"moov", struct.pack(">I4s", 3, b"mvhd") + bytes(8)),
    "largesize-below-16.mov": FTYP + struct.pack(">I4sQ", 1, b"mdat", 15) + bytes(8),
    "largesize-no-room.mov": FTYP + struct.pack(">I4sI", 1, b"mdat", 0),
    "largesize-overflow.mov": FTYP + struct.pack(">I4sQ", 1, b"mdat", 0xFFFFFFFFFFFFFFFF) + bytes(8),
    "child-larger-than-parent.mov": FTYP + atom(b"moov", struct.pack(">I4s", 200, b"mvhd") + mvhd()[8:]),
    "size0-top-level.mov": minimal_movie() + struct.pack(">I4s", 0, b"mdat") + bytes(range(16)),
    "size0-in-container.mov": FTYP + atom(b"moov", mvhd() + struct.pack(">I4s", 0, b"free") + bytes(12))
                              + atom(b"free"),
    "stsz-huge-count.mov": minimal_movie(stsz=table(b"stsz", 0xFFFFFFFF, prefix=struct.pack(">I", 0))),
    "stts-huge-count.mov": minimal_movie(stts=table(b"stts", 0xFFFFFFFF)),
    "stco-huge-count.mov": minimal_movie(stco=table(b"stco", 0xFFFFFFFF)),
    "stsd-entry-size-huge.mov": minimal_movie(
        stsd=table(b"stsd", 1, struct.pack(">I4s", 0xFFFFFF00, b"avc1") + bytes(8))),
    "deep-nesting.mov": FTYP + atom(b"moov", mvhd() + nested(20)),
    "moov-without-mvhd.mov": FTYP + atom(b"moov", atom(b"trak")),
    "random-bytes.bin": random.Random(20240229).randbytes(256),
    "empty.mov": b"",
    "co64-offset-overflow.mov": minimal_movie(stco=table(b"co64", 1, struct.pack(">Q", 0xFFFFFFFFFFFFFFFF))),
}

if __name__ == "__main__":
    for name, data in FILES.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")
