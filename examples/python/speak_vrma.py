"""Text -> speech (espeak-ng) -> lip sync -> a VRMA for the built-in avatar.

    python examples/python/speak_vrma.py "Hello there." out.vrma
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import omote

text, out = sys.argv[1], Path(sys.argv[2])
with tempfile.TemporaryDirectory() as tmp:
    wav = Path(tmp) / "line.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), text], check=True)
    track = omote.lipsync(wav)

rig = omote.Rig.builtin()
face = omote.Face(rig, seed=1)
face.record(fps=60)
face.say(track, afterglow=[("happy", 0.3)])
for _ in range(round((track.duration + 1.0) * 60)):  # the line and a second after it
    face.update(1 / 60)
out.write_bytes(face.finish_recording().to_vrma(rig))
print(f"{out}: {track.duration:.2f} s of speech, voiced {track.voiced}")
