// Unity glue: drives a UniVRM 1.0 model (Vrm10Instance) with an omote Character. Thin on
// purpose — every rule is in the native library and every testable piece in Runtime/Core
// (tested under Mono by bindings/csharp/test.sh). This file is compiled only by Unity
// (no Unity editor in CI): see bindings/unity/README.md.
//
// Axes. omote's rotations, gaze and gaze target are in the VRM frame (glTF: right-handed,
// +Y up, the avatar facing +Z, +X its left). UniVRM imports VRM 1.0 by mirroring X
// (UniGLTF's ReverseX, vrm-c/UniVRM Assets/UniGLTF/Runtime/Extensions/UnityExtensions.cs
// and Assets/UniGLTF/Runtime/UniGLTF/IO/Axes.cs): a position (x, y, z) becomes (-x, y, z)
// and a rotation (x, y, z, w) becomes (x, -y, -z, w) — the same map omote's VMC sender
// uses (crates/omote-vmc/src/coords.rs). UniVRM's look-at yaw is + to the right and its
// pitch + up (CalcYawPitch, Assets/VRM10/Runtime/.../Matrix4x4Extensions.cs), omote's
// yaw + to the avatar's left and pitch + down: both are negated.

using System.Collections.Generic;
using UniGLTF.Extensions.VRMC_vrm;
using UniVRM10;
using UnityEngine;

namespace Omote.Unity
{
    /// <summary>
    /// Puts an omote face on a UniVRM 1.0 avatar: blinks that respect the acting,
    /// saccades, voice lines, live voice, tracking. Each LateUpdate (after the Animator,
    /// before Vrm10Instance applies expressions at execution order 11000) it steps the
    /// character by <c>Time.deltaTime</c>, hands UniVRM the weights before the override
    /// rules (UniVRM applies the rules itself), the gaze through UniVRM's look-at, and
    /// multiplies the head rotation, split over neck and head, onto the animated pose —
    /// so an animation turning the head keeps its turn.
    /// </summary>
    [DisallowMultipleComponent]
    [DefaultExecutionOrder(10000)]
    public sealed class OmoteFace : MonoBehaviour
    {
        [Tooltip("The UniVRM 1.0 avatar to drive (defaults to this GameObject's).")]
        public Vrm10Instance vrm;

        [Tooltip("The .vrm file's bytes (rename it to .bytes to import it as a TextAsset). " +
                 "Or call Init(bytes) with the bytes you loaded the model from.")]
        public TextAsset vrmBytes;

        [Tooltip("Instead of the VRM: a rig as JSON (its expression names), e.g. {\"presets\": true}.")]
        public TextAsset rigJson;

        [Tooltip("Blinks and saccades are seeded: the same seed and inputs give the same face.")]
        public long seed = 1;

        [Tooltip("Something to look at (a camera, another character); none: the acted gaze.")]
        public Transform lookTarget;

        [Tooltip("How much of the head rotation the neck takes (the head takes the rest).")]
        [Range(0f, 1f)] public float neckShare = 0.4f;

        /// <summary>The character: act, say lines, hear voices, track through it.</summary>
        public Character Character { get; private set; }

        Avatar avatar;
        Animator animator;
        ExpressionKey[] keys;   // by channel id; unused where skip[id]
        bool[] skip;
        readonly Bone neck = new Bone(), head = new Bone();

        /// <summary>A bone omote turns on top of the animation.</summary>
        sealed class Bone
        {
            public Transform t;
            public Quaternion restInRoot = Quaternion.identity; // its rest orientation in the avatar's frame
            public Quaternion written, before;
            public bool hasWritten;
        }

        void Start()
        {
            if (Character == null)
            {
                if (vrmBytes != null) Init(vrmBytes.bytes);
                else if (rigJson != null) Init(Avatar.FromRigJson(rigJson.text));
                else Debug.LogError("OmoteFace: give it the VRM's bytes (vrmBytes or Init) or a rig JSON", this);
            }
        }

        /// <summary>Builds the character from the VRM's bytes (what UniVRM loaded the model from).</summary>
        public void Init(byte[] vrmFileBytes)
        {
            Init(Avatar.FromVrm(vrmFileBytes, name));
        }

