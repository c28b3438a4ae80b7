"""omote: facial animation for VRM avatars — lip sync, faces, scene bakes.

A wrapper over omote's embedding API (the Rust crate omote-embed): every rule lives in
the Rust library; this module translates paths, NumPy arrays and errors. Analysis and
bakes release the GIL, so threads scale. Every error is an :class:`OmoteError`.

    import omote
    track = omote.lipsync("line.wav")              # (n, 6) A I U E O N per 10 ms
    face = omote.Face(omote.Rig.builtin(), seed=7)
    face.say(track)
    face.update(1 / 60)
    face.weights                                   # float32, one per channel
"""

from os import PathLike
from typing import Mapping, Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
ANALYSIS_RATE: float
"""The analyser's sample rate (16000 Hz)."""

StrPath = Union[str, PathLike]
Samples = npt.NDArray[np.floating]
AudioArg = Union[StrPath, Samples]

class OmoteError(Exception):
    """Every error omote raises."""

class OmoteValueError(OmoteError, ValueError):
    """A value omote does not take: an empty or NaN buffer, a rate of 0, a wrong shape,
    a file that is not what it should be (the message names the file and field)."""

class OmoteTypeError(OmoteError, TypeError):
    """An argument of the wrong type, e.g. an int16 array where float32 samples go."""

class OmoteFileNotFoundError(OmoteError, FileNotFoundError):
    """A file that does not exist."""

class Track:
    """A clip's lip sync: per frame (100 fps) the weights of A I U E O and the closed
    mouth N, the volume, whether it is silent; the voiced span. Picklable (exactly)."""

    @staticmethod
    def from_frames(
        frames: npt.NDArray[np.floating],
        fps: float,
        voiced: Union[Tuple[float, float], Literal["all"], None] = "all",
    ) -> Track:
        """A track from numbers: a float32/float64 NumPy array (n, 6) of A I U E O N at
        ``fps`` (1–1000); ``voiced`` the voiced span (s), ``"all"`` (the default) for the
        whole track, None for no speech (a silent clip's own ``voiced``: the mouth stays
        shut). Frames outside the span are silent. As every track's frames, each weight is
        clamped to 0–1 and a frame whose six sum over 1 is scaled to sum 1."""
    @property
    def fps(self) -> float: ...
    @property
    def frames(self) -> npt.NDArray[np.float32]:
        """(n, 6) float32: A I U E O N per frame."""
    @property
    def volume(self) -> npt.NDArray[np.float32]:
        """(n,) loudness 0–1 against the clip's speech level."""
    @property
    def silent(self) -> npt.NDArray[np.bool_]:
        """(n,) whether each frame is silence."""
    @property
    def voiced(self) -> Optional[Tuple[float, float]]:
        """Speech start and end (s), or None for a clip with no speech."""
    @property
    def duration(self) -> float: ...
    def __len__(self) -> int: ...
    def resampled(self, fps: float) -> Track:
        """The track at another rate (1–1000 fps), as ``omote lipsync --fps``."""
    def to_json(self, source: str = "") -> str:
        """omote's track JSON, byte for byte ``omote lipsync``'s file (``source``: the
        name written in it; the CLI writes the input path as given)."""
    def to_tsv(self) -> str:
        """``time A I U E O N volume silent`` rows (``--format tsv``)."""
    def to_rhubarb_json(self, sound_file: str = "") -> str:
        """Rhubarb Lip Sync's JSON: mouth shapes A–F and X (``--format rhubarb-json``;
        Rhubarb writes the sound file's absolute path as ``sound_file``)."""
    def to_rhubarb_tsv(self) -> str:
        """Rhubarb Lip Sync's TSV (``--format rhubarb-tsv``)."""
    def to_rhubarb_xml(self, sound_file: str = "") -> str:
        """Rhubarb Lip Sync's XML (``--format rhubarb-xml``)."""

