/**
 * Word error rate: text normalisation plus a word-level Levenshtein alignment.
 *
 * Normalisation (applied to reference and hypothesis alike, so neither side is favoured):
 * - Unicode NFKC, lower case, curly quotes and dashes folded to ASCII;
 * - digits become words as they are usually spoken: cardinals ("42" → "forty two", "1,000" → "one thousand"),
 *   four-digit numbers from 1100 to 1999 and 2010 to 2099 as years ("1455" → "fourteen fifty five"),
 *   ordinals ("21st" → "twenty first"), decimals ("3.5" → "three point five"), "%" → "percent",
 *   "$5" → "five dollars";
 * - "&" → "and"; "mr" → "mister" (the form ASR dictionaries use); other abbreviations are left alone
 *   because they are ambiguous ("st" is saint or street, "dr" doctor or drive);
 * - hyphens, slashes and other punctuation split or vanish; apostrophes inside words are kept
 *   ("don't"), leading/trailing ones dropped ("'em" → "em").
 */

export interface WerResult {
  /** (S + D + I) / N. With an empty reference: 0 if the hypothesis is empty too, else 1. */
  wer: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  /** Words in the normalised reference. */
  referenceWords: number;
  hits: number;
}

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: Array<[number, string]> = [
  [1e12, 'trillion'],
  [1e9, 'billion'],
  [1e6, 'million'],
  [1e3, 'thousand'],
];

function underHundred(n: number): string {
  if (n < 20) return ONES[n]!;
  const t = TENS[Math.floor(n / 10)]!;
  return n % 10 ? `${t} ${ONES[n % 10]}` : t;
}

function underThousand(n: number): string {
  const h = Math.floor(n / 100);
  const rest = n % 100;
  if (!h) return underHundred(rest);
  return rest ? `${ONES[h]} hundred ${underHundred(rest)}` : `${ONES[h]} hundred`;
}

/** Cardinal number in words ("1234" → "one thousand two hundred thirty four"). */
export function cardinalWords(n: number): string {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`not a non-negative integer: ${n}`);
  if (n === 0) return 'zero';
  const parts: string[] = [];
  let rest = n;
  for (const [value, name] of SCALES) {
    if (rest >= value) {
      parts.push(`${cardinalWords(Math.floor(rest / value))} ${name}`);
      rest %= value;
    }
  }
  if (rest) parts.push(underThousand(rest));
  return parts.join(' ');
}

/** A year as read aloud ("1455" → "fourteen fifty five", "1900" → "nineteen hundred"). */
export function yearWords(n: number): string {
  const hi = Math.floor(n / 100);
  const lo = n % 100;
  if (lo === 0) return `${underHundred(hi)} hundred`;
  return `${underHundred(hi)} ${lo < 10 ? `oh ${ONES[lo]}` : underHundred(lo)}`;
}

const ORDINAL_IRREGULAR: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};

function ordinalWords(n: number): string {
  const words = cardinalWords(n).split(' ');
  const last = words.pop()!;
  let ord: string;
  if (ORDINAL_IRREGULAR[last]) ord = ORDINAL_IRREGULAR[last]!;
  else if (last.endsWith('y')) ord = `${last.slice(0, -1)}ieth`;
  else ord = `${last}th`;
  return [...words, ord].join(' ');
}

function numberToken(digits: string, isYearCandidate: boolean): string {
  const n = Number(digits);
  if (!Number.isSafeInteger(n))
    return digits
      .split('')
      .map((d) => ONES[Number(d)])
      .join(' ');
  if (isYearCandidate && digits.length === 4 && ((n >= 1100 && n <= 1999) || (n >= 2010 && n <= 2099))) {
    return yearWords(n);
  }
  return cardinalWords(n);
}

function spellNumbers(text: string): string {
  return (
    text
      // "$5" / "$1,200.50": dollars (cents dropped into "point" reading would be wrong; read as "and N cents").
      .replace(/\$(\d[\d,]*)(?:\.(\d{2}))?\b/g, (_m, d: string, c?: string) => {
        const dollars = `${numberToken(d.replace(/,/g, ''), false)} dollars`;
        return c ? `${dollars} and ${cardinalWords(Number(c))} cents` : dollars;
      })
      .replace(/(\d+)(st|nd|rd|th)\b/g, (_m, d: string) => ordinalWords(Number(d)))
      .replace(/(\d[\d,]*)\.(\d+)/g, (_m, a: string, b: string) => {
        const whole = numberToken(a.replace(/,/g, ''), false);
        return `${whole} point ${b
          .split('')
          .map((x) => ONES[Number(x)])
          .join(' ')}`;
      })
      // Thousands separators only when they group by three ("1,000", not "1,2").
      .replace(/\d{1,3}(?:,\d{3})+\b/g, (m) => numberToken(m.replace(/,/g, ''), false))
      .replace(/\d+/g, (m) => numberToken(m, true))
      .replace(/%/g, ' percent')
  );
}

