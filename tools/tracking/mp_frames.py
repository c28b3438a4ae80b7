#!/usr/bin/env python3
"""Helpers for compare_mediapipe.sh (run inside its venv).

  mp_frames.py render N OUT.raw SHARED_DIR [PNG_DIR]
      N raw 640x480 RGB frames of the shared astronaut sequence (the generator in
      SHARED_DIR/tools/tracking/make_sequence.py), one after the other in OUT.raw;
      with PNG_DIR also each as PNG_DIR/frame_NNNN.png.
  mp_frames.py time TASK RAW N video|image
      MediaPipe FaceLandmarker (Python tasks API) over the N frames, one
      detect call per frame after loading (model loading not counted); prints
      one line: `wall_ms_per_frame cpu_ms_per_frame faces_found` (CPU time of the
      whole process, all its threads).
  mp_frames.py wall STDIN CMD...
      Runs CMD with STDIN as standard input (`-` for none) and its output
      discarded; prints its wall time and CPU time (user + system, all threads)
      in seconds.
"""
import os
import sys
import time


def render(n, out, shared, png_dir=None):
    sys.path.insert(0, os.path.join(shared, 'tools', 'tracking'))
    import make_sequence as ms
    ms.OUT = os.path.join(shared, 'data', 'tracking')
    src = ms.source()
    if png_dir:
        from PIL import Image
        os.makedirs(png_dir, exist_ok=True)
    with open(out, 'wb') as f:
        for i in range(n):
            frame = ms.render_frame(src, i)
            f.write(frame.tobytes())
            if png_dir:
                Image.fromarray(frame).save(os.path.join(png_dir, 'frame_%04d.png' % i))


def time_mediapipe(task, raw, n, mode):
    import numpy as np
    import mediapipe as mp
    from time_mediapipe import landmarker as make_landmarker  # beside this script
    data = np.fromfile(raw, dtype=np.uint8).reshape(n, 480, 640, 3)
    images = [mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(data[i]))
              for i in range(n)]
    video = mode == 'video'
    landmarker = make_landmarker(task, video)
    found = 0
    start, cpu = time.perf_counter(), time.process_time()
    for i, image in enumerate(images):
        # Timestamps as omote's --fps 30 gives them: round(i * 1000 / 30) ms.
        result = (landmarker.detect_for_video(image, round(i * 1000 / 30)) if video
                  else landmarker.detect(image))
        found += bool(result.face_landmarks)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print('%.3f %.3f %d' % (elapsed / n * 1e3, cpu / n * 1e3, found))


def wall(stdin, cmd):
    import resource
    import subprocess
    src = subprocess.DEVNULL if stdin == '-' else open(stdin, 'rb')
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdin=src, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
    print('%.4f %.4f' % (elapsed, cpu))


def main():
    cmd = sys.argv[1]
    if cmd == 'render':
        render(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    elif cmd == 'time':
        time_mediapipe(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif cmd == 'wall':
        wall(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