def lipsync(
    audio: AudioArg,
    sample_rate: Optional[float] = None,
    *,
    speaker: Optional[Speaker] = None,
    profile: Optional[str] = None,
) -> Track:
    """A clip's lip sync. ``audio``: a path (WAV, FLAC, OGG, MP3; ``sample_rate`` must be
    None) or a 1-D float32/float64 array of mono samples in -1..1 at ``sample_rate`` Hz
    (4–384 kHz). With ``speaker``, the clip is read against that speaker's lines as
    ``omote lipsync`` reads one folder's files; with ``profile`` (a lip sync profile's
    JSON, from :func:`calibrate_voice`), with that profile. A file longer than 10 minutes
    is read as ``omote lipsync`` reads it: as a stream (as ``--stream``, from the speaker's
    lines), in flat memory. Releases the GIL."""

def load_voice(path: StrPath) -> Tuple[npt.NDArray[np.float32], float]:
    """An audio file (WAV, FLAC, OGG, MP3, by content) as mono float32 samples and their
    rate (16000), decoded and resampled as ``omote lipsync`` reads it: for a
    :class:`VoiceStream`, or to read the samples yourself. A WAV cut short of its header
    is read as far as it goes, with a ``UserWarning``. Releases the GIL."""

VOICE_CARD: str
"""The calibration card a speaker reads once: 30 syllables, six per vowel."""

def builtin_voice_profile() -> str:
    """The built-in lip sync profile as JSON."""

def calibrate_voice(
    take: AudioArg,
    sample_rate: Optional[float] = None,
    *,
    card: Optional[str] = None,
    base: Optional[str] = None,
) -> str:
    """A lip sync profile calibrated to one speaker, as JSON: ``take`` is them reading the
    card (default :data:`VOICE_CARD`) once, one syllable at a time with a short pause
    after each. A take whose syllables are not heard as the card has them raises, with
    both counts. Releases the GIL."""

class Speaker:
    """One character's voice: add every line, then analyse each against the others.
    Picklable (exactly). Threads may share one: analyses run side by side, and a line
    added meanwhile waits for them."""

    def __init__(self) -> None: ...
    def add_line(self, audio: AudioArg, sample_rate: Optional[float] = None) -> None:
        """Adds a line (a path, or samples at ``sample_rate``). Releases the GIL. A file
        longer than 10 minutes raises OmoteValueError: it is read against a speaker's
        lines (``analyse``), never as one."""
    def analyse(
        self, audio: AudioArg, sample_rate: Optional[float] = None, *, profile: Optional[str] = None
    ) -> Track:
        """A line's lip sync against the speaker's other lines (with ``profile``: read with
        that lip sync profile's JSON). Releases the GIL."""
    @property
    def lines(self) -> int: ...
    def voice_seed(self) -> npt.NDArray[np.float32]:
        """The voice as 13 numbers, for a :class:`VoiceStream` to start from."""
    def add_speaker(self, other: Speaker) -> None:
        """Adds ``other``'s lines in order: the same voice, to the bit, as adding them here."""
    def to_numbers(self) -> npt.NDArray[np.float64]:
        """The voice as exact numbers (for :meth:`from_numbers`; pickling uses them)."""
    @staticmethod
    def from_numbers(numbers: Sequence[float]) -> Speaker: ...

class VoiceStream:
    """Live lip sync at any rate and chunk size: a frame per 10 ms as soon as its audio is in."""

    def __init__(
        self,
        sample_rate: float,
        *,
        hold: bool = False,
        speaker: Optional[Speaker] = None,
        profile: Optional[str] = None,
    ) -> None:
        """``hold``: frames held back 10 ms to remove one-frame flickers; ``speaker``:
        start from that speaker's voice; ``profile``: read with that lip sync profile's
        JSON (from :func:`calibrate_voice`)."""
    def push(self, samples: Samples) -> npt.NDArray[np.float32]:
        """New frames, (k, 8) float32: A I U E O N, volume, voiced (1/0). A NaN sample
        raises and the whole push is dropped."""
    def start_from_speaker(self, seed: npt.ArrayLike) -> None:
        """Starts from a voice seed (:meth:`Speaker.voice_seed`), before the first push."""
    @property
    def latency(self) -> float:
        """Seconds from a frame's centre to when it is out."""
    @property
    def sample_rate(self) -> int: ...
    @property
    def samples_in(self) -> int: ...
    @property
    def frames_out(self) -> int: ...

