/* The demo scene played through omote's C API, its files read by the program itself.
 *
 *   ./scene examples/scenes/demo/scene.toml FRAMES [OUT_DIR]
 *
 * Loads the scene's text and hands omote a resolver (`read_file`) for the files it
 * names, as an engine whose assets are not plain files would; plays FRAMES frames at
 * 60 fps with waits moving on by themselves; prints every character's weights per frame
 * as the hex of their float bits, and the voice events as they come. With OUT_DIR it
 * also bakes the scene and writes each character's anim JSON and VRMA there.
 * crates/omote-ffi/tests/c_example.rs checks the frames against `omote bake`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omote.h"

#define CHECK(call)                                                              \
  do {                                                                           \
    if ((call) != OMOTE_STATUS_OK) {                                             \
      fprintf(stderr, "omote: %s\n", omote_last_error());                        \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

/* A whole file into memory; NULL if it cannot be read. */
static unsigned char *slurp(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *bytes = malloc(*len + 1);
  if (fread(bytes, 1, *len, f) != (size_t)*len) *len = -1;
  fclose(f);
  bytes[*len < 0 ? 0 : *len] = 0;
  return bytes;
}

/* The resolver: asked whether a file exists (sink NULL), or for its bytes. */
static int32_t read_file(void *user, const char *path, OmoteFileSink *sink) {
  (void)user;
  long len;
  unsigned char *bytes = slurp(path, &len);
  if (!bytes || len < 0) return 1;
  if (sink) omote_file_sink_write(sink, bytes, (uint32_t)len);
  free(bytes);
  return 0;
}

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static void write_out(const char *dir, const char *name, const char *ext, const uint8_t *bytes,
                      uint32_t len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, len, f) != len) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: scene SCENE.toml FRAMES [OUT_DIR]\n");
    return 2;
  }
  long len;
  char *text = (char *)slurp(argv[1], &len);
  if (!text || len < 0) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  OmoteScene scene;
  CHECK(omote_scene_from_text(text, argv[1], read_file, NULL, &scene));
  free(text);
  CHECK(omote_scene_set_auto_advance(scene, 1));

  uint32_t characters;
  CHECK(omote_scene_character_count(scene, &characters));
  float *weights[16];
  uint32_t counts[16];
  for (uint32_t i = 0; i < characters && i < 16; i++) {
    CHECK(omote_scene_channel_count(scene, i, &counts[i]));
    weights[i] = malloc(counts[i] * sizeof(float));
  }

  int frames = atoi(argv[2]);
  OmoteSceneEvent events[64];
  for (int frame = 0; frame < frames; frame++) {
    CHECK(omote_scene_update(scene, 1.0f / 60.0f));
    uint32_t n;
    CHECK(omote_scene_events(scene, events, 64, &n));
    for (uint32_t k = 0; k < n; k++) {
      if (events[k].kind == 0) {
        char clip[256];
        uint32_t clip_len;
        CHECK(omote_scene_line_clip(scene, (uint32_t)events[k].character, (uint32_t)events[k].index,
                                    clip, sizeof clip, &clip_len));
        fprintf(stderr, "%.3f s: character %d says %s\n", events[k].t, events[k].character, clip);
      }
    }
    printf("%d", frame);
    for (uint32_t i = 0; i < characters && i < 16; i++) {
      CHECK(omote_scene_weights(scene, i, weights[i], counts[i]));
      printf(" |");
      for (uint32_t c = 0; c < counts[i]; c++) printf(" %08x", bits(weights[i][c]));
    }
    printf("\n");
  }

  if (argc > 3) {
    OmoteAnims anims;
    CHECK(omote_scene_bake(scene, 60.0f, NULL, 0, NULL, 0, &anims));
    uint32_t count;
    CHECK(omote_anims_count(anims, &count));
    for (uint32_t i = 0; i < count; i++) {
      char id[256];
      uint32_t id_len, size;
      CHECK(omote_anims_id(anims, i, id, sizeof id, &id_len));
      /* Two calls: the size, then the bytes. */
      omote_anims_json(anims, i, NULL, 0, &size);
      uint8_t *json = malloc(size);
      CHECK(omote_anims_json(anims, i, json, size, &size));
      write_out(argv[3], id, ".anim.json", json, size);
      free(json);
      if (omote_anims_vrma(anims, i, NULL, 0, &size) == OMOTE_STATUS_BUFFER_TOO_SMALL) {
        uint8_t *vrma = malloc(size);
        CHECK(omote_anims_vrma(anims, i, vrma, size, &size));
        write_out(argv[3], id, ".vrma", vrma, size);
        free(vrma);
      }
    }
    CHECK(omote_anims_free(anims));
  }

  for (uint32_t i = 0; i < characters && i < 16; i++) free(weights[i]);
  CHECK(omote_scene_free(scene));
  return 0;
}
