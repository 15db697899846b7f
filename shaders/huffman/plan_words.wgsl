// Where each part of a frame plan lies in its words (a plan of `n` cells, a frame's parts
// at the slot of its first cell `c`): at c the frame's cells (0: no frame starts there);
// at `plan_info` its code bits and deepest leaf; at `plan_lengths` its code lengths, four
// a word, the first in the low byte; at `plan_hist` its histogram. The frame plan writes
// a plan, the DEFLATE headers read it.
// keep in sync with src/huffman/frame_plan.rs `PlanWords`

const PLAN_LENGTH_WORDS: u32 = 65u;

fn plan_info(n: u32, c: u32) -> u32 {
    return n + 2u * c;
}

fn plan_lengths(n: u32, c: u32) -> u32 {
    return 3u * n + PLAN_LENGTH_WORDS * c;
}

fn plan_hist(n: u32, c: u32) -> u32 {
    return (3u + PLAN_LENGTH_WORDS) * n + 256u * c;
}
