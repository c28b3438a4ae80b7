// A minimal scene script: put it on an empty GameObject, drag in the UniVRM 1.0 avatar
// (with OmoteFace, and OmoteVoice on an AudioSource) and a voice clip; press Space to say
// the clip as a line, H to turn the smile up. The eyes follow the main camera.
using Omote.Unity;
using UnityEngine;

public sealed class TalkingAvatar : MonoBehaviour
{
    public OmoteFace face;
    public OmoteVoice voice;
    public AudioClip line;

    void Start()
    {
        if (Camera.main != null) face.lookTarget = Camera.main.transform;
        if (line != null) voice.TrackOf(line); // analyse at load time, not on the key press
    }

    void Update()
    {
        if (face.Character == null) return;
        if (Input.GetKeyDown(KeyCode.Space) && line != null) voice.Say(line);
        // Acting goes in as expressions: blinks and the override rules see it.
        face.Character.SetExpression("happy", Input.GetKey(KeyCode.H) ? 0.8f : 0.2f);
    }
}
