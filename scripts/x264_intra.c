/* The peer for `parvlc h264` on the GPU machine, which has no FFmpeg: libx264 (the
 * library FFmpeg's libx264 encoder wraps) coding a Y4M 4:2:0 8-bit file as intra-only
 * Baseline at a fixed QP, files in and files out, as `ffmpeg -c:v libx264 -profile:v
 * baseline -g 1 -qp Q -preset P` does, except that the pictures are coded at QP itself
 * (FFmpeg's -qp with -g 1 codes them at QP - 3, x264's I/P offset); x264's default
 * threads (all cores).
 *
 *   cc -O2 -o x264_intra scripts/x264_intra.c -lx264
 *   x264_intra PRESET QP IN.y4m OUT.264
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x264.h>

static int fail(const char *what) {
    fprintf(stderr, "x264_intra: %s\n", what);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 5) return fail("usage: x264_intra PRESET QP IN.y4m OUT.264");
    FILE *in = fopen(argv[3], "rb");
    FILE *out = fopen(argv[4], "wb");
    if (!in || !out) return fail("cannot open the input or the output");
    char line[256];
    if (!fgets(line, sizeof line, in) || strncmp(line, "YUV4MPEG2 ", 10)) return fail("not Y4M");
    int w = 0, h = 0, fps_n = 25, fps_d = 1;
    for (char *t = strtok(line + 10, " \n"); t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W') w = atoi(t + 1);
        if (t[0] == 'H') h = atoi(t + 1);
        if (t[0] == 'F') sscanf(t + 1, "%d:%d", &fps_n, &fps_d);
        if (t[0] == 'C' && strncmp(t, "C420", 4)) return fail("4:2:0 8-bit only");
    }
    if (w <= 0 || h <= 0 || (w & 1) || (h & 1)) return fail("even width and height only");
    x264_param_t p;
    if (x264_param_default_preset(&p, argv[1], NULL) < 0) return fail("unknown preset");
    p.i_width = w;
    p.i_height = h;
    p.i_csp = X264_CSP_I420;
    p.i_fps_num = fps_n;
    p.i_fps_den = fps_d;
    p.i_keyint_max = 1; /* -g 1: every picture intra */
    p.rc.i_rc_method = X264_RC_CQP;
    p.rc.i_qp_constant = atoi(argv[2]);
    p.rc.f_ip_factor = 1.0f; /* intra pictures at QP itself, not QP - 3 */
    p.i_log_level = X264_LOG_WARNING;
    p.b_annexb = 1;
    p.b_repeat_headers = 1;
    if (x264_param_apply_profile(&p, "baseline") < 0) return fail("baseline profile");
    x264_t *enc = x264_encoder_open(&p);
    if (!enc) return fail("x264_encoder_open");
    x264_picture_t pic, pic_out;
    if (x264_picture_alloc(&pic, X264_CSP_I420, w, h) < 0) return fail("picture");
    size_t luma = (size_t)w * h, chroma = luma / 4;
    x264_nal_t *nals;
    int n_nals, frames = 0;
    long long bytes = 0;
    char tag[64];
    while (fgets(tag, sizeof tag, in)) {
        if (strncmp(tag, "FRAME", 5)) return fail("a frame header");
        if (fread(pic.img.plane[0], 1, luma, in) != luma ||
            fread(pic.img.plane[1], 1, chroma, in) != chroma ||
            fread(pic.img.plane[2], 1, chroma, in) != chroma)
            return fail("a truncated frame");
        pic.i_pts = frames++;
        int size = x264_encoder_encode(enc, &nals, &n_nals, &pic, &pic_out);
        if (size < 0) return fail("x264_encoder_encode");
        if (size && fwrite(nals[0].p_payload, 1, size, out) != (size_t)size) return fail("write");
        bytes += size;
    }
    while (x264_encoder_delayed_frames(enc)) {
        int size = x264_encoder_encode(enc, &nals, &n_nals, NULL, &pic_out);
        if (size < 0) return fail("x264_encoder_encode (flush)");
        if (size && fwrite(nals[0].p_payload, 1, size, out) != (size_t)size) return fail("write");
        bytes += size;
    }
    x264_encoder_close(enc);
    x264_picture_clean(&pic);
    if (fclose(out)) return fail("closing the output");
    fprintf(stderr, "x264_intra %s QP %s: %d frames %dx%d, %lld bytes\n", argv[1], argv[2],
            frames, w, h, bytes);
    return 0;
}
