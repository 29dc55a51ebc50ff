/** The middle value of `xs` (the upper one of an even count): the benches' summary of repeats. */
export const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
