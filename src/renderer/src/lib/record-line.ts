/**
 * Records a dub line from the microphone: the count-in (`preRoll` seconds) and the line's slot are captured
 * in one go with getUserMedia + MediaRecorder, while the original line plays as a guide (headphones assumed)
 * when asked. The recording starts `preRoll` seconds before the line; the service cuts that off.
 */
export interface RecordLineOptions {
  /** Seconds of count-in before the line. */
  preRoll: number;
  /** The line's slot length in seconds: how long to record after the count-in. */
  slotSeconds: number;
  /** The original line to play as a guide from the end of the count-in (null: no guide). */
  guide: { url: string; start: number; end: number } | null;
  signal?: AbortSignal;
}

export async function recordLine(options: RecordLineOptions): Promise<Blob> {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
  const guide = options.guide ? new Audio(options.guide.url) : null;
  try {
    const recorder = new MediaRecorder(stream);
    const chunks: Blob[] = [];
    recorder.ondataavailable = (e) => e.data.size && chunks.push(e.data);
    const stopped = new Promise<void>((resolve) => (recorder.onstop = () => resolve()));
    if (guide) {
      guide.currentTime = options.guide!.start;
      await new Promise<void>((resolve) => {
        if (guide.readyState >= 1) resolve();
        else guide.addEventListener('loadedmetadata', () => resolve(), { once: true });
      });
    }
    recorder.start();
    const timers: number[] = [];
    if (guide) {
      timers.push(
        window.setTimeout(() => {
          guide.currentTime = options.guide!.start;
          void guide.play().catch(() => undefined);
        }, options.preRoll * 1000),
      );
    }
    const total = (options.preRoll + options.slotSeconds) * 1000;
    timers.push(window.setTimeout(() => recorder.state !== 'inactive' && recorder.stop(), total));
    options.signal?.addEventListener('abort', () => recorder.state !== 'inactive' && recorder.stop(), { once: true });
    await stopped;
    timers.forEach((t) => window.clearTimeout(t));
    options.signal?.throwIfAborted();
    return new Blob(chunks, { type: recorder.mimeType || 'audio/webm' });
  } finally {
    guide?.pause();
    stream.getTracks().forEach((t) => t.stop());
  }
}
