#!/usr/bin/env python3
"""An overloaded recording side by side with peers: what each loses when the encoder cannot
keep up with the source.

    python3 Benchmarks/pressure-bench.py --runs 3 [--seconds 15] [--movrec PATH] [--tsv] [--json FILE]

Every variant records a 1920x1080, 30 fps test pattern for --seconds (default 15) through x264
preset `slow`, which a 2-core machine cannot encode in real time:

  no-degrade  movrec record --no-degrade   (loses frames where it must)
  degrade     movrec record --degrade      (planned even steps 30 -> 15 -> 10 fps)
  ffmpeg      ffmpeg -re, lavfi testsrc2   (falls behind real time instead of dropping)
  gstreamer   gst-launch-1.0 videotestsrc is-live=true, leaky queue before x264enc

Each run takes the variants in alternating order (forward, then reversed). For every movie
ffprobe gives the sorted packet times, from which: frames kept, the longest gap between frames
(ms), the uneven gaps (an interval not within 2 ms of 33.3, 66.7 or 100 ms: a random hole),
and for the peers the unplanned drops (the frames missing from even spacing; movrec reports its
own planned and unplanned drops on its result line). CPU is user+sys of the child, wall is the
child's wall time, and `behind` is how far behind real time ffmpeg ended (wall - seconds).
Prints the medians per variant with the min-max spread of each figure. Movies go into a temp
directory that is deleted.
"""
import argparse, json, os, re, resource, shutil, statistics, subprocess, sys, tempfile, time

FRAME_MS = 1000 / 30
FIGURES = ["frames", "longest_gap_ms", "uneven_gaps", "unplanned", "planned", "cpu_s", "wall_s", "behind_s"]


def commands(movrec, seconds, out):
    record = [movrec, "record", out, "--video", "testsrc", "--size", "1920x1080", "--fps", "30",
              "--preset", "slow", "--duration", str(seconds), "--quiet", "--overwrite"]
    return {
        "movrec --no-degrade": record + ["--no-degrade"],
        "movrec --degrade": record + ["--degrade"],
        "ffmpeg -re": ["ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi",
                       "-i", "testsrc2=size=1920x1080:rate=30", "-t", str(seconds),
                       "-c:v", "libx264", "-preset", "slow", "-f", "mov", out],
        "gstreamer": ["gst-launch-1.0", "-e", "videotestsrc", "is-live=true", f"num-buffers={30 * seconds}",
                      "!", "video/x-raw,width=1920,height=1080,framerate=30/1",
                      "!", "queue", "leaky=downstream", "max-size-buffers=4",
                      "!", "x264enc", "speed-preset=slow", "!", "h264parse", "!", "qtmux",
                      "!", "filesink", f"location={out}"],
    }


def movrec_drops(output):
    """(planned, unplanned) from movrec's result line: '... 259 dropped (243 planned, 16 unplanned); ...'."""
    lines = [l for l in output.splitlines() if re.search(r"\d+ frames, \d+ ms", l)]
    if not lines:
        return None
    m = re.search(r"(\d+) dropped(?: \((\d+) planned, (\d+) unplanned\))?", lines[-1])
    if not m:
        return 0, 0
    return (int(m[2]), int(m[3])) if m[2] else (0, int(m[1]))


def packet_figures(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "packet=pts_time", "-of", "csv=p=0", path],
                         capture_output=True, text=True, check=True).stdout
    times = sorted(float(t.strip(",")) for t in out.split() if t.strip(",") not in ("", "N/A"))
    gaps = [(b - a) * 1000 for a, b in zip(times, times[1:])]
    uneven = sum(1 for g in gaps if all(abs(g - k * FRAME_MS) > 2 for k in (1, 2, 3)))
    missing = sum(round(g / FRAME_MS) - 1 for g in gaps if abs(g - FRAME_MS) > 2)
    return {"frames": len(times), "longest_gap_ms": round(max(gaps, default=0), 1),
            "uneven_gaps": uneven, "missing": missing}


def run_one(name, cmd, out, seconds):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds * 8 + 60)
    except subprocess.TimeoutExpired as e:
        return {"error": f"timed out after {e.timeout:.0f} s", "cmd": cmd, "tail": ""}
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-5:])
    if p.returncode != 0 or not os.path.exists(out):
        return {"error": f"exit status {p.returncode}", "cmd": cmd, "tail": tail}
    r = packet_figures(out)
    os.remove(out)
    if name.startswith("movrec"):
        drops = movrec_drops(p.stdout + "\n" + p.stderr)
        if drops is None:
            return {"error": "no result line", "cmd": cmd, "tail": tail}
        r["planned"], r["unplanned"] = drops
    else:
        r["planned"], r["unplanned"] = 0, r["missing"]
    r.update(cpu_s=round(cpu, 2), wall_s=round(wall, 2),
             behind_s=round(wall - seconds, 2) if name.startswith("ffmpeg") else None)
    return r


def summarize(runs):
    s = {}
    for f in FIGURES:
        vals = [r[f] for r in runs if r.get(f) is not None]
        if vals:
            s[f] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals)}
    return s


def cell(fig):
    if not fig:
        return "-"
    fmt = lambda v: f"{v:g}" if isinstance(v, int) or v == int(v) else f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"
    return fmt(fig["median"]) + ("" if fig["min"] == fig["max"] else f" ({fmt(fig['min'])}-{fmt(fig['max'])})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=15)
    ap.add_argument("--movrec", default="Benchmarks/.build/release/movrec")
    ap.add_argument("--tsv", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="pressure-bench-")
    out = os.path.join(tmp, "out.mov")
    cmds = commands(a.movrec, a.seconds, out)
    results = {name: [] for name in cmds}
    failures = []
    try:
        for i in range(a.runs):
            order = list(cmds) if i % 2 == 0 else list(cmds)[::-1]
            for name in order:
                r = run_one(name, cmds[name], out, a.seconds)
                if "error" in r:
                    failures.append((i + 1, name, r))
                    print(f"run {i + 1} {name}: FAILED ({r['error']})", file=sys.stderr)
                else:
                    results[name].append(r)
                    print(f"run {i + 1} {name}: {r['frames']} frames, unplanned {r['unplanned']}, "
                          f"planned {r['planned']}, cpu {r['cpu_s']} s, wall {r['wall_s']} s", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    summary = {name: summarize(runs) for name, runs in results.items()}
    head = ["variant", "runs"] + FIGURES
    rows = [[name, str(len(results[name]))] + [cell(summary[name].get(f)) for f in FIGURES] for name in cmds]
    if a.tsv:
        for row in [head] + rows:
            print("\t".join(row))
    else:
        widths = [max(len(r[c]) for r in [head] + rows) for c in range(len(head))]
        for row in [head] + rows:
            print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
        print(f"median (min-max) of {a.runs} runs, {a.seconds} s each; unplanned = movrec's own count, "
              f"for peers frames missing from even spacing; behind = ffmpeg wall - {a.seconds} s")
    for run, name, r in failures:
        print(f"\nrun {run} {name} failed: {r['error']}\n  command: {' '.join(r['cmd'])}\n  tail: {r['tail']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seconds": a.seconds, "runs": a.runs, "medians": summary,
                       "per_run": results, "failures": [(n, v, r["error"]) for n, v, r in failures]}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
