/**
 * The name a dub gets when none is given. A dub of the recording itself is named after the recording
 * ("readings-7min dub", then "readings-7min dub 2"…) rather than after its file: the studio's breadcrumb
 * shows the recording and the dub side by side, and a dub's exports are named after the dub, so the
 * recording's own file name would read twice there and download under the recording's export names.
 */
export function recordingDubName(recordingFileName: string, taken: Iterable<string>): string {
  const last = recordingFileName.split(/[/\\]/).at(-1) ?? '';
  const dot = last.lastIndexOf('.');
  const stem = (dot > 0 ? last.slice(0, dot) : last).trim() || 'recording';
  const names = new Set(taken);
  const base = `${stem} dub`;
  if (!names.has(base)) return base;
  for (let n = 2; ; n++) if (!names.has(`${base} ${n}`)) return `${base} ${n}`;
}
