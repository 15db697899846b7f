mod common;
use parvlc::huffman::{cpu, cuvle::{CuvleConfig, VleEncoder}, BitOrder, Codebook};
use parvlc::huffman::histogram::{histogram_cpu, total_histogram};

#[test]
fn smoke() {
    let gpu = common::gpu();
    eprintln!("adapter {} flavour {:?}", gpu.adapter_name(), gpu.flavour());
    let data = parvlc::testdata::generate(100_000, 4.5, 1);
    let hist = total_histogram(&histogram_cpu(&data, data.len()));
    let book = Codebook::from_frequencies(&hist, 32).unwrap();
    let table = book.table().unwrap();
    for order in [BitOrder::MsbFirst, BitOrder::LsbFirst] {
        let want = cpu::encode_serial(&data, &table, order, 5).unwrap();
        let enc = VleEncoder::new(gpu, CuvleConfig::default()).unwrap();
        let got = pollster::block_on(enc.encode(&data, &table, order, 5)).unwrap();
        assert_eq!(got.stream.bits, want.bits);
        assert!(got.stream.bytes == want.bytes, "mismatch {order:?}");
    }
}
