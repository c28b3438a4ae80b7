/* Misuse of omote's C API, case by case: each call must return the expected status and
 * leave a message naming the call, never crash, and outputs must stay finite. Prints
 * `ok NAME: message` per case; exits 1 on the first case that does not hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omote.h"

static int failures = 0;

static void expect(const char *name, OmoteStatus got, OmoteStatus want, const char *call) {
  const char *msg = omote_last_error();
  if (got != want) {
    printf("FAIL %s: status %d, expected %d (%s)\n", name, (int)got, (int)want, msg);
    failures++;
  } else if (want != OMOTE_STATUS_OK && (strstr(msg, call) == NULL || strlen(msg) < strlen(call) + 5)) {
    printf("FAIL %s: message `%s` does not name `%s`\n", name, msg, call);
    failures++;
  } else if (want != OMOTE_STATUS_OK && omote_last_error_length() != strlen(msg)) {
    printf("FAIL %s: omote_last_error_length disagrees\n", name);
    failures++;
  } else {
    printf("ok %s: %s\n", name, want == OMOTE_STATUS_OK ? "" : msg);
  }
}

#define EXPECT(name, call, want, fn) expect(name, call, want, fn)

/* A 16 kHz mono 16-bit WAV whose header declares 32000 data bytes and holds 22000: a
 * file cut short while copied. */
static uint8_t cut_wav[44 + 22000];

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void make_cut_wav(void) {
  uint8_t *h = cut_wav;
  memcpy(h, "RIFF", 4);
  put32(h + 4, 36 + 32000);
  memcpy(h + 8, "WAVEfmt ", 8);
  put32(h + 16, 16);
  h[20] = 1; h[21] = 0; /* PCM */
  h[22] = 1; h[23] = 0; /* mono */
  put32(h + 24, 16000);
  put32(h + 28, 32000);
  h[32] = 2; h[33] = 0; h[34] = 16; h[35] = 0;
  memcpy(h + 36, "data", 4);
  put32(h + 40, 32000);
  for (uint32_t i = 0; i < 11000; i++) {
    int16_t v = (i / 36) % 2 ? 8000 : -8000; /* a 222 Hz buzz */
    h[44 + 2 * i] = (uint8_t)(v & 0xff);
    h[45 + 2 * i] = (uint8_t)((uint16_t)v >> 8);
  }
}

/* The resolver: "voice/cut.wav" is the cut WAV; nothing else exists. */
static int32_t read_cut(void *user, const char *path, OmoteFileSink *sink) {
  (void)user;
  const char *want = "voice/cut.wav";
  size_t n = strlen(path), m = strlen(want);
  if (n < m || strcmp(path + n - m, want) != 0) return 1;
  if (sink != NULL) omote_file_sink_write(sink, cut_wav, sizeof cut_wav);
  return 0;
}

