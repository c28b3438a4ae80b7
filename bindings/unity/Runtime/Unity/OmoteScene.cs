// Unity glue: plays an omote dialogue scene (docs/scene-format.md) on UniVRM 1.0 models —
// each character's face through a VrmApplier, its voice lines on an AudioSource when the
// scene says they start, Advance and Skip for the player's buttons. Thin: the scene
// itself runs in the native library (tested through Runtime/Core's Scene under Mono).
// Compiled only by Unity; see bindings/unity/README.md.

using System;
using System.Collections.Generic;
using System.IO;
using UniVRM10;
using UnityEngine;

namespace Omote.Unity
{
    /// <summary>
    /// Plays a scene file: its characters' faces on the models bound to their ids, their
    /// lines' audio, waits that hold until <see cref="Advance"/>, and <see cref="Skip"/>.
    /// </summary>
    [DefaultExecutionOrder(10000)]
    public sealed class OmoteScene : MonoBehaviour
    {
        /// <summary>A scene character's model and voice.</summary>
        [Serializable]
        public sealed class Binding
        {
            [Tooltip("The character's id in the scene file.")]
            public string id;
            [Tooltip("Its UniVRM 1.0 model.")]
            public Vrm10Instance vrm;
            [Tooltip("Where its lines play (optional).")]
            public AudioSource voice;
            [Tooltip("What it looks at (optional): a transform the game moves — the player's head, a prop. Set, it replaces the scene file's gaze keys; unset, they are back.")]
            public Transform lookAt;
        }

        [Tooltip("The scene file, relative to StreamingAssets (its voices and models beside it).")]
        public string scenePath = "scene/scene.toml";

        [Tooltip("The characters, by their ids in the scene.")]
        public Binding[] characters = new Binding[0];

        [Tooltip("The lines' audio, named as the files the scene names (without extension).")]
        public AudioClip[] clips = new AudioClip[0];

        [Tooltip("Waits move on by themselves after their hold (a preview); off: Advance() moves on.")]
        public bool autoAdvance;

        [Tooltip("The game's camera (optional): with it, the faces' camera-angle correction and at = \"camera\" gaze follow it instead of the scene file's camera path.")]
        public Camera gameCamera;

        [Tooltip("Where the scene file's origin is in the world (its +Y up, +Z toward a camera in front): the characters' positions are taken from it. Unset: the world's origin.")]
        public Transform sceneOrigin;

        [Tooltip("Each bound model's head bone and turn place its character in the scene every frame (characters that walk or stand where the game puts them); off: the models must stand where the scene file says.")]
        public bool followModels;

        /// <summary>Reads a file the scene names (a path → its bytes, null when missing).
        /// Set it before Start where StreamingAssets are not plain files (Android, WebGL).</summary>
        public Func<string, byte[]> Resolver;

        /// <summary>The scene playing.</summary>
        public Scene Scene { get; private set; }

        VrmApplier[] appliers;
        Binding[] bound;
        float[][] weights;
        readonly float[] rotations = new float[12];
        bool cameraGiven;
        bool[] gazeGiven;
        Transform[] heads;

        static bool Finite(float v) { return !float.IsNaN(v) && !float.IsInfinity(v); }
        readonly Dictionary<string, AudioClip> clipsByName = new Dictionary<string, AudioClip>();

        void Start()
        {
            var path = Path.Combine(Application.streamingAssetsPath, scenePath);
            Scene = Resolver == null ? Scene.Load(path) : Scene.FromText(System.Text.Encoding.UTF8.GetString(Resolver(path)), path, Resolver);
            Scene.AutoAdvance = autoAdvance;
            foreach (var c in clips) if (c != null) clipsByName[c.name] = c;

            int n = Scene.CharacterCount;
            appliers = new VrmApplier[n];
            bound = new Binding[n];
            weights = new float[n][];
            gazeGiven = new bool[n];
            heads = new Transform[n];
            for (int i = 0; i < n; i++)
            {
                weights[i] = new float[Scene.ChannelNames(i).Length];
                bound[i] = Array.Find(characters, b => b.id == Scene.CharacterId(i));
                if (bound[i] == null || bound[i].vrm == null)
                {
                    Debug.LogWarning("OmoteScene: no model bound to character `" + Scene.CharacterId(i) + "`", this);
                    continue;
                }
                appliers[i] = new VrmApplier(bound[i].vrm, null, Scene.ChannelNames(i));
                var animator = bound[i].vrm.GetComponent<Animator>();
                heads[i] = animator != null ? animator.GetBoneTransform(HumanBodyBones.Head) : null;
            }
        }

