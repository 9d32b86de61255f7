/**
 * Progress reported from synchronous callbacks, written in the order it was reported: with a pool of
 * database connections, writes started one after another may otherwise land out of order, and a late
 * "running 40%" would overwrite "complete". A failed progress write is logged, never fatal (the job's own
 * result is what counts); `flush` waits for every write so far, before the final status is written.
 */
export interface OrderedWrites {
  push(write: () => Promise<unknown>): void;
  flush(): Promise<void>;
}

export function orderedWrites(onError: (error: unknown) => void): OrderedWrites {
  let tail: Promise<void> = Promise.resolve();
  return {
    push(write) {
      tail = tail.then(write).then(
        () => undefined,
        (error: unknown) => onError(error),
      );
    },
    flush: () => tail,
  };
}
