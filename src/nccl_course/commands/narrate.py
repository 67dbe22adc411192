"""``nccl-course narrate``: make the spoken overviews whose audio is missing or out of date."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from nccl_course.i18n.languages import LANGUAGES


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "narrate",
        help="synthesize the chapters' spoken overviews (only what changed)",
        description=(
            "Synthesize the spoken overview of each chapter from its {narration} script, in "
            "English (Piper, a neural voice) and Turkish (eSpeak NG; Turkish scripts come from "
            "locales/tr). Audio is kept under narration/LANG/, named by a key of the words, the "
            "voice and the engine: only pages whose key has no file are synthesized, and the "
            "page's old file is removed. Commit narration/ afterwards."
        ),
    )
    parser.add_argument(
        "pages",
        nargs="*",
        metavar="PAGE",
        help="chapter pages, e.g. book/collectives/01-broadcast.md (default: every narrated page)",
    )
    parser.add_argument(
        "--lang",
        choices=[*LANGUAGES, "all"],
        default="all",
        help="which edition's audio to make (default: all)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="synthesize nothing: list the audio that is missing and exit 1 if any is",
    )
    parser.add_argument(
        "--force", action="store_true", help="synthesize again even where the audio is current"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the course's folder, with book/, locales/ and narration/ (default: this checkout)",
    )
    parser.set_defaults(func=run)


def _pages(names: list[str], root: Path) -> list[Path]:
    from nccl_course.narration.script import narrated_pages

    if not names:
        return narrated_pages(root)
    pages = []
    for name in names:
        path = Path(name)
        if not path.is_absolute():
            path = (Path.cwd() / path) if (Path.cwd() / path).exists() else root / path
        if path.suffix != ".md":
            path = path.with_suffix(".md")
        if not path.is_file():
            raise SystemExit(f"narrate: no page {name} (give a path like book/intro.md)")
        pages.append(path.resolve())
    return pages


def run(args) -> int:
    from tqdm import tqdm

    from nccl_course.narration import audio_store
    from nccl_course.narration.script import ROOT, ScriptError, load_script, problems
    from nccl_course.narration.synthesis import SynthesisError, synthesize
    from nccl_course.narration.voices import voice_for

    root = (args.root or ROOT).resolve()
    if not (root / "book").is_dir():
        print(
            f"narrate: {root} has no book/ folder; give the course's folder with --root",
            file=sys.stderr,
        )
        return 2
    languages = LANGUAGES if args.lang == "all" else (args.lang,)
    pages = _pages(args.pages, root)
    if not pages:
        print("narrate: no page has a {narration} block", file=sys.stderr)
        return 1
    jobs, errors = [], []
    for language in languages:
        voice = voice_for(language)
        for page in pages:
            try:
                script = load_script(page, language, root)
            except ScriptError as exc:
                errors.append(str(exc))
                continue
            for problem in problems(script):
                errors.append(f"{script.docname} ({language}): {problem}")
            if args.force or audio_store.find(script, voice, root) is None:
                jobs.append((script, voice))
    for error in errors:
        print(f"narrate: {error}", file=sys.stderr)
    if args.check:
        for script, voice in jobs:
            print(
                f"missing: {script.docname} ({script.language}) -> "
                f"{audio_store.audio_path(script, voice, root).relative_to(root)}"
            )
        print(f"{len(jobs)} audio file(s) missing, {len(errors)} problem(s)")
        return 1 if jobs or errors else 0
    if not jobs:
        print(f"every narration is current ({len(pages)} page(s), {', '.join(languages)})")
        return 1 if errors else 0
    audio_seconds = cpu_seconds = 0.0
    started = time.monotonic()
    bar = tqdm(jobs, desc="narrating", unit="page", file=sys.stderr)
    for script, voice in bar:
        bar.set_postfix_str(f"{script.language} {script.docname}")
        cpu = time.process_time()
        try:
            samples, rate = synthesize(list(script.paragraphs), voice)
        except SynthesisError as exc:
            print(f"narrate: {exc}", file=sys.stderr)
            return 1
        cpu_seconds += time.process_time() - cpu
        audio_seconds += len(samples) / rate
        audio_store.store(script, voice, audio_store.encode(samples, rate), root)
    wall = time.monotonic() - started
    print(
        f"made {len(jobs)} audio file(s): {audio_seconds:.0f} s of speech in {wall:.0f} s "
        f"({cpu_seconds:.0f} s of CPU, {audio_seconds / max(cpu_seconds, 1e-9):.1f} s of audio "
        f"per CPU second); commit narration/"
    )
    return 1 if errors else 0
