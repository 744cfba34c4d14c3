/*
 * ps-stream: one PocketSphinx decoder fed audio as it arrives, for live words (docs/recognition.md "Streaming
 * decoding"). `pocketsphinx_batch` can only decode whole files, so a live caller had to decode the turn again and
 * again; this decodes each frame once and reports the best words so far whenever asked.
 *
 * Arguments: the decoder's own (-hmm, -lm, -dict, ...). Input (stdin), records of a little-endian int32 n:
 *   n > 0   n samples follow (16 kHz, signed 16-bit little-endian) and are decoded;
 *   n == 0  print the best hypothesis so far of the utterance going on;
 *   n == -1 end the utterance going on (its words are dropped) and start a new one.
 * Output (stdout), one line each, flushed: "ready" once the models are loaded, then for each n == 0
 *   <frames decoded> (<unit> <first frame> <last frame>)*
 * with units as the decoder spells them (fillers, sentence marks and variant markers included).
 * Exit status: 0 at end of input, 2 bad arguments, 3 models failed to load, 4 decoder error, 5 bad input.
 */
#include <pocketsphinx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* One record's samples at most: 10 s, far more than a caller sends at once. */
#define MAX_SAMPLES (16000 * 10)

static int read_full(void *buf, size_t n) { return fread(buf, 1, n, stdin) == n; }

static void print_hypothesis(ps_decoder_t *ps) {
  printf("%d", ps_get_n_frames(ps));
  for (ps_seg_t *seg = ps_seg_iter(ps); seg; seg = ps_seg_next(seg)) {
    int first, last;
    ps_seg_frames(seg, &first, &last);
    printf(" %s %d %d", ps_seg_word(seg), first, last);
  }
  putchar('\n');
  fflush(stdout);
}

int main(int argc, char **argv) {
  cmd_ln_t *config = cmd_ln_parse_r(NULL, ps_args(), argc, argv, TRUE);
  if (config == NULL) return 2;
  ps_decoder_t *ps = ps_init(config);
  if (ps == NULL) return 3;
  static int16_t samples[MAX_SAMPLES];
  if (ps_start_utt(ps) < 0) return 4;
  puts("ready");
  fflush(stdout);
  int32_t n;
  while (read_full(&n, sizeof n)) {
    if (n > 0) {
      if (n > MAX_SAMPLES || !read_full(samples, (size_t)n * sizeof samples[0])) return 5;
      if (ps_process_raw(ps, samples, (size_t)n, FALSE, FALSE) < 0) return 4;
    } else if (n == 0) {
      print_hypothesis(ps);
    } else if (n == -1) {
      if (ps_end_utt(ps) < 0 || ps_start_utt(ps) < 0) return 4;
    } else {
      return 5;
    }
  }
  ps_end_utt(ps);
  ps_free(ps);
  cmd_ln_free_r(config);
  return 0;
}
