# What the confirmation rule (a cell below 0.97x after 11 runs is measured again for 44 more,
# figures pooled) does to the chance that a figure passes, given this machine's noise: the
# per-round log ratios of case a's control (the x264 CLI against itself) in a results file,
# centred per cell, resampled as if rounds were independent.
#   python3 Benchmarks/confirmation-odds.py [Benchmarks/results.json]
import json, math, random, statistics, sys

results = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "Benchmarks/results.json"))
noise = []
for cell in results["encode"]:
    k = cell["contenders"]
    ratios = [math.log(a / b) for a, b in zip(k["x264"]["wallSecondsAll"], k["x264 again"]["wallSecondsAll"])]
    centre = statistics.median(ratios)
    noise += [r - centre for r in ratios]
print(f"{len(noise)} control rounds, standard deviation of the log ratio {statistics.stdev(noise):.3f}")

random.seed(1)
def trial(true, first=11, more=44, target=0.97):
    """Whether one figure passes with 11 runs, and whether it passes with the confirmation rule."""
    runs = [random.choice(noise) for _ in range(first)]
    if math.exp(true + statistics.median(runs)) >= target:
        return True, True
    runs += [random.choice(noise) for _ in range(more)]
    return False, math.exp(true + statistics.median(runs)) >= target

trials = 20000
print("true speed | one figure passes: 11 runs, with confirmation | all 48 figures pass: 11 runs, with confirmation")
for speed in [0.93, 0.95, 0.96, 1.00, 1.03]:
    outcomes = [trial(math.log(speed)) for _ in range(trials)]
    fixed = sum(o[0] for o in outcomes) / trials
    confirmed = sum(o[1] for o in outcomes) / trials
    print(f"{speed:.2f}x | {fixed:.3f}, {confirmed:.3f} | {fixed ** 48:.3f}, {confirmed ** 48:.3f}")
