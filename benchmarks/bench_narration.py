"""Narration benchmark: how fast each voice speaks, and what narration adds to a book build.

Run: .venv/bin/python benchmarks/bench_narration.py [--runs N]

Prints (1) for each language, the median over N runs of synthesizing one chapter's script
(the introduction's): seconds of audio, CPU seconds of synthesis and of Ogg Opus encoding, and
seconds of audio per CPU second; (2) the cost of a full narration of every chapter, estimated from
those rates and the committed audio's length; (3) what a book build spends on narration: finding
each page's audio by its key, reading its duration and copying it into the output (median of N),
beside the committed audio's size.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from nccl_course.narration import audio_store
from nccl_course.narration.script import ROOT, load_script, narrated_pages
from nccl_course.narration.synthesis import synthesize
from nccl_course.narration.voices import VOICES


def cpu(fn, *args):
    """``fn(*args)`` and the CPU seconds it took (every thread of the process)."""
    start = time.process_time()
    out = fn(*args)
    return out, time.process_time() - start


def bench_voice(language: str, runs: int) -> dict:
    voice = VOICES[language]
    script = load_script(ROOT / "book" / "intro.md", language)
    synthesize(list(script.paragraphs[:1]), voice)  # load the model once, outside the timing
    rows = []
    for _ in range(runs):
        (samples, rate), synth_s = cpu(synthesize, list(script.paragraphs), voice)
        _, encode_s = cpu(audio_store.encode, samples, rate)
        rows.append((len(samples) / rate, synth_s, encode_s))
    audio = statistics.median(r[0] for r in rows)
    synth = statistics.median(r[1] for r in rows)
    encode = statistics.median(r[2] for r in rows)
    return {"audio_s": audio, "synth_cpu_s": synth, "encode_cpu_s": encode}


def committed_seconds(language: str) -> float:
    folder = audio_store.audio_folder(language)
    return sum(audio_store.duration_s(p) for p in folder.rglob(f"*{audio_store.SUFFIX}"))


def bench_build_share(runs: int) -> float:
    """Median seconds to find, measure and copy every page's audio in both languages."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            for language, voice in VOICES.items():
                for page in narrated_pages():
                    found = audio_store.find(load_script(page, language), voice)
                    audio_store.duration_s(found)
                    target = Path(out) / language / found.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(found, target)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (default 3)")
    args = parser.parse_args()
    pages = len(narrated_pages())
    print(f"one chapter's script (book/intro), median of {args.runs} runs:")
    print(
        f"{'voice':<34} {'audio s':>8} {'synth CPU s':>12} {'encode CPU s':>13} {'audio s/CPU s':>14}"
    )
    total_cpu = 0.0
    for language, voice in VOICES.items():
        r = bench_voice(language, args.runs)
        speed = r["audio_s"] / r["synth_cpu_s"]
        both = r["audio_s"] / (r["synth_cpu_s"] + r["encode_cpu_s"])
        name = f"{language}: {voice.engine} {voice.name}"
        print(
            f"{name:<34} {r['audio_s']:8.1f} {r['synth_cpu_s']:12.2f} {r['encode_cpu_s']:13.2f} "
            f"{speed:8.1f} ({both:.1f} with encoding)"
        )
        seconds = committed_seconds(language)
        total_cpu += seconds / both
        print(
            f"   all {pages} chapters: {seconds / 60:.1f} min of audio, about {seconds / both:.0f} CPU s"
        )
    print(f"a full narration of both editions: about {total_cpu / 60:.1f} CPU minutes")
    size = sum(p.stat().st_size for p in (ROOT / audio_store.AUDIO_DIR).rglob("*.ogg"))
    share = bench_build_share(args.runs)
    print(
        f"book build, both editions: finding, measuring and copying {2 * pages} audio files "
        f"({size / 1e6:.1f} MB) takes {share:.2f} s (median of {args.runs})"
    )


if __name__ == "__main__":
    main()
