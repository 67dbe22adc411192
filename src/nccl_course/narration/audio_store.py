"""Narration audio on disk: encoded, named by content, found only by its key.

A file's name carries the first hex digits of a SHA-256 over everything that shapes its sound:
the text the engine is given (after the lexicon), the voice and the engine's version, the pause
between paragraphs and the encoding. A changed script has a new key, so the build cannot find
(and never plays) the audio of the old words; ``nccl-course narrate`` makes the new file and
removes the old one.

Files are Ogg Opus, mono, 24 kHz, 20 kbit/s: about 150 KB a minute, small enough to commit
(a build on a fresh clone synthesizes nothing). Chromium-based browsers and Firefox play it.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np

from nccl_course.narration.script import ROOT, Script
from nccl_course.narration.synthesis import PARAGRAPH_PAUSE_S
from nccl_course.narration.voices import Voice, spoken

#: Where the audio lives, relative to the repository root: narration/LANG/DOCNAME.KEY.ogg.
AUDIO_DIR = "narration"
SUFFIX = ".ogg"
MIME = "audio/ogg; codecs=opus"
#: Opus in Ogg: 24 kHz mono at 20 kbit/s (speech stays clear; music would not).
ENCODING = {"codec": "libopus", "rate": 24000, "bit_rate": 20000, "container": "ogg"}
KEY_DIGITS = 16


def key(script: Script, voice: Voice) -> str:
    """The content key of ``script`` spoken by ``voice`` (hex digits)."""
    shaped_by = {
        "spoken": [spoken(p, voice) for p in script.paragraphs],
        "voice": voice.identity,
        "pause_s": PARAGRAPH_PAUSE_S,
        "encoding": ENCODING,
    }
    digest = hashlib.sha256(json.dumps(shaped_by, sort_keys=True, ensure_ascii=False).encode())
    return digest.hexdigest()[:KEY_DIGITS]


def audio_folder(language: str, root: Path = ROOT) -> Path:
    return root / AUDIO_DIR / language


def audio_path(script: Script, voice: Voice, root: Path = ROOT) -> Path:
    """Where the audio of ``script`` is (or will be) for its current key."""
    return audio_folder(script.language, root) / f"{script.docname}.{key(script, voice)}{SUFFIX}"


def versions_of(docname: str, language: str, root: Path = ROOT) -> list[Path]:
    """Every audio file of a page in a language, whatever its key."""
    folder = audio_folder(language, root) / Path(docname).parent
    stem = Path(docname).name
    return sorted(
        p
        for p in folder.glob(f"{stem}.*{SUFFIX}")
        if p.name[len(stem) + 1 : -len(SUFFIX)].isalnum()
        and len(p.name) == len(stem) + 1 + KEY_DIGITS + len(SUFFIX)
    )


def find(script: Script, voice: Voice, root: Path = ROOT) -> Path | None:
    """The audio of exactly this script and voice, or None (never another key's file)."""
    path = audio_path(script, voice, root)
    return path if path.is_file() else None


def encode(samples: np.ndarray, rate: int) -> bytes:
    """Mono 16-bit ``samples`` at ``rate`` Hz as Ogg Opus bytes (``ENCODING``)."""
    import av

    out = io.BytesIO()
    with av.open(out, "w", format=ENCODING["container"]) as container:
        stream = container.add_stream(ENCODING["codec"], rate=ENCODING["rate"], layout="mono")
        stream.bit_rate = ENCODING["bit_rate"]
        resampler = av.AudioResampler(format="s16", layout="mono", rate=ENCODING["rate"])
        frame = av.AudioFrame.from_ndarray(
            np.ascontiguousarray(samples, dtype=np.int16).reshape(1, -1),
            format="s16",
            layout="mono",
        )
        frame.sample_rate = rate
        for piece in [*resampler.resample(frame), *resampler.resample(None)]:
            for packet in stream.encode(piece):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return out.getvalue()


#: Opus counts its granule positions at 48 kHz whatever the rate it was encoded from (RFC 7845).
_OPUS_GRANULE_RATE = 48000


def duration_s(path: Path) -> float:
    """The length of an Ogg Opus file, seconds: the last page's granule position less the
    pre-skip of its OpusHead (RFC 7845, section 4), read without decoding (the book build needs
    no audio library)."""
    data = path.read_bytes()
    head = data.find(b"OpusHead")
    last = data.rfind(b"OggS")
    if head < 0 or last < 0 or len(data) < max(head + 12, last + 14):
        raise ValueError(f"{path}: not an Ogg Opus file")
    pre_skip = int.from_bytes(data[head + 10 : head + 12], "little")
    granule = int.from_bytes(data[last + 6 : last + 14], "little", signed=True)
    if granule < pre_skip:
        raise ValueError(f"{path}: its last Ogg page has no length")
    return (granule - pre_skip) / _OPUS_GRANULE_RATE


def store(script: Script, voice: Voice, data: bytes, root: Path = ROOT) -> Path:
    """Write ``data`` as the audio of ``script`` and remove the page's files of other keys."""
    path = audio_path(script, voice, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    partial.replace(path)  # a crash leaves no half file under the real name
    for old in versions_of(script.docname, script.language, root):
        if old != path:
            old.unlink()
    return path
