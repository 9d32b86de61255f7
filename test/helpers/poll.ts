/** Reads until `done` holds or `ms` pass, every 300 ms; answers the last value read (the caller asserts on it). */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 300_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}