        /// <summary>The player presses "next": a wait moves on, a line that plays is cut.</summary>
        public void Advance() { if (Scene != null) Scene.Advance(); }

        /// <summary>The player skips to the next wait (or the end).</summary>
        public void Skip() { if (Scene != null) Scene.Skip(); }

        void LateUpdate()
        {
            if (Scene == null) return;
            foreach (var a in appliers) if (a != null) a.BeginFrame();
            Vector3 p;
            if (gameCamera != null)
            {
                if (InScene(gameCamera.transform.position, out p))
                {
                    Scene.SetCamera(p.x, p.y, p.z);
                    cameraGiven = true;
                }
            }
            else if (cameraGiven)
            {
                Scene.ClearCamera();
                cameraGiven = false;
            }
            for (int i = 0; followModels && i < heads.Length; i++)
            {
                if (heads[i] == null || !InScene(heads[i].position, out p)) continue;
                // The body's turn about +Y in the scene's frame (VRM axes: 0 faces +Z).
                Vector3 f = bound[i].vrm.transform.forward;
                if (sceneOrigin != null) f = sceneOrigin.InverseTransformDirection(f);
                float facing = Mathf.Atan2(-f.x, f.z) * Mathf.Rad2Deg;
                if (Finite(facing)) Scene.SetPlacement(i, p.x, p.y, p.z, facing);
            }
            for (int i = 0; i < bound.Length; i++)
            {
                var target = bound[i] != null ? bound[i].lookAt : null;
                if (target != null)
                {
                    if (InScene(target.position, out p))
                    {
                        Scene.SetGazePoint(i, p.x, p.y, p.z);
                        gazeGiven[i] = true;
                    }
                }
                else if (gazeGiven[i])
                {
                    Scene.ClearGaze(i);
                    gazeGiven[i] = false;
                }
            }
            Scene.Update(Time.deltaTime);
            for (int k = 0; k < Scene.EventCount; k++) Play(Scene.Events[k]);
            for (int i = 0; i < appliers.Length; i++)
            {
                if (appliers[i] == null) continue;
                float yaw, pitch;
                Scene.InputWeights(i, weights[i]);
                Scene.Rotations(i, rotations);
                Scene.GetGaze(i, out yaw, out pitch);
                appliers[i].Apply(weights[i], yaw, pitch, rotations);
            }
        }

        /// <summary>A world position in the scene file's frame: relative to
        /// <see cref="sceneOrigin"/>, in VRM (glTF) axes — Unity's with x negated. False
        /// for a degenerate origin (zero scale), which gives no position: the last one is
        /// kept rather than stop the scene with an exception every frame.</summary>
        bool InScene(Vector3 world, out Vector3 p)
        {
            p = sceneOrigin != null ? sceneOrigin.InverseTransformPoint(world) : world;
            p.x = -p.x;
            return Finite(p.x) && Finite(p.y) && Finite(p.z);
        }

        /// <summary>Starts a line's audio at its exact time (between frames), or stops a cut one.</summary>
        void Play(SceneEvent e)
        {
            if (e.Character < 0 || e.Character >= bound.Length) return;
            var source = bound[e.Character] != null ? bound[e.Character].voice : null;
            if (source == null) return;
            if (e.Kind == SceneEvent.Cut) { source.Stop(); return; }
            if (e.Kind != SceneEvent.Voice) return;
            AudioClip clip;
            if (!clipsByName.TryGetValue(Path.GetFileNameWithoutExtension(Scene.LineClip(e.Character, e.Index)), out clip)) return;
            source.clip = clip;
            source.PlayScheduled(AudioSettings.dspTime + Math.Max(0.0, e.T - Scene.Time));
        }

        void OnDestroy()
        {
            if (Scene != null) Scene.Dispose();
            Scene = null;
        }
    }
}
