/**
 * The transcript bar's note on what corrections taught the recognizer: how much corrected speech
 * of each of the recording's speakers their adaptation uses ("3 corrected minutes of Ada: Ada's next
 * recordings are recognized with them").
 */
export interface LearntSpeaker {
  name: string;
  correctedSeconds: number;
}

/** "40 corrected seconds", "1 corrected minute", "3 corrected minutes" (whole minutes from 90 s on). */
export function correctedAmount(seconds: number): string {
  if (seconds < 90) {
    const s = Math.max(1, Math.round(seconds));
    return `${s} corrected ${s === 1 ? 'second' : 'seconds'}`;
  }
  const m = Math.round(seconds / 60);
  return `${m} corrected ${m === 1 ? 'minute' : 'minutes'}`;
}

/** The note for the speakers with corrected speech behind their adaptation, or null when none has any. */
export function learningNote(speakers: readonly LearntSpeaker[]): string | null {
  const taught = speakers.filter((s) => s.correctedSeconds > 0).sort((a, b) => b.correctedSeconds - a.correctedSeconds);
  if (taught.length === 0) return null;
  const [first, ...rest] = taught;
  const head = `${correctedAmount(first!.correctedSeconds)} of ${first!.name}: ${first!.name}’s next recordings are recognized with them`;
  if (rest.length === 0) return head;
  return `${head}; also ${rest.map((s) => `${correctedAmount(s.correctedSeconds)} of ${s.name}`).join(', ')}`;
}
