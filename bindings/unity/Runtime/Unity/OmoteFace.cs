// Unity glue: drives a UniVRM 1.0 model (Vrm10Instance) with an omote Character. Thin on
// purpose — every rule is in the native library and every testable piece in Runtime/Core
// (tested under Mono by bindings/csharp/test.sh). This file is compiled only by Unity
// (no Unity editor in CI): see bindings/unity/README.md.
//
// The frame goes onto the model through VrmApplier (axes and UniVRM's rules there).

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

        [Tooltip("How much of the head rotation the neck takes (the head takes the rest); half, as omote's VRMA files and the npm package share it.")]
        [Range(0f, 1f)] public float neckShare = 0.5f;

        /// <summary>The character: act, say lines, hear voices, track through it.</summary>
        public Character Character { get; private set; }

        Avatar avatar;
        VrmApplier applier;

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
            // Built now, before any animation ran: it reads the rest pose.
            applier = new VrmApplier(vrm, GetComponent<Animator>(), Character.ChannelNames);
        }

        void LateUpdate()
        {
            var c = Character;
            if (c == null) return;
            applier.NeckShare = neckShare;
            applier.BeginFrame();
            Vector3 direction;
            if (lookTarget != null && applier.TargetInHead(lookTarget.position, out direction))
                c.SetGazeTarget(direction.x, direction.y, direction.z);
            c.Step(Time.deltaTime);
            float yaw, pitch;
            c.GetGaze(out yaw, out pitch);
            applier.Apply(c.InputWeights, yaw, pitch, c.Rotations);
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
