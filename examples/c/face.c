/* A face for 10 s with a voice line, through omote's C API.
 *
 * Build (from the repository root, after `cargo build --release -p omote-ffi`):
 *   cc -std=c11 -O2 -ffp-contract=off -Iinclude examples/c/face.c \
 *      -Ltarget/release -lomote_ffi -Wl,-rpath,$PWD/target/release -o face
 *   ./face > frames.txt
 *   ./face examples/scenes/demo/voice/aoi_1.wav > frames.txt   (the line from a file)
 *
 * It prints one line per frame: the frame number, then every weight (after the VRM
 * override rules) and the 12 rotation numbers as the hex of their float bits, then the
 * frame's events. crates/omote-ffi/tests/c_example.rs compares that, bit for bit, with
 * the same calls made through the Rust API. A summary a person can read goes to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omote.h"

/* Every call returns a status; on failure the message says which call and why. */
#define CHECK(call)                                                              \
  do {                                                                           \
    if ((call) != OMOTE_STATUS_OK) {                                             \
      fprintf(stderr, "omote: %s\n", omote_last_error());                        \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

#define RATE 48000
#define LINE_SAMPLES (RATE * 3 / 2)
#define FRAMES 600

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* A 1.5 s "line": 0.25 s of silence, a second of a buzzing voice-like sound (a
 * pseudo-random generator, integer arithmetic so every language makes the same
 * samples), 0.25 s of silence. */
static void make_line(float *samples) {
  uint32_t state = 12345;
  for (int i = 0; i < LINE_SAMPLES; i++) {
    state = state * 1103515245u + 12345u;
    float noise = (float)((state >> 16) & 0x7fff) / 32768.0f - 0.5f;
    float buzz = (float)(i % 240) / 240.0f - 0.5f; /* a 200 Hz sawtooth */
    int voiced = i >= RATE / 4 && i < RATE * 5 / 4;
    samples[i] = voiced ? 0.5f * buzz + 0.1f * noise : 0.001f * noise;
  }
}

/* The line from an audio file (WAV, FLAC, Ogg/Vorbis, MP3), decoded by omote as the CLI
 * reads it: mono samples at 16 kHz. An engine would hand over the samples it has. */
static OmoteTrack analyse_file(const char *path) {
  OmoteVoiceFile file;
  CHECK(omote_voice_file_load(path, &file));
  uint32_t count, has_warning;
  double rate;
  CHECK(omote_voice_file_info(file, &count, &rate, &has_warning));
  if (has_warning) { /* a WAV cut short: what is there is used */
    uint32_t len = 0; /* the length first (BUFFER_TOO_SMALL), then the text */
    omote_voice_file_warning(file, NULL, 0, &len);
    char *text = malloc(len + 1);
    if (!text) exit(1);
    CHECK(omote_voice_file_warning(file, text, len + 1, &len));
    fprintf(stderr, "omote: %s\n", text);
    free(text);
  }
  float *samples = calloc(count ? count : 1, sizeof *samples);
  if (!samples) exit(1);
  CHECK(omote_voice_file_samples(file, samples, count));
  CHECK(omote_voice_file_free(file));
  OmoteTrack track;
  CHECK(omote_analyse_voice(samples, count, rate, &track));
  free(samples);
  return track;
}

int main(int argc, char **argv) {
  if (argc > 2) {
    fprintf(stderr, "usage: %s [VOICE_FILE] > frames.txt  (WAV, FLAC, Ogg/Vorbis or MP3)\n", argv[0]);
    return 2;
  }
  if (omote_abi_version() != OMOTE_ABI_VERSION || omote_abi_minor() < OMOTE_ABI_MINOR) {
    fprintf(stderr, "omote: the library's ABI is %u.%u, this program needs %u.%u or a later .minor\n",
            omote_abi_version(), omote_abi_minor(), OMOTE_ABI_VERSION, OMOTE_ABI_MINOR);
    return 1;
  }

  OmoteAvatar avatar;
  CHECK(omote_avatar_builtin(0, &avatar));
  OmoteCharacter face;
  CHECK(omote_character_new(avatar, 7, &face));
  uint32_t n;
  CHECK(omote_character_channel_count(face, &n));

  OmoteTrack track;
  if (argc > 1) {
    track = analyse_file(argv[1]);
  } else {
    static float line[LINE_SAMPLES];
    make_line(line);
    CHECK(omote_analyse_voice(line, LINE_SAMPLES, RATE, &track));
  }

  /* The acting: a light smile, eyes on a point ahead and to the left. */
  CHECK(omote_character_set_expression_named(face, "happy", 0.4f));
  CHECK(omote_character_set_gaze_target(face, 0.3f, -0.1f, 1.0f));

  uint32_t happy;
  CHECK(omote_character_channel_id(face, "happy", &happy));
  static const char *const MOUTHS[5] = {"aa", "ih", "ou", "ee", "oh"};
  uint32_t mouth[5];
  for (int k = 0; k < 5; k++) CHECK(omote_character_channel_id(face, MOUTHS[k], &mouth[k]));
  float widest = 0.0f;
  int widest_at = 0, widest_k = 0, voice_at = -1;
  unsigned blinks = 0;
  OmoteWeight afterglow[1] = {{happy, 0.3f}};

  float *weights = malloc(n * sizeof *weights);
  float *input = malloc(n * sizeof *input);
  float rotations[12];
  OmoteFrameEvents events;
  for (int frame = 0; frame < FRAMES; frame++) {
    if (frame == 60) CHECK(omote_character_say(face, track, afterglow, 1));
    CHECK(omote_character_step(face, 1.0f / 60.0f, weights, input, n, rotations,
                               &events));
    printf("%d", frame);
    for (uint32_t i = 0; i < n; i++) printf(" %08x", bits(weights[i]));
    for (uint32_t i = 0; i < n; i++) printf(" %08x", bits(input[i]));
    for (int i = 0; i < 12; i++) printf(" %08x", bits(rotations[i]));
    printf(" | %u %u %u %u\n", events.blinks, events.saccades, events.voice_started,
           events.handed_over);
    for (int k = 0; k < 5; k++)
      if (weights[mouth[k]] > widest) widest = weights[mouth[k]], widest_at = frame, widest_k = k;
    if (events.voice_started && voice_at < 0) voice_at = frame;
    blinks += events.blinks;
  }
  /* A frame's time is the end of its step: frame k shows (k + 1) / 60 s. */
  fprintf(stderr, "face: %d frames at 60 fps, %u channels; ", FRAMES, n);
  if (voice_at < 0)
    fprintf(stderr, "the voice never started; ");
  else
    fprintf(stderr, "the voice started at %.2f s, the mouth opened widest (%s %.2f) at %.2f s; ",
            (voice_at + 1) / 60.0, MOUTHS[widest_k], widest, (widest_at + 1) / 60.0);
  fprintf(stderr, "%u blinks\n", blinks);

  free(weights);
  free(input);
  CHECK(omote_track_free(track));
  CHECK(omote_character_free(face));
  CHECK(omote_avatar_free(avatar));
  return 0;
}
