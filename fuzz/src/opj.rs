//! The OpenJPEG library (openjpeg-sys, built from its bundled sources) decoding a
//! codestream held in memory, as tests/j2k_openjpeg.rs does from a file.

use openjpeg_sys as opj;
use std::os::raw::c_void;

/// Width, height, and per component its precision, signedness and samples.
pub type Decoded = (u32, u32, Vec<(u32, bool, Vec<i32>)>);

/// The read position in the codestream; OpenJPEG's stream calls back with it.
struct Source<'a> {
    data: &'a [u8],
    pos: usize,
}

unsafe extern "C" fn read(buf: *mut c_void, n: usize, user: *mut c_void) -> usize {
    // SAFETY: `user` is the &mut Source given to opj_stream_set_user_data, alive for the
    // whole decode; `buf` has room for `n` bytes (OpenJPEG's contract).
    let s = unsafe { &mut *(user as *mut Source) };
    let left = s.data.len() - s.pos;
    if left == 0 {
        return usize::MAX; // (OPJ_SIZE_T)-1: end of stream
    }
    let k = n.min(left);
    unsafe { std::ptr::copy_nonoverlapping(s.data.as_ptr().add(s.pos), buf as *mut u8, k) };
    s.pos += k;
    k
}

unsafe extern "C" fn skip(n: i64, user: *mut c_void) -> i64 {
    // SAFETY: as in `read`.
    let s = unsafe { &mut *(user as *mut Source) };
    let to = s.pos as i64 + n;
    if to < 0 || to > s.data.len() as i64 {
        return -1;
    }
    s.pos = to as usize;
    n
}

unsafe extern "C" fn seek(to: i64, user: *mut c_void) -> i32 {
    // SAFETY: as in `read`.
    let s = unsafe { &mut *(user as *mut Source) };
    if to < 0 || to > s.data.len() as i64 {
        return 0;
    }
    s.pos = to as usize;
    1
}

unsafe extern "C" fn quiet(_msg: *const std::os::raw::c_char, _data: *mut c_void) {}

unsafe extern "C" fn count_error(_msg: *const std::os::raw::c_char, data: *mut c_void) {
    // SAFETY: `data` is the &mut u32 passed to opj_set_error_handler below.
    unsafe { *(data as *mut u32) += 1 };
}

/// Decode a J2K codestream; an error if OpenJPEG fails or reports any error.
pub fn opj_decode(codestream: &[u8]) -> Result<Decoded, String> {
    let mut source = Source {
        data: codestream,
        pos: 0,
    };
    let mut errors = 0u32;
    // SAFETY: plain use of the OpenJPEG C API; every object created is destroyed below,
    // pointers are checked before use, and `source` and `errors` outlive the codec.
    unsafe {
        let stream = opj::opj_stream_create(1 << 16, 1);
        if stream.is_null() {
            return Err("no stream".into());
        }
        opj::opj_stream_set_user_data(stream, &mut source as *mut Source as *mut c_void, None);
        opj::opj_stream_set_user_data_length(stream, codestream.len() as u64);
        opj::opj_stream_set_read_function(stream, Some(read));
        opj::opj_stream_set_skip_function(stream, Some(skip));
        opj::opj_stream_set_seek_function(stream, Some(seek));
        let codec = opj::opj_create_decompress(opj::CODEC_FORMAT::OPJ_CODEC_J2K);
        opj::opj_set_info_handler(codec, Some(quiet), std::ptr::null_mut());
        opj::opj_set_warning_handler(codec, Some(quiet), std::ptr::null_mut());
        opj::opj_set_error_handler(codec, Some(count_error), &mut errors as *mut u32 as *mut _);
        let mut params: opj::opj_dparameters_t = std::mem::zeroed();
        opj::opj_set_default_decoder_parameters(&mut params);
        let mut image: *mut opj::opj_image_t = std::ptr::null_mut();
        let ok = opj::opj_setup_decoder(codec, &mut params) != 0
            && opj::opj_read_header(stream, codec, &mut image) != 0
            && opj::opj_decode(codec, stream, image) != 0
            && opj::opj_end_decompress(codec, stream) != 0;
        let result = if ok && errors == 0 && !image.is_null() {
            let img = &*image;
            let comps = std::slice::from_raw_parts(img.comps, img.numcomps as usize);
            let planes = comps
                .iter()
                .map(|c| {
                    let n = (c.w * c.h) as usize;
                    let data = if c.data.is_null() {
                        Vec::new()
                    } else {
                        std::slice::from_raw_parts(c.data, n).to_vec()
                    };
                    (c.prec, c.sgnd != 0, data)
                })
                .collect();
            Ok((img.x1 - img.x0, img.y1 - img.y0, planes))
        } else {
            Err(format!("OpenJPEG failed ({errors} errors)"))
        };
        if !image.is_null() {
            opj::opj_image_destroy(image);
        }
        opj::opj_destroy_codec(codec);
        opj::opj_stream_destroy(stream);
        result
    }
}
