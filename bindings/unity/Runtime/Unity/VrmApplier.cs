// Unity glue: one omote face's frame onto a UniVRM 1.0 model — the weights before the
// override rules through Expression.SetWeight (UniVRM applies the rules itself), the gaze
// through its look-at, the head turn split over neck and head on top of the animated
// pose. Shared by OmoteFace (a Character) and OmoteScene (a scene's characters). Compiled
// only by Unity; see bindings/unity/README.md.
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
    /// <summary>Applies one face's frame to one UniVRM 1.0 model, every LateUpdate.</summary>
    public sealed class VrmApplier
    {
        readonly Vrm10Instance vrm;
        readonly Transform root;
        readonly ExpressionKey[] keys;   // by channel id; unused where skip[id]
        readonly bool[] skip;
        readonly Bone neck = new Bone(), head = new Bone();

        /// <summary>How much of the head rotation the neck takes (the head takes the rest).</summary>
        public float NeckShare = 0.5f;

        /// <summary>A bone omote turns on top of the animation.</summary>
        sealed class Bone
        {
            public Transform t;
            public Quaternion restInRoot = Quaternion.identity; // its rest orientation in the avatar's frame
            public Quaternion written, before;
            public bool hasWritten;
        }

        /// <summary>An applier for <paramref name="vrm"/> (may be null: then only the bones
        /// of <paramref name="fallbackAnimator"/> are turned), its channels named
        /// <paramref name="channelNames"/>. Build it before any animation ran: it reads the
        /// rest pose.</summary>
        public VrmApplier(Vrm10Instance vrm, Animator fallbackAnimator, string[] channelNames)
        {
            this.vrm = vrm;
            var animator = vrm != null ? vrm.GetComponent<Animator>() : fallbackAnimator;
            root = vrm != null ? vrm.transform : (animator != null ? animator.transform : null);

            // Names to UniVRM keys once; the eyes go through UniVRM's look-at, so the
            // look* expressions it makes itself are not set twice.
            keys = new ExpressionKey[channelNames.Length];
            skip = new bool[channelNames.Length];
            var known = new HashSet<ExpressionKey>();
            if (vrm != null) foreach (var k in vrm.Runtime.Expression.ExpressionKeys) known.Add(k);
            for (int i = 0; i < channelNames.Length; i++)
            {
                ExpressionPreset preset;
                keys[i] = System.Enum.TryParse(channelNames[i], false, out preset) && preset != ExpressionPreset.custom
                    ? ExpressionKey.CreateFromPreset(preset)
                    : ExpressionKey.CreateCustom(channelNames[i]);
                skip[i] = !known.Contains(keys[i]) || channelNames[i].StartsWith("look");
            }
            if (vrm != null) vrm.LookAtTargetType = VRM10ObjectLookAt.LookAtTargetTypes.YawPitchValue;

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
            if (t != null && root != null) b.restInRoot = Quaternion.Inverse(root.rotation) * t.rotation;
        }

        /// <summary>Call first in LateUpdate: undoes last frame's turn where no animation
        /// wrote the bone since, so the turn sits on top of the animation and never
        /// accumulates.</summary>
        public void BeginFrame()
        {
            Restore(neck);
            Restore(head);
        }

        /// <summary>A target's direction in the animated head's frame, VRM axes (for
        /// <see cref="Character.SetGazeTarget"/>); false without a head bone.</summary>
        public bool TargetInHead(Vector3 target, out Vector3 vrmDirection)
        {
            vrmDirection = Vector3.forward;
            if (head.t == null) return false;
            var frame = head.t.rotation * Quaternion.Inverse(head.restInRoot);
            var p = Quaternion.Inverse(frame) * (target - head.t.position);
            if (p.sqrMagnitude <= 1e-8f) return false;
            vrmDirection = new Vector3(-p.x, p.y, p.z);
            return true;
        }

        /// <summary>Applies a frame: the weights before the override rules, the gaze
        /// (omote's degrees) and the head, left eye, right eye rotations (12 numbers, VRM
        /// frame; only the head is used, the eyes go through the look-at).</summary>
        public void Apply(float[] inputWeights, float yawDeg, float pitchDeg, float[] rotations)
        {
            if (vrm != null)
            {
                var expression = vrm.Runtime.Expression;
                for (int i = 0; i < inputWeights.Length; i++)
                    if (!skip[i]) expression.SetWeight(keys[i], inputWeights[i]);
                vrm.Runtime.LookAt.SetYawPitchManually(-yawDeg, -pitchDeg);
            }
            var turn = new Quaternion(rotations[0], -rotations[1], -rotations[2], rotations[3]); // VRM → Unity (ReverseX)
            if (neck.t != null && head.t != null)
            {
                Turn(neck, Quaternion.Slerp(Quaternion.identity, turn, NeckShare));
                Turn(head, Quaternion.Slerp(Quaternion.identity, turn, 1f - NeckShare));
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
    }
}
