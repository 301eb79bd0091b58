#!/usr/bin/env python3
"""The S3 upload queue against moto on loopback: throughput, CPU while recording, latency.

    upload-bench.py [--movrec PATH] [--reps N] [--rec-reps N] [--rec-duration S]
                    [--tools movrec,aws,rclone-t2,rclone-t4] [--work DIR]

Why: the upload queue (`movrec upload`, `movrec record --upload`) should keep up with a
recording for little CPU. This measures it side by side with the usual CLIs, in one run:

1. Throughput: the same 20 copies of a ~10 MB 720p movie (~200 MB) uploaded by
   `movrec upload`, `aws s3 cp --recursive` (Debian's aws-cli 2, /usr/bin/aws) and `rclone copy`
   (--transfers 2 to match movrec's two concurrent requests, and rclone's default 4), alternated
   repetition by repetition (the order rotates), each to a fresh prefix; every tool uses 8 MiB
   parts above 8 MiB. Wall time, MB/s (10^6 bytes), client CPU (user+sys of the process tree,
   getrusage(RUSAGE_CHILDREN) deltas) per MB, and moto's CPU (/proc/PID/stat) for each run.
   One warm-up run per tool is not counted. Each run is checked: the prefix must hold every
   file with its size (and movrec's xattr is removed before each of its runs); then it is deleted.
2. Queue CPU while recording 720p30 at 8 Mbit/s in 5 s segments: `movrec record` with and
   without --upload, alternated. The queue's share is the difference of the medians of movrec's
   CPU seconds, as % of one core over the recording's duration. x264's run-to-run spread
   (+-1 CPU s) swamps it, so per-thread CPU is read too (/proc/PID/task, every 100 ms): the
   threads named movrec-upload<N>, and all threads but x264's workers. Target: <= 5 %.
   Dropped frames: any "K dropped" in movrec's output, and the frame count (1200 expected).
3. Latency from a segment's finish to its object being stored, p50/p95 over all segments of
   part 2's --upload runs: stderr lines are timestamped as they arrive; the finish is the
   `movrec: finished NAME` line, the store the `movrec: upload: stored KEY` line. The last
   segment has no such line (its summary goes to stdout only after the queue has drained), so
   it counts only in the second figure: from the file's mtime (wall clock) to the store.

moto is Tests/Upload/s3server.py (in-process moto, threaded werkzeug, no keep-alive), one
server per part, sharing the 2 cores with the client: it, not the client, likely limits
throughput. The bucket is "bench": movrec refuses names under 3 characters. Prints a JSON
summary, then Markdown tables. Temporary files go to a temp dir (--work keeps them).
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
S3SERVER = os.path.join(HERE, "..", "Tests", "Upload", "s3server.py")
AWS = "/usr/bin/aws"  # Debian's aws-cli 2.9.19 (PATH may hold pyenv's aws-cli 1 first)
RCLONE = "/usr/bin/rclone"
BUCKET = "bench"  # movrec wants 3-63 characters: "b" is refused
XATTR = "user.movierecorder.upload"
SEGMENTS = 20
CLK_TCK = os.sysconf("SC_CLK_TCK")
MB = 1e6


# ---------------------------------------------------------------- helpers

def percentile(values, p):
    """Linear interpolation between closest ranks (numpy's default)."""
    xs = sorted(values)
    k = (len(xs) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def spread(values):
    """median, min, max of a list."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def proc_cpu(stat_path):
    """utime+stime in seconds from a /proc/.../stat file (None once it is gone)."""
    try:
        with open(stat_path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def client_env(work):
    """The clients' environment: dummy keys (moto accepts any), temp aws/rclone config."""
    env = {k: v for k, v in os.environ.items() if k != "AWS_CA_BUNDLE"}  # rclone 1.60 fails on it
    env.update(AWS_ACCESS_KEY_ID="benchkey", AWS_SECRET_ACCESS_KEY="benchsecret",
               AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1",
               AWS_CONFIG_FILE=os.path.join(work, "aws-config"),
               AWS_SHARED_CREDENTIALS_FILE=os.path.join(work, "aws-credentials"),
               AWS_EC2_METADATA_DISABLED="true", NO_PROXY="127.0.0.1,localhost")
    return env


# ---------------------------------------------------------------- moto

class Moto:
    """Tests/Upload/s3server.py as a child; stops when its stdin pipe closes."""

    def __init__(self, work, name):
        self.log = os.path.join(work, f"{name}-requests.jsonl")
        self.proc = subprocess.Popen([sys.executable, S3SERVER, "--bucket", BUCKET, "--log", self.log],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        info = json.loads(self.proc.stdout.readline())
        self.endpoint = info["endpoint"]
        import boto3  # only for checking and emptying the bucket between runs
        self.s3 = boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                               aws_access_key_id="x", aws_secret_access_key="y")

    def cpu(self):
        return proc_cpu(f"/proc/{self.proc.pid}/stat")

    def requests(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def objects(self, prefix):
        pages = self.s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
        return [o for page in pages for o in page.get("Contents", [])]

    def check_and_empty(self, prefix, sizes):
        """True if PREFIX holds exactly the file sizes SIZES (by name); then delete them."""
        objs = self.objects(prefix)
        stored = sorted((os.path.basename(o["Key"]), o["Size"]) for o in objs)
        for o in objs:
            self.s3.delete_object(Bucket=BUCKET, Key=o["Key"])
        return stored == sorted(sizes.items())

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


# ---------------------------------------------------------------- part 1: throughput

def make_segments(movrec, work):
    """One 10 s 720p movie at 8 Mbit/s, copied SEGMENTS times: {name: size}."""
    src = os.path.join(work, "segments")
    os.makedirs(src)
    one = os.path.join(work, "one.mov")
    subprocess.run([movrec, "record", one, "--video", "testsrc", "--size", "1280x720",
                    "--duration", "10", "--bitrate", "8000", "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    for i in range(1, SEGMENTS + 1):
        shutil.copyfile(one, os.path.join(src, f"seg-{i:03d}.mov"))
    return src, {n: os.path.getsize(os.path.join(src, n)) for n in os.listdir(src)}


def write_configs(work, endpoint):
    """aws: 8 MiB threshold and parts; rclone: an s3 remote 'bench' on moto."""
    env = client_env(work)
    for key in ("multipart_threshold", "multipart_chunksize"):
        subprocess.run([AWS, "configure", "set", f"default.s3.{key}", "8MB"], env=env, check=True)
    with open(os.path.join(work, "rclone.conf"), "w") as f:
        f.write("[bench]\ntype = s3\nprovider = Other\nenv_auth = false\n"
                f"access_key_id = benchkey\nsecret_access_key = benchsecret\n"
                f"endpoint = {endpoint}\nregion = us-east-1\n")


def upload_command(tool, src, prefix, work, endpoint):
    if tool == "movrec":
        return [MOVREC, "upload", src, f"s3://{BUCKET}/{prefix}", "--upload-endpoint", endpoint, "--quiet"]
    if tool == "aws":
        return [AWS, "s3", "cp", src, f"s3://{BUCKET}/{prefix}", "--recursive",
                "--endpoint-url", endpoint, "--only-show-errors"]
    transfers = tool.split("-t")[1]  # rclone-t2, rclone-t4
    # --s3-no-head: rclone 1.60 HEADs each multipart object with ?versionId=null after upload,
    # which moto answers 400 (unversioned bucket), failing the copy; the others don't HEAD either.
    return [RCLONE, "--config", os.path.join(work, "rclone.conf"), "copy", src, f"bench:{BUCKET}/{prefix}",
            "--s3-chunk-size", "8M", "--s3-upload-cutoff", "8M", "--transfers", transfers,
            "--s3-no-head", "--retries", "1", "--low-level-retries", "1"]


def forget_uploads(src):
    """movrec records its progress in an xattr: remove it so the next run uploads everything."""
    for name in os.listdir(src):
        try:
            os.removexattr(os.path.join(src, name), XATTR)
        except OSError:
            pass


def upload_run(tool, src, sizes, prefix, work, moto):
    forget_uploads(src)
    cmd = upload_command(tool, src, prefix, work, moto.endpoint)
    n_req, moto0, cpu0, t0 = len(moto.requests()), moto.cpu(), children_cpu(), time.monotonic()
    p = subprocess.run(cmd, env=client_env(work), capture_output=True, text=True)
    wall, cpu, moto_cpu = time.monotonic() - t0, children_cpu() - cpu0, moto.cpu() - moto0
    reqs = moto.requests()[n_req:]
    ok = p.returncode == 0 and moto.check_and_empty(prefix, sizes)
    if not ok:
        print(f"{tool} {prefix}: rc {p.returncode}\n{p.stderr[-2000:]}", file=sys.stderr)
    megabytes = sum(sizes.values()) / MB
    return {"tool": tool, "ok": ok, "wall_s": wall, "mb_per_s": megabytes / wall, "cpu_s": cpu,
            "cpu_ms_per_mb": 1000 * cpu / megabytes, "moto_cpu_s": moto_cpu,
            "moto_core_pct": 100 * moto_cpu / wall, "requests": len(reqs),
            "max_put_bytes": max((r["content_length"] for r in reqs if r["method"] == "PUT"), default=0)}


def throughput(work, reps, tools):
    src, sizes = make_segments(MOVREC, work)
    moto = Moto(work, "throughput")
    write_configs(work, moto.endpoint)
    try:
        for tool in tools:  # warm-up, not counted: page cache, Python's imports
            upload_run(tool, src, sizes, f"warmup-{tool}/", work, moto)
        runs = []
        for rep in range(reps):
            order = tools[rep % len(tools):] + tools[:rep % len(tools)]
            for tool in order:
                runs.append(upload_run(tool, src, sizes, f"{tool}-{rep}/", work, moto))
                print(f"  {tool:10s} rep {rep}: {runs[-1]['wall_s']:.2f} s", file=sys.stderr)
    finally:
        moto.stop()
    return {"bytes": sum(sizes.values()), "files": len(sizes), "runs": runs,
            "summary": summarize_throughput(runs, tools)}


def summarize_throughput(runs, tools):
    keys = ("wall_s", "mb_per_s", "cpu_s", "cpu_ms_per_mb", "moto_cpu_s", "moto_core_pct", "requests", "max_put_bytes")
    out = {t: {k: spread([r[k] for r in runs if r["tool"] == t]) for k in keys} for t in tools}
    for t in tools:
        out[t]["all_ok"] = all(r["ok"] for r in runs if r["tool"] == t)
        out[t]["time_ratio"] = out[t]["wall_s"]["median"] / out["movrec"]["wall_s"]["median"]
        out[t]["cpu_per_mb_ratio"] = out[t]["cpu_ms_per_mb"]["median"] / out["movrec"]["cpu_ms_per_mb"]["median"]
    return out


# ---------------------------------------------------------------- parts 2 and 3: recording

class Lines:
    """Reads a pipe line by line, stamping each with time.monotonic() and time.time()."""

    def __init__(self, pipe):
        self.lines = []
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe):
        for line in pipe:
            self.lines.append((time.monotonic(), time.time(), line.rstrip("\n")))


def sample_threads(pid, done, out):
    """Last seen CPU seconds of each thread of PID, by tid, every 100 ms until DONE is set."""
    while not done.wait(0.1):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return
        for tid in tids:
            cpu = proc_cpu(f"/proc/{pid}/task/{tid}/stat")
            try:
                name = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            except OSError:
                continue
            if cpu is not None:
                out[tid] = (name, cpu)


def record_run(work, tag, seconds, moto):
    """One 720p30 8 Mbit/s recording in 5 s segments into a fresh directory; moto=None: no upload."""
    rec_dir = os.path.join(work, tag)
    os.makedirs(rec_dir)
    cmd = [MOVREC, "record", "seg-%03d.mov", "--video", "testsrc", "--size", "1280x720", "--fps", "30",
           "--bitrate", "8000", "--segment-duration", "5", "--duration", str(seconds)]
    if moto:
        cmd += ["--upload", f"s3://{BUCKET}/{tag}/", "--upload-endpoint", moto.endpoint]
    moto0, cpu0, t0 = moto and moto.cpu(), children_cpu(), time.monotonic()
    p = subprocess.Popen(cmd, cwd=rec_dir, env=client_env(work), text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err, threads, done = Lines(p.stdout), Lines(p.stderr), {}, threading.Event()
    sampler = threading.Thread(target=sample_threads, args=(p.pid, done, threads), daemon=True)
    sampler.start()
    rc = p.wait()
    wall, cpu = time.monotonic() - t0, children_cpu() - cpu0
    done.set()
    for t in (out.thread, err.thread, sampler):
        t.join()
    return analyse_recording(rec_dir, tag, seconds, rc, wall, cpu, out.lines, err.lines, threads,
                             moto and moto.cpu() - moto0, moto)


def analyse_recording(rec_dir, tag, seconds, rc, wall, cpu, out, err, threads, moto_cpu, moto):
    text = [line for _, _, line in out + err]
    dropped = sum(int(m.group(1)) for line in text for m in [re.search(r"(\d+) dropped", line)] if m)
    frames = sum(int(m.group(1)) for line in text for m in [re.search(r"\b(\d+) frames,", line)] if m)
    sizes = {n: os.path.getsize(os.path.join(rec_dir, n)) for n in os.listdir(rec_dir)}
    by_name = {}
    for name, c in threads.values():
        by_name[name] = by_name.get(name, 0) + c
    upload_cpu = sum(c for name, c in by_name.items() if re.fullmatch(r"movrec-upload\d+", name))
    # x264's worker threads inherit the name of the thread that opened the encoder, movrec-open:
    # they make nearly all the CPU, and its noise; the rest shows the queue's share far better.
    non_x264_cpu = sum(c for name, c in by_name.items() if name != "movrec-open")
    run = {"tag": tag, "upload": moto is not None, "rc": rc, "wall_s": wall, "cpu_s": cpu,
           "core_pct": 100 * cpu / seconds, "upload_threads_cpu_s": upload_cpu,
           "non_x264_threads_cpu_s": non_x264_cpu, "dropped": dropped,
           "frames": frames, "segments": len(sizes), "last_stderr": err[-1][2] if err else "",
           "moto_cpu_s": moto_cpu, "threads_cpu_s": by_name}
    if moto:
        run["stored_ok"] = moto.check_and_empty(f"{tag}/", sizes)
        run["latency"] = store_latencies(rec_dir, out + err)
    return run


def store_latencies(rec_dir, lines):
    """Per segment: ms from its finish (stderr line / file mtime) to its `stored` line."""
    finished, stored = {}, {}
    for mono, wall, line in lines:
        m = re.match(r"movrec: finished (\S+): ", line)  # not the last segment's: see the docstring
        if m:
            finished[m.group(1)] = mono
        m = re.match(r"movrec: upload: stored (\S+) \(", line)
        if m:
            stored[os.path.basename(m.group(1))] = (mono, wall)
    result = {}
    for name, (mono, wall) in stored.items():
        mtime = os.stat(os.path.join(rec_dir, name)).st_mtime_ns / 1e9
        result[name] = {"from_finish_line_ms": 1000 * (mono - finished[name]) if name in finished else None,
                        "from_mtime_ms": 1000 * (wall - mtime)}
    return result


def recording(work, reps, seconds):
    moto = Moto(work, "recording")
    runs = []
    try:
        for rep in range(reps):
            for upload in ((True, False) if rep % 2 == 0 else (False, True)):
                tag = f"live-{rep}" if upload else f"plain-{rep}"
                runs.append(record_run(work, tag, seconds, moto if upload else None))
                r = runs[-1]
                print(f"  {tag:8s}: cpu {r['cpu_s']:.2f} s, upload threads {r['upload_threads_cpu_s']:.2f} s,"
                      f" dropped {r['dropped']}", file=sys.stderr)
    finally:
        moto.stop()
    return {"duration_s": seconds, "runs": runs, "summary": summarize_recording(runs, seconds)}


def latency_stats(ms):
    return {"segments": len(ms), "p50": percentile(ms, 50), "p95": percentile(ms, 95), "max": max(ms)}


def summarize_recording(runs, seconds):
    up = [r for r in runs if r["upload"]]
    plain = [r for r in runs if not r["upload"]]
    queue_cpu = statistics.median(r["cpu_s"] for r in up) - statistics.median(r["cpu_s"] for r in plain)
    paired = [u["cpu_s"] - p["cpu_s"] for u, p in zip(up, plain)]  # same repetition, back to back
    non_x264 = (statistics.median(r["non_x264_threads_cpu_s"] for r in up)
                - statistics.median(r["non_x264_threads_cpu_s"] for r in plain))
    lat = [v for r in up for v in r["latency"].values()]
    finish = [v["from_finish_line_ms"] for v in lat if v["from_finish_line_ms"] is not None]
    mtime = [v["from_mtime_ms"] for v in lat]
    return {
        "upload": {k: spread([r[k] for r in up]) for k in ("cpu_s", "core_pct", "non_x264_threads_cpu_s", "upload_threads_cpu_s", "dropped", "moto_cpu_s")},
        "plain": {k: spread([r[k] for r in plain]) for k in ("cpu_s", "core_pct", "non_x264_threads_cpu_s", "dropped")},
        "queue_cpu_s": queue_cpu,
        "queue_core_pct": 100 * queue_cpu / seconds,
        "paired_diff_cpu_s": paired,
        "non_x264_diff_cpu_s": non_x264,
        "non_x264_diff_core_pct": 100 * non_x264 / seconds,
        "paired_diff_core_pct": spread([100 * d / seconds for d in paired]),
        "upload_threads_core_pct": 100 * statistics.median(r["upload_threads_cpu_s"] for r in up) / seconds,
        "target_core_pct": 5.0,
        "all_ok": all(r["rc"] == 0 for r in runs) and all(r["stored_ok"] for r in up),
        "latency_ms": {"finish_line": latency_stats(finish), "mtime": latency_stats(mtime)},
    }


# ---------------------------------------------------------------- report

def fmt(s, digits=2):
    return f"{s['median']:.{digits}f} ({s['min']:.{digits}f}–{s['max']:.{digits}f})"


def throughput_table(t, reps):
    lines = [f"Throughput: {t['files']} files, {t['bytes'] / MB:.1f} MB, to moto on loopback; "
             f"median (min–max) of {reps} runs", "",
             "| tool | wall s | MB/s | client CPU ms/MB | moto CPU s | moto % of a core | requests "
             "| time ÷ movrec | CPU/MB ÷ movrec |", "|---|---|---|---|---|---|---|---|---|"]
    for tool, s in t["summary"].items():
        lines.append(f"| {tool}{'' if s['all_ok'] else ' (FAILED runs)'} | {fmt(s['wall_s'])} "
                     f"| {fmt(s['mb_per_s'], 1)} | {fmt(s['cpu_ms_per_mb'], 1)} | {fmt(s['moto_cpu_s'], 1)} "
                     f"| {fmt(s['moto_core_pct'], 0)} | {s['requests']['median']:.0f} "
                     f"| {s['time_ratio']:.2f} | {s['cpu_per_mb_ratio']:.2f} |")
    return lines


def recording_table(r, reps):
    s = r["summary"]

    def row(label, m, upload):
        return (f"| {label} | {fmt(m['cpu_s'])} | {fmt(m['core_pct'], 1)} | {fmt(m['non_x264_threads_cpu_s'])} "
                f"| {fmt(m['upload_threads_cpu_s']) if upload else '–'} | {fmt(m['dropped'], 0)} |")

    ok = max(s["non_x264_diff_core_pct"], s["upload_threads_core_pct"]) <= s["target_core_pct"]
    return ["", f"Recording 720p30, 8 Mbit/s, 5 s segments, {r['duration_s']} s; median (min–max) of {reps} runs each",
            "", "| | movrec CPU s | % of one core | non-x264 threads CPU s | upload threads CPU s | dropped frames |",
            "|---|---|---|---|---|---|", row("with --upload", s["upload"], True), row("without", s["plain"], False),
            "", "Queue share, % of one core over the recording:",
            f"- whole process, difference of medians: {s['queue_core_pct']:.1f} % "
            f"(paired by repetition: {fmt(s['paired_diff_core_pct'], 1)} %; x264's run-to-run noise)",
            f"- threads other than x264's, difference of medians: {s['non_x264_diff_core_pct']:.2f} %",
            f"- the movrec-upload threads: {s['upload_threads_core_pct']:.2f} %",
            f"- target ≤ {s['target_core_pct']:.0f} % (on the last two): {'PASS' if ok else 'FAIL'}"]


def latency_table(r):
    lat = r["summary"]["latency_ms"]
    lines = ["", "Segment finish → object stored (all segments of the --upload runs):", "",
             "| finish taken from | segments | p50 ms | p95 ms | max ms |", "|---|---|---|---|---|"]
    for k, label in (("finish_line", "`movrec: finished` stderr line"), ("mtime", "file mtime (wall clock)")):
        v = lat[k]
        lines.append(f"| {label} | {v['segments']} | {v['p50']:.0f} | {v['p95']:.0f} | {v['max']:.0f} |")
    return lines


def markdown(result):
    return "\n".join(throughput_table(result["throughput"], result["reps"])
                     + recording_table(result["recording"], result["rec_reps"])
                     + latency_table(result["recording"]))


def main():
    global MOVREC
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--movrec", default="/tmp/movrec-upload-snapshot")
    ap.add_argument("--reps", type=int, default=5, help="throughput runs per tool")
    ap.add_argument("--rec-reps", type=int, default=3, help="recordings with and without --upload")
    ap.add_argument("--rec-duration", type=int, default=40, help="seconds per recording")
    ap.add_argument("--tools", default="movrec,aws,rclone-t2,rclone-t4")
    ap.add_argument("--work", help="keep temporary files here (default: a temp dir, removed)")
    ap.add_argument("--tsv", action="store_true", help="rows for Benchmarks/run on stdout, tables on stderr")
    args = ap.parse_args()
    MOVREC = os.path.abspath(args.movrec)  # the runs change directory
    work = args.work or tempfile.mkdtemp(prefix="upload-bench-")
    os.makedirs(work, exist_ok=True)
    started = time.monotonic()
    try:
        print("throughput ...", file=sys.stderr)
        result = {"reps": args.reps, "rec_reps": args.rec_reps,
                  "throughput": throughput(work, args.reps, args.tools.split(","))}
        print("recording ...", file=sys.stderr)
        result["recording"] = recording(work, args.rec_reps, args.rec_duration)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    result["elapsed_s"] = time.monotonic() - started
    if args.tsv:
        print(markdown(result), file=sys.stderr)
        print("\n".join("\t".join(str(v) for v in row) for row in tsv_rows(result)))
        return
    print(json.dumps(result, indent=1))
    print()
    print(markdown(result))


def tsv_rows(result):
    """The medians Benchmarks/run reports: per tool, the queue's share while recording, latency."""
    rows = []
    for tool, s in result["throughput"]["summary"].items():
        rows.append(("throughput", tool, s["wall_s"]["median"], s["mb_per_s"]["median"], s["cpu_ms_per_mb"]["median"],
                     s["time_ratio"], s["cpu_per_mb_ratio"], int(s["all_ok"])))
    r = result["recording"]["summary"]
    rows.append(("recording", r["upload_threads_core_pct"], r["non_x264_diff_core_pct"], r["queue_core_pct"],
                 r["upload"]["dropped"]["max"], r["plain"]["dropped"]["max"], int(r["all_ok"])))
    lat = r["latency_ms"]["finish_line"]
    rows.append(("latency", lat["p50"], lat["p95"], lat["max"], lat["segments"]))
    return rows


MOVREC = None
if __name__ == "__main__":
    main()