/** Normalised words of a text, for scoring. */
export function normalizeWords(text: string): string[] {
  let t = text.normalize('NFKC').toLowerCase();
  t = t.replace(/[\u2018\u2019\u02bc]/g, "'").replace(/[\u2010-\u2015]/g, '-');
  t = t.replace(/&/g, ' and ');
  t = spellNumbers(t);
  // Apostrophes survive only between letters ("don't"); every other non-alphanumeric splits words.
  t = t.replace(/[^\p{L}\p{N}']+/gu, ' ');
  const words: string[] = [];
  for (let w of t.split(' ')) {
    w = w.replace(/^'+|'+$/g, '');
    if (!w) continue;
    words.push(w === 'mr' ? 'mister' : w);
  }
  return words;
}

/** One step of an alignment: a reference word against a hypothesis word (a hit or a substitution), or either alone. */
export interface AlignStep {
  ref: number | null;
  hyp: number | null;
}

/** A minimum-cost word alignment (unit costs), in order from the first words to the last. */
export function alignmentPath(ref: readonly string[], hyp: readonly string[]): AlignStep[] {
  const n = ref.length;
  const m = hyp.length;
  // Full table so the backtrace can recover the path; utterances are short.
  const cost: Uint32Array[] = [];
  for (let i = 0; i <= n; i++) {
    const row = new Uint32Array(m + 1);
    row[0] = i;
    cost.push(row);
  }
  for (let j = 0; j <= m; j++) cost[0]![j] = j;
  for (let i = 1; i <= n; i++) {
    const row = cost[i]!;
    const prev = cost[i - 1]!;
    for (let j = 1; j <= m; j++) {
      const sub = prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      row[j] = Math.min(sub, prev[j]! + 1, row[j - 1]! + 1);
    }
  }
  const steps: AlignStep[] = [];
  let i = n,
    j = m;
  while (i > 0 || j > 0) {
    const here = cost[i]![j]!;
    if (i > 0 && j > 0 && here === cost[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) {
      steps.push({ ref: --i, hyp: --j });
    } else if (i > 0 && here === cost[i - 1]![j]! + 1) {
      steps.push({ ref: --i, hyp: null });
    } else {
      steps.push({ ref: null, hyp: --j });
    }
  }
  return steps.reverse();
}

/** Word-level Levenshtein alignment counts (unit costs) between two word lists. */
export function alignWords(ref: readonly string[], hyp: readonly string[]): WerResult {
  let s = 0,
    d = 0,
    ins = 0,
    hits = 0;
  for (const step of alignmentPath(ref, hyp)) {
    if (step.ref === null) ins++;
    else if (step.hyp === null) d++;
    else if (ref[step.ref] === hyp[step.hyp]) hits++;
    else s++;
  }
  const n = ref.length;
  const errors = s + d + ins;
  return {
    wer: n === 0 ? (errors ? 1 : 0) : errors / n,
    substitutions: s,
    deletions: d,
    insertions: ins,
    referenceWords: n,
    hits,
  };
}

/** WER of a hypothesis against a reference, both normalised with `normalizeWords`. */
export function wordErrorRate(reference: string, hypothesis: string): WerResult {
  return alignWords(normalizeWords(reference), normalizeWords(hypothesis));
}

/** Errors of a result: substitutions, deletions and insertions (the numerator of its WER). */
export function errorCount(r: Pick<WerResult, 'substitutions' | 'deletions' | 'insertions'>): number {
  return r.substitutions + r.deletions + r.insertions;
}

/** Pools several results: total errors over total reference words (not a mean of per-file rates). */
export function sumWer(results: readonly WerResult[]): WerResult {
  const total = { substitutions: 0, deletions: 0, insertions: 0, referenceWords: 0, hits: 0 };
  for (const r of results) {
    total.substitutions += r.substitutions;
    total.deletions += r.deletions;
    total.insertions += r.insertions;
    total.referenceWords += r.referenceWords;
    total.hits += r.hits;
  }
  const errors = errorCount(total);
  return { ...total, wer: total.referenceWords ? errors / total.referenceWords : errors ? 1 : 0 };
}
