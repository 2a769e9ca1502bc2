"""How the benchmarks time runtimes against each other on a shared, noisy machine."""
from __future__ import annotations

import statistics
import time

ROUND = 0.02        # seconds each runtime runs in a round, at least one warm-up call and two timed calls


def in_turns(fns: dict, *, budget: float, min_rounds: int = 5) -> dict:
    """The median seconds of one call of each function, for about `budget` seconds in all, the functions taking
    turns a short round each (ROUND): a burst of noise then falls on every runtime alike, where timing each for a
    while in turn let it fall on one. Each round starts with a call that is not counted, so every timed call finds
    the caches and the runtime's threads as its own previous call left them."""
    per_call = {}
    for k, fn in fns.items():
        t0 = time.perf_counter()
        fn()
        per_call[k] = time.perf_counter() - t0
    times, start, rounds = {k: [] for k in fns}, time.perf_counter(), 0
    while rounds < min_rounds or time.perf_counter() - start < budget:
        for k, fn in fns.items():
            fn()
            for _ in range(max(2, int(ROUND / max(per_call[k], 1e-6)))):
                t0 = time.perf_counter()
                fn()
                times[k].append(time.perf_counter() - t0)
        rounds += 1
    return {k: statistics.median(v) for k, v in times.items()}


def median_runs(fns: dict, *, runs: int, budget: float) -> dict:
    """The median over `runs` runs of in_turns, per function."""
    times = {k: [] for k in fns}
    for _ in range(runs):
        for k, t in in_turns(fns, budget=budget).items():
            times[k].append(t)
    return {k: statistics.median(v) for k, v in times.items()}


def best_of(fn, runs: int) -> float:
    """The fastest of `runs` calls, in seconds: for calls long enough that one alone is worth timing."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cpu_name() -> str:
    """The CPU as lscpu names it: model name, family and model, and whether it has avx512f (a ratio measured on one
    CPU is a fact about it)."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        return "?"
    avx512f = "yes" if "avx512f" in info.get("flags", "").split() else "no"
    return (f"{info.get('model name', '?')} (family {info.get('cpu family', '?')} model {info.get('model', '?')},"
            f" avx512f {avx512f})")
