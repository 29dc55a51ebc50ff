import {
  CHECKPOINT_MAX_DELAY_MS,
  CHECKPOINT_MIN_DELAY_MS,
  nextCheckpointDelay,
} from './sqlite-checkpoints';

const pass = (log: number, checkpointed: number) => ({ busy: 0, log, checkpointed });

describe('nextCheckpointDelay', () => {
  it('passes again soon after the first pass and while the log changes', () => {
    expect(nextCheckpointDelay(CHECKPOINT_MAX_DELAY_MS, undefined, pass(0, 0))).toBe(
      CHECKPOINT_MIN_DELAY_MS,
    );
    // New frames were written since the last pass.
    expect(nextCheckpointDelay(640, pass(100, 100), pass(180, 180))).toBe(CHECKPOINT_MIN_DELAY_MS);
    // The same frames, more of them copied (a reader held some back last time).
    expect(nextCheckpointDelay(640, pass(180, 120), pass(180, 180))).toBe(CHECKPOINT_MIN_DELAY_MS);
    // The log started over and holds as many frames as before: still a change.
    expect(nextCheckpointDelay(640, pass(180, 180), pass(40, 40))).toBe(CHECKPOINT_MIN_DELAY_MS);
  });

  it('doubles the delay while nothing changes, up to a second', () => {
    let delay = CHECKPOINT_MIN_DELAY_MS;
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      delay = nextCheckpointDelay(delay, pass(50, 50), pass(50, 50));
      seen.push(delay);
    }
    expect(seen).toEqual([40, 80, 160, 320, 640, 1000, 1000, 1000]);
  });
});
