//! JPEG 2000 Part 1 lossless encoding in fast mode (selective arithmetic coding bypass).

pub mod mq;
pub mod tier1;