int main(void) {
  OmoteAvatar avatar = 0;
  OmoteCharacter face = 0;
  uint32_t n = 0;
  float nan = NAN;

  /* Loading. */
  EXPECT("load null path", omote_avatar_load(NULL, &avatar), OMOTE_STATUS_NULL_POINTER, "omote_avatar_load");
  EXPECT("load missing file", omote_avatar_load("/no/such/avatar.vrm", &avatar), OMOTE_STATUS_NOT_FOUND, "omote_avatar_load");
  EXPECT("load null out", omote_avatar_builtin(0, NULL), OMOTE_STATUS_NULL_POINTER, "omote_avatar_builtin");
  EXPECT("unknown builtin", omote_avatar_builtin(9, &avatar), OMOTE_STATUS_INVALID_ARGUMENT, "omote_avatar_builtin");
  const uint8_t junk[16] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 99, 0, 0, 0, 1, 2, 3, 4};
  EXPECT("vrm of junk", omote_avatar_from_vrm(junk, sizeof junk, "junk.vrm", &avatar), OMOTE_STATUS_LOAD_FAILED, "omote_avatar_from_vrm");
  EXPECT("vrm null bytes", omote_avatar_from_vrm(NULL, 100, NULL, &avatar), OMOTE_STATUS_NULL_POINTER, "omote_avatar_from_vrm");
  EXPECT("rig json broken", omote_avatar_from_rig_json("{\"presets\": tru", &avatar), OMOTE_STATUS_LOAD_FAILED, "omote_avatar_from_rig_json");
  const char bad_utf8[] = {(char)0xff, (char)0xfe, 0};
  EXPECT("rig json not utf-8", omote_avatar_from_rig_json(bad_utf8, &avatar), OMOTE_STATUS_INVALID_ARGUMENT, "omote_avatar_from_rig_json");

  EXPECT("builtin", omote_avatar_builtin(0, &avatar), OMOTE_STATUS_OK, "");
  EXPECT("character", omote_character_new(avatar, 1, &face), OMOTE_STATUS_OK, "");
  EXPECT("count", omote_character_channel_count(face, &n), OMOTE_STATUS_OK, "");

  /* Handles. */
  EXPECT("zero handle", omote_character_update(0, 0.016f), OMOTE_STATUS_INVALID_HANDLE, "omote_character_update");
  EXPECT("wrong kind", omote_character_update(avatar, 0.016f), OMOTE_STATUS_INVALID_HANDLE, "omote_character_update");
  EXPECT("foreign handle", omote_character_update(0x1234567890abcdefull, 0.016f), OMOTE_STATUS_INVALID_HANDLE, "omote_character_update");
  OmoteCharacter other;
  EXPECT("second character", omote_character_new(avatar, 2, &other), OMOTE_STATUS_OK, "");
  EXPECT("free", omote_character_free(other), OMOTE_STATUS_OK, "");
  EXPECT("use after free", omote_character_update(other, 0.016f), OMOTE_STATUS_INVALID_HANDLE, "omote_character_update");
  EXPECT("double free", omote_character_free(other), OMOTE_STATUS_INVALID_HANDLE, "omote_character_free");
  OmoteCharacter reused;
  EXPECT("slot reused", omote_character_new(avatar, 3, &reused), OMOTE_STATUS_OK, "");
  EXPECT("stale handle of a reused slot", omote_character_update(other, 0.016f), OMOTE_STATUS_INVALID_HANDLE, "omote_character_update");
  EXPECT("free reused", omote_character_free(reused), OMOTE_STATUS_OK, "");

  /* Arguments. */
  EXPECT("NaN weight", omote_character_set_expression_named(face, "happy", nan), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_expression_named");
  EXPECT("unknown name", omote_character_set_expression_named(face, "smile", 1.0f), OMOTE_STATUS_NOT_FOUND, "omote_character_set_expression_named");
  EXPECT("null name", omote_character_set_expression_named(face, NULL, 1.0f), OMOTE_STATUS_NULL_POINTER, "omote_character_set_expression_named");
  EXPECT("channel out of range", omote_character_set_expression(face, n, 1.0f), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_expression");
  EXPECT("NaN gaze", omote_character_set_gaze(face, nan, 0.0f), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_gaze");
  EXPECT("zero gaze target", omote_character_set_gaze_target(face, 0.0f, 0.0f, 0.0f), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_gaze_target");
  EXPECT("zero head", omote_character_set_head(face, 0.0f, 0.0f, 0.0f, 0.0f), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_head");
  EXPECT("unknown eye mode", omote_character_set_eye_mode(face, 7), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_eye_mode");
  EXPECT("NaN blink delay", omote_character_request_blink(face, nan), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_request_blink");
  EXPECT("NaN eye change", omote_character_announce_eye_change(face, nan), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_announce_eye_change");
  EXPECT("eye change", omote_character_announce_eye_change(face, 0.5f), OMOTE_STATUS_OK, "");
  EXPECT("calibrate before tracking is on", omote_character_calibrate_tracking(face, 1.0f), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_calibrate_tracking");
  float scores[52] = {0};
  EXPECT("tracked before tracking is on", omote_character_set_tracked(face, scores, 52, NULL), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_tracked");
  if (strstr(omote_last_error(), "tracking is off") == NULL) {
    printf("FAIL set_tracked without tracking: `%s`\n", omote_last_error());
    failures++;
  }
  EXPECT("misspelt tracking setting", omote_character_enable_tracking_with(face, "{\"mirrorr\": true}"), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_enable_tracking_with");
  if (strstr(omote_last_error(), "unknown field `mirrorr`") == NULL) {
    printf("FAIL misspelt tracking setting: `%s`\n", omote_last_error());
    failures++;
  }
  EXPECT("tracking settings not JSON", omote_character_enable_tracking_with(face, "mirror"), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_enable_tracking_with");
  EXPECT("tracking on, mirrored", omote_character_enable_tracking_with(face, "{\"mirror\": true}"), OMOTE_STATUS_OK, "");
  EXPECT("tracking on", omote_character_enable_tracking(face), OMOTE_STATUS_OK, "");
  EXPECT("tracked", omote_character_set_tracked(face, scores, 52, NULL), OMOTE_STATUS_OK, "");
  EXPECT("calibrate", omote_character_calibrate_tracking(face, 1.0f), OMOTE_STATUS_OK, "");
  EXPECT("calibrate for ever", omote_character_calibrate_tracking(face, 1e30f), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_calibrate_tracking");
  EXPECT("51 scores", omote_character_set_tracked(face, scores, 51, NULL), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_tracked");
  scores[3] = nan;
  EXPECT("NaN score", omote_character_set_tracked(face, scores, 52, NULL), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_tracked");
  float vowels[6] = {0.5f, 0, 0, 0, 0, nan};
  EXPECT("NaN vowel", omote_character_set_live_vowels(face, vowels, 6, 1), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_live_vowels");
  EXPECT("4 vowels", omote_character_set_live_vowels(face, vowels, 4, 1), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_live_vowels");

  /* Camera. */
  EXPECT("camera map broken", omote_character_enable_camera(face, "[[points]\n"), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_enable_camera");
  EXPECT("camera map built in", omote_character_enable_camera(face, NULL), OMOTE_STATUS_OK, "");
  EXPECT("camera twice", omote_character_enable_camera(face, NULL), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_enable_camera");
  float cam[3] = {0.0f, nan, 1.0f};
  EXPECT("camera NaN", omote_character_set_camera(face, cam), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_set_camera");
  cam[1] = 0.3f;
  EXPECT("camera", omote_character_set_camera(face, cam), OMOTE_STATUS_OK, "");
  EXPECT("camera off", omote_character_set_camera(face, NULL), OMOTE_STATUS_OK, "");

  /* Lip sync. */
  OmoteTrack track;
  float samples[4800];
  for (int i = 0; i < 4800; i++) samples[i] = (float)(i % 100) / 100.0f - 0.5f;
  EXPECT("no samples", omote_analyse_voice(samples, 0, 48000.0, &track), OMOTE_STATUS_INVALID_ARGUMENT, "omote_analyse_voice");
  EXPECT("rate 0", omote_analyse_voice(samples, 4800, 0.0, &track), OMOTE_STATUS_INVALID_ARGUMENT, "omote_analyse_voice");
  EXPECT("rate NaN", omote_analyse_voice(samples, 4800, (double)nan, &track), OMOTE_STATUS_INVALID_ARGUMENT, "omote_analyse_voice");
  samples[10] = nan;
  EXPECT("NaN sample", omote_analyse_voice(samples, 4800, 48000.0, &track), OMOTE_STATUS_INVALID_ARGUMENT, "omote_analyse_voice");
  samples[10] = 0.0f;
  EXPECT("analyse", omote_analyse_voice(samples, 4800, 48000.0, &track), OMOTE_STATUS_OK, "");
  EXPECT("say a character as a track", omote_character_say(face, face, NULL, 0), OMOTE_STATUS_INVALID_HANDLE, "omote_character_say");
  OmoteWeight glow[1] = {{0, nan}};
  EXPECT("NaN afterglow", omote_character_say(face, track, glow, 1), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_say");
  glow[0].channel = 100000;
  glow[0].weight = 0.5f;
  EXPECT("afterglow channel out of range", omote_character_say(face, track, glow, 1), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_say");
  EXPECT("afterglow null", omote_character_say(face, track, NULL, 3), OMOTE_STATUS_NULL_POINTER, "omote_character_say");
  float frames[7] = {0};
  OmoteTrack bad;
  EXPECT("7 frame numbers", omote_track_from_frames(frames, 7, 100.0f, 0, 0, 0, &bad), OMOTE_STATUS_INVALID_ARGUMENT, "omote_track_from_frames");
  EXPECT("fps 0", omote_track_from_frames(frames, 6, 0.0f, 0, 0, 0, &bad), OMOTE_STATUS_INVALID_ARGUMENT, "omote_track_from_frames");
  EXPECT("has_voiced 3", omote_track_from_frames(frames, 6, 100.0f, 3, 0, 0, &bad), OMOTE_STATUS_INVALID_ARGUMENT, "has_voiced is 3: 0 (no speech), 1 (the span given) or 2 (the whole track)");
  {
    /* 2: the whole track is voiced, whatever the span numbers say. */
    OmoteTrack whole;
    uint32_t n = 0, has = 0;
    float fps = 0.0f;
    double start = -1.0, end = -1.0;
    EXPECT("whole track", omote_track_from_frames(frames, 6, 100.0f, 2, 5.0, 9.0, &whole), OMOTE_STATUS_OK, "");
    EXPECT("whole track info", omote_track_info(whole, &n, &fps, &has, &start, &end), OMOTE_STATUS_OK, "");
    if (has != 1 || start != 0.0 || end != 0.01) {
      printf("FAIL whole track: has %u, %g..%g\n", has, start, end);
      failures++;
    } else {
      printf("ok whole track: 0..0.01 s\n");
    }
    omote_track_free(whole);
  }
  OmoteVoiceStream stream;
  EXPECT("stream rate 1", omote_voice_stream_new(1.0, 0, &stream), OMOTE_STATUS_INVALID_ARGUMENT, "omote_voice_stream_new");
  EXPECT("stream", omote_voice_stream_new(48000.0, 0, &stream), OMOTE_STATUS_OK, "");
  float out[64];
  uint32_t written;
  EXPECT("stream buffer too small", omote_voice_stream_push(stream, samples, 4800, out, 64, &written), OMOTE_STATUS_BUFFER_TOO_SMALL, "omote_voice_stream_push");
  EXPECT("stream NaN", omote_voice_stream_push(stream, (float[]){nan}, 1, out, 64, &written), OMOTE_STATUS_INVALID_ARGUMENT, "omote_voice_stream_push");
  /* Voice profiles: the built-in one's text two-call style, a calibration that hears
   * nothing like its card, a text that is not a profile. */
  uint32_t profile_len = 0;
  EXPECT("builtin profile size", omote_builtin_voice_profile(NULL, 0, &profile_len), OMOTE_STATUS_BUFFER_TOO_SMALL, "omote_builtin_voice_profile");
  char *profile = malloc(profile_len + 1);
  EXPECT("builtin profile", omote_builtin_voice_profile(profile, profile_len + 1, &profile_len), OMOTE_STATUS_OK, "");
  if (strlen(profile) != profile_len || profile[0] != '{') {
    printf("FAIL builtin profile: %u bytes, `%.20s`\n", profile_len, profile);
    failures++;
  }
  float quiet[48000] = {0};
  char tiny[8];
  EXPECT("calibrate no samples", omote_calibrate_voice_from_card(quiet, 0, 48000.0, NULL, NULL, tiny, 8, &n), OMOTE_STATUS_INVALID_ARGUMENT, "omote_calibrate_voice_from_card");
  EXPECT("calibrate silence", omote_calibrate_voice_from_card(quiet, 48000, 48000.0, "ka ki", NULL, tiny, 8, &n), OMOTE_STATUS_INVALID_ARGUMENT, "heard 0 syllables, the card has 2");
  EXPECT("calibrate bad base", omote_calibrate_voice_from_card(quiet, 48000, 48000.0, NULL, "{}", tiny, 8, &n), OMOTE_STATUS_INVALID_ARGUMENT, "the voice profile");
  EXPECT("calibrate null len", omote_calibrate_voice_from_card(quiet, 48000, 48000.0, NULL, NULL, tiny, 8, NULL), OMOTE_STATUS_NULL_POINTER, "omote_calibrate_voice_from_card");
  OmoteVoiceStream profiled;
  EXPECT("stream bad profile", omote_voice_stream_new_with_profile(48000.0, 0, "[]", &profiled), OMOTE_STATUS_INVALID_ARGUMENT, "omote_voice_stream_new_with_profile");
  EXPECT("stream null profile", omote_voice_stream_new_with_profile(48000.0, 0, NULL, &profiled), OMOTE_STATUS_NULL_POINTER, "omote_voice_stream_new_with_profile");
  EXPECT("stream with profile", omote_voice_stream_new_with_profile(48000.0, 0, profile, &profiled), OMOTE_STATUS_OK, "");
  EXPECT("free profiled stream", omote_voice_stream_free(profiled), OMOTE_STATUS_OK, "");
  OmoteTrack profiled_track;
  EXPECT("analyse bad profile", omote_analyse_voice_with_profile(samples, 4800, 48000.0, "x", &profiled_track), OMOTE_STATUS_INVALID_ARGUMENT, "omote_analyse_voice_with_profile");
  EXPECT("analyse with profile", omote_analyse_voice_with_profile(samples, 4800, 48000.0, profile, &profiled_track), OMOTE_STATUS_OK, "");
  EXPECT("free profiled track", omote_track_free(profiled_track), OMOTE_STATUS_OK, "");
  free(profile);
  OmoteSpeaker speaker;
  char name_buf[64];
  uint32_t name_len;
  EXPECT("speaker", omote_speaker_new(&speaker), OMOTE_STATUS_OK, "");
  float seed[OMOTE_VOICE_SEED_LEN];
  EXPECT("voice seed short", omote_speaker_voice_seed(speaker, seed, 3), OMOTE_STATUS_INVALID_ARGUMENT, "omote_speaker_voice_seed");
  OmoteTrack file_track;
  EXPECT("analyse missing file", omote_analyse_voice_file("/no/such/line.wav", speaker, NULL, &file_track), OMOTE_STATUS_NOT_FOUND, "/no/such/line.wav");
  EXPECT("analyse null path", omote_analyse_voice_file(NULL, 0, NULL, &file_track), OMOTE_STATUS_NULL_POINTER, "omote_analyse_voice_file");
  EXPECT("analyse with a face for a speaker", omote_analyse_voice_file("/no/such/line.wav", face, NULL, &file_track), OMOTE_STATUS_INVALID_HANDLE, "omote_analyse_voice_file");
  EXPECT("warning of a freed track", omote_track_warning(profiled_track, name_buf, sizeof name_buf, &name_len), OMOTE_STATUS_INVALID_HANDLE, "omote_track_warning");
  EXPECT("hear NaN", omote_character_hear(face, stream, (float[]){nan}, 1), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_hear");

  /* Reading. */
  float *weights = malloc(n * sizeof *weights);
  EXPECT("weights short", omote_character_weights(face, weights, n - 1), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_weights");
  EXPECT("weights null", omote_character_weights(face, NULL, n), OMOTE_STATUS_NULL_POINTER, "omote_character_weights");
  EXPECT("rotations 11", omote_character_rotations(face, weights, 11), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_rotations");
  EXPECT("step with short weights", omote_character_step(face, 0.016f, weights, NULL, n + 1, NULL, NULL), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_step");
  char name[2];
  uint32_t len;
  EXPECT("name buffer small", omote_avatar_channel_name(avatar, 0, name, sizeof name, &len), OMOTE_STATUS_BUFFER_TOO_SMALL, "omote_avatar_channel_name");
  EXPECT("name of channel out of range", omote_avatar_channel_name(avatar, n, name, sizeof name, &len), OMOTE_STATUS_INVALID_ARGUMENT, "omote_avatar_channel_name");

  /* Scenes. */
  OmoteScene scene;
  EXPECT("scene missing", omote_scene_load("/no/such/scene.toml", &scene), OMOTE_STATUS_NOT_FOUND, "omote_scene_load");
  EXPECT("scene null text", omote_scene_from_text(NULL, "x.toml", NULL, NULL, &scene), OMOTE_STATUS_NULL_POINTER, "omote_scene_from_text");
  EXPECT("scene broken text", omote_scene_from_text("[[character]\n", "broken.toml", NULL, NULL, &scene), OMOTE_STATUS_LOAD_FAILED, "omote_scene_from_text");
  /* A WAV read as a scene: not UTF-8, and the error names the file it was read from. */
  EXPECT("scene of bytes that are not text", omote_scene_from_text("RIFF\x24\x80\xff\xfeWAVE", "voice.wav", NULL, NULL, &scene), OMOTE_STATUS_INVALID_ARGUMENT, "voice.wav: `text` is not UTF-8");
  EXPECT("scene of no characters", omote_scene_from_text("", "empty.toml", NULL, NULL, &scene), OMOTE_STATUS_LOAD_FAILED, "omote_scene_from_text");
  EXPECT("scene update on a character", omote_scene_update(face, 0.016f), OMOTE_STATUS_INVALID_HANDLE, "omote_scene_update");
  EXPECT("scene", omote_scene_from_text("[[character]]\nid = \"a\"\n", "one.toml", NULL, NULL, &scene), OMOTE_STATUS_OK, "");
  uint32_t scene_channels;
  EXPECT("scene channels", omote_scene_channel_count(scene, 0, &scene_channels), OMOTE_STATUS_OK, "");
  EXPECT("scene character out of range", omote_scene_channel_count(scene, 1, &scene_channels), OMOTE_STATUS_INVALID_ARGUMENT, "omote_scene_channel_count");
  EXPECT("scene update NaN", omote_scene_update(scene, nan), OMOTE_STATUS_OK, "");
  EXPECT("scene gaze at itself", omote_scene_set_gaze(scene, 0, "a"), OMOTE_STATUS_INVALID_ARGUMENT, "cannot look at itself");
  EXPECT("scene gaze at nobody", omote_scene_set_gaze(scene, 0, "nobody"), OMOTE_STATUS_INVALID_ARGUMENT, "omote_scene_set_gaze: `nobody` is neither");
  EXPECT("scene gaze not UTF-8", omote_scene_set_gaze(scene, 0, "\xff\xfe"), OMOTE_STATUS_INVALID_ARGUMENT, "omote_scene_set_gaze");
  EXPECT("scene gaze character out of range", omote_scene_set_gaze(scene, 1, "camera"), OMOTE_STATUS_INVALID_ARGUMENT, "character 1: the scene has 1 character");
  float inf_point[3] = {0.0f, INFINITY, 1.0f};
  EXPECT("scene gaze point infinite", omote_scene_set_gaze_point(scene, 0, inf_point), OMOTE_STATUS_INVALID_ARGUMENT, "not three finite numbers");
  EXPECT("scene eye mode unknown", omote_scene_set_eye_mode(scene, 0, "sleepy"), OMOTE_STATUS_INVALID_ARGUMENT, "omote_scene_set_eye_mode: `sleepy` is not an eye mode");
  EXPECT("scene gaze on a character", omote_scene_set_gaze(face, 0, "camera"), OMOTE_STATUS_INVALID_HANDLE, "omote_scene_set_gaze");
  EXPECT("scene placement null", omote_scene_set_placement(scene, 0, NULL, 0.0f), OMOTE_STATUS_NULL_POINTER, "omote_scene_set_placement");
  float place[3] = {0.5f, 1.4f, 0.0f};
  EXPECT("scene placement NaN facing", omote_scene_set_placement(scene, 0, place, nan), OMOTE_STATUS_INVALID_ARGUMENT, "not four finite numbers");
  EXPECT("scene placement", omote_scene_set_placement(scene, 0, place, 30.0f), OMOTE_STATUS_OK, "");
  EXPECT("scene gaze camera", omote_scene_set_gaze(scene, 0, "camera"), OMOTE_STATUS_OK, "");
  EXPECT("scene gaze given back", omote_scene_set_gaze_point(scene, 0, NULL), OMOTE_STATUS_OK, "");
  EXPECT("scene eye mode", omote_scene_set_eye_mode(scene, 0, "focused"), OMOTE_STATUS_OK, "");
  EXPECT("scene eye mode given back", omote_scene_set_eye_mode(scene, 0, NULL), OMOTE_STATUS_OK, "");
  float sw[8];
  EXPECT("scene weights short", omote_scene_weights(scene, 0, sw, 8), OMOTE_STATUS_INVALID_ARGUMENT, "omote_scene_weights");
  EXPECT("scene events null count", omote_scene_events(scene, NULL, 0, NULL), OMOTE_STATUS_NULL_POINTER, "omote_scene_events");
  OmoteAnims anims;
  EXPECT("scene bake fps NaN", omote_scene_bake(scene, nan, NULL, 0, NULL, 0, &anims), OMOTE_STATUS_INVALID_ARGUMENT, "omote_scene_bake");
  double presses[1] = {-1.0};
  EXPECT("scene bake negative press", omote_scene_bake(scene, 60.0f, presses, 1, NULL, 0, &anims), OMOTE_STATUS_INVALID_ARGUMENT, "omote_scene_bake");
  EXPECT("scene bake", omote_scene_bake(scene, 60.0f, NULL, 0, NULL, 0, &anims), OMOTE_STATUS_OK, "");
  uint8_t small[4];
  uint32_t size;
  EXPECT("anim json small buffer", omote_anims_json(anims, 0, small, sizeof small, &size), OMOTE_STATUS_BUFFER_TOO_SMALL, "omote_anims_json");
  EXPECT("anim vrma size query", omote_anims_vrma(anims, 0, NULL, 0, &size), OMOTE_STATUS_BUFFER_TOO_SMALL, "omote_anims_vrma");
  EXPECT("anim out of range", omote_anims_json(anims, 1, NULL, 0, &size), OMOTE_STATUS_INVALID_ARGUMENT, "omote_anims_json");
  EXPECT("finish a recording never started", omote_character_finish_recording(face, 0, &anims), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_finish_recording");
  EXPECT("record at 0 fps", omote_character_record(face, 0.0f), OMOTE_STATUS_INVALID_ARGUMENT, "omote_character_record");
  EXPECT("free anims", omote_anims_free(anims), OMOTE_STATUS_OK, "");
  uint32_t warnings = 99;
  EXPECT("scene warnings", omote_scene_warning_count(scene, &warnings), OMOTE_STATUS_OK, "");
  if (warnings != 0) {
    printf("FAIL a whole scene has %u warnings\n", warnings);
    failures++;
  }
  EXPECT("free scene", omote_scene_free(scene), OMOTE_STATUS_OK, "");
  EXPECT("free scene twice", omote_scene_free(scene), OMOTE_STATUS_INVALID_HANDLE, "omote_scene_free");

  /* A voice cut short is read (what is there) and the scene says so: a warning that
   * names the line and the file, never lost. */
  make_cut_wav();
  EXPECT("scene with a cut voice", omote_scene_from_text("[[character]]\nid = \"a\"\n[[character.line]]\nt = 0.5\naudio = \"voice/cut.wav\"\n", "game/scene.toml", read_cut, NULL, &scene), OMOTE_STATUS_OK, "");
  EXPECT("its warnings", omote_scene_warning_count(scene, &warnings), OMOTE_STATUS_OK, "");
  if (warnings != 1) {
    printf("FAIL a cut voice gives %u warnings, not 1\n", warnings);
    failures++;
  }
  char warning[512];
  EXPECT("warning buffer small", omote_scene_warning(scene, 0, warning, 8, &len), OMOTE_STATUS_BUFFER_TOO_SMALL, "omote_scene_warning");
  EXPECT("warning", omote_scene_warning(scene, 0, warning, sizeof warning, &len), OMOTE_STATUS_OK, "");
  if (strstr(warning, "game/scene.toml:5: character[0].line[0].audio: game/voice/cut.wav: ends 10000 bytes early") == NULL) {
    printf("FAIL the warning `%s` does not name the line, the file and the shortfall\n", warning);
    failures++;
  } else {
    printf("ok warning: %s\n", warning);
  }
  EXPECT("warning out of range", omote_scene_warning(scene, 1, warning, sizeof warning, &len), OMOTE_STATUS_INVALID_ARGUMENT, "omote_scene_warning");
  EXPECT("free scene with a cut voice", omote_scene_free(scene), OMOTE_STATUS_OK, "");

  /* Time: dt 0, negative, NaN, huge; outputs stay finite and in range. */
  float dts[] = {0.0f, -1.0f, nan, INFINITY, 3600.0f, 1e30f, 1.0f / 60.0f};
  for (unsigned k = 0; k < sizeof dts / sizeof dts[0]; k++) {
    EXPECT("odd dt", omote_character_update(face, dts[k]), OMOTE_STATUS_OK, "");
    EXPECT("weights", omote_character_weights(face, weights, n), OMOTE_STATUS_OK, "");
    for (uint32_t i = 0; i < n; i++) {
      if (!(weights[i] >= 0.0f && weights[i] <= 1.0f)) {
        printf("FAIL weight %u is %g after dt %g\n", i, weights[i], dts[k]);
        failures++;
      }
    }
  }
  free(weights);

  EXPECT("free track", omote_track_free(track), OMOTE_STATUS_OK, "");
  EXPECT("free stream", omote_voice_stream_free(stream), OMOTE_STATUS_OK, "");
  EXPECT("free speaker", omote_speaker_free(speaker), OMOTE_STATUS_OK, "");
  EXPECT("free face", omote_character_free(face), OMOTE_STATUS_OK, "");
  EXPECT("free avatar", omote_avatar_free(avatar), OMOTE_STATUS_OK, "");
  EXPECT("free avatar twice", omote_avatar_free(avatar), OMOTE_STATUS_INVALID_HANDLE, "omote_avatar_free");
  uint32_t live[7];
  EXPECT("live objects", omote_live_objects(live, 7), OMOTE_STATUS_OK, "");
  for (int i = 0; i < 7; i++) {
    if (live[i] != 0) {
      printf("FAIL kind %d has %u objects alive at the end\n", i, live[i]);
      failures++;
    }
  }
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
