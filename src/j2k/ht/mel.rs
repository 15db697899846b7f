//! The MEL coder of the HT cleanup pass (T.814's adaptive run-length coder): a 13-state
//! machine that codes runs of 0 events (quads without significance in context 0, and in
//! the first quad row the "both u above 2" events), written MSB first with a 0 bit
//! stuffed after each 0xFF byte.

/// Run-length exponent of each state: a full run of 2^E zeros is one 1 bit.
const MEL_E: [u32; 13] = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5];

#[derive(Debug)]
pub struct MelEncoder {
    bytes: Vec<u8>,
    acc: u8,
    /// Bits still free in `acc` (at most 7 after a 0xFF byte).
    free: u32,
    /// Zeros seen since the last coded run.
    run: u32,
    state: usize,
}

impl Default for MelEncoder {
    fn default() -> Self {
        MelEncoder {
            bytes: Vec::new(),
            acc: 0,
            free: 8,
            run: 0,
            state: 0,
        }
    }
}

/// The MEL stream's bytes and its last, partial byte: `tail` holds its bits at the top,
/// `tail_mask` marks them (including the stuffed 0 after a 0xFF), 0 when there is none.
#[derive(Debug, PartialEq, Eq)]
pub struct MelBytes {
    pub bytes: Vec<u8>,
    pub tail: u8,
    pub tail_mask: u8,
}

impl MelEncoder {
    fn put_bit(&mut self, bit: bool) {
        self.acc = (self.acc << 1) | bit as u8;
        self.free -= 1;
        if self.free == 0 {
            self.bytes.push(self.acc);
            self.free = if self.acc == 0xFF { 7 } else { 8 };
            self.acc = 0;
        }
    }

    /// Code one event (true: the quad is significant, or the u event is 1).
    pub fn encode(&mut self, event: bool) {
        let e = MEL_E[self.state];
        if !event {
            self.run += 1;
            if self.run == 1 << e {
                self.put_bit(true);
                self.run = 0;
                self.state = (self.state + 1).min(12);
            }
        } else {
            // A 0, then how many zeros preceded the 1 in e bits.
            self.put_bit(false);
            for i in (0..e).rev() {
                self.put_bit((self.run >> i) & 1 == 1);
            }
            self.run = 0;
            self.state = self.state.saturating_sub(1);
        }
    }

    /// End the stream: an unfinished run is sent as a full one (the decoder stops before
    /// it needs the events past the end).
    pub fn finish(mut self) -> MelBytes {
        if self.run > 0 {
            self.put_bit(true);
        }
        let tail = ((self.acc as u32) << self.free) as u8;
        let tail_mask = ((0xFFu32 << self.free) & 0xFF) as u8;
        MelBytes {
            bytes: self.bytes,
            tail,
            tail_mask,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(m: &MelBytes) -> String {
        let mut s: String = m.bytes.iter().map(|b| format!("{b:08b}")).collect();
        let n = m.tail_mask.count_ones() as usize;
        s.push_str(&format!("{:08b}", m.tail)[..n]);
        s
    }

    fn run(events: &[u8]) -> String {
        let mut mel = MelEncoder::default();
        for &e in events {
            mel.encode(e == 1);
        }
        bits(&mel.finish())
    }

    #[test]
    fn events_by_hand() {
        // States 0-2 have E = 0: each 0 is a full run ("1"), each 1 is "0".
        assert_eq!(run(&[0]), "1");
        assert_eq!(run(&[1]), "0");
        // Three zeros take the state to 3 (E = 1): then "0 0" is one full run "1", and
        // "0 1" is a 1 after one zero: "0" then the run 1 in one bit, back to state 2.
        assert_eq!(run(&[0, 0, 0, 0, 0]), "1111");
        assert_eq!(run(&[0, 0, 0, 0, 1]), "11101");
        // In state 2 (E = 0) a 1 is "0" alone.
        assert_eq!(run(&[0, 0, 0, 0, 1, 1]), "111010");
        // An unfinished run at the end is sent as a full run: in state 3, one zero -> "1".
        assert_eq!(run(&[0, 0, 0, 0]), "1111");
        // A 1 straight after a state-0 start stays in state 0.
        assert_eq!(run(&[1, 1, 0]), "001");
    }

    #[test]
    fn long_runs_climb_to_state_12() {
        // States 0..12 need 1,1,1,2,2,2,4,4,4,8,8,16 zeros for their runs: 53 zeros reach
        // state 12 with 12 "1" bits; then 32 zeros are one more run. The first 8 bits
        // make 0xFF, so a 0 is stuffed before the ninth.
        let mut events = vec![0u8; 53 + 32];
        assert_eq!(run(&events), "11111111".to_owned() + "0" + "11111");
        // A 1 after 5 zeros in state 12 (E = 5): "0" and 00101.
        events.truncate(53);
        events.extend([0, 0, 0, 0, 0, 1]);
        assert_eq!(
            run(&events),
            "11111111".to_owned() + "0" + "1111" + "000101"
        );
    }

    #[test]
    fn a_zero_is_stuffed_after_ff() {
        // Eight full runs in states 0..: "11111111" is the byte 0xFF; the next byte
        // starts with the stuffed 0, so its bits sit at 6..0.
        let mut mel = MelEncoder::default();
        for _ in 0..53 + 32 + 16 {
            mel.encode(false);
        }
        let m = mel.finish();
        assert_eq!(m.bytes, vec![0xFF]);
        // Runs 9..=14: "111111" (6 bits) after the stuffed 0: 0111 1110.
        assert_eq!((m.tail, m.tail_mask), (0b0111_1110, 0b1111_1110));
    }
}
