/**
 * A CMX3600 reader for tests: title, FCM, events with their source/record timecodes, and the comment
 * lines under each event (FROM CLIP NAME, LOC locators). Tolerant of spacing like real importers.
 */
export interface EdlLocator {
  timecode: string;
  colour: string;
  text: string;
}

export interface EdlEvent {
  number: number;
  reel: string;
  channels: string;
  transition: string;
  sourceIn: string;
  sourceOut: string;
  recordIn: string;
  recordOut: string;
  clipName: string | null;
  locators: EdlLocator[];
}

export interface Edl {
  title: string;
  dropFrame: boolean;
  /** Comment lines before the first event, without the leading "* ". */
  notes: string[];
  events: EdlEvent[];
}

const TC = String.raw`\d{2}:\d{2}:\d{2}[:;]\d{2}`;
const EVENT = new RegExp(
  String.raw`^(\d{3,6})\s+(\S{1,8})\s+(\S+)\s+(C|D|W\d{3}|K\s*B?)\s+(?:\d{3}\s+)?(${TC})\s+(${TC})\s+(${TC})\s+(${TC})\s*$`,
);
const LOC = new RegExp(String.raw`^\*\s*LOC:\s+(${TC})\s+(\S+)\s+(.*)$`);

export function parseEdl(text: string): Edl {
  const lines = text.split(/\r?\n/);
  let title: string | null = null;
  let fcm: string | null = null;
  const notes: string[] = [];
  const events: EdlEvent[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const event = EVENT.exec(line);
    const current = events.at(-1);
    if (line.startsWith('TITLE:')) {
      if (title !== null || events.length) throw new Error(`line ${i + 1}: TITLE must come first, once`);
      title = line.slice(6).trim();
    } else if (line.startsWith('FCM:')) {
      fcm = line.slice(4).trim();
      if (fcm !== 'DROP FRAME' && fcm !== 'NON-DROP FRAME')
        throw new Error(`line ${i + 1}: bad FCM "${fcm}"`);
    } else if (event) {
      const [, number, reel, channels, transition, sourceIn, sourceOut, recordIn, recordOut] =
        event as unknown as string[];
      events.push({
        number: Number(number),
        reel: reel!,
        channels: channels!,
        transition: transition!,
        sourceIn: sourceIn!,
        sourceOut: sourceOut!,
        recordIn: recordIn!,
        recordOut: recordOut!,
        clipName: null,
        locators: [],
      });
    } else if (line.startsWith('*')) {
      const loc = LOC.exec(line);
      if (loc && current) current.locators.push({ timecode: loc[1]!, colour: loc[2]!, text: loc[3]! });
      else if (current && /^\*\s*FROM CLIP NAME:/.test(line))
        current.clipName = line.replace(/^\*\s*FROM CLIP NAME:\s*/, '');
      else if (!current) notes.push(line.replace(/^\*\s*/, ''));
      else throw new Error(`line ${i + 1}: unexpected comment "${line}"`);
    } else {
      throw new Error(`line ${i + 1}: not CMX3600: "${line}"`);
    }
  }
  if (title === null) throw new Error('no TITLE');
  if (fcm === null) throw new Error('no FCM');
  return { title, dropFrame: fcm === 'DROP FRAME', notes, events };
}