class Rig:
    """An avatar's rig (expressions and their VRM rules) and, for a VRM, its model."""

    @staticmethod
    def builtin(style: int = 0) -> Rig:
        """The built-in generated VRM avatar (style 1: its second look)."""
    @staticmethod
    def standard() -> Rig:
        """The standard rig: 18 VRM presets + ARKit-52, no model."""
    @staticmethod
    def from_vrm(path: StrPath) -> Rig:
        """A VRM file (0.x or 1.0)."""
    @staticmethod
    def from_file(path: StrPath) -> Rig:
        """A .vrm or a rig file (TOML/JSON)."""
    @staticmethod
    def from_vrm_bytes(data: bytes, name: str = "the VRM bytes") -> Rig: ...
    @staticmethod
    def from_json(text: str) -> Rig:
        """A rig description as JSON (``{"presets": true}``: the 18 presets)."""
    @property
    def channel_names(self) -> List[str]: ...
    @property
    def has_vrm(self) -> bool: ...
    @property
    def name(self) -> str: ...
    def vrm_bytes(self) -> Optional[bytes]: ...
    def __len__(self) -> int: ...

class Face:
    """One character's face, frame by frame (the C ABI's inputs). Same rig, seed and
    calls: the same frames, to the bit."""

    def __init__(
        self,
        rig: Rig,
        seed: int = 0,
        *,
        tracking: Union[None, bool, Mapping[str, Any], str] = None,
    ) -> None:
        """``tracking``: True for the retargeter's defaults, or tracking settings (as
        ``enable_tracking`` takes them)."""
    def enable_tracking(self, settings: Union[None, Mapping[str, Any], str] = None) -> None:
        """Turns tracking on (again: afresh, its calibration and fade-in start over):
        None for the defaults, or any fields of a tracking settings file
        (docs/tracking-format.md) as a mapping or JSON text, e.g. ``{"mirror": True}``
        for a selfie camera. An unknown field or a number out of range raises
        OmoteValueError naming it."""
    @property
    def channel_names(self) -> List[str]: ...
    def set_expression(self, name: str, weight: float) -> None:
        """Acting (the base layer), 0–1 (clamped); NaN raises."""
    def fade_expression(self, name: str, weight: float, seconds: float) -> None:
        """Moves an acted expression from its weight now to `weight` over `seconds`
        (0–60; 0: at once), eased in and out as a scene key's fade; a later fade starts
        from where this one got to; `set_expression` ends it. Bad times raise."""
    def set_picture(self, name: str, weight: float) -> None:
        """A picture-making adjustment added on top."""
    def set_gaze(self, yaw_deg: float, pitch_deg: float) -> None: ...
    def set_gaze_target(self, x: float, y: float, z: float) -> None:
        """Gaze along a direction in the head's frame (+Z ahead, +X left, +Y up)."""
    def set_head(self, rotation: npt.ArrayLike) -> None:
        """Head rotation x y z w (VRM frame, relative to the rest pose)."""
    def set_eye_mode(self, mode: str) -> None:
        """"idle", "talking", "listening" or "focused"."""
    def request_blink(self, delay: float = 0.0) -> None:
        """A blink ``delay`` s from now (0: as soon as the eyes are free); negative or
        NaN: ValueError."""
    def announce_eye_change(self, in_s: float) -> None:
        """An eye-area change ``in_s`` s ahead on your own timeline: no automatic blink
        starts shortly before it; negative or NaN: ValueError."""
    def say(self, track: Track, afterglow: Optional[Sequence[Tuple[str, float]]] = None) -> None:
        """Says a voice line now; ``afterglow``: (expression, weight) after it."""
    def cut(self) -> None: ...
    def set_afterglow_timing(self, hold_s: float, release_s: float) -> None:
        """The afterglow's hold at full once a line ends, then its release (s); hold
        ``math.inf`` (the default) keeps it until the next line. Negative or NaN:
        ValueError."""
    def clear_afterglow(self, release_s: float = 0.5) -> None:
        """Releases the afterglow showing now over ``release_s`` s (0: at once; negative,
        NaN or infinite: ValueError)."""
    @property
    def speaking(self) -> bool: ...
    def set_live_vowels(self, vowels: npt.ArrayLike, voiced: bool) -> None:
        """The live mouth for the next updates: A I U E O (5 numbers) or A I U E O N (6;
        N, the closed mouth, is ignored) and whether the frame is voiced; it holds for at
        most 0.1 s without a new one."""
    def hear(self, stream: VoiceStream, samples: Samples) -> None: ...
    def set_tracked(self, scores: npt.ArrayLike, head: Optional[npt.ArrayLike] = None) -> None:
        """52 ARKit scores (ARKit's order), head x y z w; needs ``tracking=True``."""
    def calibrate_tracking(self, seconds: float = 1.0) -> None:
        """The user's neutral head pose from the next ``seconds`` of tracked faces (0: the
        next face); needs ``tracking=True``."""
    def set_tracked_named(
        self, scores: Mapping[str, float], head_matrix: Optional[npt.ArrayLike] = None
    ) -> None:
        """Named scores (ARKit names, any spelling; MediaPipe's ``_neutral`` skipped) and
        a 4×4 head transform, row by row (MediaPipe's facial transformation matrix);
        needs ``tracking=True``."""
    def set_tracking_lost(self) -> None: ...
    def set_camera(self, position: Optional[Tuple[float, float, float]]) -> None: ...
    def update(self, dt: float) -> None:
        """Advances by ``dt`` s: up to 0.25 s one exact step; longer (a pause) one normal
        frame, so the face resumes without a jump; <= 0, NaN or inf: no time passes."""
    @property
    def weights(self) -> npt.NDArray[np.float32]:
        """After the VRM override rules (what the face shows)."""
    @property
    def input_weights(self) -> npt.NDArray[np.float32]:
        """Before the override rules (for UniVRM 1.0, VRMA)."""
    @property
    def rotations(self) -> npt.NDArray[np.float32]:
        """(3, 4): head, left eye, right eye as x y z w."""
    @property
    def gaze(self) -> Tuple[float, float]: ...
    @property
    def events(self) -> Dict[str, Any]:
        """The last update's blinks, saccades, voice_started, handed_over."""
    def record(self, fps: float = 60.0) -> None:
        """Starts recording: every later update with a step adds one frame, stamped at
        ``fps``, so step by ``1 / fps`` (a step of 1/60 recorded at 30 fps plays twice as
        slow)."""
    def finish_recording(self) -> Optional[Anim]:
        """The recording's :class:`Anim`, or None if nothing was recording."""

