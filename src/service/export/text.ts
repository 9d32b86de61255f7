/** Text clean-up shared by the exports. */

/** One line of plain text: control characters become spaces, runs of whitespace one space. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

export function cleanText(text: string): string {
  return text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
}

/** Cuts text to at most `max` characters at a word boundary where possible, marking the cut with "...". */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 3);
  const space = room.lastIndexOf(' ');
  return `${(space > max / 2 ? room.slice(0, space) : room).trimEnd()}...`;
}

export function speakerName(label: string, names: Record<string, string> | undefined): string {
  const name = names?.[label];
  return name && cleanText(name) ? cleanText(name) : label;
}

/** The file name without its extension ("take 1.wav" → "take 1"). */
export function baseName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}