        /// <summary>Builds the character from an avatar (the component owns it from now on).</summary>
        public void Init(Avatar source)
        {
            Release();
            avatar = source;
            Character = new Character(avatar, unchecked((ulong)seed));
            if (vrm == null) vrm = GetComponent<Vrm10Instance>();
            animator = vrm != null ? vrm.GetComponent<Animator>() : GetComponent<Animator>();

            // Names to UniVRM keys once; the eyes go through UniVRM's look-at, so the
            // look* expressions it makes itself are not set twice.
            var names = Character.ChannelNames;
            keys = new ExpressionKey[names.Length];
            skip = new bool[names.Length];
            var known = new HashSet<ExpressionKey>();
            if (vrm != null) foreach (var k in vrm.Runtime.Expression.ExpressionKeys) known.Add(k);
            for (int i = 0; i < names.Length; i++)
            {
                ExpressionPreset preset;
                keys[i] = System.Enum.TryParse(names[i], false, out preset) && preset != ExpressionPreset.custom
                    ? ExpressionKey.CreateFromPreset(preset)
                    : ExpressionKey.CreateCustom(names[i]);
                skip[i] = !known.Contains(keys[i]) || names[i].StartsWith("look");
            }
            if (vrm != null) vrm.LookAtTargetType = VRM10ObjectLookAt.LookAtTargetTypes.YawPitchValue;

            // The rest pose, read before any animation ran (UniVRM builds the model in it).
            if (animator != null && animator.isHuman)
            {
                Capture(neck, animator.GetBoneTransform(HumanBodyBones.Neck));
                Capture(head, animator.GetBoneTransform(HumanBodyBones.Head));
            }
        }

        void Capture(Bone b, Transform t)
        {
            b.t = t;
            b.hasWritten = false;
            var root = vrm != null ? vrm.transform : transform;
            if (t != null) b.restInRoot = Quaternion.Inverse(root.rotation) * t.rotation;
        }

        void LateUpdate()
        {
            var c = Character;
            if (c == null) return;

            // Undo last frame's turn where no animation wrote the bone since (no Animator
            // curve on it): the turn is on top of the animation, never accumulated.
            Restore(neck);
            Restore(head);

            if (lookTarget != null && head.t != null)
            {
                // The target in the animated head's frame (root-aligned axes), VRM axes.
                var frame = head.t.rotation * Quaternion.Inverse(head.restInRoot);
                var p = Quaternion.Inverse(frame) * (lookTarget.position - head.t.position);
                if (p.sqrMagnitude > 1e-8f) c.SetGazeTarget(-p.x, p.y, p.z);
            }

            c.Step(Time.deltaTime);

            if (vrm != null)
            {
                var expression = vrm.Runtime.Expression;
                var w = c.InputWeights;
                for (int i = 0; i < w.Length; i++)
                    if (!skip[i]) expression.SetWeight(keys[i], w[i]);
                float yaw, pitch;
                c.GetGaze(out yaw, out pitch);
                vrm.Runtime.LookAt.SetYawPitchManually(-yaw, -pitch);
            }

            var r = c.Rotations;
            var turn = new Quaternion(r[0], -r[1], -r[2], r[3]); // VRM → Unity (ReverseX)
            if (neck.t != null && head.t != null)
            {
                Turn(neck, Quaternion.Slerp(Quaternion.identity, turn, neckShare));
                Turn(head, Quaternion.Slerp(Quaternion.identity, turn, 1f - neckShare));
            }
            else if (head.t != null)
            {
                Turn(head, turn);
            }
        }

        static void Restore(Bone b)
        {
            if (b.t != null && b.hasWritten && b.t.localRotation == b.written) b.t.localRotation = b.before;
        }

        /// <summary>Multiplies <paramref name="delta"/> (a turn in the avatar's frame) onto
        /// the bone's animated rotation, in the bone's own axes.</summary>
        static void Turn(Bone b, Quaternion delta)
        {
            b.before = b.t.localRotation;
            var local = Quaternion.Inverse(b.restInRoot) * delta * b.restInRoot;
            b.t.rotation = b.t.rotation * local;
            b.written = b.t.localRotation;
            b.hasWritten = true;
        }

        void Release()
        {
            if (Character != null) Character.Dispose();
            if (avatar != null) avatar.Dispose();
            Character = null;
            avatar = null;
        }

        void OnDestroy()
        {
            Release();
        }
    }
}