class Anim:
    """A baked animation."""

    @property
    def fps(self) -> float: ...
    @property
    def duration(self) -> float: ...
    def __len__(self) -> int: ...
    @property
    def channel_names(self) -> List[str]: ...
    @property
    def expressions(self) -> npt.NDArray[np.float32]:
        """(frames, channels) before the override rules."""
    @property
    def applied(self) -> npt.NDArray[np.float32]:
        """(frames, channels) after the override rules."""
    @property
    def head(self) -> npt.NDArray[np.float32]: ...
    @property
    def look_at(self) -> npt.NDArray[np.float32]: ...
    @property
    def events(self) -> List[Dict[str, Any]]: ...
    def to_json(self) -> bytes:
        """The anim file (what ``omote bake`` writes as ID.anim.json)."""
    def to_vrma(self, rig: Rig) -> bytes:
        """A VRM Animation for ``rig`` (a VRM). Expressions the VRM does not have (an
        anim recorded on another avatar) are left out with a ``UserWarning``. A tracked
        face's recording splits the head's turn with the neck at its ``neckShare``."""

class Scene:
    """A loaded dialogue scene (docs/scene-format.md)."""

    @property
    def characters(self) -> List[str]: ...
    @property
    def fps(self) -> Optional[float]: ...
    @property
    def warnings(self) -> List[str]:
        """What loading read but not whole (a voice WAV cut short), naming the line."""
    def rig(self, id: str) -> Rig: ...
    def bake(
        self,
        fps: Optional[float] = None,
        advance: Sequence[float] = (),
        skip: Sequence[float] = (),
    ) -> Dict[str, Anim]:
        """{character id: Anim}, as ``omote bake --advance … --skip …``. Releases the GIL."""

def load_scene(path: StrPath) -> Scene:
    """Loads a scene file; voices are lip-synced as it loads (a voice WAV cut short
    is read as far as it goes, with a ``UserWarning``). Releases the GIL."""

def inspect(vrm_path: StrPath, *, lenient: bool = False) -> Dict[str, Any]:
    """What omote reads from a VRM, as ``omote inspect --json``."""
