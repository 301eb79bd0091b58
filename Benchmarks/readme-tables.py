# Renders the README's benchmark tables from Benchmarks/results.json.
import json, sys
d = json.load(open(sys.argv[1]))
m = d['machine']
out = []
out.append(f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory'].split(':')[1].strip()} RAM, Linux {m['kernel']}; "
           f"{m['x264']}, {' '.join(m['ffmpeg'].split()[:3])}, GStreamer {m['gstreamer'].split()[-1]}, {m['swift'].split(' (')[0]}. "
           f"Medians of {int(d['runs'])} alternated runs" + (" (more in cells marked †)." if any('confirmation' in c for c in d['encode'] + d['mux']) else "."))
out.append("")
out.append("| a. encode cell | library (API) vs x264 CLI | `movrec record` vs x264 CLI | library vs ffmpeg | GStreamer vs x264 CLI | ffmpeg vs x264 CLI | x264 CLI vs itself (control) | peak RSS: library / x264 CLI / ffmpeg (MiB) |")
out.append("|---|---|---|---|---|---|---|---|")
def vs_x264(k, name):
    # A figure measured again (a library figure of the cell had missed a target) shows the
    # first rounds' figure after it.
    v = k[name]
    text = f"{v['speedVsX264']:.3f}×"
    return text + (f" (first {v['speedVsX264FirstRuns']:.3f}×)" if 'speedVsX264FirstRuns' in v else "")
def more_runs(cells):
    # The rounds a cell measured again got (the same for every such cell of a case), or None.
    return next((int(c['confirmation']['moreRuns']) for c in cells if 'confirmation' in c), None)
for c in d['encode']:
    k = c['contenders']
    out.append(f"| {c['cell']} ({c['frames']} frames){' †' if 'confirmation' in c else ''} | {vs_x264(k, 'api')} | {vs_x264(k, 'movrec')} | "
               f"{k['api']['speedVsFFmpeg']:.3f}×"
               + (f" (first {k['api']['speedVsFFmpegFirstRuns']:.3f}×)" if 'confirmation' in c else "")
               + f" | {vs_x264(k, 'gstreamer')} | {vs_x264(k, 'ffmpeg')} | "
               + (f"{vs_x264(k, 'x264 again')} | " if 'x264 again' in k else "— | ")
               + f"{k['api']['peakRSSMiB']:.1f} / {k['x264']['peakRSSMiB']:.1f} / {k['ffmpeg']['peakRSSMiB']:.1f} |")
more = more_runs(d['encode'])
if more:
    out.append("")
    out.append(f"† A library figure had missed a target after {int(d['runs'])} runs, so the whole cell was measured again "
               f"for {more} more alternated rounds; its figures are medians over all {int(d['runs']) + more} paired runs, "
               f"with the first {int(d['runs'])} runs' figure in brackets.")
