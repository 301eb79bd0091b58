#!/usr/bin/env python3
"""Scratch helper, not part of the harness: `movrec mux` against `cp` of the same inputs.

    Benchmarks/scratch/mux-vs-cp.py MOVREC [ROUNDS] [--ffmpeg]

Generates (once, into /tmp/mux-vs-cp) two shapes with ffmpeg: 300 1080p frames (~110 kB each)
and 9,000 320x240 frames (~3.4 kB each), each with 48 kHz stereo s16 PCM of the same length.
Outputs go to the same file system as cp's destination; the inputs are read once first so the
page cache is warm; every output is removed before the next run. Each round runs every case
once, alternating (mux, cp, mux with fragments, cp, [ffmpeg]); the report gives medians and
cp's median divided by each (1.0 = as fast as cp). Noisy on a shared machine: use >= 11 rounds
and look at the load average printed with the results.
"""
import glob, os, statistics, subprocess, sys, time

movrec = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 11
work = '/tmp/mux-vs-cp'
out = work + '/out'
shapes = {
    'big': (['-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30', '-frames:v', '300', '-c:v', 'libx264',
             '-preset', 'ultrafast', '-crf', '12'], 10),
    'small': (['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30', '-frames:v', '9000', '-c:v', 'libx264',
               '-preset', 'ultrafast', '-crf', '23'], 300),
}

def generate(shape):
    video, audio = f'{work}/{shape}.264', f'{work}/{shape}.wav'
    args, seconds = shapes[shape]
    if not os.path.exists(video):
        subprocess.run(['ffmpeg', '-y', '-loglevel', 'error'] + args + [video], check=True)
    if not os.path.exists(audio):
        subprocess.run(['ffmpeg', '-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000',
                        '-ac', '2', '-t', str(seconds), audio], check=True)
    for path in (video, audio):
        with open(path, 'rb') as f:
            while f.read(1 << 24):
                pass
    return video, audio

def clean():
    for path in glob.glob(out + '/*.mov') + glob.glob(out + '/cp/*'):
        os.remove(path)

os.makedirs(out + '/cp', exist_ok=True)
for shape in shapes:
    video, audio = generate(shape)
    mux = [movrec, 'mux', out + '/mux.mov', '--video', video, '--audio', audio]
    cases = [('mux', mux), ('cp', ['cp', video, audio, out + '/cp/']),
             ('mux --fragment-interval 1', mux + ['--fragment-interval', '1']), ('cp', ['cp', video, audio, out + '/cp/'])]
    if '--ffmpeg' in sys.argv:
        cases.append(('ffmpeg -c copy', ['ffmpeg', '-y', '-loglevel', 'error', '-r', '30', '-i', video, '-i', audio,
                                          '-c', 'copy', out + '/ffmpeg.mov']))
    times, loads = {}, []
    for round in range(rounds + 1):  # round 0 warms up and is not counted
        for name, command in cases:
            clean()
            start = time.perf_counter()
            result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            elapsed = time.perf_counter() - start
            if result.returncode:
                sys.exit(f'{name}: {result.stderr.decode()}')
            if round:
                times.setdefault(name, []).append(elapsed)
        loads.append(os.getloadavg()[0])
    clean()
    cp = statistics.median(times['cp'])
    size = os.path.getsize(video) + os.path.getsize(audio)
    print(f'{shape}: {size} bytes in, {rounds} rounds, load {min(loads):.2f}-{max(loads):.2f}')
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f'  {name:28s} {median * 1000:7.1f} ms  cp/this {cp / median:4.2f}')
