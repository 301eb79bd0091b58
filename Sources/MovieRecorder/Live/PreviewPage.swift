/// The preview page the ``LiveViewServer`` serves at `/`: one self-contained HTML file.
///
/// It reads `/video.mp4` (muted, the closest to live) or, once sound is asked for,
/// `/stream.mp4` with `fetch()`, splits it into boxes, appends `ftyp`/`moov` and each
/// `moof`/`mdat` to a Media Source Extensions `SourceBuffer`, and reads the rest itself: `prft`
/// maps media time to the capture time on the wall clock, so each frame's latency is measured
/// when `requestVideoFrameCallback` says it was presented; the orientation `emsg` turns (and
/// mirrors) the video element with CSS when the frame it applies to is shown, sized to fit
/// without stretching. It keeps to the live edge (a little faster when behind, a jump when far
/// behind), trims what it has played, and reconnects when the stream ends. `window.liveView`
/// holds what it measured, for tests.
enum PreviewPage {
    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Live view</title>
<style>
html,body{margin:0;height:100%;background:#000;color:#eee;font:13px system-ui,sans-serif;overflow:hidden}
#stage{position:absolute;inset:0}
video{position:absolute;left:50%;top:50%;background:#000}
#info{position:absolute;left:8px;top:8px;background:rgba(0,0,0,.55);padding:4px 8px;border-radius:4px;white-space:pre}
#sound{position:absolute;right:8px;top:8px}
</style></head>
<body><div id="stage"><video id="video" muted autoplay playsinline></video></div>
<div id="info">connecting…</div><button id="sound" hidden>sound on</button>
<script>
"use strict";
const video = document.getElementById("video"), info = document.getElementById("info"), sound = document.getElementById("sound");
const token = new URLSearchParams(location.search).get("token");
const query = token ? "?token=" + encodeURIComponent(token) : "";
const live = window.liveView = {frames: 0, latencies: [], angle: 0, mirrored: false, connections: 0, width: 0, height: 0,
  state: "connecting", turnedAt: 0, framesSinceTurn: 0};
let references = [], turns = [], shown = {angle: 0, mirrored: false}, frameCallback = 0, withSound = false, current = null;

function u32(b, i) { return ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0; }
function u64(b, i) { return u32(b, i) * 4294967296 + u32(b, i + 4); }
function cstring(b, i) { let e = i; while (e < b.length && b[e] !== 0) e++; return [new TextDecoder().decode(b.subarray(i, e)), e + 1]; }

// prft version 1: flags, track, NTP seconds.fraction, 64-bit media time (90 kHz for video).
function readPrft(b) {
  const ntpSeconds = u32(b, 16), fraction = u32(b, 20), media = u64(b, 24);
  const wall = (ntpSeconds - 2208988800) * 1000 + fraction / 4294967296 * 1000;
  references.push({media: media / 90000, wall});
  if (references.length > 600) references.splice(0, references.length - 600);
}

// emsg version 1: timescale, presentation time, duration, id, scheme, value, JSON message.
function readEmsg(b) {
  const timescale = u32(b, 12), time = u64(b, 16);
  const [scheme, i] = cstring(b, 32), [, j] = cstring(b, i);
  if (scheme !== "urn:movierecorder:orientation") return;
  const message = JSON.parse(new TextDecoder().decode(b.subarray(j)));
  turns.push({time: time / timescale, angle: message.angle, mirrored: message.mirrored});
}

function layout() {
  const w = video.videoWidth, h = video.videoHeight;
  if (!w || !h) return;
  const sideways = shown.angle % 180 !== 0;
  const scale = Math.min(innerWidth / (sideways ? h : w), innerHeight / (sideways ? w : h));
  video.style.width = w * scale + "px";
  video.style.height = h * scale + "px";
  video.style.transform = "translate(-50%,-50%) scale(" + (shown.mirrored ? -1 : 1) + ",1) rotate(" + shown.angle + "deg)";
  live.width = w; live.height = h;
}
addEventListener("resize", layout);

function onFrame(now, frame) {
  while (turns.length && turns[0].time <= frame.mediaTime + 0.001) { shown = turns.shift(); }
  if (live.angle !== shown.angle || live.mirrored !== shown.mirrored || live.width !== video.videoWidth) {
    if (live.angle !== shown.angle || live.mirrored !== shown.mirrored) { live.turnedAt = Date.now(); live.framesSinceTurn = 0; }
    live.angle = shown.angle; live.mirrored = shown.mirrored; layout();
  }
  live.framesSinceTurn++;
  let ref = null;
  for (const r of references) { if (r.media <= frame.mediaTime + 0.0005) ref = r; }
  if (ref) {
    const presented = performance.timeOrigin + (frame.presentationTime || now);
    live.latencies.push(presented - (ref.wall + (frame.mediaTime - ref.media) * 1000));
    if (live.latencies.length > 300) live.latencies.shift();
  }
  live.frames++;
  frameCallback = video.requestVideoFrameCallback(onFrame);
}

function median(values) { const s = values.slice().sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : NaN; }
setInterval(() => {
  const ms = median(live.latencies.slice(-60));
  info.textContent = live.state + (live.width ? "  " + live.width + "x" + live.height : "") + "  angle " + live.angle + "°"
    + (live.mirrored ? " mirrored" : "") + (isNaN(ms) ? "" : "  latency " + Math.round(ms) + " ms");
}, 500);

// Keep to the live edge: a little faster when more than a few frames behind, a jump when far
// behind (after a stall or a hidden tab).
function keepLive(buffer) {
  if (!video.buffered.length) return;
  const end = video.buffered.end(video.buffered.length - 1), behind = end - video.currentTime;
  if (behind > 0.4 || video.currentTime < video.buffered.start(0)) video.currentTime = end - 0.04;
  video.playbackRate = behind > 0.07 ? 1.1 : 1.0;
  if (video.paused) video.play().catch(() => {});
  // Trimmed in steps of five seconds, so the removal's own updateend does not start another.
  if (!buffer.updating && video.buffered.length && video.currentTime - video.buffered.start(0) > 15) {
    buffer.remove(0, video.currentTime - 10);
  }
}

async function play() {
  current = new AbortController();
  const response = await fetch((withSound ? "stream.mp4" : "video.mp4") + query, {cache: "no-store", signal: current.signal});
  if (!response.ok) throw new Error("HTTP " + response.status);
  const codecs = response.headers.get("X-Stream-Codecs");
  const source = new MediaSource();
  if (video.src) URL.revokeObjectURL(video.src);
  video.src = URL.createObjectURL(source);
  await new Promise(r => source.addEventListener("sourceopen", r, {once: true}));
  const buffer = source.addSourceBuffer('video/mp4; codecs="' + codecs + '"');
  source.duration = Infinity;  // a live stream: players keep less in hand
  sound.hidden = response.headers.get("X-Stream-Audio") !== "yes";
  video.muted = !withSound;
  live.connections++; live.state = "live";
  references = []; turns = [];
  const queue = [];
  const append = () => { if (!buffer.updating && queue.length) buffer.appendBuffer(queue.splice(0).reduce(join)); };
  buffer.addEventListener("updateend", () => { append(); keepLive(buffer); });
  const reader = response.body.getReader();
  let pending = new Uint8Array(0);
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    pending = join(pending, value);
    let at = 0;
    while (pending.length - at >= 8) {
      const size = u32(pending, at), type = String.fromCharCode(...pending.subarray(at + 4, at + 8));
      if (size < 8) throw new Error("a damaged box in the stream");
      if (pending.length - at < size) break;
      const box = pending.subarray(at, at + size);
      if (type === "prft") readPrft(box);
      else if (type === "emsg") readEmsg(box);
      else queue.push(box.slice());
      at += size;
    }
    pending = pending.slice(at);
    append();
  }
  throw new Error("the stream ended");
}

function join(a, b) { const c = new Uint8Array(a.length + b.length); c.set(a); c.set(b, a.length); return c; }

// Sound takes the stream with its audio, which browsers hold further behind live.
sound.onclick = () => {
  withSound = !withSound;
  sound.textContent = withSound ? "sound off" : "sound on";
  if (current) current.abort();
};
(async () => {
  const frames = "requestVideoFrameCallback" in video;  // without it (older Firefox) no latency is measured
  for (;;) {
    if (frames) {
      video.cancelVideoFrameCallback(frameCallback);
      frameCallback = video.requestVideoFrameCallback(onFrame);
    }
    try { await play(); } catch (e) { live.state = "reconnecting (" + e.message + ")"; }
    await new Promise(r => setTimeout(r, 500));
  }
})();
</script></body></html>
"""#
}