out.append("")
if 'cameraFormats' in d:
    cf = d['cameraFormats']
    out.append("| a2. camera cell | library vs limit | library vs ffmpeg | library vs GStreamer | ffmpeg / GStreamer vs limit | x264 CLI vs itself | limit wall (MJPEG: the faster per round of x264 + TurboJPEG and GStreamer) | library CPU beyond x264 (+ TurboJPEG) | conversion hold (mean / max) | peak RSS: library / x264 CLI (MiB) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for c in cf['cells']:
        k = c['contenders']
        limit = f"{c['limitWallSeconds']:.3f} s"
        if 'tjdecode' in k:
            serial = c.get('serialLimitWallSeconds', k['x264']['wallSeconds'] + k['tjdecode']['wallSeconds'])
            limit += f" (serial {k['x264']['wallSeconds']:.3f} + {k['tjdecode']['wallSeconds']:.3f} = {serial:.3f}"
            if 'limitIsGStreamerRounds' in c:
                limit += f"; GStreamer faster in {c['limitIsGStreamerRounds']:.0f} rounds"
            limit += ")"
        hold = f"{k['api']['holdMeanMs']:.2f} / {k['api']['holdMaxMs']:.2f} ms" if k['api']['holdMeanMs'] > 0 else "— (lent, no conversion)"
        again = c.get('confirmation')
        firsts = (f" ({again['speedVsLimitFirstRuns']:.3f}×)", f" ({again['speedVsFFmpegFirstRuns']:.3f}×)",
                  f" ({again['speedVsGStreamerFirstRuns']:.3f}×)") if again else ("", "", "")
        out.append(f"| {c['cell']}{' †' if again else ''} ({int(c['frames'])} frames) | {c['speedVsLimit']:.3f}×{firsts[0]} | "
                   f"{c['speedVsFFmpeg']:.3f}×{firsts[1]} | {c['speedVsGStreamer']:.3f}×{firsts[2]} | "
                   f"{c['ffmpegVsLimit']:.3f}× / {c['gstreamerVsLimit']:.3f}× | {c['controlVsX264']:.3f}× | {limit} | {c['extraCPUMsPerFrame']:.2f} ms/frame | {hold} | "
                   f"{k['api']['peakRSSMiB']:.1f} / {k['x264']['peakRSSMiB']:.1f} |")
    camera_more = next((c['confirmation']['moreRuns'] for c in cf['cells'] if 'confirmation' in c), None)
    if camera_more:
        out.append("")
        out.append(f"† measured again for {camera_more:.0f} more alternated rounds, as in case a; the first {int(d['runs'])} runs' figure in brackets.")
    out.append("")
    out.append("| a2. conversion alone (ms per picture) | stage, warm | libv4lconvert, warm | ratio | stage, cold | libv4lconvert, cold | ratio |")
    out.append("|---|---|---|---|---|---|---|")
    import math
    for r in cf['conversion']:
        def f(v): return "refuses" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"
        def ratio(a, b): return "—" if b is None or (isinstance(b, float) and math.isnan(b)) else f"{b / a:.2f}×"
        out.append(f"| {r['cell']} | {f(r['stageWarmMs'])} | {f(r['v4lconvertWarmMs'])} | {ratio(r['stageWarmMs'], r['v4lconvertWarmMs'])} | "
                   f"{f(r['stageMs'])} | {f(r['v4lconvertMs'])} | {ratio(r['stageMs'], r['v4lconvertMs'])} |")
    out.append("")
out.append("| b. mux | `movrec mux` vs cp | ffmpeg vs cp | GStreamer vs cp | movrec mux wall |")
out.append("|---|---|---|---|---|")
for c in d['mux']:
    k = c['contenders']
    first = (f" (first {k['movrec mux']['speedVsCopyFirstRuns']:.3f}×)" if 'speedVsCopyFirstRuns' in k['movrec mux'] else "")
    out.append(f"| {c['cell']}{' †' if first else ''} | {k['movrec mux']['speedVsCopy']:.3f}×{first} | {k['ffmpeg']['speedVsCopy']:.3f}× | {k['gstreamer']['speedVsCopy']:.3f}× | {k['movrec mux']['wallSeconds']*1000:.0f} ms |")
mux_more = more_runs(d['mux'])
if mux_more:
    out.append("")
    out.append(f"† Below 0.8× after {3 * int(d['runs'])} runs, so the whole cell was measured again for {mux_more} more "
               f"alternated rounds; the figures are medians over all {3 * int(d['runs']) + mux_more} paired runs, with the "
               f"first runs' figure in brackets.")
out.append("")
out.append("| c. recording | finalize | peak RSS |")
out.append("|---|---|---|")
for c in d['stopAndMemory']:
    out.append(f"| {c['recording']} | {c['finalizeSeconds']*1000:.2f} ms | {c['peakRSSMiB']:.1f} MiB |")
r = d['rotation']
out.append("")
out.append(f"d. Rotation propagation: median {r['medianSeconds']*1e6:.1f} µs, p99 {r['p99Seconds']*1e6:.1f} µs.")
l = d['live']
out.append("")
if 'ffmpegAACCPUPerSecond' in l:
    out.append(f"e. Live 720p30 veryfast with AAC: {l['droppedWorst']} dropped, {l['cpuPerSecond']:.3f} CPU s per recorded second vs {l['x264PacedCPUPerSecond']:.3f} for x264 alone given the same frames in real time plus {l['ffmpegAACCPUPerSecond']:.4f} for ffmpeg's AAC encoder alone on the same audio, and {l['x264CPUPerSecond']:.3f} for x264 in a batch (medians); median of the per-round ratios {l['ratio']:.3f}× and {l['ratioToBatch']:.3f}×.")
else:
    out.append(f"e. Live 720p30 veryfast: {l['droppedWorst']} dropped, {l['cpuPerSecond']:.3f} CPU s per recorded second vs {l['x264PacedCPUPerSecond']:.3f} for x264 alone given the same frames in real time and {l['x264CPUPerSecond']:.3f} in a batch (medians); median of the per-round ratios {l['ratio']:.3f}× and {l['ratioToBatch']:.3f}×.")
if 'fileSize' in d:
    z = d['fileSize']
    out.append("")
    out.append(f"e. File size of {z['seconds']:.0f} s of the test pattern (720p30 veryfast CRF 23) and the tone: LPCM {z['lpcmBytes']/1048576:.1f} MiB, AAC {z['aacBytes']/1048576:.1f} MiB ({z['ratio']:.3f}×).")
s = d['startup']
out.append("")
out.append(f"f. Start-up to the first encoded frame: movrec {s['movrec']['wallSeconds']*1000:.1f} ms, x264 CLI {s['x264']['wallSeconds']*1000:.1f} ms, ffmpeg {s['ffmpeg']['wallSeconds']*1000:.1f} ms.")
g = d['durability']
out.append("")
out.append("g. Durability: " + ", ".join(f"{name} {v['wallSeconds']:.3f} s ({v['speedVsNoFragments']:.3f}×)" for name, v in g.items()) + ".")
if 'segments' in d:
    h = d['segments']
    out.append("")
    out.append(f"h. Segment switching, 720p30 veryfast and AAC live, {h['switches']:.0f} switches: {h['droppedWorst']:.0f} dropped, {h['files']:.0f} files; writing-thread time per switch median {h['switchMedianMs']:.2f} ms, p99 {h['switchP99Ms']:.2f} ms, max {h['switchMaxMs']:.2f} ms.")
if 'clockCorrection' in d:
    i = d['clockCorrection']
    out.append("")
    out.append(f"i. Audio clock correction, 48 kHz stereo from a microphone {i['partsPerMillion']:.0f} ppm fast, {i['seconds']:.0f} s: the library {i['librarySecondsPerSecond']*1000:.2f} ms per second of audio (measuring only {i['libraryMeasuringOnlySecondsPerSecond']*1000:.3f} ms); ffmpeg resampling the same tone 48048 → 48000 Hz, above its run with no filter: libswresample {i['ffmpegSwrSecondsPerSecond']*1000:.2f} ms, its soxr engine {i['ffmpegSoxrSecondsPerSecond']*1000:.2f} ms.")
if 'photos' in d:
    p = d['photos']
    burst = {r['contender']: r for r in p['burst']}
    out.append("")
    out.append("j. Photos, a burst of 1080p frames from a Y4M file (photos per second, first request to last file; peak RSS): "
               + ", ".join(f"{name} {r['photosPerSecond']:.1f} ({r['peakRSSMiB']:.1f} MiB)" for name, r in burst.items())
               + f"; JPEG {p['burstRatio']:.2f}× {p['fasterPeer']}.")
    lag = "; ".join(f"{c['fps']:.0f} fps {c['mode']}: median {c['medianMs']:.1f} ms, worst {c['worstMs']:.1f} ms" for c in p['shutterLag'])
    out.append("")
    out.append(f"j. Shutter lag, request to the chosen frame's capture time (live test pattern): {lag}.")
    w = p['whileRecording']
    r = p['ringCopies']
    out.append("")
    out.append(f"j. {w['photos']:.0f} photos during a {w['seconds']:.0f} s live 720p30 recording: {max(w['dropped']):.0f} frames dropped in the worst of {len(w['dropped'])} runs. "
               f"Zero shutter lag's copies on an idle 1080p30 session: {r['cpuPerFrameSeconds']*1000:.3f} ms CPU per frame, peak RSS +{r['peakRSSExtraMiB']:.1f} MiB.")
if 'rigShutterLag' in d:
    g = d['rigShutterLag']
    rows = "; ".join(f"{c['contender']}: lag median {c['medianLagMs']:.1f} ms (|lag| median {c['medianDistanceMs']:.1f}, worst {c['worstDistanceMs']:.1f}), to file median {c['medianFileMs']:.1f} ms (worst {c['worstFileMs']:.1f})"
                     for c in g['contenders'])
    out.append("")
    out.append(f"j2. Shutter lag in the device rig, vivid 640x480 at {g['fps']:.0f} fps, {g['vmRuns']:.0f} VM runs (request to the frame's driver timestamp, and to the photo on disk; the peers start per photo): {rows}.")
out.append("")
out.append("Targets: " + "; ".join(f"{t['section']} {t['target']}: {'PASS' if t['passed'] else 'FAIL'} ({t['detail']})" for t in d['targets']))
print("\n".join(out))
