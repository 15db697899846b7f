//! `parvlc demo` as a newcomer runs it: every codec once, each GPU result checked against
//! its CPU twin (lavapipe here).

mod common;

use common::cli::{parvlc, scratch, stderr};

#[test]
fn demo_runs_every_codec_and_checks_it() {
    let dir = scratch("demo", "all");
    let o = parvlc(&["demo", "--size", "200000"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("  ok").count(), 5, "{out}");
    assert!(
        out.contains("H.264 intra") && out.contains("same stream"),
        "{out}"
    );
    assert!(
        out.contains("JPEG 2000 lossless") && out.contains("same codestream"),
        "{out}"
    );
    assert!(stderr(&o).is_empty(), "no warnings: {}", stderr(&o));
}
