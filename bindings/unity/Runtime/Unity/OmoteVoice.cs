// Unity glue: a voice for an OmoteFace. Compiled only by Unity (see OmoteFace.cs).

using UnityEngine;

namespace Omote.Unity
{
    /// <summary>
    /// A voice for an <see cref="OmoteFace"/>, in one of two ways:
    /// <list type="bullet">
    /// <item><b>Live</b> (<see cref="live"/> on): whatever the AudioSource on this
    /// GameObject plays (a microphone clip, a voice chat stream) moves the mouth.
    /// <c>OnAudioFilterRead</c> runs on Unity's audio thread: it only writes the samples,
    /// mixed to mono, into an <see cref="AudioRing"/> (no lock, no allocation, never
    /// waits); <c>Update</c> on the main thread reads them and hears them through a
    /// <see cref="VoiceStream"/> at the output rate, before the face steps in LateUpdate.</item>
    /// <item><b>Lines</b>: <see cref="Say(AudioClip)"/> plays a clip and says it as a voice
    /// line — the mouth starts with the voice and hands over 0.2 s before its end, with an
    /// afterglow. A clip is analysed once (cached), so its Load Type must let
    /// <c>GetData</c> read it (Decompress On Load).</item>
    /// </list>
    /// </summary>
    [RequireComponent(typeof(AudioSource))]
    public sealed class OmoteVoice : MonoBehaviour
    {
        [Tooltip("The face to move (defaults to one on this GameObject or its parents).")]
        public OmoteFace face;

        [Tooltip("Hear what the AudioSource plays, live.")]
        public bool live;

        [Tooltip("An expression held after a line (the afterglow), e.g. happy.")]
        public string afterglowExpression = "";

        [Range(0f, 1f)] public float afterglowWeight = 0.3f;

        AudioSource source;
        AudioRing ring;
        VoiceStream stream;
        float[] chunk;
        readonly System.Collections.Generic.Dictionary<AudioClip, Track> tracks =
            new System.Collections.Generic.Dictionary<AudioClip, Track>();

        void Awake()
        {
            source = GetComponent<AudioSource>();
            if (face == null) face = GetComponentInParent<OmoteFace>();
            int rate = AudioSettings.outputSampleRate;
            ring = new AudioRing(rate / 2);   // half a second of slack
            chunk = new float[rate / 20];     // read in pieces of 50 ms
            stream = new VoiceStream(rate);
        }

        /// <summary>Audio thread: into the ring, nothing else.</summary>
        void OnAudioFilterRead(float[] data, int channels)
        {
            if (live) ring.Write(data, data.Length, channels);
        }

        void Update()
        {
            var c = face != null ? face.Character : null;
            int n;
            while ((n = ring.Read(chunk)) > 0)
                if (c != null) c.Hear(stream, chunk, n);
        }

        /// <summary>Plays <paramref name="clip"/> and says it as a line on the face.</summary>
        public void Say(AudioClip clip)
        {
            var c = face != null ? face.Character : null;
            if (c == null || clip == null) return;
            c.Say(TrackOf(clip), Afterglow(c));
            source.PlayOneShot(clip);
        }

        /// <summary>Stops the line (the mouth hands over from now) and the sound.</summary>
        public void Cut()
        {
            if (face != null && face.Character != null) face.Character.Cut();
            source.Stop();
        }

        /// <summary>The clip's track, analysed the first time it is asked for (call it at
        /// load time for the lines of a scene to keep the analysis out of play).</summary>
        public Track TrackOf(AudioClip clip)
        {
            Track t;
            if (tracks.TryGetValue(clip, out t)) return t;
            var data = new float[clip.samples * clip.channels];
            clip.GetData(data, 0);
            var mono = new float[clip.samples];
            for (int i = 0; i < mono.Length; i++)
            {
                float sum = 0;
                for (int k = 0; k < clip.channels; k++) sum += data[i * clip.channels + k];
                mono[i] = sum / clip.channels;
            }
            t = Track.Analyse(mono, clip.frequency);
            tracks[clip] = t;
            return t;
        }

        OmoteWeight[] Afterglow(Character c)
        {
            int id;
            if (string.IsNullOrEmpty(afterglowExpression) || !c.TryChannelId(afterglowExpression, out id)) return null;
            return new[] { new OmoteWeight(id, afterglowWeight) };
        }

        void OnDestroy()
        {
            foreach (var t in tracks.Values) t.Dispose();
            tracks.Clear();
            if (stream != null) stream.Dispose();
            stream = null;
        }
    }
}
